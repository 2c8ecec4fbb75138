"""tl.device_print / tl.device_assert end to end: compiled by `mtiacc`, run by the `mtiasim` CLI."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.ir.text.parser import parse_ir
from mtiacc.ir.text.printer import print_ir
from tests.conftest import run_tool

KERNELS = Path(__file__).with_name("kernels.py")


def run_kernel(tmp_path, kernel, sig, grid, inputs, *flags, defines=()):
    binary, out = tmp_path / f"{kernel}.bin", tmp_path / f"{kernel}.out.npz"
    d = [a for k, v in defines for a in ("-D", f"{k}={v}")]
    c = run_tool("mtiacc", KERNELS, "--kernel", kernel, "--signature", sig, *d, *flags, "-o", binary)
    assert c.returncode == 0, c.stderr
    np.savez(tmp_path / "in.npz", **inputs)
    r = run_tool("mtiasim", "run", binary, "--inputs", tmp_path / "in.npz", "--grid", grid, "-o", out)
    return r, out


def printed(r):
    """The printed lines (the CLI's own 'wrote ...' line aside)."""
    return [line for line in r.stdout.splitlines() if not line.startswith("wrote ")]


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_print_scalars_and_blocks_in_program_order(tmp_path, opt):
    x = (np.arange(6, dtype=np.float32) - 2) * 1.5
    r, _ = run_kernel(tmp_path, "print_values", "*fp32,i32", "2", {"x_ptr": x, "n": np.array(6, np.int32)},
                      opt, defines=[("BLOCK", 4)])
    assert r.returncode == 0, r.stderr
    padded = np.concatenate([x, np.zeros(2, np.float32)])
    want = []
    for pid in range(2):
        chunk = padded[4 * pid: 4 * pid + 4]
        want += [f"pid ({pid}, 0, 0) idx ({i}) x: {float(v)!r}" for i, v in enumerate(chunk)]
        want += [f"pid ({pid}, 0, 0) pid {pid}, 6", f"pid ({pid}, 0, 0) sum {float(chunk.sum())!r}"]
    assert printed(r) == want


def test_print_2d_blocks_with_indices(tmp_path):
    x = np.arange(8, dtype=np.float16) * np.float16(0.5)
    r, _ = run_kernel(tmp_path, "print_2d", "*fp16", "1", {"x_ptr": x}, defines=[("R", 2), ("C", 4)])
    assert r.returncode == 0, r.stderr
    want = [f"pid (0, 0, 0) idx ({i}, {j}) v {float(x[4 * i + j])!r}, {10 * i + j}"
            for i in range(2) for j in range(4)]
    assert printed(r) == want


def test_assert_passes_where_masked(tmp_path):
    x = np.array([1, 2, 3, 4, 5, 6, 7], np.int32)  # the masked-off tail loads -1
    r, out = run_kernel(tmp_path, "checked_copy", "*i32,*i32,i32", "2",
                        {"x_ptr": x, "y_ptr": np.zeros(7, np.int32), "n": np.array(7, np.int32)},
                        defines=[("BLOCK", 4)])
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out)["y_ptr"], x)


def test_failing_assert_stops_with_location_message_and_program(tmp_path):
    x = np.array([1, 2, 3, 4, 5, -6, 7], np.int32)
    r, out = run_kernel(tmp_path, "checked_copy", "*i32,*i32,i32", "2",
                        {"x_ptr": x, "y_ptr": np.zeros(7, np.int32), "n": np.array(7, np.int32)},
                        defines=[("BLOCK", 4)])
    assert r.returncode != 0
    lines = r.stderr.splitlines()
    assert lines[0].endswith("kernels.py:29:5: error: device assertion failed: negative input"), r.stderr
    assert lines[1] == '    tl.device_assert(x >= 0, "negative input", mask=m)'
    assert lines[2] == "    ^"
    assert "program (1, 0, 0)" in r.stderr and "element (1) of the condition is false" in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_scalar_assert_names_the_failing_program(tmp_path):
    r, out = run_kernel(tmp_path, "scalar_assert", "*i32,i32", "3",
                        {"x_ptr": np.zeros(3, np.int32), "n": np.array(2, np.int32)})
    assert r.returncode != 0
    assert "kernels.py:36:5: error: device assertion failed: pid out of range" in r.stderr
    assert "program (2, 0, 0)" in r.stderr
    assert not out.exists()


def test_print_prefix_must_be_a_string(tmp_path):
    c = run_tool("mtiacc", KERNELS, "--kernel", "bad_prefix", "--signature", "*fp32", "-o", tmp_path / "b.bin")
    assert c.returncode != 0
    lines = c.stderr.splitlines()
    assert lines[0].endswith("kernels.py:42:5: error: the prefix of tl.device_print must be a constexpr string, "
                             "got a pointer of type !tt.ptr<f32>") or "must be a constexpr string" in lines[0], c.stderr
    assert ":42:" in lines[0] and "Traceback" not in c.stderr


def test_debug_ops_round_trip_and_survive_dce():
    comp = compile_kernel(str(KERNELS), Options(kernel="checked_copy", signature="*i32,*i32,i32",
                                                defines={"BLOCK": "4"}), stop_after="ir")
    assert '"tt.assert"' in comp.ir_text and 'message = "negative input"' in comp.ir_text
    assert print_ir(parse_ir(comp.ir_text)) == comp.ir_text
    # -O2: the body once (at -O3, the default, persistent-programs runs it in a loop over a PE's programs that
    # pipeline-loads pipelines: two copies in the loop and one after it, each print in each)
    comp = compile_kernel(str(KERNELS), Options(kernel="print_values", signature="*fp32,i32", opt_level=2,
                                                defines={"BLOCK": "4"}), stop_after="ir")
    assert comp.ir_text.count('"tt.print"') == 3
    assert print_ir(parse_ir(comp.ir_text)) == comp.ir_text
