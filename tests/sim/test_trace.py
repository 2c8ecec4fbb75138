"""``--trace``: the vector-unit and dma-wait tracks agree with the statistics, on both timing paths."""
import json
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim import timing, tracerec
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parents[2]
BLOCK = 256


@pytest.fixture(scope="module")
def add_bin():
    # -O2: one program a grid entry, so a large grid runs in waves (at -O3, the default, persistent-programs
    # launches one program a PE that runs the grid's programs of its slot in turn: one wave)
    return compile_kernel(str(ROOT / "examples" / "vector_add.py"),
                          Options(defines={"BLOCK_SIZE": str(BLOCK)}, grid="cdiv(N, BLOCK_SIZE)", opt_level=2)).binary


@pytest.fixture(scope="module")
def ragged_bin():
    return compile_kernel(str(ROOT / "tests" / "sim" / "kernels" / "ragged_sum.py"),
                          Options(defines={"BLOCK": str(BLOCK)}, signature="*fp32,*fp32")).binary


def add_inputs(n):
    rng = np.random.default_rng(n)
    return {"A_ptr": rng.standard_normal(n).astype(np.float32), "B_ptr": rng.standard_normal(n).astype(np.float32),
            "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}


def ragged_inputs(programs):
    rng = np.random.default_rng(programs)
    return {"X": rng.standard_normal(4 * BLOCK).astype(np.float32), "Y": np.zeros(programs * BLOCK, np.float32)}


def ragged_expected(x, programs):
    blocks = (2.0 * x).reshape(4, BLOCK)
    return np.stack([blocks[:p % 4 + 1].sum(axis=0, dtype=np.float32) for p in range(programs)]).ravel()


def check_trace(r, cycles_per_us):
    """The schema, and the vector / dma-wait tracks against the statistics; returns the events by category."""
    ev = r.trace
    json.dumps({"traceEvents": ev})
    for e in ev:
        assert {"ph", "pid", "tid", "name"} <= set(e) and isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert e["ph"] in ("X", "M", "C")
        if e["ph"] != "M":
            assert isinstance(e["ts"], float) and e["ts"] >= 0
        if e["ph"] == "X":
            assert e["dur"] >= 0
    s = r.stats
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    vec = [e for e in ev if e.get("cat") == "vector"]
    waits = [e for e in ev if e.get("cat") == "dma_wait"]
    # one vector track per PE that ran vector instructions, and only on those
    busy_pes = set(np.flatnonzero(s.pe_vector_busy > 0).tolist())
    assert {e["pid"] for e in vec} == busy_pes
    assert {p for (p, t), n in names.items() if n == "vector"} == busy_pes
    assert all(names[(e["pid"], e["tid"])] == "vector" for e in vec)
    assert all(names[(e["pid"], e["tid"])] == "core" for e in waits)
    # busy cycles: per PE equal to the statistics'; spans cover at least their busy cycles, never overlap
    per_pe = {}
    for e in vec:
        per_pe[e["pid"]] = per_pe.get(e["pid"], 0.0) + e["args"]["busy_cycles"]
        assert e["dur"] * cycles_per_us >= e["args"]["busy_cycles"] * (1 - 1e-9)
    for p in busy_pes:
        assert per_pe[p] == pytest.approx(s.pe_vector_busy[p])
    assert sum(per_pe.values()) == pytest.approx(s.units()["vector"]["busy_cycles"])
    for p in busy_pes:
        spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in vec if e["pid"] == p)
        assert all(a[1] <= b[0] + 1e-6 for a, b in zip(spans, spans[1:]))
    # dma-wait spans sum to the dma_wait stall cycles, and lie inside their program's span on the core track
    stall = sum(e["dur"] for e in waits) * cycles_per_us
    assert stall == pytest.approx(s.stalls()["dma_wait"], rel=1e-6)
    assert stall > 0
    progs = [e for e in ev if e.get("cat") == "program"]
    for w in waits:
        assert any(p["pid"] == w["pid"] and p["ts"] - 1e-6 <= w["ts"] and w["ts"] + w["dur"] <= p["ts"] + p["dur"]
                   + 1e-6 for p in progs)
    end = max(e["ts"] + e["dur"] for e in ev if e["ph"] == "X")
    assert end == pytest.approx(s.time_us, rel=1e-3)
    return vec, waits


def cpu(r):
    return r.stats.clock_hz / 1e6


@pytest.mark.parametrize("n", [1 << 17, 5000])
def test_vector_add_trace_matches_stats(add_bin, n):
    data = add_inputs(n)
    r = run(add_bin, data, trace=True)
    np.testing.assert_array_equal(r.outputs["C_ptr"], data["A_ptr"] + data["B_ptr"])
    vec, waits = check_trace(r, cpu(r))
    # back-to-back vector instructions merge: far fewer spans than vector instructions
    assert len(vec) < sum(c for k, c in r.stats.by_timing_class.items() if timing.TimingModel.is_vector_class(k)) / 4
    programs = -(-n // BLOCK)
    assert len(waits) >= programs


def test_divergent_kernel_trace_matches_stats(ragged_bin):
    programs = 70              # a full wave of 64 programs, then a ragged one of 6
    data = ragged_inputs(programs)
    r = run(ragged_bin, data, grid=(programs,), trace=True)
    np.testing.assert_allclose(r.outputs["Y"], ragged_expected(data["X"], programs), rtol=1e-6)
    vec, _ = check_trace(r, cpu(r))
    # programs with more trips keep their vector unit busy longer, PE by PE
    busy = {p: sum(e["args"]["busy_cycles"] for e in vec if e["pid"] == p) for p in range(4)}
    assert busy[0] < busy[1] < busy[2] < busy[3]


def test_without_merging_the_spans_are_exactly_the_busy_cycles(add_bin, ragged_bin, monkeypatch):
    monkeypatch.setattr(tracerec, "MERGE_GAP", -1.0)   # not even back-to-back spans merge
    for r in (run(add_bin, add_inputs(3000), trace=True), run(ragged_bin, ragged_inputs(8), grid=(8,), trace=True)):
        vec, _ = check_trace(r, cpu(r))
        assert sum(e["dur"] for e in vec) * cpu(r) == pytest.approx(r.stats.units()["vector"]["busy_cycles"])
        # one span per instruction that occupies the vector unit (vsetvli does not)
        assert len(vec) == sum(c for k, c in r.stats.by_timing_class.items() if timing.TimingModel.is_vector_class(k))


def test_array_path_records_the_same_trace_as_the_fast_path(add_bin, monkeypatch):
    data = add_inputs(1 << 14)
    fast = run(add_bin, data, trace=True)
    orig = timing.UniformTiming.reset

    def reset_off(self):
        orig(self)
        self.materialize()
    monkeypatch.setattr(timing.UniformTiming, "reset", reset_off)
    slow = run(add_bin, data, trace=True)
    check_trace(slow, cpu(slow))

    def spans(r, cat):
        return sorted((e["pid"], round(e["ts"], 6), round(e["dur"], 6)) for e in r.trace if e.get("cat") == cat)
    assert spans(fast, "vector") == spans(slow, "vector")
    assert spans(fast, "dma_wait") == spans(slow, "dma_wait")


def test_untraced_runs_bind_no_recorder(add_bin):
    r = run(add_bin, add_inputs(1000))
    assert r.trace is None


def line_cycles(r):
    """Core cycles per source line from the trace's line spans (all PEs)."""
    out = {}
    for e in r.trace:
        if e.get("cat") == "line":
            out[e["args"]["line"]] = out.get(e["args"]["line"], 0.0) + e["dur"] * cpu(r)
    return out


@pytest.mark.parametrize("kernel", ["add", "ragged"])
def test_source_line_spans_tile_the_core_time_and_agree_with_the_profile(add_bin, ragged_bin, kernel):
    from mtiasim.profile import attribute
    if kernel == "add":
        r = run(add_bin, add_inputs(70_000), trace=True, profile=True)
    else:
        r = run(ragged_bin, ragged_inputs(70), grid=(70,), trace=True, profile=True)
    check_trace(r, cpu(r))
    lines = [e for e in r.trace if e.get("cat") == "line"]
    s = r.stats
    for p in range(len(s.pe_programs)):
        spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in lines if e["pid"] == p)
        assert all(a[1] <= b[0] + 1e-6 for a, b in zip(spans, spans[1:]))
        busy = s.pe_core[p] + s.pe_stalls["dependence"][p] + s.pe_stalls["structural"][p] + s.pe_stalls["dma_wait"][p]
        assert sum(b - a for a, b in spans) * cpu(r) == pytest.approx(busy, rel=1e-6)
    # per line, the same cycles as `mtiasim profile` before it charges the DMA waits to the transfers' issuers
    import dataclasses
    spent = dataclasses.replace(r, profile=r.profile - r.profile_moved)
    prof = {k: v for k, v in attribute(spent).lines.items() if abs(v) > 1e-6}
    assert sum(attribute(r).lines.values()) == pytest.approx(sum(prof.values()), rel=1e-9)
    got = line_cycles(r)
    assert set(got) == set(prof)
    for k in prof:
        assert got[k] == pytest.approx(prof[k], rel=1e-6), k
    # every dma wait lies inside a span of its own PE's source line
    for w in (e for e in r.trace if e.get("cat") == "dma_wait"):
        assert any(e["pid"] == w["pid"] and e["ts"] - 1e-6 <= w["ts"] and w["ts"] + w["dur"] <= e["ts"] + e["dur"]
                   + 1e-6 for e in lines)
    if kernel == "add":
        assert "line 24: tl.store(C_ptr + offsets, a + b, mask=mask)" in {e["name"] for e in lines}
    else:
        names = {e["name"] for e in lines}
        assert any(n.startswith("line 13: acc = acc + tl.load(X + offs) * 2.0") for n in names), names


def test_cli_trace_file_has_the_vector_track_and_core_spans(add_bin, tmp_path):
    import subprocess
    import sys
    (tmp_path / "add.bin").write_bytes(add_bin)
    np.savez(tmp_path / "in.npz", **add_inputs(4096))
    proc = subprocess.run([sys.executable, "-m", "mtiasim.cli", "run", tmp_path / "add.bin", "--inputs",
                           tmp_path / "in.npz", "-o", tmp_path / "o.npz", "--trace", tmp_path / "t.json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    tracks = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert tracks == {"core", "dma", "vector", "job"}
    cats = {e.get("cat") for e in ev}
    assert {"vector", "dma_wait", "line", "program", "dma"} <= cats


def test_a_long_run_s_trace_keeps_a_bounded_size_and_says_so(add_bin, monkeypatch, tmp_path):
    from mtiasim import trace
    data = add_inputs(1 << 17)
    full = run(add_bin, data, trace=True).trace
    waves = [e for e in full if e.get("cat") == "wave"]
    assert len(waves) > 2
    monkeypatch.setattr(trace, "MAX_EVENTS", len(full) // 3)
    cut = run(add_bin, data, trace=True).trace
    assert len(cut) < len(full)
    note = [e for e in cut if e["ph"] == "i"]
    assert len(note) == 1 and note[0]["name"].startswith("trace detail left out from wave ")
    # every wave and program span is still there; the detail stops at the cap
    assert [e for e in cut if e.get("cat") in ("wave", "program")] == \
        [e for e in full if e.get("cat") in ("wave", "program")]
    assert len(cut) <= len(full) // 3 + len(waves) + sum(1 for e in full if e.get("cat") == "program") + 1000
    trace.write_trace(str(tmp_path / "t.json"), cut)
    assert json.loads((tmp_path / "t.json").read_text())["otherData"]["truncated"] == note[0]["name"]
