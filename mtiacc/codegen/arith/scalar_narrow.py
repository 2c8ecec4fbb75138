"""Scalar ops on i8/i16/u8/u16 integers and f16/bf16 floats.

Narrow integers live in 64-bit x registers extended per their type (signed: sign-extended; unsigned:
zero-extended, as ``lb``/``lbu``/``lh``/``lhu`` load them).  Arithmetic runs on the 64-bit registers and
the result is re-normalized to the type's width, so it wraps as Triton's narrow integers do; division,
remainder, right shifts and comparisons are exact on the extended values.

Halves live NaN-boxed in f registers (the low 16 bits hold the value, the upper 16 are ones).  Their
arithmetic widens to f32, computes, and rounds back to nearest even: exact for ``+ - * /`` on f16
(f32 has more than twice f16's precision plus two bits).  f16 <-> f32 use one-element vector
conversions (``vfwcvt.f.f.v`` / ``vfncvt.f.f.w``); bf16 <-> f32 are bit operations.
"""
from __future__ import annotations

from mtiacc.codegen.arith.scalar_tables import FLOAT_BINARY, INT_BINARY, cmpf, f64_to_f32_odd
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import FloatType, IntType, Type

F32, F64 = FloatType("f32"), FloatType("f64")


def _narrow_int(t: Type) -> bool:
    return isinstance(t, IntType) and t.width in (8, 16)


def _half(t: Type) -> bool:
    return isinstance(t, FloatType) and t.kind in ("f16", "bf16")


def handles(op) -> bool:
    """Whether ``op`` (with a scalar result) involves a narrow type this module lowers."""
    if not op.results or op.result.type.is_block():
        return False
    t = op.result.type
    if type(op) in INT_BINARY:  # i1 too: True + True wraps to False
        return _narrow_int(t) or (isinstance(t, IntType) and t.width == 1)
    if type(op) in FLOAT_BINARY or isinstance(op, O.NegFOp):
        return _half(t)
    if isinstance(op, O.CmpFOp):
        return _half(op.lhs.type)
    if isinstance(op, O.BitcastOp):
        s = op.src.type
        return (s.is_int() and t.is_int()) or _half(s) or _half(t)
    if isinstance(op, O.CastOp):
        s = op.src.type
        return _narrow_int(s) or _narrow_int(t) or _half(s) or _half(t)
    return False


def normalize(b: MBuilder, r: VReg, t: Type) -> VReg:
    """``r`` truncated to ``t``'s width and extended per its signedness (the register convention)."""
    out = b.x()
    w = t.width
    if w == 1:
        b("andi", out, r, 1)
    elif w == 64:
        b("mv", out, r)
    elif w == 32 or t.signed:
        b("slli", out, r, 64 - w)
        b("srai", out, out, 64 - w)
    else:
        b("slli", out, r, 64 - w)
        b("srli", out, out, 64 - w)
    return out


def zero_extend(b: MBuilder, r: VReg, w: int) -> VReg:
    if w == 64:
        return r
    out = b.x()
    b("slli", out, r, 64 - w)
    b("srli", out, out, 64 - w)
    return out


def widen(b: MBuilder, r: VReg, t: Type) -> VReg:
    """The f32 value of half ``r`` (exact)."""
    bits = b.x()
    b("fmv.x.w", bits, r)
    out = b.f()
    if t.kind == "bf16":
        b("slli", bits, bits, 48)
        b("srli", bits, bits, 32)
        b("fmv.w.x", out, bits)
        return out
    vl = b.x("vl")
    b("vsetivli", vl, 1, "e16, m1, ta, ma")
    b("vmv.s.x", "v8", bits)
    b("vfwcvt.f.f.v", "v16", "v8")
    b("vsetivli", vl, 1, "e32, m2, ta, ma")
    b("vfmv.f.s", out, "v16")
    return out


def narrow(b: MBuilder, r: VReg, t: Type) -> VReg:
    """f32 ``r`` rounded to half type ``t`` (nearest even; bf16 NaN -> 0x7fc0), NaN-boxed."""
    bits = b.x()
    if t.kind == "bf16":
        u = b.x()
        b("fmv.x.w", u, r)
        u = zero_extend(b, u, 32)
        odd = b.x()
        b("srli", odd, u, 16)
        b("andi", odd, odd, 1)
        b("add", bits, u, odd)
        b("add", bits, bits, b.li(0x7FFF))
        b("srli", bits, bits, 16)
        ordered = b.x()
        b("feq.s", ordered, r, r)
        done = b.new_label("bf16")
        b("bnez", ordered, done)
        b("li", bits, 0x7FC0)
        b.label(done)
    else:
        vl = b.x("vl")
        b("vsetivli", vl, 1, "e32, m2, ta, ma")
        b("vfmv.s.f", "v8", r)
        b("vsetivli", vl, 1, "e16, m1, ta, ma")
        b("vfncvt.f.f.w", "v16", "v8")
        b("vmv.x.s", bits, "v16")
    boxed = b.x()
    b("or", boxed, bits, b.li(-65536))
    out = b.f()
    b("fmv.w.x", out, boxed)
    return out


def _int_to_f32(b: MBuilder, r: VReg, s: IntType) -> VReg:
    out = b.f()
    if s.width == 64 and not s.signed:
        b("fcvt.s.lu", out, r)
    elif s.width == 32 and not s.signed:
        b("fcvt.s.wu", out, r)
    else:
        b("fcvt.s.l", out, r)   # every other type is held as its exact value in 64 bits
    return out


def _f32_to_int(b: MBuilder, r: VReg, d: IntType) -> VReg:
    out = b.x()
    if d.width == 64 and not d.signed:
        b("fcvt.lu.s", out, r, "rtz")
    elif d.width == 32:
        b("fcvt.w" + ("" if d.signed else "u") + ".s", out, r, "rtz")
    else:
        b("fcvt.l.s", out, r, "rtz")
    return normalize(b, out, d) if d.width < 32 else out


def _cast_f64(b: MBuilder, src: VReg, s: Type, d: Type) -> VReg:
    """f64 <-> i8/i16/u8/u16 (held exactly in 64 bits) and f64 <-> f16/bf16 (through f32: widening is exact,
    narrowing rounds to odd first so the rounding to the half is the only one)."""
    out = b.f() if d.is_float() else b.x()
    if isinstance(s, IntType):
        b("fcvt.d.l", out, src)
        return out
    if isinstance(d, IntType):
        b("fcvt.l.d", out, src, "rtz")
        return normalize(b, out, d)
    if s == F64:
        return narrow(b, f64_to_f32_odd(b, src), d)
    b("fcvt.d.s", out, widen(b, src, s))
    return out


def _cast(b: MBuilder, op, src: VReg) -> VReg:
    s, d = op.src.type, op.result.type
    if isinstance(op, O.BitcastOp):  # same width: integers re-normalize, halves move their 16 bits
        if isinstance(s, IntType) and isinstance(d, IntType):
            return normalize(b, src, d)
        if _half(s) and isinstance(d, IntType):
            bits = b.x()
            b("fmv.x.w", bits, src)
            return normalize(b, bits, d)
        if isinstance(s, IntType) and _half(d):
            boxed = b.x()
            b("or", boxed, zero_extend(b, src, 16), b.li(-65536))
            out = b.f()
            b("fmv.w.x", out, boxed)
            return out
        raise CompileError(f"bitcast from {s} to {d} is not supported yet")
    if isinstance(s, IntType) and isinstance(d, IntType):
        if isinstance(op, O.ExtUIOp):
            return normalize(b, zero_extend(b, src, s.width), d)
        return normalize(b, src, d)          # sign extension (held already) or truncation
    if F64 in (s, d):
        return _cast_f64(b, src, s, d)
    if isinstance(s, IntType) and isinstance(d, FloatType):
        f = _int_to_f32(b, src, s)
        return narrow(b, f, d) if _half(d) else f
    if isinstance(s, FloatType) and isinstance(d, IntType):
        return _f32_to_int(b, widen(b, src, s) if _half(s) else src, d)
    if isinstance(s, FloatType) and isinstance(d, FloatType):
        f = widen(b, src, s) if _half(s) else src
        return narrow(b, f, d) if _half(d) else f
    raise CompileError(f"cast from {s} to {d} is not supported yet")


def lower(b: MBuilder, op, get) -> VReg:
    t = op.result.type
    if type(op) in INT_BINARY:
        r = b.x()
        b(INT_BINARY[type(op)][1], r, get(op.lhs), get(op.rhs))
        return normalize(b, r, t)
    if type(op) in FLOAT_BINARY:
        r = b.f()
        b(FLOAT_BINARY[type(op)], r, widen(b, get(op.lhs), t), widen(b, get(op.rhs), t))
        return narrow(b, r, t)
    if isinstance(op, O.NegFOp):
        bits = b.x()
        b("fmv.x.w", bits, get(op.operand_))
        b("xor", bits, bits, b.li(0x8000))
        r = b.f()
        b("fmv.w.x", r, bits)
        return r
    if isinstance(op, O.CmpFOp):
        s = op.lhs.type
        return cmpf(b, op.predicate, widen(b, get(op.lhs), s), widen(b, get(op.rhs), s))
    if isinstance(op, O.CastOp):
        return _cast(b, op, get(op.src))
    raise CompileError(f"'{op.name}' on {t} scalars is not supported yet")
