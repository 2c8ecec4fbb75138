"""An independent numpy model of Triton's random numbers: Philox-4x32 (uint32 words, products in uint64),
Philox-4x64 (Python integers), the uint -> uniform float step and Box-Muller, as triton/language/random.py
defines them.  test_reference.py checks the Philox models against Random123's known-answer vectors."""
from __future__ import annotations

import numpy as np

W32 = np.uint64(0xFFFFFFFF)
# (multiplier of c0, multiplier of c2, key increment of k0, key increment of k1), Random123's
CONST_32 = (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85)
CONST_64 = (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)


def _u32(x) -> np.ndarray:
    return np.asarray(x).astype(np.uint64) & W32


def philox4x32(ctr, key, rounds: int = 10):
    """Philox-4x32-``rounds`` of the counter words ``ctr`` (4 arrays or ints) under ``key`` (2): uint32 arrays.
    Each word is held in uint64 below 2**32, so the 32x32 products are exact."""
    c = [_u32(w) for w in ctr]
    k = [_u32(w) for w in key]
    mul_a, mul_b, inc_a, inc_b = (np.uint64(v) for v in CONST_32)
    for _ in range(rounds):
        pa = c[0] * mul_a
        pb = c[2] * mul_b
        c = [(pb >> np.uint64(32)) ^ c[1] ^ k[0], pb & W32, (pa >> np.uint64(32)) ^ c[3] ^ k[1], pa & W32]
        k = [(k[0] + inc_a) & W32, (k[1] + inc_b) & W32]
    shape = np.broadcast_shapes(*(np.shape(w) for w in c))
    return [np.broadcast_to(w, shape).astype(np.uint32) for w in c]


def philox4x64(ctr, key, rounds: int = 10):
    """Philox-4x64-``rounds`` on Python integers (element-wise over object arrays): uint64 arrays."""
    m = (1 << 64) - 1
    c = [np.asarray(w, dtype=np.uint64).astype(object) for w in ctr]
    k = [int(w) for w in key]
    mul_a, mul_b, inc_a, inc_b = CONST_64
    for _ in range(rounds):
        pa = c[0] * mul_a
        pb = c[2] * mul_b
        c = [(pb >> 64) ^ c[1] ^ k[0], pb & m, (pa >> 64) ^ c[3] ^ k[1], pa & m]
        k = [(k[0] + inc_a) & m, (k[1] + inc_b) & m]
    return [np.asarray(w, dtype=object).astype(np.uint64) for w in c]


def seed_words(seed: int, signed_bits: int = 64):
    """Triton's key from a seed: the seed as uint64 (a signed seed of ``signed_bits`` bits sign-extended), split
    into its low and high 32-bit words."""
    s = int(seed) & ((1 << signed_bits) - 1)
    if s >> (signed_bits - 1) and signed_bits < 64:      # negative in its own width: sign-extend
        s -= 1 << signed_bits
    s &= (1 << 64) - 1
    return s & 0xFFFFFFFF, s >> 32


def randint4x(seed: int, offsets: np.ndarray, rounds: int = 10, seed_bits: int = 64):
    """Triton's randint4x: counter (offset's low word, high word if the offset is wider than 32 bits, 0, 0)."""
    offsets = np.asarray(offsets)
    wide = offsets.dtype.itemsize > 4
    bits = offsets.astype(np.int64).view(np.uint64) if offsets.dtype.kind == "i" else offsets.astype(np.uint64)
    lo = bits & W32
    hi = (bits >> np.uint64(32)) if wide else np.zeros_like(lo)
    return philox4x32((lo, hi, 0, 0), seed_words(seed, seed_bits), rounds)


def uint_to_uniform_float(x: np.ndarray) -> np.ndarray:
    """As int32 (int64 for 64-bit words), negatives n -> -n - 1, to float32, times Triton's scale in float32."""
    x = np.asarray(x)
    if x.dtype.itemsize == 4:
        s = x.view(np.int32).astype(np.int64)
        scale = np.float32(4.6566127342e-10)
        folded = np.where(s < 0, -s - 1, s)
    else:
        s = x.view(np.int64)
        scale = np.float32(1.0842020432385337e-19)
        folded = np.where(s < 0, ~s, s)                   # -s - 1 without overflowing int64
    return folded.astype(np.float32) * scale


def f32(x) -> np.ndarray:
    """A float64 result rounded to float32."""
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def pair_uniform_to_normal(u1: np.ndarray, u2: np.ndarray):
    """Box-Muller in float32, each step rounded to float32 as the kernel computes it; log, cos and sin are the
    float64 functions rounded to float32 (the correctly rounded results, but for the rarest ties)."""
    u1 = np.maximum(np.float32(1.0e-7), u1.astype(np.float32))
    th = np.float32(6.283185307179586) * u2.astype(np.float32)
    r = np.sqrt(np.float32(-2.0) * f32(np.log(u1.astype(np.float64))))
    return r * f32(np.cos(th.astype(np.float64))), r * f32(np.sin(th.astype(np.float64)))
