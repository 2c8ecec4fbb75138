"""Reductions of many rows short enough for one chunk (codegen/tensor/reduce.py, ``_reduce_short_rows``: two rows a
step, no chunk loop, the results stored from vector registers) give, bit for bit, what the reduction of each row
alone gives (a 1-D ``tl.sum`` to a scalar, which keeps the chunked loop), and match numpy; a block of one row takes
a single row alone."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def block(X, O, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(X + r[:, None] * C + c[None, :])
    tl.store(O + r, tl.sum(x, 1))
    tl.store(O + R + r, tl.max(x, 1))


@triton.jit
def each(X, O, R: tl.constexpr, C: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(X + row * C + tl.arange(0, C))
    tl.store(O + row, tl.sum(x, 0))
    tl.store(O + R + row, tl.max(x, 0))
"""
TYPES = {"fp32": np.float32, "fp16": np.float16, "i32": np.int32}


def _run(tmp_path, name, sig, R, C, x, grid):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    comp = compile_kernel(str(src), Options(kernel=name, signature=f"*{sig},*{sig}", opt_level=3,
                                            defines={"R": str(R), "C": str(C)}))
    out = run(comp.binary, {"X": x, "O": np.zeros(2 * R, x.dtype)}, grid=grid).outputs["O"]
    return comp.asm_text, out


@pytest.mark.parametrize("sig", list(TYPES))
@pytest.mark.parametrize("R, C", [(4, 64), (2, 128), (8, 2), (1, 16)])
def test_short_rows_as_each_row_alone(tmp_path, sig, R, C):
    dtype = TYPES[sig]
    rng = np.random.default_rng(R * 7 + C)
    if dtype == np.int32:
        x = rng.integers(-10 ** 6, 10 ** 6, (R, C)).astype(dtype)
    else:
        x = (rng.standard_normal((R, C)) * 100).astype(dtype)
    asm, got = _run(tmp_path, "block", sig, R, C, x, (1,))
    _, want = _run(tmp_path, "each", sig, R, C, x, (R,))
    if R >= 2:
        assert "row(s) a step" in asm
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    tol = 0 if dtype == np.int32 else (1e-2 if dtype == np.float16 else 1e-4)
    np.testing.assert_allclose(got[:R].astype(np.float64), x.astype(np.float64).sum(axis=1), rtol=tol,
                               atol=tol * np.abs(x).sum(axis=1).max())
    np.testing.assert_array_equal(got[R:], x.max(axis=1))
