"""Conversions between element types on blocks (and fp8 scalars): a plan of steps run in one strip-mined loop.

The plans are data (``conversions.py``); this module runs them: RVV steps as they are, the bf16 rounding
pseudo step here, the fp8 decode/encode pseudo steps in ``casts_fp8.py``.  Steps alternate between the free
register groups.
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen.arith import casts_fp8
from mtiacc.codegen.arith.conversions import (BF16_FROM_F32, PSEUDO, Step, f32, f64, fp8_plan, norm, plan,
                                              widest, width)
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.vector.vloop import Src, VLoop, emit_loop
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import FloatType, IntType, Type

U16, U32, U64 = IntType(16, False), IntType(32, False), IntType(64, False)


def _bf16_round(b: MBuilder, loop: VLoop, x: str, free: List[str]) -> str:
    """``x`` holds f32 elements; return the group holding them rounded to bf16 bit patterns (16-bit)."""
    t, out = free[0], free[1]
    loop.ensure(U32)
    b("vsrl.vi", t, x, 16)
    b("vand.vi", t, t, 1)
    b("vadd.vv", t, t, x)
    b("vadd.vx", t, t, b.li(0x7FFF, "rne"))
    loop.ensure(f32)
    b("vmfne.vv", "v0", x, x)
    loop.ensure(U32)
    b("vmerge.vxm", t, t, b.li(0x7FC00000, "nan"), "v0")
    loop.ensure(U16)
    b("vnsrl.wi", out, t, 16)
    return out


def run_steps(b: MBuilder, loop: VLoop, steps: List[Step], x: str, groups=("v8", "v16", "v24")) -> str:
    """Emit ``steps`` on the elements in group ``x``; return the group holding the result."""
    for elem, mn, arg in steps:
        free = [g for g in groups if g != x]
        if mn == BF16_FROM_F32:
            x = _bf16_round(b, loop, x, free)
            continue
        if mn in PSEUDO:
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
    # a pointer is its 64-bit address (Triton's ptr_to_int / int_to_ptr are bitcasts to and from i64)
    s, d = (U64 if t.is_ptr() else t for t in (op.src.type.element_type, op.result.type.element_type))
    if isinstance(op, O.BitcastOp):
        if width(norm(s)) != width(norm(d)):
            raise CompileError(f"cannot bitcast {s} to {d}: they have different widths")
        steps: List[Step] = []
    else:
        fp8_ends = op.fp8_ends() if isinstance(op, O.FloatCastOp) else None   # its fp8 end is u8 bytes
        steps = casts_fp8.hoist(b, fp8_plan(*fp8_ends)) if fp8_ends else plan(s, d)
    w = widest(steps, s, d)
    wmax = max(width(norm(s)), width(norm(d)))
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
        return U16
    return t


def _storage_elem(t: Type) -> Type:
    if isinstance(t, FloatType) and t.is_fp8:
        return IntType(8, False)
    if isinstance(t, FloatType) and t.kind in ("f16", "bf16"):
        return U16
    return t


def lower_scalar_fp8(b: MBuilder, op, get) -> VReg:
    """A scalar conversion with an fp8 end (``op.fp8``): the block plan on one element (``vl = 1``)."""
    src, dst = op.fp8_ends()
    r = get(op.src)
    if r.cls == "f":                                 # the bits into an x register
        bits = b.x()
        b("fmv.x.d" if src == f64 else "fmv.x.w", bits, r)
        r = bits
    loop = VLoop(b, 64, b.li(1, "vl1"), 8)           # 32-bit elements at LMUL 4, as in the block loops
    loop.ensure(_storage_elem(src))
    b("vmv.s.x", "v8", r)
    out = run_steps(b, loop, fp8_plan(src, dst), "v8")
    loop.ensure(_storage_elem(dst))
    val = b.x()
    b("vmv.x.s", val, out)
    if isinstance(dst, FloatType) and dst.is_fp8:
        res = b.x()
        b("andi", res, val, 0xFF)                    # u8 scalars are held zero-extended
        return res
    res = b.f()
    if dst.kind in ("f16", "bf16"):                  # NaN-boxed, as scalar.py keeps halves
        boxed = b.x()
        b("or", boxed, val, b.li(-65536))
        b("fmv.w.x", res, boxed)
    else:
        b("fmv.d.x" if dst == f64 else "fmv.w.x", res, val)
    return res


def handles(op) -> bool:
    return isinstance(op, O.CastOp)


__all__ = ["lower_cast", "lower_scalar_fp8", "run_steps", "handles"]
