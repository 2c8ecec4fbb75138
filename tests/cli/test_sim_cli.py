"""The simulator's command line: a run, its outputs, and one clear error per mistake."""
import numpy as np
import pytest

from tests.conftest import EXAMPLES
from tests.cli.test_compile_cli import assert_clean_error


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    from tests.conftest import run_tool
    out = tmp_path_factory.mktemp("bin") / "add.bin"
    proc = run_tool("mtiacc", EXAMPLES / "vector_add.py", "-o", out, "-D", "BLOCK_SIZE=256")
    assert proc.returncode == 0, proc.stderr
    return out


def npz(path, n=1024, **over):
    a = np.arange(1, n + 1, dtype=np.float32)
    data = {"A_ptr": a, "B_ptr": a[::-1].copy(), "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    data.update(over)
    data = {k: v for k, v in data.items() if v is not None}
    np.savez(path, **data)
    return path


def test_run_writes_outputs_and_stats(tool, binary, tmp_path):
    out = tmp_path / "out.npz"
    proc = tool("mtiasim", "run", binary, "--inputs", npz(tmp_path / "d.npz"), "--grid", "4", "-o", out, "--stats")
    assert proc.returncode == 0, proc.stderr
    assert np.all(np.load(out)["C_ptr"] == 1025)
    text = proc.stdout + proc.stderr
    assert str(out) in text
    assert "cycles" in text.lower() and "instructions" in text.lower()


def test_default_output_is_next_to_the_binary(tool, binary, tmp_path):
    proc = tool("mtiasim", "run", binary, "--inputs", npz(tmp_path / "d.npz"), "--grid", "4")
    assert proc.returncode == 0, proc.stderr
    assert (binary.parent / "add.out.npz").exists()


def test_no_grid_anywhere(tool, binary, tmp_path):
    assert_clean_error(tool("mtiasim", "run", binary, "--inputs", npz(tmp_path / "d.npz")), "--grid")


def test_npz_missing_parameter(tool, binary, tmp_path):
    out = tmp_path / "o.npz"
    proc = tool("mtiasim", "run", binary, "--inputs", npz(tmp_path / "d.npz", B_ptr=None), "--grid", "4", "-o", out)
    assert_clean_error(proc, "B_ptr")
    assert not out.exists()


def test_npz_wrong_dtype(tool, binary, tmp_path):
    out = tmp_path / "o.npz"
    bad = npz(tmp_path / "d.npz", A_ptr=np.arange(1024, dtype=np.float64))
    proc = tool("mtiasim", "run", binary, "--inputs", bad, "--grid", "4", "-o", out)
    assert_clean_error(proc, "A_ptr", "float64")
    assert not out.exists()


def test_buffer_too_small_is_an_out_of_bounds_error_at_the_source_line(tool, binary, tmp_path):
    out = tmp_path / "o.npz"
    small = npz(tmp_path / "d.npz", A_ptr=np.ones(100, np.float32))
    proc = tool("mtiasim", "run", binary, "--inputs", small, "--grid", "4", "-o", out)
    assert_clean_error(proc, "vector_add.py:", "A_ptr", "out of bounds")
    assert not out.exists()


@pytest.mark.parametrize("content,message", [
    (b"hello, not an elf file at all", "not an ELF"),
    (None, "truncated"),
])
def test_bad_binaries(tool, binary, tmp_path, content, message):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(content if content is not None else binary.read_bytes()[:100])
    proc = tool("mtiasim", "run", bad, "--inputs", npz(tmp_path / "d.npz"), "--grid", "4")
    assert_clean_error(proc)
    assert message.lower() in proc.stderr.lower()


def test_binary_for_another_machine(tool, binary, tmp_path):
    data = bytearray(binary.read_bytes())
    data[18:20] = (62).to_bytes(2, "little")  # EM_X86_64
    bad = tmp_path / "x86.bin"
    bad.write_bytes(bytes(data))
    proc = tool("mtiasim", "run", bad, "--inputs", npz(tmp_path / "d.npz"), "--grid", "4")
    assert_clean_error(proc, "machine")
