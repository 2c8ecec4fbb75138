"""Arithmetic on constants exactly as the target computes it.

Integers wrap around at their width; ``divsi``/``remsi`` truncate toward zero (C); floats are
rounded to their own precision after each operation (f32 arithmetic in float32, not in
Python's double).  Constants of an integer type are kept in the type's range: signed types
in ``[-2**(w-1), 2**(w-1))``, unsigned types in ``[0, 2**w)``, i1 as ``bool``.
"""
from __future__ import annotations

import math
import struct
from typing import Optional

from mtiacc.ir.types import FloatType, IntType, Type


# --------------------------------------------------------------------------- integers

def normalize_int(value: int, t: IntType):
    """``value`` wrapped to ``t``'s width, in ``t``'s range (a bool for i1)."""
    if t.width == 1:
        return bool(value & 1)
    value &= (1 << t.width) - 1
    if t.signed and value >= 1 << (t.width - 1):
        value -= 1 << t.width
    return value


def as_unsigned(value: int, t: IntType) -> int:
    return int(value) & ((1 << t.width) - 1)


def as_signed(value: int, t: IntType) -> int:
    v = as_unsigned(value, t)
    if v >= 1 << (t.width - 1):
        v -= 1 << t.width
    return v


def fits_int(value: int, t: IntType, allow_wrap: bool = True) -> bool:
    """Whether ``value`` fits ``t``; with ``allow_wrap`` also a bit pattern of the other signedness."""
    w = t.width
    signed_ok = -(1 << (w - 1)) <= value < (1 << (w - 1))
    unsigned_ok = 0 <= value < (1 << w)
    if w == 1:
        return value in (0, 1, True, False) or (allow_wrap and value == -1)
    if allow_wrap:
        return signed_ok or unsigned_ok
    return signed_ok if t.signed else unsigned_ok


def c_div(a: int, b: int) -> Optional[int]:
    """Integer division truncating toward zero; None for a zero divisor."""
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a: int, b: int) -> Optional[int]:
    """The remainder with the dividend's sign (C ``%``); None for a zero divisor."""
    q = c_div(a, b)
    return None if q is None else a - b * q


# --------------------------------------------------------------------------- floats

def numpy():
    """numpy, imported on first use: most compiles fold no float arithmetic, and importing it costs ~0.1 s."""
    import numpy as np
    return np


_NP = {"f16": "float16", "f32": "float32", "f64": "float64"}
_PACK = {"f16": "<e", "f32": "<f"}


def round_float(x: float, t: FloatType) -> float:
    """``x`` rounded (to nearest even) to ``t``'s precision, as a Python float.

    f16 and f32 go through ``struct``, which rounds a double as numpy does (an infinity beyond the range); an f16
    NaN goes through numpy, whose payload ``struct`` does not keep."""
    if t.kind == "f64":
        return float(x)
    fmt = _PACK.get(t.kind)
    if fmt is not None and not (t.kind == "f16" and x != x):
        try:
            return struct.unpack(fmt, struct.pack(fmt, x))[0]
        except OverflowError:  # rounds to an infinity
            return math.copysign(math.inf, x)
    if t.kind in _NP:
        np = numpy()
        with np.errstate(over="ignore", invalid="ignore"):
            return float(getattr(np, _NP[t.kind])(x))
    if t.is_fp8:  # Triton's conversion to fp8 (saturating; see mtiacc/ir/fp8.py)
        from mtiacc.ir import fp8
        return fp8.round_to(x, t)
    # bf16: the top 16 bits of the f32 pattern, rounded to nearest even.
    (bits,) = struct.unpack("<I", struct.pack("<f", round_float(x, FloatType("f32"))))
    if math.isnan(x):
        return x
    bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def float_binary(fn: str, a: float, b: float, t: FloatType) -> float:
    """numpy's ``fn`` (a ufunc's name) of ``a`` and ``b`` computed in ``t``'s precision (IEEE arithmetic, rounded
    to ``t``)."""
    np = numpy()
    np_t = getattr(np, _NP.get(t.kind, "float32"))
    with np.errstate(all="ignore"):
        r = getattr(np, fn)(np_t(a), np_t(b))
    return round_float(float(r), t)


def normalize(value, t: Type):
    """A constant of scalar type ``t`` in canonical form."""
    if isinstance(t, IntType):
        return normalize_int(int(value), t)
    if isinstance(t, FloatType):
        return round_float(float(value), t)
    return value


def float_to_int(x: float, t: IntType) -> Optional[int]:
    """``fptosi``/``fptoui``: truncation toward zero; None when out of range or NaN."""
    if not math.isfinite(x):
        return None
    v = int(x)  # truncates toward zero
    lo, hi = (-(1 << (t.width - 1)), 1 << (t.width - 1)) if t.signed else (0, 1 << t.width)
    return v if lo <= v < hi else None


_BITS_FMT = {32: ("<f", "<I"), 64: ("<d", "<Q")}


def bitcast(value, src: Type, dst: Type):
    """Reinterpret the bits of a constant; None when not representable here (f16, bf16)."""
    if isinstance(src, IntType) and isinstance(dst, IntType):
        return normalize_int(as_unsigned(value, src), dst)
    width = src.width
    if width not in _BITS_FMT or width != dst.width:
        return None
    ffmt, ifmt = _BITS_FMT[width]
    if isinstance(src, FloatType) and isinstance(dst, IntType):
        (bits,) = struct.unpack(ifmt, struct.pack(ffmt, value))
        return normalize_int(bits, dst)
    if isinstance(src, IntType) and isinstance(dst, FloatType):
        return struct.unpack(ffmt, struct.pack(ifmt, as_unsigned(value, src)))[0]
    return None
