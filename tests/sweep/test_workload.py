"""Recorded launches as a sweep's workload (``mtiacc/sweep/workload.py``) and the design-space exploration over
them (``benchmarks/dse.py --zoo``): a program's Triton launches recorded as the zoo records a model's
(``benchmarks/zoo/launches.py``), run again on other machines, compiled again where the compiler's view of the
machine changes, and answered by the content cache the second time."""
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

from benchmarks.zoo.launches import recording  # noqa: E402
from mtiacc.sweep.workload import MachinePoint, load_recording, recorded_dependence, run_workload  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")

KERNELS = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def matmul(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(B + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(a, b)
        tl.store(C + rm[:, None] * N + rn[None, :], acc)


    @triton.jit
    def add(X, Y, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m) + tl.load(Y + offs, mask=m), mask=m)


    @triton.jit
    def gather(X, I, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + tl.load(I + offs, mask=m), mask=m), mask=m)
    ''')
LMEM = 393216          # mtia2i's local memory; a 64 x 64 x 64 fp32 tile is planned differently in a quarter of it


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A program's launches, recorded: a GEMM, then x + y, y + y, x + y again (the launcher remembers only its
    last launch, so the third is simulated again, on the same bytes as the first), the same add once more on the
    same memory (replayed from the launcher's memory: the recording counts it, no new simulation), z + y (other
    values, the same sizes), and two gathers of x by two different index vectors of one size."""
    folder = tmp_path_factory.mktemp("workload")
    mp = pytest.MonkeyPatch()
    mp.setenv("MTIACC_CACHE_DIR", str(folder / "cache"))
    (folder / "kernels.py").write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("workload_kernels", folder / "kernels.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(128, 128, generator=g), torch.randn(128, 128, generator=g)
    c = torch.empty(128, 128)
    x, y = torch.randn(3000, generator=g), torch.randn(3000, generator=g)
    outs = [torch.zeros(3000) for _ in range(3)]
    z, zy = torch.randn(3000, generator=g), torch.zeros(3000)
    # the first gather reads x in order, the second all over it
    indices = [torch.arange(3000, dtype=torch.int32), torch.randint(0, 3000, (3000,), generator=g, dtype=torch.int32)]
    gathered = [torch.zeros(3000) for _ in range(2)]
    with recording(folder / "launches" / "prog") as count:
        mod.matmul[(2, 2)](a, b, c, 128, 128, 128, BM=64, BN=64, BK=64)
        for first, out in zip((x, y, x), outs):
            mod.add[(3,)](first, y, out, 3000, BLOCK=1024)   # y + y: X and Y share a buffer
        outs[2].zero_()       # the same bytes at the same addresses as the last launch found
        mod.add[(3,)](x, y, outs[2], 3000, BLOCK=1024)
        mod.add[(3,)](z, y, zy, 3000, BLOCK=1024)
        for idx, out in zip(indices, gathered):
            mod.gather[(3,)](x, idx, out, 3000, BLOCK=1024)
    torch.testing.assert_close(c, a @ b, rtol=1e-3, atol=1e-3)
    torch.testing.assert_close(outs[2], x + y)
    torch.testing.assert_close(zy, z + y)
    torch.testing.assert_close(gathered[1], x[indices[1]])
    assert count[0] == 7
    yield folder
    mp.undo()


def test_the_recording_keeps_compiles_and_what_the_report_counts(recorded):
    index = json.loads((recorded / "launches" / "prog" / "index.json").read_text())
    assert [(e["kernel"], e["weight"]) for e in index["launches"]] == [
        ("matmul", 1), ("add", 1), ("add", 1), ("add", 2), ("add", 1), ("gather", 1), ("gather", 1)]
    recs = [load_recording(recorded / "launches" / "prog" / e["file"]) for e in index["launches"]]
    assert recs[0].compile is not None and str(recorded / "kernels.py") in recs[0].sources
    # the GEMM's and the add's cycles cannot depend on the values; the gather's addresses are values it loaded
    assert recorded_dependence(recs[0].compile, recs[0].sources) is None
    assert recorded_dependence(recs[1].compile, recs[1].sources) is None
    assert recorded_dependence(recs[5].compile, recs[5].sources) == \
        "tt.load: its ptr is computed from values read from memory"


def test_workload_on_three_machines_recompiles_for_local_memory_only_and_merges(recorded, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(recorded / "cache-a"))
    folder = recorded / "launches" / "prog"
    recs = [load_recording(p) for p in sorted(folder.glob("*.pkl"))]
    index = json.loads((folder / "index.json").read_text())["launches"]
    points = [MachinePoint(), MachinePoint(set=(("pe.local_memory_bytes", LMEM // 4),)),
              MachinePoint(set=(("memory.dram.bw_bytes_per_s", 51.2e9),))]
    out, stats = run_workload(recs, points, jobs=2)
    # mtia2i: the recorded cycles, with the recorded binaries
    assert [r[0]["cycles"] for r in out] == [e["cycles"] for e in index]
    # a quarter of the local memory: the GEMM compiled again, to other code and other cycles; the rest as they were
    assert out[0][1]["status"] == "ok" and out[0][1]["binary"] != out[0][0]["binary"]
    assert out[0][1]["cycles"] != out[0][0]["cycles"]
    assert all(r[1]["binary"] == r[0]["binary"] and r[1]["cycles"] == r[0]["cycles"] for r in out[1:])
    # a quarter of the DRAM bandwidth: nothing compiled, every launch slower
    assert all(r[2]["binary"] == r[0]["binary"] and r[2]["cycles"] > r[0]["cycles"] for r in out)
    # the gather's cycles follow its indices: reading x all over it costs more than in order
    assert out[6][2]["cycles"] > out[5][2]["cycles"]
    # three compiles at the smaller local memory (the GEMM; the add, whose launches share one, y + y too: memory
    # shared by parameters the kernel only reads needs no variant of its own; the gather), none at the other
    # points.  On every machine the third add is the first one's simulation (same binary, same bytes), and so is
    # the add of z (same sizes: the add's cycles do not depend on values); y + y (one buffer for X and Y: another
    # layout) and the gathers are simulated each
    assert (stats.compiled, stats.merged, stats.merged_by_layout, stats.simulated, stats.cached, stats.failed,
            stats.independent) == (3, 3, 3, 15, 0, 0, 5)
    again, stats = run_workload(recs, points, jobs=2)
    assert again == out
    assert (stats.compiled, stats.compile_cached, stats.simulated, stats.cached) == (0, 7, 0, 21)
    # without merging, each launch simulated on its own bytes: the same results
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(recorded / "cache-c"))
    alone, stats = run_workload(recs, points, jobs=2, merge=False)
    assert alone == out
    assert (stats.merged, stats.merged_by_layout, stats.simulated) == (3, 0, 18)


def test_a_local_memory_the_kernel_cannot_fit_is_an_error_for_its_launch(recorded, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(recorded / "cache-b"))
    recs = [load_recording(recorded / "launches" / "prog" / "0000.pkl")]
    out, stats = run_workload(recs, [MachinePoint(set=(("pe.local_memory_bytes", 32768),))], jobs=1)
    assert out[0][0]["status"] == "error" and "local memory" in out[0][0]["error"]
    assert out[0][0]["cycles"] is None and stats.failed == 1


def test_dse_over_recorded_launches_two_points_then_all_from_the_cache(recorded, tmp_path):
    env = {"MTIACC_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
           "MPLBACKEND": "Agg"}
    cmd = [sys.executable, str(ROOT / "benchmarks" / "dse.py"), "--zoo", "prog", "--launches",
           str(recorded / "launches"), "--parameters", "lmem", "--factors", "0.25,1", "--jobs", "2",
           "--out", str(tmp_path / "dse")]
    index = json.loads((recorded / "launches" / "prog" / "index.json").read_text())["launches"]
    runs = []
    for _ in range(2):
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        runs.append(json.loads((tmp_path / "dse" / "dse.json").read_text()))
    first, second = runs
    lat = first["results"]["local memory"]
    # the model's latency at mtia2i is what the recording counted: each launch's time times its weight
    assert lat[str(LMEM)]["prog"]["latency_s"] == pytest.approx(sum(e["weight"] * e["time_s"] for e in index))
    assert lat[str(LMEM)]["prog"]["launches_ok"] == 8
    assert lat[str(LMEM // 4)]["prog"]["latency_s"] != lat[str(LMEM)]["prog"]["latency_s"]
    assert first["models"]["prog"]["recompiled"] == {f"local memory={LMEM // 4}": ["matmul"]}
    assert second["results"] == first["results"]
    assert first["models"]["_run"]["simulated"] == 10 and first["models"]["_run"]["compiled"] == 3
    assert second["models"]["_run"]["simulated"] == 0 and second["models"]["_run"]["compiled"] == 0
    assert second["models"]["_run"]["cached"] == 14
    assert (tmp_path / "dse" / "dse.png").stat().st_size > 0


@pytest.mark.slow
def test_the_workload_on_ray_gives_the_local_results(recorded, monkeypatch):
    """Ray tasks on a Ray started on this machine for the run (loopback, no dashboard, no usage reports): the
    recorded calls travel by Ray's object store, the compiles stay local; the results are the local executor's.
    With -m slow: starting Ray costs most of its half a minute (tests/sweep/test_ray.py covers Ray in the suite)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed (pip install 'mtiacc[ray]')")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    recs = [load_recording(p) for p in sorted((recorded / "launches" / "prog").glob("*.pkl"))]
    points = [MachinePoint(), MachinePoint(set=(("pe.local_memory_bytes", LMEM // 4),))]
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(recorded / "cache-local"))
    local, _ = run_workload(recs, points, jobs=2)
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(recorded / "cache-ray"))
    on_ray, stats = run_workload(recs, points, executor="ray", jobs=2)
    assert on_ray == local
    assert stats.simulated == 10 and stats.failed == 0


def test_a_kernel_whose_file_is_gone_compiles_from_the_recorded_text(recorded, monkeypatch):
    import dataclasses
    import pickle
    from mtiacc.sweep.workload import compile_recorded
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(recorded / "cache-d"))
    rec = load_recording(recorded / "launches" / "prog" / "0000.pkl")
    unit, options = pickle.loads(rec.compile)
    gone = str(recorded / "moved-away" / "kernels.py")
    request = pickle.dumps((dataclasses.replace(unit, path=gone), options))
    sources = {gone: rec.sources[unit.path]}
    out = compile_recorded(request, sources, (f"pe.local_memory_bytes={LMEM // 4}",))
    assert "binary" in out, out
    assert compile_recorded(request, {}, ())["error"]      # without the text: the compiler's error, as text
