"""A masked load whose `other` is a computed block, at every level: the block is materialized for the fill.

At -O0 nothing folds `other` into a splat, and the load's lowering read a buffer no op had been asked to build
(an internal error); a load of bools, whose `other` becomes a byte block, met it with `other=False`."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = Path(__file__).resolve().parent / "load_other_kernels.py"
A = 8


def _run(kernel, sig, level, x, out):
    opts = Options(kernel=kernel, signature=sig, defines={"A": str(A)}, opt_level=level)
    return run(compile_kernel(str(KERNELS), opts).binary, {"X": x, "O": out}, grid=(1,)).outputs["O"]


def _gathered(x):
    rows, cols = np.meshgrid(np.arange(A), np.arange(A), indexing="ij")
    lin = rows * A + cols
    return lin, np.where(lin <= 31, x[(rows * 3 * A + cols * 3).clip(0, x.size - 1)], 0)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("dtype, sig", [(np.int8, "*i8,*i8"), (np.int32, "*i32,*i32"), (np.float32, "*fp32,*fp32")])
def test_computed_other(level, dtype, sig):
    x = (np.random.default_rng(7).integers(-50, 50, 3 * A * A)).astype(dtype)
    lin, got = _gathered(x)
    want = np.where(lin <= 31, got, (lin > 3).astype(dtype) + 1).astype(dtype)
    out = _run("strided_other", sig, level, x, np.zeros(A * A, dtype))
    np.testing.assert_array_equal(out.reshape(A, A), want)


@pytest.mark.parametrize("level", [0, 3])
def test_bool_load_with_computed_other(level):
    x = np.random.default_rng(8).integers(0, 4, 3 * A * A).astype(np.uint8).view(np.bool_)   # bytes 0..3
    lin, got = _gathered(x.view(np.uint8))
    want = np.where(lin <= 31, got != 0, lin > 40)
    out = _run("bool_other", "*i1,*i1", level, x, np.zeros(A * A, np.bool_))
    np.testing.assert_array_equal(out.reshape(A, A).view(np.uint8) != 0, want)
