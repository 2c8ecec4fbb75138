"""Wrapped N-d pointer blocks: tiles whose index along some axes is ``(u + arange(B)) % R``.

Every Triton GEMM indexes its operand tiles with wrapped row (or column) offsets::

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M          # M: a run-time scalar or a constant
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak

An integer block is *wrapped* here when it equals an affine part (``affine_nd.NdAffine``) plus, along
some axes ``d`` (each at most once, each longer than 1), a term ``coef_d * ((u_d + i_d) % R_d)``: ``u_d``
and ``R_d`` uniform over the block and ``coef_d`` a scalar polynomial (the row stride), ``%`` being
``arith.remsi`` (C semantics: the result takes the dividend's sign).  A wrapped pointer block is a scalar
base plus a wrapped offset whose affine part does not move along the wrapped axes; it needs one wrapped
axis at least (else it is affine, ``pointer_nd``).

Along a wrapped axis the block's rows ``i = 0 .. B-1`` fall into runs of consecutive DRAM rows
(usually one, ``B <= R - u % R``): the ``wrapped-tiles`` plan moves each run with one 2-D DMA
(``codegen/memory/wrapped.py``).

A wrapped term may also be *clamped*, as Triton's persistent matmul (tutorial 09) indexes its operands::

    offs_am = start_m + tl.arange(0, BLOCK_M)
    offs_am = tl.where(offs_am < M, offs_am, 0)                          # or any uniform c

``coef * where(u + i < R, u + i, c)`` (``arith.select`` of ``arith.cmpi slt``, also written
``where(u + i >= R, c, u + i)`` or with the comparison's operands swapped; ``c`` uniform): rows
``i < R - u`` are the consecutive DRAM rows ``u ..`` and the others all DRAM row ``c`` (two runs, the
second of DRAM row stride 0).  Only loads use it (``access_plan``): a store of a repeated row would
depend on which write lands last.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine_nd import NdAffine, Poly, _SHAPE, _through_shape_op, _zero_strides, nd_affine
from mtiacc.ir.core import OpResult, Value


@dataclasses.dataclass
class Wrap:
    """``coef * ((u + i) % modulus)`` along one axis (``i`` the index along it), or when ``clamp`` is set
    ``coef * where(u + i < modulus, u + i, clamp)``."""
    u: Poly
    modulus: Poly
    coef: Poly
    clamp: Optional[Poly] = None

    def scale(self, k: Poly) -> "Wrap":
        return Wrap(self.u, self.modulus, self.coef * k, self.clamp)


@dataclasses.dataclass
class WrappedNd:
    """An affine part plus, per dimension, a wrapped term or None."""
    affine: NdAffine
    wraps: List[Optional[Wrap]]

    @property
    def clamped(self) -> bool:
        return any(w is not None and w.clamp is not None for w in self.wraps)

    @property
    def wrapped_axes(self) -> List[int]:
        return [d for d, w in enumerate(self.wraps) if w is not None]

    def scale(self, k: Poly) -> "WrappedNd":
        return WrappedNd(self.affine.scale(k), [w.scale(k) if w is not None else None for w in self.wraps])

    def __add__(self, o: "WrappedNd") -> Optional["WrappedNd"]:
        wraps: List[Optional[Wrap]] = []
        for a, b in zip(self.wraps, o.wraps):
            if a is not None and b is not None:
                return None  # two wrapped terms on one axis: not a run structure
            wraps.append(a if a is not None else b)
        return WrappedNd(self.affine + o.affine, wraps)


def _remainder(op: O.RemSIOp) -> Optional[WrappedNd]:
    """``(u + i_d) % R`` with ``i_d`` the index along one axis longer than 1 and ``R`` uniform."""
    shape = op.result.type.shape
    x, r = nd_affine(op.lhs), nd_affine(op.rhs)
    if x is None or r is None or not r.uniform:
        return None
    varying = [d for d, s in enumerate(x.strides) if not s.is_zero()]
    if len(varying) != 1 or x.strides[varying[0]].as_const() != 1 or shape[varying[0]] < 2:
        return None
    wraps: List[Optional[Wrap]] = [None] * len(shape)
    wraps[varying[0]] = Wrap(x.start, r.start, Poly.const(1))
    return WrappedNd(NdAffine(Poly(), _zero_strides(len(shape))), wraps)


def _one_axis(x: NdAffine, shape) -> Optional[int]:
    """The axis along which ``x`` is ``start + i`` (its only varying axis, longer than 1), or None."""
    varying = [d for d, s in enumerate(x.strides) if not s.is_zero()]
    if len(varying) != 1 or x.strides[varying[0]].as_const() != 1 or shape[varying[0]] < 2:
        return None
    return varying[0]


_BELOW = {"slt": False, "sgt": True}     # x < R: (lhs, rhs) = (x, R), or (R, x) swapped
_NOT_BELOW = {"sge": False, "sle": True}  # x >= R


def _clamped(op: O.SelectOp) -> Optional[WrappedNd]:
    """``where(u + i < R, u + i, c)`` or ``where(u + i >= R, c, u + i)`` with ``R`` and ``c`` uniform."""
    cond = op.cond.op if isinstance(op.cond, OpResult) else None
    if not isinstance(cond, O.CmpIOp) or cond.predicate not in (*_BELOW, *_NOT_BELOW):
        return None
    swapped = _BELOW.get(cond.predicate, _NOT_BELOW.get(cond.predicate))
    x_val, r_val = (cond.rhs, cond.lhs) if swapped else (cond.lhs, cond.rhs)
    keep, other = (op.true_value, op.false_value) if cond.predicate in _BELOW else (op.false_value, op.true_value)
    shape = op.result.type.shape
    x, r, kept, c = nd_affine(x_val), nd_affine(r_val), nd_affine(keep), nd_affine(other)
    if x is None or r is None or kept is None or c is None or not r.uniform or not c.uniform:
        return None
    if len(x.strides) != len(shape) or not (x.start - kept.start).is_zero() or \
            any(not (a - b).is_zero() for a, b in zip(x.strides, kept.strides)):
        return None
    axis = _one_axis(x, shape)
    if axis is None:
        return None
    wraps: List[Optional[Wrap]] = [None] * len(shape)
    wraps[axis] = Wrap(x.start, r.start, Poly.const(1), c.start)
    return WrappedNd(NdAffine(Poly(), _zero_strides(len(shape))), wraps)


def wrapped_of(v: Value) -> Optional[WrappedNd]:
    """The wrapped form of an integer block (without wrapped terms when it is affine), or None."""
    if not v.type.is_int() or not v.type.is_block():
        return None
    aff = nd_affine(v)
    if aff is not None:
        return WrappedNd(aff, [None] * len(v.type.shape))
    op = v.op if isinstance(v, OpResult) else None
    if isinstance(op, O.RemSIOp):
        return _remainder(op)
    if isinstance(op, O.SelectOp):
        return _clamped(op)
    if isinstance(op, _SHAPE):
        inner = wrapped_of(op.src)
        if inner is None:
            return None
        strides = _through_shape_op(op, inner.affine.strides, Poly)
        wraps = _through_shape_op(op, inner.wraps, lambda: None)
        if strides is None or wraps is None or sum(w is not None for w in wraps) != len(inner.wrapped_axes):
            return None
        return WrappedNd(NdAffine(inner.affine.start, strides), wraps)
    if isinstance(op, (O.AddIOp, O.SubIOp, O.MulIOp)):
        a, b = wrapped_of(op.lhs), wrapped_of(op.rhs)
        if a is None or b is None:
            return None
        if isinstance(op, O.AddIOp):
            return a + b
        if isinstance(op, O.SubIOp):
            return a + b.scale(Poly.const(-1))
        if not b.wrapped_axes and b.affine.uniform:
            return a.scale(b.affine.start)
        if not a.wrapped_axes and a.affine.uniform:
            return b.scale(a.affine.start)
    return None


def _pointer(v: Value) -> Optional[Tuple[Value, WrappedNd]]:
    if not isinstance(v, OpResult) or not v.type.is_block():
        return None
    op = v.op
    rank = len(v.type.shape)
    if isinstance(op, O.SplatOp):
        return op.src, WrappedNd(NdAffine(Poly(), _zero_strides(rank)), [None] * rank)
    if isinstance(op, _SHAPE):
        inner = _pointer(op.src)
        if inner is None:
            return None
        strides = _through_shape_op(op, inner[1].affine.strides, Poly)
        wraps = _through_shape_op(op, inner[1].wraps, lambda: None)
        if strides is None or wraps is None or sum(w is not None for w in wraps) != len(inner[1].wrapped_axes):
            return None
        return inner[0], WrappedNd(NdAffine(inner[1].affine.start, strides), wraps)
    if isinstance(op, O.AddPtrOp):
        base, off = _pointer(op.ptr), wrapped_of(op.offset)
        if base is not None and off is not None:
            total = base[1] + off
            return None if total is None else (base[0], total)
    return None


def pointer_wrapped(v: Value) -> Optional[Tuple[Value, WrappedNd]]:
    """(scalar base pointer, wrapped offset in elements) of a pointer block with one wrapped axis or more,
    whose affine part does not move along them; else None."""
    p = _pointer(v)
    if p is None:
        return None
    w = p[1]
    axes = w.wrapped_axes
    if not axes or any(not w.affine.strides[d].is_zero() for d in axes):
        return None
    return p
