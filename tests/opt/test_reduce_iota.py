"""canonicalize: tl.min / tl.max of s + tl.arange(0, n) are scalar ops on s, the wrapping sequences included
(signed past INT_MAX, unsigned past 2^32 - 1); against numpy, and the reduction gone from the IR."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(Out, s):
    offs = s + tl.arange(0, 64)
    u = offs.to(tl.uint32, bitcast=True)
    tl.store(Out + 0, tl.min(offs, 0).to(tl.int64))
    tl.store(Out + 1, tl.max(offs, 0).to(tl.int64))
    tl.store(Out + 2, tl.min(u, 0).to(tl.int64))
    tl.store(Out + 3, tl.max(u, 0).to(tl.int64))
"""


def _want(s):
    with np.errstate(over="ignore"):
        offs = np.int32(s) + np.arange(64, dtype=np.int32)
    u = offs.view(np.uint32)
    return [int(offs.min()), int(offs.max()), int(u.min()), int(u.max())]


@pytest.mark.parametrize("s", [0, 1000, 2**31 - 64, 2**31 - 63, 2**31 - 1, -1, -30, -64, -65, -(2**31)])
def test_extremes_of_an_index_range(tmp_path, s):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    binary = compile_kernel(str(src), Options(signature="*i64,i32", opt_level=2)).binary
    out = run(binary, {"Out": np.zeros(4, np.int64), "s": np.array(s, np.int32)}, grid=(1,)).outputs["Out"]
    assert out.tolist() == _want(s)


def test_no_reduction_is_left(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    ir = compile_kernel(str(src), Options(signature="*i64,i32", opt_level=2), stop_after="ir").ir_text
    assert "tt.reduce" not in ir and ir.count('"arith.select"') >= 4
