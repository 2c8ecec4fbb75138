"""The mtiasim command line: outputs written whole or not at all, one clear message per mistake."""
import numpy as np
import pytest

from tests.sim.helpers import P, build

COPY = """
kernel:
    .loc 1 4 5
    ld s0, 0(zero)
    ld s1, 8(zero)
    ld s2, 16(zero)
    li a1, 1024
    mtia.dma.in a1, s0, s2
    mtia.dma.wait
    mtia.dma.out s1, a1, s2
    mtia.dma.wait
    ret
"""


@pytest.fixture
def binary(tmp_path):
    path = tmp_path / "copy.bin"
    path.write_bytes(build(COPY, params=[P("X", "*fp32"), P("Y", "*fp32"), P("nbytes", "i64")],
                           grid=["1"], source={4: "    y = x"}, source_file="copy.py"))
    return path


def npz(tmp_path, **arrays):
    data = {"X": np.arange(16, dtype=np.float32), "Y": np.zeros(16, np.float32), "nbytes": np.array(64)}
    data.update(arrays)
    path = tmp_path / "in.npz"
    np.savez(path, **{k: v for k, v in data.items() if v is not None})
    return path


def clean_error(proc, *fragments, code=3):
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in proc.stderr, proc.stderr


def test_run_stats_and_default_output(tool, binary, tmp_path):
    proc = tool("mtiasim", "run", binary, "--inputs", npz(tmp_path), "--stats")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "copy.out.npz"
    assert f"wrote {out}" in proc.stdout
    z = np.load(out)
    np.testing.assert_array_equal(z["Y"], np.arange(16, dtype=np.float32))
    assert sorted(z.files) == ["X", "Y"]
    for word in ("programs run", "waves", "instructions retired", "simulated cycles", "us", "DRAM bytes"):
        assert word in proc.stdout


def test_arg_overrides_and_explicit_output(tool, binary, tmp_path):
    out = tmp_path / "o.npz"
    proc = tool("mtiasim", "run", binary, "--inputs", npz(tmp_path, nbytes=None), "--arg", "nbytes=32",
                "-o", out, "--grid", "1")
    assert proc.returncode == 0, proc.stderr
    y = np.load(out)["Y"]
    np.testing.assert_array_equal(y[:8], np.arange(8)) and np.testing.assert_array_equal(y[8:], 0)


@pytest.mark.parametrize("extra,inputs,fragments,code", [
    ((), {"Y": None}, ["'Y'", "'X', 'nbytes'"], 3),
    ((), {"X": np.arange(16, dtype=np.int32)}, ["'X'", "float32", "int32"], 3),
    ((), {"nbytes": np.array(4096)}, ["copy.py:4:5", "out-of-bounds DMA read", "'X'", "y = x"], 4),
    (("--grid", "2,x"), {}, ["--grid", "'x'"], 2),
    (("--arg", "nbytes"), {}, ["NAME=VALUE"], 2),
    (("--arg", "nope=3"), {}, ["no parameter 'nope'"], 3),
    (("--config", "/nonexistent.yaml"), {}, ["does not exist"], 3),
])
def test_errors_are_clean_and_write_nothing(tool, binary, tmp_path, extra, inputs, fragments, code):
    """The exit code tells the kind: 2 a flag that does not parse, 3 a bad input, 4 the kernel faulted."""
    out = tmp_path / "o.npz"
    proc = tool("mtiasim", "run", binary, "--inputs", npz(tmp_path, **inputs), "-o", out, *extra)
    clean_error(proc, *fragments, code=code)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".mtia-")]


def test_missing_files_and_bad_inputs(tool, binary, tmp_path):
    clean_error(tool("mtiasim", "run", tmp_path / "none.bin", "--inputs", npz(tmp_path)), "none.bin", "does not exist")
    clean_error(tool("mtiasim", "run", binary, "--inputs", tmp_path / "none.npz"), "none.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"garbage")
    clean_error(tool("mtiasim", "run", binary, "--inputs", bad), "bad.npz", "not a readable .npz")
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x7fELF" + b"\0" * 10)
    clean_error(tool("mtiasim", "run", junk, "--inputs", npz(tmp_path)), "junk.bin")


def test_usage_errors_exit_2(tool, binary):
    proc = tool("mtiasim", "run", binary)
    assert proc.returncode == 2 and "--inputs" in proc.stderr and "Traceback" not in proc.stderr


def test_internal_errors_ask_for_a_report_and_hide_the_traceback(binary, tmp_path, monkeypatch, capsys):
    import mtiasim.runner
    from mtiasim.cli import main

    def boom(*a, **k):
        raise RuntimeError("simulator bug")
    monkeypatch.setattr(mtiasim.runner, "run", boom)
    monkeypatch.delenv("MTIA_DEBUG", raising=False)
    code = main(["run", str(binary), "--inputs", str(npz(tmp_path))])
    err = capsys.readouterr().err
    assert code != 0 and "internal error" in err and "report" in err and "Traceback" not in err
    monkeypatch.setenv("MTIA_DEBUG", "1")
    main(["run", str(binary), "--inputs", str(npz(tmp_path))])
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" in err and "simulator bug" in err
