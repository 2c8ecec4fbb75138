"""Blocks of rank up to 9 (Triton's test_reshape reshapes 512 elements to nine axes of 2): reshape,
element-wise ops, permute, a reduction and a store through a rank-9 pointer block, against numpy.  A load of a
block of rank 6 or more is still an error at the load (codegen loads blocks of rank 5 at most)."""
import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from tests.language.harness import build, launch

NINE = "(2, 2, 2, 2, 2, 2, 2, 2, 2)"
KERNEL = f"""
@triton.jit
def k(Z, X):
    x = tl.load(X + tl.arange(0, 512))
    z = tl.reshape(x, {NINE}) * 2 + 1
    tl.store(Z + tl.reshape(tl.arange(0, 512), {NINE}), tl.permute(z, (8, 7, 6, 5, 4, 3, 2, 1, 0)))
    s = tl.sum(z, 3)
    tl.store(Z + 512 + tl.arange(0, 256), tl.reshape(s, (256,)))
"""


def test_rank_nine_blocks():
    x = np.random.default_rng(9).integers(-1000, 1000, 512).astype(np.int32)
    z = launch(KERNEL, "*i32,*i32", {"X": x, "Z": np.zeros(768, np.int32)}).outputs["Z"]
    y = x.reshape((2,) * 9) * 2 + 1
    np.testing.assert_array_equal(z[:512], y.transpose(8, 7, 6, 5, 4, 3, 2, 1, 0).reshape(-1))
    np.testing.assert_array_equal(z[512:], y.sum(3).reshape(-1))


def test_rank_ten_is_an_error():
    src = """
@triton.jit
def k(X):
    x = tl.reshape(tl.arange(0, 1024), (2, 2, 2, 2, 2, 2, 2, 2, 2, 2))
"""
    with pytest.raises(CompileError, match=r"tl.reshape: blocks of rank 10 are not supported \(at most 9\)"):
        build(src, "*i32")


def test_rank_nine_load_is_an_error_at_the_load():
    src = f"""
@triton.jit
def k(X):
    w = tl.load(X + tl.reshape(tl.arange(0, 512), {NINE}))
    tl.store(X + tl.arange(0, 512), tl.reshape(w, (512,)))
"""
    with pytest.raises(CompileError, match="blocks of rank 9 are not supported yet") as e:
        build(src, "*i32")
    assert (e.value.loc.line, e.value.loc.col) == (9, 9)
