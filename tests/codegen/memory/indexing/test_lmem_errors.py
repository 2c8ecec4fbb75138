"""Blocks that do not fit in a PE's local memory: which values, how many bytes, at their lines."""
from pathlib import Path

import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel

KERNELS = str(Path(__file__).with_name("kernels.py"))
LINES = Path(KERNELS).read_text().splitlines()


def line_no(text: str) -> int:
    return next(i + 1 for i, l in enumerate(LINES) if l.strip() == text)


def compile_error(block: int, opt: int) -> CompileError:
    opts = Options(kernel="too_big", defines={"BLOCK": str(block)}, signature="*fp32,*fp32", opt_level=opt)
    with pytest.raises(CompileError) as info:
        compile_kernel(KERNELS, opts)
    return info.value


def test_second_big_load_lists_the_first_one():
    err = compile_error(65536, 0)
    la, lb = line_no("a = tl.load(X + offs)"), line_no("b = tl.load(Y + offs)")
    text = err.render().splitlines()
    assert text[0] == (f"{KERNELS}:{lb}:9: error: blocks do not fit in the PE's local memory: `b` "
                       "(tensor<65536xf32>) needs 262144 bytes while 1 live block(s) take 262144 bytes, "
                       "of 389056 bytes available for blocks")
    assert text[1] == LINES[lb - 1]
    assert text[2] == "        ^~~~~~~~~~~~~~~~~"
    assert text[3] == f"note: live: `a` (tensor<65536xf32>), 262144 bytes, line {la}, column 9"
    assert "Traceback" not in err.render()


def test_too_many_live_blocks_names_each_with_bytes_and_line():
    err = compile_error(32768, 2)
    la, lb = line_no("a = tl.load(X + offs)"), line_no("b = tl.load(Y + offs)")
    lst = line_no("tl.store(Y + offs, c + b)")
    assert (err.loc.line, err.loc.col) == (lst, 24)   # the op that allocates: `c + b`
    assert "needs 131072 bytes while 2 live block(s) take 262144 bytes" in err.message
    assert err.notes[:2] == [f"live: `a` (tensor<32768xf32>), 131072 bytes, line {la}, column 9",
                             f"live: `b` (tensor<32768xf32>), 131072 bytes, line {lb}, column 9"]


def test_the_same_kernel_fits_with_smaller_blocks():
    comp = compile_kernel(KERNELS, Options(kernel="too_big", defines={"BLOCK": "16384"},
                                           signature="*fp32,*fp32"))
    assert comp.binary
