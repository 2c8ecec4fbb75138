"""``tt.atomic_rmw``, ``tt.atomic_cas`` and ``tt.barrier``: the machine's atomic memory operations.

Each element is one AMO on its address (a DRAM or SRAM buffer address, as a Triton pointer holds here):

* the instruction by kind and element type: ``amo<op>.w`` for 32-bit integers, ``.d`` for 64-bit ones
  (``max``/``min`` signed, ``umax``/``umin`` as ``amomaxu``/``amominu``, ``xchg`` as ``amoswap``), 16-bit
  elements only for ``xchg`` / ``cas`` (``amoswap.h``, ``amocas.h``); ``fadd`` is MTIA's
  ``mtia.amofadd.h`` / ``.bf`` / ``.s`` / ``.d``.  Float ``xchg`` and ``cas`` move the bit patterns
  (``fmv.x.w`` / ``fmv.x.d`` from the f register, back with ``fmv.w.x`` / ``fmv.d.x``; halves NaN-boxed);
* the ordering suffix by ``sem``: none for ``relaxed``, ``.aq`` for ``acquire``, ``.rl`` for ``release``,
  ``.aqrl`` for ``acq_rel``.  ``scope`` needs no code (every atomic is performed where its buffer lives);
* ``amocas`` compares with its ``rd``, so the expected value goes there first, sign-extended from its
  width (how an integer of that width sits in a register).

A scalar atomic reads its pointer and value from registers; a false scalar mask branches around it.
A block atomic is a loop over the elements, one AMO each: the pointers (64-bit addresses), values, masks
and expected values come from their local-memory buffers (or the broadcast scalar of a splat), a
false mask element skips its AMO, and the old values go to the result's buffer (masked-off elements
are 0) when something reads it.  An unused result still performs every AMO.

``tt.barrier`` is ``fence``: every memory access, DMA transfer and atomic issued before it completes first.
"""
from __future__ import annotations

from typing import List, Optional

from mtiacc.codegen.arith.scalar import constant
from mtiacc.codegen.arith.scalar_narrow import normalize
from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, Mem, VMem, VReg
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir.atomic_ops import ATOMIC_OPS, AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.types import FloatType, IntType, Type

_RMW = {"add": "add", "and": "and", "or": "or", "xor": "xor", "max": "max", "min": "min", "umax": "maxu",
        "umin": "minu", "xchg": "swap"}
_ORDER = {"relaxed": "", "acquire": ".aq", "release": ".rl", "acq_rel": ".aqrl"}
_WIDTH = {16: "h", 32: "w", 64: "d"}
_FLOAT_ADD = {"f16": "h", "bf16": "bf", "f32": "s", "f64": "d"}
_LOAD = {16: "lh", 32: "lw", 64: "ld"}
_STORE = {16: "sh", 32: "sw", 64: "sd"}


def mnemonic(op: Operation) -> str:
    """The AMO that performs ``op`` on one element, with its ordering suffix."""
    t = op.result.type.element_type
    order = _ORDER[op.sem]
    if isinstance(op, AtomicCASOp):
        return f"amocas.{_WIDTH[t.width]}{order}"
    if op.kind == "fadd":
        return f"mtia.amofadd.{_FLOAT_ADD[t.kind]}{order}"
    if t.width == 16 and op.kind != "xchg":
        raise CompileError(f"internal: no 16-bit '{op.kind}' atomic")
    return f"amo{_RMW[op.kind]}.{_WIDTH[t.width]}{order}"


def reads(op: Operation) -> List[Value]:
    """The block operands the lowering reads from local memory (all of them: pointers, values, mask)."""
    return list(op.operands) if isinstance(op, ATOMIC_OPS) else []


# --------------------------------------------------------------------------- bits in x registers

def _bits(b: MBuilder, r: VReg, t: Type) -> VReg:
    """The bit pattern of scalar register ``r`` of type ``t`` in an x register."""
    if not t.is_float():
        return r
    x = b.x("bits")
    b("fmv.x.d" if t.width == 64 else "fmv.x.w", x, r)
    return x


def _sext(b: MBuilder, r: VReg, width: int) -> VReg:
    """``r``'s low ``width`` bits, sign-extended (what ``amocas`` compares with)."""
    if width == 64:
        return r
    out = b.x("cmp")
    if width == 32:
        b("addiw", out, r, 0)
    else:
        b("slli", out, r, 64 - width)
        b("srai", out, out, 64 - width)
    return out


def _from_bits(b: MBuilder, x: VReg, t: Type) -> VReg:
    """The scalar of type ``t`` whose bits are the low bits of ``x`` (the register convention)."""
    if isinstance(t, FloatType):
        r = b.f("old")
        if t.width == 64:
            b("fmv.d.x", r, x)
        elif t.width == 32:
            b("fmv.w.x", r, x)
        else:
            boxed = b.x()
            b("or", boxed, x, b.li(-65536))  # the NaN box of a half
            b("fmv.w.x", r, boxed)
        return r
    assert isinstance(t, IntType)
    return x if t.width in (32, 64) else normalize(b, x, t)


def _amo(b: MBuilder, op: Operation, addr: VReg, val: VReg, cmp: Optional[VReg]) -> VReg:
    """One AMO at ``addr``; returns the register with the old value (sign-extended from its width)."""
    name = mnemonic(op)
    if cmp is not None:
        old = b.x("old")
        b("mv", old, cmp)
        b(name, old, val, VMem(addr))
        return old
    old = b.x("old")
    b(name, old, val, VMem(addr))
    return old


# --------------------------------------------------------------------------- scalars

def _lower_scalar(lw: Lowering, op: Operation) -> None:
    b = lw.b
    t = op.result.type
    width = t.width
    val = _bits(b, lw.get(op.val), t)
    cmp = _sext(b, _bits(b, lw.get(op.cmp), t), width) if isinstance(op, AtomicCASOp) else None
    mask = op.mask if isinstance(op, AtomicRMWOp) else None
    if mask is None or not op.result.uses:
        skip = b.new_label("noamo")
        if mask is not None:
            b("beqz", lw.get(mask), skip)
        old = _amo(b, op, lw.get(op.ptr), val, cmp)
        if mask is not None:
            b.label(skip)
        if op.result.uses:
            lw.regs[op.result] = _from_bits(b, old, t)
        return
    res = b.f("old") if t.is_float() else b.x("old")
    b("fmv.d" if t.is_float() else "mv", res, constant(b, 0, t))
    skip = b.new_label("noamo")
    b("beqz", lw.get(mask), skip)
    old = _from_bits(b, _amo(b, op, lw.get(op.ptr), val, cmp), t)
    b("fmv.d" if t.is_float() else "mv", res, old)
    b.label(skip)
    lw.regs[op.result] = res


# --------------------------------------------------------------------------- blocks

class _Stream:
    """One block operand walked element by element: a pointer into its buffer, or its broadcast scalar."""

    def __init__(self, lw: Lowering, v: Value, step: int, hint: str):
        self.src: Src = lw.src(v)
        self.step = step
        self.ptr: Optional[VReg] = None if self.src.scalar is not None else lw.b.li(self.src.addr, hint)
        self.bits: Optional[VReg] = None   # a broadcast scalar's bits, sign-extended from its width
        t = v.type.element_type
        if self.ptr is None and not t.is_ptr() and not t.is_bool():
            self.bits = _sext(lw.b, _bits(lw.b, self.src.scalar, t), t.width)

    def advance(self, b: MBuilder) -> None:
        if self.ptr is not None:
            b("addi", self.ptr, self.ptr, self.step)


def _element_bits(b: MBuilder, s: _Stream, t: Type) -> VReg:
    """The current element of ``s`` (type ``t``) as bits in an x register, sign-extended from its width."""
    if s.ptr is None:
        return s.bits
    x = b.x("elem")
    b(_LOAD[t.width], x, Mem(s.ptr, 0))
    return x


def _lower_block(lw: Lowering, op: Operation) -> None:
    b = lw.b
    t = op.result.type.element_type
    n = op.result.type.numel
    esize = elem_bytes(t)
    mask = op.mask if isinstance(op, AtomicRMWOp) else None
    done = b.new_label("amodone")
    dst = None
    if op.result in lw.demanded:
        dst = b.li(lw.alloc(op.result).offset, "old")
        if mask is not None:
            lower_fill(b, n, Src(t, scalar=constant(b, 0, t)), Src(t, addr=lw.buffer(op.result).offset))
    mask_s = None
    if mask is not None:
        mask_s = _Stream(lw, mask, 1, "mask")
        if mask_s.ptr is None:   # a uniform mask: all elements or none
            b("beqz", mask_s.src.scalar, done)
            mask_s = None
    ptrs = _Stream(lw, op.ptr, 8, "ptrs")
    vals = _Stream(lw, op.val, esize, "vals")
    cmps = _Stream(lw, op.cmp, esize, "cmps") if isinstance(op, AtomicCASOp) else None
    i, limit = b.li(0, "i"), b.li(n, "n")
    top, nxt = b.new_label("amo"), b.new_label("amonext")
    b.label(top)
    if mask_s is not None:
        m = b.x("m")
        b("lbu", m, Mem(mask_s.ptr, 0))
        b("beqz", m, nxt)
    if ptrs.ptr is None:
        addr = ptrs.src.scalar
    else:
        addr = b.x("addr")
        b("ld", addr, Mem(ptrs.ptr, 0))
    val = _element_bits(b, vals, t)
    cmp = _element_bits(b, cmps, t) if cmps is not None else None
    old = _amo(b, op, addr, val, cmp)
    if dst is not None:
        b(_STORE[t.width], old, Mem(dst, 0))
    b.label(nxt)
    for s in (ptrs, vals, cmps, mask_s):
        if s is not None:
            s.advance(b)
    if dst is not None:
        b("addi", dst, dst, esize)
    b("addi", i, i, 1)
    b("blt", i, limit, top)
    b.label(done)


def lower(lw: Lowering, op: Operation) -> None:
    """``tt.atomic_rmw`` / ``tt.atomic_cas`` (scalar or block), ``tt.barrier``."""
    if isinstance(op, BarrierOp):
        lw.b("fence", comment="tl.debug_barrier")
        return
    if op.result.type.is_block():
        _lower_block(lw, op)
    else:
        _lower_scalar(lw, op)


OPS = ATOMIC_OPS + (BarrierOp,)

__all__ = ["OPS", "lower", "reads", "mnemonic"]
