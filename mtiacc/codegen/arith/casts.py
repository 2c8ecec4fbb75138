"""Conversions between element types on blocks: a plan of RVV steps run in one strip-mined loop.

Triton's semantics: integer widening extends by the *source's* signedness (i1 is 0/1), narrowing keeps the
low bits; float -> int truncates toward zero (``rtz``); int -> float and float narrowing round to nearest
even; bf16 goes through f32: widening puts the 16 bits on top of a zero f32 mantissa tail, narrowing rounds
the f32 bit pattern to nearest even (NaN -> 0x7fc0).  Same-width int <-> int is a reinterpretation.

Each step is ``(element type to set, mnemonic, immediate or scalar)``; the SEW of a step follows RVV: the
destination's for ``vsext``/``vzext``/``vnsrl``/``vfncvt``, the source's for ``vfwcvt``.  Steps alternate
between the free register groups.  A plan may pass through a type wider than both ends (bf16 -> i8 goes
through f32): the loop's LMUL is then lowered so the widest intermediate still fits a group of 8.

f64 -> f16 and f64 -> bf16 narrow to f32 *rounding to odd* (``vfncvt.rod.f.f.w``) first: f32 keeps more than
two bits beyond a half's precision, so the final rounding to nearest even is the only one (no double rounding).

Exactness of the two-step paths: i64 -> f16 rounds to f32 first; values below 2**24 are exact in f32, and
above it both paths overflow f16 to inf, so there is one rounding.  int -> bf16 rounds to f32 first (as
Triton's GPU backends do), which can double-round integers of magnitude >= 2**24.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from mtiacc.codegen.arith import casts_fp8
from mtiacc.codegen.machine.mir import MBuilder
from mtiacc.codegen.vector.vloop import Src, VLoop, emit_loop
from mtiacc.diagnostics import CompileError
from mtiacc.ir.types import FloatType, IntType, Type

f32, f16, bf16, f64 = FloatType("f32"), FloatType("f16"), FloatType("bf16"), FloatType("f64")
Step = Tuple[Type, str, object]


def _int(width: int, signed: bool = True) -> IntType:
    return IntType(width, signed)


def _norm(t: Type) -> Type:
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


BF16_FROM_F32 = "bf16-round"   # a pseudo step: RNE of the f32 bit pattern to its top 16 bits


def plan(src: Type, dst: Type) -> List[Step]:
    """The steps converting elements of ``src`` to ``dst`` (both scalar element types, neither a pointer)."""
    s, d = _norm(src.element_type), _norm(dst.element_type)
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


def _width(t: Type) -> int:
    return max(getattr(t, "width", 8), 8)


def widest(steps: List[Step], src: Type, dst: Type) -> int:
    w = max(_width(_norm(src.element_type)), _width(_norm(dst.element_type)))
    for t, mn, _ in steps:
        if mn in casts_fp8.PSEUDO:   # 32-bit temporaries at LMUL 4 (casts_fp8.py)
            w = max(w, 64)
        w = max(w, _width(t) * (2 if mn.startswith("vfwcvt") else 1))
        if mn.startswith(("vfncvt", "vnsrl")):
            w = max(w, 2 * _width(t))
    return w


def _bf16_round(b: MBuilder, loop: VLoop, x: str, free: List[str]) -> str:
    """``x`` holds f32 elements; return the group holding them rounded to bf16 bit patterns (16-bit)."""
    t, out = free[0], free[1]
    u32, u16 = _int(32, False), _int(16, False)
    loop.ensure(u32)
    b("vsrl.vi", t, x, 16)
    b("vand.vi", t, t, 1)
    b("vadd.vv", t, t, x)
    b("vadd.vx", t, t, b.li(0x7FFF, "rne"))
    loop.ensure(f32)
    b("vmfne.vv", "v0", x, x)
    loop.ensure(u32)
    b("vmerge.vxm", t, t, b.li(0x7FC00000, "nan"), "v0")
    loop.ensure(u16)
    b("vnsrl.wi", out, t, 16)
    return out


def run_steps(b: MBuilder, loop: VLoop, steps: List[Step], x: str, groups=("v8", "v16", "v24")) -> str:
    """Emit ``steps`` on the elements in group ``x``; return the group holding the result."""
    for elem, mn, arg in steps:
        free = [g for g in groups if g != x]
        if mn == BF16_FROM_F32:
            x = _bf16_round(b, loop, x, free)
            continue
        if mn in casts_fp8.PSEUDO:
            x = casts_fp8.run(b, loop, mn, arg, x, free)
            continue
        loop.ensure(elem)
        if arg is None:
            b(mn, free[-1], x)
        else:
            b(mn, free[-1], x, arg)
        x = free[-1]
    return x


def lower_cast(b: MBuilder, op, srcs: List[Src], dst: Src) -> None:
    """The loop converting block ``op.src`` to ``op.result``'s element type (``BitcastOp`` copies bits)."""
    from mtiacc.ir import ops as O
    s, d = op.src.type.element_type, op.result.type.element_type
    if isinstance(op, O.BitcastOp):
        if _width(_norm(s)) != _width(_norm(d)):
            raise CompileError(f"cannot bitcast {s} to {d}: they have different widths")
        steps: List[Step] = []
    else:
        fp8_ends = casts_fp8.original_types(op)   # an fp8 end, retyped as u8 by casts_fp8.legalize
        steps = casts_fp8.hoist(b, casts_fp8.plan(*fp8_ends)) if fp8_ends else plan(s, d)
    w = widest(steps, s, d)
    wmax = max(_width(_norm(s)), _width(_norm(d)))
    lmul = 8 * wmax // w
    if lmul < 1:
        raise CompileError(f"internal: no register grouping for the conversion from {s} to {d}")
    # the loop loads and stores through the storage types (bf16 as 16-bit integers)
    src_t = _storage(s)
    dst_t = _storage(d)
    srcs = [Src(src_t, addr=srcs[0].addr, scalar=srcs[0].scalar)]
    dst = Src(dst_t, addr=dst.addr)

    def compute(loop: VLoop, g: List[str]) -> str:
        return run_steps(b, loop, steps, g[0])

    emit_loop(b, op.result.type.numel, srcs, dst, compute, comment=op.name, lmul=lmul)


def _storage(t: Type) -> Type:
    if isinstance(t, FloatType) and t.kind == "bf16":
        return _int(16, False)
    return t


def handles(op) -> bool:
    from mtiacc.ir import ops as O
    return isinstance(op, O.CastOp)


__all__ = ["plan", "lower_cast", "run_steps", "handles", "Optional"]
