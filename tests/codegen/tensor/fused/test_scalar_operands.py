"""Fused loops reading scalar operands from x / f registers (``vxor.vx``, ``vfrsub.vf``, ``vfrdiv.vf``, ...) and
compares against a scalar (``vmsltu.vx``, ``vmfge.vf``, ...), ``tl.umulhi`` as ``vmulhu``: the results against numpy, bit for bit (tests/filecheck/vector_scalar_operands.py pins
the instructions)."""
import numpy as np

from tests.language.harness import launch

SRC = '''
import triton
import triton.language as tl


@triton.jit
def k(A, B, X, Y, Z, W, key, f, n):
    offs = tl.arange(0, 256)
    a = tl.load(A + offs)
    x = tl.load(X + offs)
    h = tl.umulhi(a, 3528531795) ^ key
    tl.store(B + offs, (h + (a * 7)) - (n - a) + (h >> 3) + tl.maximum(a, key))
    tl.store(Y + offs, (1.0 - x * f) / (2.0 / x))
    tl.store(Z + offs, tl.minimum(f, x) - (x - f) * 0.5)
    c = (a < key).to(tl.int32) + 2 * (key <= a).to(tl.int32) + 4 * (a > 1000).to(tl.int32) \
        + 8 * (x >= f).to(tl.int32) + 16 * (3.0 > x).to(tl.int32) + 32 * (x != 2.5).to(tl.int32) \
        + 64 * (a == key).to(tl.int32)
    tl.store(W + offs, c)
'''


def test_scalar_operands_match_numpy():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    x = rng.standard_normal(256).astype(np.float32) + np.float32(3)
    key, f, n = np.uint32(0x9E3779B9), np.float32(0.75), np.uint32(12345)
    a[:3] = [key, 1000, 0]
    x[:3] = [f, 3.0, 2.5]
    out = launch(SRC, "*u32,*u32,*fp32,*fp32,*fp32,*i32,u32,fp32,u32",
                 {"A": a, "B": np.zeros(256, np.uint32), "X": x, "Y": np.zeros(256, np.float32),
                  "Z": np.zeros(256, np.float32), "W": np.zeros(256, np.int32), "key": key, "f": f, "n": n}).outputs
    a64 = a.astype(np.uint64)
    h = ((a64 * np.uint64(3528531795)) >> np.uint64(32)).astype(np.uint32) ^ key
    with np.errstate(over="ignore"):
        b = (h + a * np.uint32(7)) - (n - a) + (h >> np.uint32(3)) + np.maximum(a, key)
    np.testing.assert_array_equal(out["B"], b)
    np.testing.assert_array_equal(out["Y"], (np.float32(1) - x * f) / (np.float32(2) / x))
    np.testing.assert_array_equal(out["Z"], np.minimum(f, x) - (x - f) * np.float32(0.5))
    c = (a < key) + 2 * (key <= a) + 4 * (a > 1000) + 8 * (x >= f) + 16 * (3.0 > x) + 32 * (x != 2.5) + 64 * (a == key)
    np.testing.assert_array_equal(out["W"], c.astype(np.int32))
