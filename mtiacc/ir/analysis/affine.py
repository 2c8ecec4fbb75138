"""Structure of 1-D integer blocks, pointer blocks and masks, as the access plan and codegen need it.

A first, local version of what Triton's AxisInfo computes: an integer block is *affine* when
element ``i`` equals ``sum(coef * scalar) + const + stride * i`` with scalar IR values and constant
integers.  A pointer block is a scalar base pointer plus an affine offset (in elements).  A mask
is a *prefix* when element ``i`` is active exactly for ``i < count`` with ``count`` an affine scalar.

Accesses whose pointers are affine with stride 1 move with one DMA transfer; prefix masks shorten
that transfer.  Everything else takes the element-by-element path.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value


@dataclasses.dataclass(frozen=True)
class Affine:
    terms: Tuple[Tuple[Value, int], ...] = ()
    const: int = 0
    stride: int = 0

    def __add__(self, o: "Affine") -> "Affine":
        return Affine(_merge(self.terms, o.terms), self.const + o.const, self.stride + o.stride)

    def scale(self, k: int) -> "Affine":
        return Affine(tuple((v, c * k) for v, c in self.terms if c * k), self.const * k, self.stride * k)

    def __neg__(self) -> "Affine":
        return self.scale(-1)

    @property
    def is_uniform(self) -> bool:
        return self.stride == 0

    @property
    def start(self) -> "Affine":
        """The scalar value of element 0."""
        return Affine(self.terms, self.const, 0)


def index_range(v: Value) -> Optional[Tuple[Value, int]]:
    """``(s, n)`` when 1-D block ``v`` is ``splat(s) + tl.arange(0, n)`` (Triton's ``offset + tl.arange(0, BLOCK)``),
    through same-width integer bitcasts; else None."""
    while isinstance(v, OpResult) and isinstance(v.op, O.BitcastOp) and v.op.src.type.element_type.is_int() \
            and v.op.src.type.element_type.width == v.type.element_type.width:
        v = v.op.src
    if not (isinstance(v, OpResult) and isinstance(v.op, O.AddIOp) and len(v.type.shape) == 1):
        return None
    for a, r in ((v.op.lhs, v.op.rhs), (v.op.rhs, v.op.lhs)):
        if isinstance(a, OpResult) and isinstance(a.op, O.SplatOp) and isinstance(r, OpResult) \
                and isinstance(r.op, O.MakeRangeOp) and r.op.start == 0:
            return a.op.src, r.op.end
    return None


def _merge(a, b):
    out = list(a)
    for v, c in b:
        for i, (w, d) in enumerate(out):
            if w is v:
                out[i] = (w, d + c)
                break
        else:
            out.append((v, c))
    return tuple((v, c) for v, c in out if c)


def _const_int(v: Value) -> Optional[int]:
    if isinstance(v, OpResult) and isinstance(v.op, O.ConstantOp) and v.type.is_int():
        return int(v.op.value)
    return None


def affine_of(v: Value) -> Optional[Affine]:
    """The affine form of an integer scalar or 1-D block, or None."""
    if not v.type.is_int() or len(v.type.shape) > 1:
        return None
    if not isinstance(v, OpResult):
        return Affine(((v, 1),)) if not v.type.is_block() else None
    op = v.op
    if isinstance(op, O.ConstantOp):
        return Affine((), int(op.value), 0)
    if not v.type.is_block():
        return Affine(((v, 1),))  # a scalar already lives in a register
    if isinstance(op, O.MakeRangeOp):
        return Affine((), op.start, 1)
    if isinstance(op, O.SplatOp):
        return affine_of(op.src)
    if isinstance(op, O.BroadcastOp) and op.src.type.shape == v.type.shape:
        return affine_of(op.src)
    if isinstance(op, O.ExtSIOp):  # the same integer, wider (an int64 index built from tl.arange)
        return affine_of(op.src)
    if isinstance(op, (O.AddIOp, O.SubIOp, O.MulIOp)):
        a, b = affine_of(op.lhs), affine_of(op.rhs)
        if a is None or b is None:
            return None
        if isinstance(op, O.AddIOp):
            return a + b
        if isinstance(op, O.SubIOp):
            return a + (-b)
        ka, kb = _pure_const(a), _pure_const(b)
        if kb is not None:
            return a.scale(kb)
        if ka is not None:
            return b.scale(ka)
    return None


def _pure_const(a: Affine) -> Optional[int]:
    return a.const if not a.terms and a.stride == 0 else None


def pointer_affine(v: Value) -> Optional[Tuple[Value, Affine]]:
    """(scalar base pointer, affine offset in elements) of a 1-D pointer block, or None."""
    if not isinstance(v, OpResult) or len(v.type.shape) != 1:
        return None
    op = v.op
    if isinstance(op, O.SplatOp):
        return op.src, Affine()
    if isinstance(op, O.BroadcastOp) and op.src.type.shape == v.type.shape:
        return pointer_affine(op.src)
    if isinstance(op, O.AddPtrOp):
        base = pointer_affine(op.ptr)
        off = affine_of(op.offset)
        if base is not None and off is not None:
            return base[0], base[1] + off
    return None


def prefix_count(mask: Value) -> Optional[Affine]:
    """For a mask that is active exactly for elements ``i < count``: ``count`` (uniform affine)."""
    if not isinstance(mask, OpResult) or len(mask.type.shape) != 1:
        return None
    op = mask.op
    if isinstance(op, O.CmpIOp) and op.predicate in ("slt", "sgt", "sle", "sge"):
        lhs, rhs = (op.lhs, op.rhs) if op.predicate in ("slt", "sle") else (op.rhs, op.lhs)
        a, b = affine_of(lhs), affine_of(rhs)
        if a is None or b is None or a.stride != 1 or b.stride != 0:
            return None
        count = b + (-a.start)  # a.start + i < b  <=>  i < b - a.start
        if op.predicate in ("sle", "sge"):
            count = count + Affine((), 1, 0)
        return count
    return None
