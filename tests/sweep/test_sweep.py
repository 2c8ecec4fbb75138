"""``mtiacc sweep`` end to end on the local executor: rows, order, the machine overrides, the cache, --resume."""
import json

import numpy as np
import pytest

from mtiacc.sweep import run_sweep

from .conftest import read_rows, write_spec

SPEC = """
    kernel: add.py
    grid: "cdiv(N, BLOCK_SIZE)"
    inputs: big.npz
    defines: {BLOCK_SIZE: [256, 1024]}
    set: {memory.dram.bw_bytes_per_s: [51.2e9, 204.8e9]}
"""


def test_rows_in_spec_order_and_bandwidth_matters(sweep_dir):
    out = sweep_dir / "out.jsonl"
    s = run_sweep(str(write_spec(sweep_dir, SPEC)), str(out), jobs=2)
    rows = read_rows(out)
    assert [(r["point"]["defines"]["BLOCK_SIZE"], r["point"]["set"]["memory.dram.bw_bytes_per_s"]) for r in rows] \
        == [(256, 51.2e9), (256, 204.8e9), (1024, 51.2e9), (1024, 204.8e9)]
    assert all(r["status"] == "ok" and r["error"] is None for r in rows), rows
    assert list(rows[0]) == ["point", "status", "cycles", "time_s", "roofline_fraction", "error"]
    # a quarter of the DRAM bandwidth makes a memory-bound kernel slower
    assert rows[0]["cycles"] > rows[1]["cycles"] and rows[2]["cycles"] > rows[3]["cycles"]
    assert all(0 < r["roofline_fraction"] <= 1 for r in rows)
    assert all(r["time_s"] > 0 for r in rows)
    # one compile per BLOCK_SIZE: the DRAM's bandwidth does not change the code
    assert (s.compiled, s.simulated, s.ok, s.errors) == (2, 4, 4, 0)
    assert not (sweep_dir / "out.jsonl.partial").exists()


def test_the_rows_match_a_single_run(sweep_dir, tool):
    """The sweep's cycles are what `mtiacc` + `mtiasim run --set` give for the same point."""
    out = sweep_dir / "out.jsonl"
    run_sweep(str(write_spec(sweep_dir, SPEC)), str(out), jobs=1)
    row = read_rows(out)[1]
    binary = sweep_dir / "add.bin"
    r = tool("mtiacc", sweep_dir / "add.py", "-D", "BLOCK_SIZE=256", "--grid", "cdiv(N, BLOCK_SIZE)",
             "--set", "memory.dram.bw_bytes_per_s=204.8e9", "-o", binary)
    assert r.returncode == 0, r.stderr
    stats = sweep_dir / "stats.json"
    r = tool("mtiasim", "run", binary, "--inputs", sweep_dir / "big.npz", "--set",
             "memory.dram.bw_bytes_per_s=204.8e9", "-o", sweep_dir / "o.npz", "--stats-json", stats)
    assert r.returncode == 0, r.stderr
    assert json.loads(stats.read_text())["cycles"] == row["cycles"]
    got = np.load(sweep_dir / "o.npz")
    inputs = np.load(sweep_dir / "big.npz")
    np.testing.assert_array_equal(got["C_ptr"], inputs["A_ptr"] + inputs["B_ptr"])


def test_second_run_comes_from_the_cache_and_resume_runs_nothing(sweep_dir):
    spec = str(write_spec(sweep_dir, SPEC))
    out = sweep_dir / "out.jsonl"
    run_sweep(spec, str(out), jobs=2)
    first = out.read_text()
    again = run_sweep(spec, str(out), jobs=2)
    assert (again.cached, again.simulated) == (4, 0)
    assert out.read_text() == first
    resumed = run_sweep(spec, str(out), jobs=2, resume=True)
    assert (resumed.resumed, resumed.compiled, resumed.simulated, resumed.cached) == (4, 0, 0, 0)
    assert out.read_text() == first


def test_resume_after_an_interrupted_sweep_runs_only_the_rest(sweep_dir, monkeypatch):
    spec = str(write_spec(sweep_dir, SPEC))
    out = sweep_dir / "out.jsonl"
    run_sweep(spec, str(out), jobs=2)
    rows = read_rows(out)
    # an interrupted run: two rows in the journal (one line cut short), no output yet
    out.unlink()
    (sweep_dir / "out.jsonl.partial").write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[3]) + "\n{\"poi")
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(sweep_dir / "fresh-cache"))
    s = run_sweep(spec, str(out), jobs=2, resume=True)
    assert (s.resumed, s.simulated) == (2, 2)
    assert read_rows(out) == rows


def test_a_point_that_does_not_compile_is_an_error_row(sweep_dir):
    spec = write_spec(sweep_dir, """
        kernel: add.py
        grid: "cdiv(N, BLOCK_SIZE)"
        inputs: small.npz
        defines: {BLOCK_SIZE: [100, 128]}
    """)
    out = sweep_dir / "out.jsonl"
    s = run_sweep(str(spec), str(out), jobs=2)
    bad, good = read_rows(out)
    assert bad["status"] == "error" and bad["cycles"] is None
    assert "add.py:" in bad["error"] and "must be a power of two, got 100" in bad["error"]
    assert good["status"] == "ok" and good["error"] is None
    assert (s.ok, s.errors) == (1, 1)


def test_an_unknown_machine_key_stops_the_sweep_before_it_runs(sweep_dir):
    spec = write_spec(sweep_dir, """
        kernel: add.py
        inputs: small.npz
        defines: {BLOCK_SIZE: 128}
        set: {memory.dram.bandwidth: [1, 2]}
    """)
    from mtiacc.diagnostics import UserError
    with pytest.raises(UserError) as e:
        run_sweep(str(spec), str(sweep_dir / "out.jsonl"))
    assert "memory.dram.bandwidth" in e.value.message and "spec.yaml" in e.value.message
    assert not (sweep_dir / "out.jsonl").exists()


def test_the_command_line(sweep_dir, tool):
    spec = write_spec(sweep_dir, SPEC)
    r = tool("mtiacc", "sweep", spec, "-o", sweep_dir / "rows.jsonl", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "sweep: 4 points: 4 ok, 0 failed (4 simulated)" in r.stderr
    assert len(read_rows(sweep_dir / "rows.jsonl")) == 4
    r = tool("mtiacc", "sweep", spec, "-o", sweep_dir / "nowhere" / "rows.jsonl")
    assert r.returncode == 3
    assert "cannot write" in r.stderr and "Traceback" not in r.stderr
    r = tool("mtiacc", "sweep", spec, "-o", sweep_dir / "r.jsonl", "--address", "auto")
    assert r.returncode == 2 and "--address is for --executor ray" in r.stderr
