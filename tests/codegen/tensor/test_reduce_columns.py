"""``max``/``min`` of many short rows reduce a column at a time (codegen/tensor/reduce.py, ``by_columns``): strided
loads of up to VLMAX rows and an elementwise combine.  Against numpy on seeded inputs, in every float and integer
type that reduces, with chunks of rows beyond VLMAX and rows of NaN and signed zeros; the choice between columns
and rows by its cost."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(X, O, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(X + r[:, None] * C + c[None, :])
    tl.store(O + r, tl.max(x, 1))
    tl.store(O + R + r, tl.min(x, 1))
"""
TYPES = {"fp32": np.float32, "fp16": np.float16, "fp64": np.float64, "i32": np.int32, "i8": np.int8,
         "u16": np.uint16}


def _compile(tmp_path, sig, R, C):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    return compile_kernel(str(src), Options(signature=f"*{sig},*{sig}", opt_level=3,
                                            defines={"R": str(R), "C": str(C)}))


@pytest.mark.parametrize("sig", list(TYPES))
@pytest.mark.parametrize("R, C", [(128, 64), (256, 16), (32, 8), (64, 4), (64, 2)])
def test_columns_match_numpy(tmp_path, sig, R, C):
    dtype = TYPES[sig]
    comp = _compile(tmp_path, sig, R, C)
    rng = np.random.default_rng(R + C)
    if np.issubdtype(dtype, np.floating):
        x = rng.standard_normal((R, C)).astype(dtype)
        x[1, :] = np.nan                      # a row of only NaN
        x[2, C - 1] = np.nan                  # NaN ignored
        x[3, :] = -1.0
        x[3, C - 2], x[3, C - 1] = -0.0, 0.0  # -0 < +0 (max +0), and min of a row with -0
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, (R, C), endpoint=True).astype(dtype)
    out = run(comp.binary, {"X": x, "O": np.zeros(2 * R, dtype)}, grid=(1,)).outputs["O"]
    if np.issubdtype(dtype, np.floating):
        np.testing.assert_array_equal(out[:R], np.fmax.reduce(x, axis=1))
        np.testing.assert_array_equal(out[R:], np.fmin.reduce(x, axis=1))
        assert not np.signbit(out[3]) and out[3] == 0
        assert np.isnan(out[1]) and np.isnan(out[R + 1])
    else:
        np.testing.assert_array_equal(out[:R], x.max(axis=1))
        np.testing.assert_array_equal(out[R:], x.min(axis=1))


def test_columns_chosen_by_cost(tmp_path):
    """128 rows of 64: a column at a time; 2 rows of 4096 (each a few long reductions): a row at a time."""
    assert "a column at a time" in _compile(tmp_path, "fp32", 128, 64).asm_text
    assert "a column at a time" not in _compile(tmp_path, "fp32", 2, 4096).asm_text
