"""Conversion plans: the steps converting one element type to another, as data (no code is emitted here).

A plan is a list of steps ``(element type to set, mnemonic, immediate or scalar)``.  Most steps are RVV
instructions; three are pseudo steps that ``casts.py`` (bf16 rounding) and ``casts_fp8.py`` (fp8 decode and
encode) expand.  Both of those modules read the plans from here, and neither imports the other back.

Triton's semantics: integer widening extends by the *source's* signedness (i1 is 0/1), narrowing keeps the
low bits; float -> int truncates toward zero (``rtz``); int -> float and float narrowing round to nearest
even; bf16 goes through f32: widening puts the 16 bits on top of a zero f32 mantissa tail, narrowing rounds
the f32 bit pattern to nearest even (NaN -> 0x7fc0).  Same-width int <-> int is a reinterpretation.

The SEW of a step follows RVV: the destination's for ``vsext``/``vzext``/``vnsrl``/``vfncvt``, the source's
for ``vfwcvt``.  A plan may pass through a type wider than both ends (bf16 -> i8 goes through f32): the
loop's LMUL is then lowered so the widest intermediate still fits a group of 8 (:func:`widest`).

f64 -> f16 and f64 -> bf16 narrow to f32 *rounding to odd* (``vfncvt.rod.f.f.w``) first: f32 keeps more than
two bits beyond a half's precision, so the final rounding to nearest even is the only one (no double rounding).

Exactness of the two-step paths: i64 -> f16 rounds to f32 first; values below 2**24 are exact in f32, and
above it both paths overflow f16 to inf, so there is one rounding.  int -> bf16 rounds to f32 first (as
Triton's GPU backends do), which can double-round integers of magnitude >= 2**24.

fp8 conversions (:func:`fp8_plan`) go through f32: decode an fp8 byte to f32 (exact), or encode f32 to a
byte; the other end follows :func:`plan` (f32 -> f16/bf16/f64 is exact; f64 rounds to odd to f32 first, so
the fp8 rounding is the only one).
"""
from __future__ import annotations

from typing import List, Tuple

from mtiacc.ir import fp8 as F8
from mtiacc.ir.types import FloatType, IntType, Type

f32, f16, bf16, f64 = FloatType("f32"), FloatType("f16"), FloatType("bf16"), FloatType("f64")
U8 = IntType(8, False)
Step = Tuple[Type, str, object]

BF16_FROM_F32 = "bf16-round"   # RNE of the f32 bit pattern to its top 16 bits (casts.py)
DECODE, ENCODE = "fp8-decode", "fp8-encode"   # fp8 byte <-> f32; the argument is the format (casts_fp8.py)
PSEUDO = (DECODE, ENCODE)


def _int(width: int, signed: bool = True) -> IntType:
    return IntType(width, signed)


def norm(t: Type) -> Type:
    """i1 lives as a byte 0/1: an unsigned byte for conversions."""
    return IntType(8, False) if isinstance(t, IntType) and t.width == 1 else t


def _ext(s: IntType, width: int) -> List[Step]:
    if width == s.width:
        return []
    f = width // s.width
    return [(_int(width, s.signed), f"v{'s' if s.signed else 'z'}ext.vf{f}", None)]


def _trunc(width_from: int, width_to: int) -> List[Step]:
    steps = []
    w = width_from
    while w > width_to:
        w //= 2
        steps.append((_int(w, False), "vnsrl.wi", 0))
    return steps


def _int_to_float(s: IntType, d: FloatType) -> List[Step]:
    u = "" if s.signed else "u"
    fw = d.width
    if s.width == fw:
        return [(d, f"vfcvt.f.x{u}.v", None)]
    if s.width < fw:
        pre = _ext(s, fw // 2)
        return pre + [(_int(fw // 2, s.signed), f"vfwcvt.f.x{u}.v", None)]
    if s.width == 2 * fw:
        return [(d, f"vfncvt.f.x{u}.w", None)]
    return [(f32, f"vfncvt.f.x{u}.w", None), (f16, "vfncvt.f.f.w", None)]   # i64 -> f16


def _float_to_int(s: FloatType, d: IntType) -> List[Step]:
    u = "" if d.signed else "u"
    fw = s.width
    if d.width == fw:
        return [(s, f"vfcvt.rtz.x{u}.f.v", None)]
    if d.width == 2 * fw:
        return [(s, f"vfwcvt.rtz.x{u}.f.v", None)]
    if d.width > 2 * fw:   # f16 -> i64
        return [(f16, "vfwcvt.f.f.v", None), (f32, f"vfwcvt.rtz.x{u}.f.v", None)]
    if 2 * d.width == fw:
        return [(d, f"vfncvt.rtz.x{u}.f.w", None)]
    return [(_int(fw // 2, d.signed), f"vfncvt.rtz.x{u}.f.w", None)] + _trunc(fw // 2, d.width)  # f32 -> i8


def plan(src: Type, dst: Type) -> List[Step]:
    """The steps converting elements of ``src`` to ``dst`` (both scalar element types, neither a pointer
    nor fp8)."""
    s, d = norm(src.element_type), norm(dst.element_type)
    if s == d:
        return []
    if isinstance(s, FloatType) and s.kind == "bf16":
        to32 = [(_int(32, False), "vzext.vf2", None), (_int(32, False), "vsll.vi", 16)]
        return to32 + (plan(f32, d) if d != f32 else [])
    if isinstance(d, FloatType) and d.kind == "bf16":
        if s == f64:   # round to odd first, so the bf16 rounding is the only one
            return [(f32, "vfncvt.rod.f.f.w", None), (f32, BF16_FROM_F32, None)]
        return (plan(s, f32) if s != f32 else []) + [(f32, BF16_FROM_F32, None)]
    if isinstance(s, IntType) and isinstance(d, IntType):
        if d.width > s.width:
            return _ext(s, d.width)
        return _trunc(s.width, d.width)
    if isinstance(s, IntType):
        return _int_to_float(s, d)
    if isinstance(d, IntType):
        return _float_to_int(s, d)
    if d.width > s.width:   # f16 -> f32 -> f64: each step exact
        return [(FloatType(k), "vfwcvt.f.f.v", None) for k in ("f16", "f32") if s.width <= FloatType(k).width < d.width]
    if s.width == 2 * d.width:
        return [(d, "vfncvt.f.f.w", None)]
    return [(f32, "vfncvt.rod.f.f.w", None), (f16, "vfncvt.f.f.w", None)]   # f64 -> f16: rounds once


def fp8_plan(src: Type, dst: Type) -> List[Step]:
    """The steps from ``src`` to ``dst`` element types, one of them fp8 and the other f16, bf16, f32 or f64
    (``legalize-fp8`` splits an fp8 -> fp8 conversion in two through f32)."""
    if isinstance(src, FloatType) and src.is_fp8:
        return [(f32, DECODE, F8.fmt(src))] + (plan(f32, dst) if dst != f32 else [])
    if src == f64:
        pre: List[Step] = [(f32, "vfncvt.rod.f.f.w", None)]
    else:
        pre = plan(src, f32) if src != f32 else []
    return pre + [(U8, ENCODE, F8.fmt(dst))]


def width(t: Type) -> int:
    return max(getattr(t, "width", 8), 8)


def widest(steps: List[Step], src: Type, dst: Type) -> int:
    """The widest element (in bits) the plan holds in a register group, for the loop's LMUL."""
    w = max(width(norm(src.element_type)), width(norm(dst.element_type)))
    for t, mn, _ in steps:
        if mn in PSEUDO:   # 32-bit temporaries at LMUL 4 (casts_fp8.py)
            w = max(w, 64)
        w = max(w, width(t) * (2 if mn.startswith("vfwcvt") else 1))
        if mn.startswith(("vfncvt", "vnsrl")):
            w = max(w, 2 * width(t))
    return w


__all__ = ["plan", "fp8_plan", "widest", "width", "norm", "Step", "BF16_FROM_F32", "DECODE", "ENCODE", "PSEUDO"]
