"""Physical honesty, micro-benchmark claims, trace schema, profile attribution, and the new CLI outputs."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from tests.sim.helpers import P, build

LINE = load_config().llc_line_bytes     # memory.sram.llc_line_bytes

ROOT = Path(__file__).resolve().parents[2]
CFG = load_config()


def _micro():
    spec = importlib.util.spec_from_file_location("micro_run", ROOT / "benchmarks" / "micro" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def micro():
    # the matrix engines on 2 PEs (the bench runs 4): still more than one engine at once, and the same fraction of
    # peak, since the engines share nothing
    return _micro().measure(CFG, dpe_pes=2)


def assert_honest(s):
    """Simulated time >= bytes / bandwidth at each level and >= FLOPs / peak rate (the roofline)."""
    t = s.time_s
    assert t >= s.dram_bytes / CFG.dram_bw_bytes_per_s
    assert t >= s.sram_bytes / CFG.sram_bw_bytes_per_s
    assert t >= s.pe_lm_bytes.max() / CFG.local_memory_bw_bytes_per_s
    fp32_peak = 2 * CFG.datapath_bits / 32 * CFG.clock_hz * CFG.n_pes
    assert t >= s.vector_flops / fp32_peak
    assert t >= s.pe_dpe_min.max() / CFG.clock_hz             # the matrix engine at its type's MAC rate
    assert t >= s.dpe_flops / (2 * CFG.dpe.macs("int8") * CFG.clock_hz * CFG.n_pes)
    assert 0 <= s.roofline()[2] <= 1.0
    for name, d in s.units().items():
        assert 0 <= d["utilization"] <= 1.0 + 1e-9, name


def test_micro_benchmarks_reach_their_peaks_and_never_exceed_them(micro):
    names = [r["name"] for r in micro]
    assert any("DRAM" in n for n in names) and any("SRAM" in n for n in names)
    assert any("matrix engine" in n and "fp16" in n for n in names) and any("matrix engine" in n and "int8" in n
                                                                           for n in names)
    for r in micro:
        frac = r["achieved"] / r["peak"]
        assert frac <= 1.0 + 1e-9, r["name"]
        if r["streaming"]:
            assert frac >= 0.95, (r["name"], frac)
        assert_honest(r["stats"])
    chain = micro[-1]
    assert chain["achieved"] / chain["peak"] == pytest.approx(1.0, rel=0.01)


@pytest.fixture(scope="module")
def vector_add_bins():
    from mtiacc.driver import Options, compile_kernel
    # -O2: one program a grid entry (at -O3, the default, persistent-programs launches one program a PE that
    # runs the grid's programs of its slot in turn)
    return {b: compile_kernel(str(ROOT / "examples" / "vector_add.py"),
                              Options(defines={"BLOCK_SIZE": str(b)}, grid="cdiv(N, BLOCK_SIZE)", opt_level=2)).binary
            for b in (256, 1024)}


def add_inputs(n):
    rng = np.random.default_rng(n)
    return {"A_ptr": rng.standard_normal(n).astype(np.float32), "B_ptr": rng.standard_normal(n).astype(np.float32),
            "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}


@pytest.mark.parametrize("block,n,place", [(1024, 1 << 18, {}), (256, 100_000, {}),
                                           (1024, 1 << 18, {"A_ptr": "sram", "B_ptr": "sram", "C_ptr": "sram"}),
                                           (256, 5000, {"C_ptr": "sram"})])
def test_vector_add_is_never_faster_than_its_roofline(vector_add_bins, block, n, place):
    data = add_inputs(n)
    r = run(vector_add_bins[block], data, place=place)
    np.testing.assert_array_equal(r.outputs["C_ptr"], data["A_ptr"] + data["B_ptr"])
    s = r.stats
    # DRAM fills each line of the inputs in DRAM once, and takes every byte written; the SRAM bytes are the placed
    # buffers' and the LLC's hits: a 128-byte line two programs' rows share (B_ptr starts 20000 + 4096 bytes after
    # A_ptr, off the lines) is filled by the first program to read it and hit by the other
    b_off = -(-(4 * n + CFG.dram_buffer_gap) // 64) * 64
    lines = sum((off + 4 * n - 1) // LINE - off // LINE + 1
                for name, off in (("A_ptr", 0), ("B_ptr", b_off)) if name not in place)
    assert s.dram_bytes == lines * LINE + 4 * n * ("C_ptr" not in place)
    uncached = run(vector_add_bins[block], data, place=place, overrides={"memory.sram.llc_bytes": 0}).stats
    assert uncached.sram_bytes == 4 * n * len(place) and uncached.dram_bytes + uncached.sram_bytes == 12 * n
    assert s.sram_bytes >= uncached.sram_bytes
    read = 4 * n * (2 - len(place.keys() & {"A_ptr", "B_ptr"}))     # bytes read from DRAM buffers
    hits = s.sram_bytes - uncached.sram_bytes       # every byte read is a hit or comes with its line's fill
    assert hits + lines * LINE >= read
    if lines * LINE == read:    # whole lines: the cache can only help (off the lines, a fill moves more than asked)
        assert s.cycles <= uncached.cycles
    programs = -(-n // block)
    assert n <= s.flops <= programs * block      # the last block computes its masked-off lanes too
    assert_honest(s)


def test_sram_placement_speeds_up_a_memory_bound_kernel(vector_add_bins):
    data = add_inputs(1 << 18)
    d = run(vector_add_bins[1024], data).stats
    s = run(vector_add_bins[1024], data, place={k: "sram" for k in ("A_ptr", "B_ptr", "C_ptr")}).stats
    assert d.roofline()[0] == "dram" and s.dram_bytes == 0
    assert s.cycles < d.cycles / 3


def test_fast_path_agrees_with_arrays_on_sram_and_ragged_kernels(vector_add_bins, monkeypatch):
    from mtiasim import timing
    cases = [(1024, 70_000, {"A_ptr": "sram"}), (256, 5000, {})]
    fast = [run(vector_add_bins[b], add_inputs(n), place=p).stats for b, n, p in cases]
    orig = timing.UniformTiming.reset

    def reset_off(self):
        orig(self)
        self.materialize()
    monkeypatch.setattr(timing.UniformTiming, "reset", reset_off)
    slow = [run(vector_add_bins[b], add_inputs(n), place=p).stats for b, n, p in cases]
    for f, s in zip(fast, slow):
        assert f.wave_cycles == s.wave_cycles
        assert f.stalls() == pytest.approx(s.stalls())


def test_trace_schema_and_dram_never_oversubscribed(vector_add_bins):
    r = run(vector_add_bins[1024], add_inputs(1 << 17), trace=True)
    ev = r.trace
    json.dumps({"traceEvents": ev})
    for e in ev:
        assert e["ph"] in ("X", "M", "C") and isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert isinstance(e["name"], str)
        if e["ph"] == "X":
            assert e["dur"] >= 0 and e["ts"] >= 0
        if e["ph"] == "C":
            assert all(isinstance(v, float) for v in e["args"].values())
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    for p in range(64):
        assert names[(p, 1)] == "core" and names[(p, 2)] == "dma"
    programs = [e for e in ev if e.get("cat") == "program"]
    assert len(programs) == r.stats.programs
    dma = [e for e in ev if e.get("cat") == "dma"]
    assert sum(e["args"]["bytes"] for e in dma) == r.stats.dram_bytes
    # the DRAM counter never exceeds the configured bandwidth
    peak = CFG.dram_bw_bytes_per_s / 1e9
    assert max(e["args"]["GB/s"] for e in ev if e["ph"] == "C" and e["name"] == "dram GB/s") <= peak * (1 + 1e-9)
    end = max(e["ts"] + e["dur"] for e in ev if e["ph"] == "X")
    assert end == pytest.approx(r.stats.time_us, rel=1e-3)


PROFILED = """
kernel:
    .loc 1 3 1
    li t0, 40
    .loc 1 4 5
again:
    div a0, a0, t0
    div a0, a0, t0
    .loc 1 5 5
    addi t0, t0, -1
    bnez t0, again
    .loc 1 6 1
    ret
"""


def test_profile_attributes_cycles_to_source_lines_and_instructions():
    from mtiasim.profile import attribute, render_profile
    src = {3: "n = 40", 4: "x = x / n / n   # slow", 5: "n -= 1", 6: "return"}
    r = run(build(PROFILED, source=src), {}, grid=(2,), profile=True)
    a = attribute(r)
    div_lat = CFG.timing["IntDiv"][1]
    # each trip: the second div waits for the first (dependence), the first for the previous trip's second, less
    # the two cycles of line 5 that run meanwhile
    assert a.lines[4] == pytest.approx(2 * 40 * (2 * div_lat - 2), rel=0.02)
    assert a.lines[5] == 2 * 40 * 2
    assert a.core == pytest.approx(sum(a.lines.values()))
    assert a.core + a.tail + a.sync == pytest.approx(a.pe_cycles)
    rows = {pc: (n, c) for pc, _t, n, c, _l in a.instructions}
    assert rows[4][0] == 80       # 40 trips x 2 programs
    text = render_profile(a)
    assert "x = x / n / n" in text and "div" in text


def tool(*args):
    return subprocess.run([sys.executable, "-m", "mtiasim.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT)


@pytest.fixture(scope="module")
def add_files(tmp_path_factory, vector_add_bins):
    d = tmp_path_factory.mktemp("add")
    (d / "add.bin").write_bytes(vector_add_bins[1024])
    np.savez(d / "in.npz", **add_inputs(1 << 16))
    return d


def test_cli_stats_json_trace_and_place(add_files):
    d = add_files
    proc = tool("run", d / "add.bin", "--inputs", d / "in.npz", "-o", d / "o.npz", "--stats", "--stats-json",
                d / "s.json", "--trace", d / "t.json", "--place", "B_ptr=sram")
    assert proc.returncode == 0, proc.stderr
    for word in ("roofline bound", "utilization", "dma_wait", "synchronization", "per-PE balance", "FLOP/s",
                 "SRAM bytes"):
        assert word in proc.stdout, word
    s = json.loads((d / "s.json").read_text())
    for k in ("cycles", "time_s", "clock_hz", "dram_bytes", "sram_bytes", "flops", "bound", "roofline_s",
              "roofline_fraction", "units"):
        assert k in s, k
    assert s["sram_bytes"] == 4 << 16 and s["dram_bytes"] == 8 << 16
    assert s["roofline_fraction"] == pytest.approx(s["roofline_s"] / s["time_s"])
    assert set(s["units"]) >= {"scalar", "vector", "dma", "command_processor"}
    assert "traceEvents" in json.loads((d / "t.json").read_text())


def test_cli_place_errors(add_files):
    d = add_files
    for bad, word, code in (("Q_ptr=sram", "Q_ptr", 3), ("A_ptr=hbm", "sram", 2), ("A_ptr", "NAME=", 2)):
        proc = tool("run", d / "add.bin", "--inputs", d / "in.npz", "-o", d / "o.npz", "--place", bad)
        assert proc.returncode == code and word in proc.stderr and "Traceback" not in proc.stderr


def test_cli_profile_and_roofline(add_files, tmp_path):
    d = add_files
    proc = tool("profile", d / "add.bin", "--inputs", d / "in.npz", "--top", "5")
    assert proc.returncode == 0, proc.stderr
    assert "tl.store(C_ptr + offsets, a + b, mask=mask)" in proc.stdout and "mtia.dma.in" in proc.stdout
    proc = tool("roofline", d / "add.bin", "--inputs", d / "in.npz")
    assert proc.returncode == 0, proc.stderr
    assert "bound by dram" in proc.stdout and "arithmetic intensity" in proc.stdout


def test_roofline_plot_without_matplotlib_is_a_clean_error(add_files, monkeypatch):
    import builtins

    from mtiacc.diagnostics import UserError
    from mtiasim import roofline
    real = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)
    s = run(str(add_files / "add.bin"), add_inputs(1 << 16)).stats
    with pytest.raises(UserError, match="matplotlib"):
        roofline.plot(s, CFG, str(add_files / "r.png"))


def test_roofline_plot_writes_a_png(add_files):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed: pip install -e '.[plot]'")
    d = add_files
    out = d / "roof.png"
    proc = tool("roofline", d / "add.bin", "--inputs", d / "in.npz", "--plot", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
