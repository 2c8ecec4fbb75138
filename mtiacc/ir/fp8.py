"""Triton's five 8-bit float formats: their layout and the conversions mtiacc gives them.

Every format is 1 sign bit, ``ebits`` exponent bits and ``mbits`` mantissa bits; a value with exponent
field ``e > 0`` is ``2**(e - bias) * (1 + m / 2**mbits)``, one with ``e == 0`` is the subnormal
``2**(1 - bias) * m / 2**mbits``.  They differ in what the top codes mean:

========== ============ ==== ======================= ============ =========================
Triton     IR           bias specials               max finite   Triton's backend
========== ============ ==== ======================= ============ =========================
fp8e4nv    f8E4M3FN       7  S.1111.111 is NaN       448          NVIDIA (sm >= 89), AMD
fp8e5      f8E5M2        15  e = 31: inf, NaN (IEEE) 57344        NVIDIA, AMD
fp8e4b8    f8E4M3FNUZ     8  0x80 is NaN (no -0)     240          AMD (CDNA3)
fp8e5b16   f8E5M2FNUZ    16  0x80 is NaN (no -0)     57344        AMD (CDNA3)
fp8e4b15   f8E4M3B15     15  none (all finite)       1.875        NVIDIA (pre-Hopper)
========== ============ ==== ======================= ============ =========================

Decoding (fp8 -> any wider float) is exact; NaN codes become a quiet NaN, e5's infinities stay
infinite.  Encoding follows the GPU backends (PTX ``cvt.rn.satfinite``, the AMD backend's software
and hardware paths): round to nearest even, *saturate* -- finite values beyond the range and
infinities become the largest finite value of the sign (e5 too: ``satfinite``), except the fnuz
formats, whose converters turn infinities into their NaN (0x80) --, NaN becomes the format's NaN
(0x7F; 0x80 for fnuz), and fnuz results never carry a sign on zero.  fp8e4b15 is Triton's NVIDIA
software format: the source is first truncated to f16, its magnitude clamped to 1.75 (NaN and
infinities too: 0x7E and 0xFE), then rounded half away from zero on the f16 bit pattern.

This module is the compiler's scalar definition (constant folding, constants in the binary); the
vector and scalar code doing the same on the device is ``mtiacc/codegen/arith/casts_fp8.py``.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict


@dataclasses.dataclass(frozen=True)
class Fp8Format:
    kind: str           # the IR spelling
    triton: str         # Triton's dtype name (tl.float8e4nv is dtype "fp8e4nv")
    ebits: int
    mbits: int
    bias: int
    specials: str       # "fn": S.1111.111 is NaN; "ieee": e all ones is inf/NaN; "fnuz": 0x80 is NaN; "none"
    sat: float          # the largest magnitude encoding produces
    rounding: str = "rne"   # "rne", or "half-up" (fp8e4b15: away from zero on f16's bits)

    @property
    def emin(self) -> int:
        return 1 - self.bias

    @property
    def nan_code(self) -> int:
        return {"fn": 0x7F, "ieee": 0x7F, "fnuz": 0x80, "none": 0x7E}[self.specials]


FORMATS: Dict[str, Fp8Format] = {f.kind: f for f in (
    Fp8Format("f8E4M3FN", "fp8e4nv", 4, 3, 7, "fn", 448.0),
    Fp8Format("f8E5M2", "fp8e5", 5, 2, 15, "ieee", 57344.0),
    Fp8Format("f8E4M3B15", "fp8e4b15", 4, 3, 15, "none", 1.75, "half-up"),
    Fp8Format("f8E4M3FNUZ", "fp8e4b8", 4, 3, 8, "fnuz", 240.0),
    Fp8Format("f8E5M2FNUZ", "fp8e5b16", 5, 2, 16, "fnuz", 57344.0),
)}


def fmt(kind) -> Fp8Format:
    """The format of an IR kind string or FloatType."""
    return FORMATS[getattr(kind, "kind", kind)]


def decode(bits: int, kind) -> float:
    """The value of the byte ``bits`` in format ``kind`` (NaN codes give NaN)."""
    f = fmt(kind)
    bits &= 0xFF
    sign = -1.0 if bits & 0x80 else 1.0
    mag = bits & 0x7F
    e, m = mag >> f.mbits, mag & ((1 << f.mbits) - 1)
    if f.specials == "fnuz" and bits == 0x80:
        return math.nan
    if f.specials == "fn" and mag == 0x7F:
        return math.nan
    if f.specials == "ieee" and e == (1 << f.ebits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(m, f.emin - f.mbits)
    return sign * math.ldexp((1 << f.mbits) + m, e - f.bias - f.mbits)


def _round_magnitude(a: float, f: Fp8Format) -> float:
    """``a >= 0`` finite, rounded to the format's grid (unbounded above) with its rounding rule."""
    if a == 0.0:
        return 0.0
    e = max(math.frexp(a)[1] - 1, f.emin)      # the binade's exponent (subnormals share emin's ulp)
    ulp = math.ldexp(1.0, e - f.mbits)
    q = a / ulp                                 # exact: a power-of-two scaling
    n = math.floor(q)
    rest = q - n
    if f.rounding == "half-up":
        n += rest >= 0.5
    elif rest > 0.5 or (rest == 0.5 and n % 2 == 1):
        n += 1
    return n * ulp


def _to_f16_rtz(x: float) -> float:
    """``x`` truncated (toward zero) to f16's precision, saturating at 65504 (PTX ``cvt.rz.f16.f32``)."""
    a = abs(x)
    if a == 0.0 or math.isinf(a):
        return math.copysign(min(a, 65504.0), x)
    e = max(math.frexp(a)[1] - 1, -14)
    ulp = math.ldexp(1.0, e - 10)
    return math.copysign(min(math.floor(a / ulp) * ulp, 65504.0), x)


def encode(x: float, kind) -> int:
    """The byte ``x`` converts to in format ``kind`` (see the module docstring)."""
    f = fmt(kind)
    neg = math.copysign(1.0, x) < 0
    if math.isnan(x):
        return f.nan_code | (0x80 if f.specials == "none" and neg else 0)
    if f.specials == "fnuz" and math.isinf(x):
        return 0x80
    if f.specials == "none":
        x = _to_f16_rtz(x)
    a = abs(x)
    v = f.sat if math.isinf(a) else min(_round_magnitude(a, f), f.sat)
    if v < math.ldexp(1.0, f.emin):
        mag = int(v / math.ldexp(1.0, f.emin - f.mbits))
    else:
        mant, exp = math.frexp(v)               # v = mant * 2**exp, mant in [0.5, 1)
        mag = ((exp - 1 + f.bias) << f.mbits) | (int(mant * (1 << (f.mbits + 1))) - (1 << f.mbits))
    if mag == 0 and f.specials == "fnuz":
        return 0
    return mag | (0x80 if neg else 0)


def round_to(x: float, kind) -> float:
    """``x`` converted to format ``kind`` and back: the value an fp8 constant holds."""
    return decode(encode(x, kind), kind)
