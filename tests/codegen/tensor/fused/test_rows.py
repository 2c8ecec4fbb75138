"""Fused loops over [R, C] blocks that read a column broadcast along the rows (``x[:, None]``) run a row at a time
with the column's element in a scalar register (codegen/tensor/fused.py, "by rows"); a lone op reading one is fused
for it (opt/fuse_elementwise.py).  Bit for bit against numpy, in f32, f64 and i32, at row lengths on either side
of ROW_MIN and of a vector register group, and with a segmented (split) chain."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.numerics import fma

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(X, A, B, O, s, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(X + r[:, None] * C + c[None, :])
    a = tl.load(A + r)
    b = tl.load(B + r)
    y = (x - a[:, None]) * s + b[:, None]     # a chain reading two columns
    z = x * a[:, None]                         # a lone op reading one
    w = tl.where(x > b[:, None], x, a[:, None])
    tl.store(O + r[:, None] * C + c[None, :], y)
    tl.store(O + R * C + r[:, None] * C + c[None, :], z)
    tl.store(O + 2 * R * C + r[:, None] * C + c[None, :], w)
"""


def _compile(tmp_path, sig, R, C):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    return compile_kernel(str(src), Options(signature=",".join([f"*{sig}"] * 4 + [sig]), opt_level=3,
                                            defines={"R": str(R), "C": str(C)}))


@pytest.mark.parametrize("dtype, sig", [(np.float32, "fp32"), (np.float64, "fp64"), (np.int32, "i32")])
@pytest.mark.parametrize("R, C", [(8, 16), (4, 64), (16, 256), (32, 8)])
def test_rows_match_numpy(tmp_path, dtype, sig, R, C):
    comp = _compile(tmp_path, sig, R, C)
    rng = np.random.default_rng(R * 1000 + C)
    if dtype == np.int32:
        x = rng.integers(-1000, 1000, (R, C)).astype(dtype)
        a, b = (rng.integers(-1000, 1000, R).astype(dtype) for _ in range(2))
        s = dtype(3)
    else:
        x = rng.standard_normal((R, C)).astype(dtype)
        a, b = (rng.standard_normal(R).astype(dtype) for _ in range(2))
        s = dtype(-1.25)
    out = run(comp.binary, {"X": x, "A": a, "B": b, "O": np.zeros(3 * R * C, dtype), "s": np.array(s)},
              grid=(1,)).outputs["O"].reshape(3, R, C)
    d = x - a[:, None]
    if dtype == np.int32:
        y = d * s + b[:, None]
    else:   # contract-fma: (x - a) * s + b rounded once
        y = fma(d, s, np.broadcast_to(b[:, None], d.shape), dtype)
    np.testing.assert_array_equal(out[0], y)
    np.testing.assert_array_equal(out[1], x * a[:, None])
    np.testing.assert_array_equal(out[2], np.where(x > b[:, None], x, a[:, None]))


def test_rows_asm(tmp_path):
    """Row mode at C >= ROW_MIN: scalar loads of the columns, .vf forms (of the SE's ALUs), no broadcast copy (two
    rows an iteration where a row is one chunk, a row at a time where it is longer); at C < ROW_MIN the broadcast
    is built as before."""
    for C, form in ((64, "two rows at a time"), (256, "a row at a time")):
        asm = _compile(tmp_path, "fp32", 8, C).asm_text
        assert form in asm and "flw" in asm and "mtia.se.fsub.vf" in asm
        assert "vlse32.v" not in asm          # the strided copy of a broadcast
    small = _compile(tmp_path, "fp32", 32, 8).asm_text
    assert "a row at a time" not in small
