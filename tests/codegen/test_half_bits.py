"""``half_bits`` (the f16 / bf16 pattern of a constant) without numpy: numpy's own conversions, bit for bit, on
seeded random doubles, the halfway points of both formats, the ends of their ranges, infinities and NaNs of every
payload and sign."""
import math
import struct

import numpy as np
import pytest

from mtiacc.codegen.arith.scalar import half_bits


def _numpy_f16(x: float) -> int:
    with np.errstate(over="ignore"):
        return int(np.array(x, np.float16).view(np.uint16))


def _numpy_bf16(x: float) -> int:
    with np.errstate(over="ignore"):
        f = np.array(x, np.float32)
    if f != f:
        return 0x7FC0
    u = int(f.view(np.uint32))
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def _values():
    rng = np.random.default_rng(2026)
    vals = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, -65520.0, 1e6, 1e39, -1e39, 1e300, math.inf, -math.inf,
            math.nan, -math.nan, 2.0 ** -24, 2.0 ** -25, -(2.0 ** -25), 1e-8, 3.4028235677973366e+38, 1e-45]
    vals += rng.integers(0, 1 << 64, 20000, dtype=np.uint64).view(np.float64).tolist()   # every exponent, NaNs too
    vals += rng.uniform(-70000, 70000, 5000).tolist() + rng.uniform(-1e-4, 1e-4, 5000).tolist()
    nan_bits = (np.uint64(0x7FF) << np.uint64(52)) | rng.integers(1, 1 << 52, 2000, dtype=np.uint64)
    vals += nan_bits.view(np.float64).tolist() + (-nan_bits.view(np.float64)).tolist()
    halves = rng.integers(0, 0x7BFF, 5000).astype(np.uint16)         # halfway between neighbouring f16 values
    lo, hi = halves.view(np.float16).astype(np.float64), (halves + 1).view(np.float16).astype(np.float64)
    vals += ((lo + hi) / 2).tolist()
    singles = rng.integers(0, 0x7F7FFFFF, 5000, dtype=np.uint32).view(np.float32).astype(np.float64)
    vals += (singles * (1 + 2.0 ** -9)).tolist()                       # near bf16's halfway points
    return vals


@pytest.mark.parametrize("kind, reference", [("f16", _numpy_f16), ("bf16", _numpy_bf16)])
def test_half_bits_matches_numpy(kind, reference):
    vals = _values()
    bad = [(v, half_bits(v, kind), reference(v)) for v in vals if half_bits(v, kind) != reference(v)]
    assert not bad, f"{len(bad)} of {len(vals)} differ, e.g. {bad[:3]}"


def test_half_bits_examples():
    assert half_bits(1.0, "f16") == 0x3C00
    assert half_bits(-2.0, "bf16") == 0xC000
    assert half_bits(1e6, "f16") == 0x7C00 and half_bits(-1e6, "f16") == 0xFC00    # beyond the range: infinity
    assert half_bits(math.nan, "f16") == 0x7E00 and half_bits(math.nan, "bf16") == 0x7FC0
    assert half_bits(struct.unpack("<d", struct.pack("<Q", 0xFFF0000000000001))[0], "f16") == 0xFC01  # payload lost
