"""Fused loops: a mask cast to a float (1.0 or, signed, -1.0, in fp32 and fp64) merged from the constant's bits,
and same-width bitcasts that rename a register (tests/filecheck/fuse_mask_cast.py, fused_bitcast.py pin the
instructions): the results against numpy, bit for bit."""
import numpy as np

from tests.language.harness import launch
from tests.numerics import fma

SRC = '''
import triton
import triton.language as tl


@triton.jit
def k(X, A, Y, Z, D, B, p):
    offs = tl.arange(0, 256)
    x = tl.load(X + offs)
    a = tl.load(A + offs)
    m = x > p
    tl.store(Y + offs, m.to(tl.float32) * x * 1.25 + (a < 7).to(tl.float32))
    tl.store(Z + offs, m.to(tl.int1).to(tl.float32, bitcast=False) - (x < 0.5).to(tl.int32).to(tl.float32))
    tl.store(D + offs, m.to(tl.float64) * x.to(tl.float64) + (a > 3).to(tl.float64))
    u = (a * 3).to(tl.uint32, bitcast=True)
    tl.store(B + offs, ((u >> 3) ^ u).to(tl.int32, bitcast=True))
'''


def test_mask_casts_and_bitcasts_match_numpy():
    rng = np.random.default_rng(12)
    x = rng.standard_normal(256).astype(np.float32)
    a = rng.integers(-2**31, 2**31, 256, dtype=np.int64).astype(np.int32)
    a[:4] = [0, 3, 7, -1]
    p = np.float32(0.1)
    data = {"X": x, "A": a, "Y": np.zeros(256, np.float32), "Z": np.zeros(256, np.float32),
            "D": np.zeros(256, np.float64), "B": np.zeros(256, np.int32), "p": p}
    out = launch(SRC, "*fp32,*i32,*fp32,*fp32,*fp64,*i32,fp32", data).outputs
    m = x > p
    want_y = fma(m.astype(np.float32) * x, np.float32(1.25), (a < 7).astype(np.float32))   # contract-fma
    np.testing.assert_array_equal(out["Y"], want_y)
    np.testing.assert_array_equal(out["Z"], m.astype(np.float32) - (x < 0.5).astype(np.float32))
    np.testing.assert_array_equal(out["D"], fma(m, x.astype(np.float64), (a > 3), np.float64))
    u = (a.astype(np.int64) * 3).astype(np.int32).view(np.uint32)
    np.testing.assert_array_equal(out["B"], ((u >> np.uint32(3)) ^ u).view(np.int32))
