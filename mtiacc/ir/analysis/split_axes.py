"""Per-axis split forms of 2-D index blocks, pointer blocks and masks (Inductor's y/x tiles).

Inductor's tiled pointwise kernels index ``(YBLOCK, XBLOCK)`` tiles with ``x2 + 49*y3`` and store
them transposed, ``y0 + 3*x2 + 147*y1`` with ``y0 = yindex % 3``, ``y1 = yindex // 3``: the index is
``S0(y) + S1(x)``, each ``S`` a split form (``split_index.Split``) of its own axis.  ``axes_of`` finds
those forms for an integer block, ``pointer_axes`` for a pointer block (a scalar base plus such an
index), and ``mask_box`` the masks that go with them: a prefix per axis (``ymask & xmask``), all-true
ones, and conditions on scalars.  The access plan (``access_plan.py``) moves such tiles by runs along
one axis (``split-tiles``); codegen's ``memory/split_tiles.py`` lowers them.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import Affine
from mtiacc.ir.analysis.affine_nd import _reshape_map
from mtiacc.ir.analysis.split_index import (Cond, Split, SWAP, div_rem, int_const, uniform_at_zero,
                                            uniform_part, split_of)
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp, TransOp

Axes = List[Split]  # value(i0, i1) = S0(i0) + S1(i1)


def _zeros(rank: int) -> Axes:
    return [Split() for _ in range(rank)]


def _const_axes(axes: Axes) -> Optional[int]:
    if any(s.terms or s.lin or s.base.terms or s.base.stride for s in axes):
        return None
    return sum(s.base.const for s in axes)


def _through_shape(op, inner: Axes) -> Optional[Axes]:
    """Per-axis forms through expand_dims / broadcast / trans / reshape (size-1 axes only)."""
    rank = len(op.result.type.shape)
    if isinstance(op, ExpandDimsOp):
        out = list(inner)
        out.insert(op.axis, Split())
        return out
    if isinstance(op, O.BroadcastOp):
        out = []
        for s, a, r in zip(inner, op.src.type.shape, op.result.type.shape):
            if a == 1 and r != 1:
                s = uniform_at_zero(s)  # the one element, repeated along the axis
                if s is None:
                    return None
            out.append(s)
        return out
    if isinstance(op, TransOp):
        return [inner[d] for d in op.order]
    if isinstance(op, ReshapeOp):
        m = _reshape_map(op.src.type.shape, op.result.type.shape)
        if m is None:
            return None
        out = [inner[s] if s is not None else Split() for s in m]
        kept = {s for s in m if s is not None}
        for d, s in enumerate(inner):  # dropped size-1 axes: their value at 0
            if d not in kept:
                s = uniform_at_zero(s)
                if s is None:
                    return None
                out[0] = out[0] + s if rank else out[0]
        return out
    return None


def axes_of(v: Value, depth: int = 0) -> Optional[Axes]:
    """The per-axis split forms of an integer block of rank >= 1, or None."""
    if depth > 64 or not v.type.is_int() or not v.type.is_block():
        return None
    rank = len(v.type.shape)
    op = v.op if isinstance(v, OpResult) else None
    if rank == 1:
        s = split_of(v)
        return None if s is None else [s]
    if isinstance(op, O.ConstantOp):
        c = int_const(v)
        return None if c is None else [Split(Affine((), c, 0))] + _zeros(rank - 1)
    if isinstance(op, O.SplatOp):
        s = uniform_part(split_of(op.src))
        return None if s is None else [Split(s)] + _zeros(rank - 1)
    if isinstance(op, (ExpandDimsOp, O.BroadcastOp, TransOp, ReshapeOp)) and op.src.type.is_block():
        inner = axes_of(op.src, depth + 1)
        return None if inner is None else _through_shape(op, inner)
    if isinstance(op, O.ExtSIOp):
        return axes_of(op.src, depth + 1)
    if isinstance(op, (O.AddIOp, O.SubIOp, O.MulIOp)):
        a, b = axes_of(op.lhs, depth + 1), axes_of(op.rhs, depth + 1)
        if a is None or b is None:
            return None
        if isinstance(op, O.MulIOp):
            for x, y in ((a, b), (b, a)):
                k = _const_axes(y)
                if k is not None:
                    return [s.scale(k) for s in x]
            return None
        sign = -1 if isinstance(op, O.SubIOp) else 1
        out = [s + t.scale(sign) for s, t in zip(a, b)]
        return None if any(s is None for s in out) else out
    if isinstance(op, (O.DivSIOp, O.RemSIOp, O.DivUIOp, O.RemUIOp)):
        c, a = int_const(op.rhs), axes_of(op.lhs, depth + 1)
        if c is None or c <= 0 or a is None:
            return None
        varying = [d for d, s in enumerate(a) if s.terms or s.lin]
        if len(varying) > 1:
            return None
        d = varying[0] if varying else 0
        whole = a[d]
        for e, s in enumerate(a):
            if e != d:
                whole = whole + s  # uniform parts
        r = div_rem(whole, c, isinstance(op, (O.DivSIOp, O.DivUIOp)))
        if r is None:
            return None
        out = _zeros(rank)
        out[d] = r
        return out
    return None


def pointer_axes(v: Value, depth: int = 0) -> Optional[Tuple[Value, Axes]]:
    if depth > 64 or not isinstance(v, OpResult) or not v.type.is_block():
        return None
    op = v.op
    rank = len(v.type.shape)
    if isinstance(op, O.SplatOp):
        return op.src, _zeros(rank)
    if isinstance(op, (ExpandDimsOp, O.BroadcastOp, TransOp, ReshapeOp)):
        inner = pointer_axes(op.src, depth + 1)
        if inner is None:
            return None
        axes = _through_shape(op, inner[1])
        return None if axes is None else (inner[0], axes)
    if isinstance(op, O.AddPtrOp):
        base, off = pointer_axes(op.ptr, depth + 1), axes_of(op.offset)
        if base is None or off is None:
            return None
        out = [s + t for s, t in zip(base[1], off)]
        return None if any(s is None for s in out) else (base[0], out)
    return None


# --------------------------------------------------------------------------- masks

Box = Tuple[List[Optional[Affine]], Tuple[Cond, ...]]  # per-axis prefix counts, conditions


def mask_box(mask: Value, depth: int = 0) -> Optional[Box]:
    if depth > 32 or not isinstance(mask, OpResult) or not mask.type.is_block():
        return None
    op = mask.op
    rank = len(mask.type.shape)
    if isinstance(op, O.ConstantOp):
        return ([None] * rank, ()) if op.value is True or op.value == 1 else None
    if isinstance(op, O.SplatOp):
        c = O.const_value(op.src)
        if c is not None:
            return ([None] * rank, ()) if c else None
        return ([None] * rank, (Cond(flag=op.src),))
    if isinstance(op, (ExpandDimsOp, O.BroadcastOp, TransOp)) and op.src.type.is_block():
        inner = mask_box(op.src, depth + 1)
        if inner is None:
            return None
        counts, conds = list(inner[0]), inner[1]
        if isinstance(op, ExpandDimsOp):
            counts.insert(op.axis, None)
        elif isinstance(op, TransOp):
            counts = [counts[d] for d in op.order]
        else:
            for d, (a, r) in enumerate(zip(op.src.type.shape, op.result.type.shape)):
                if a == 1 and r != 1 and counts[d] is not None:
                    conds = conds + (Cond("sgt", counts[d], Affine()),)
                    counts[d] = None
        return counts, conds
    if isinstance(op, O.AndIOp):
        a, b = mask_box(op.lhs, depth + 1), mask_box(op.rhs, depth + 1)
        if a is None or b is None:
            return None
        counts = []
        for x, y in zip(a[0], b[0]):
            if x is not None and y is not None:
                return None
            counts.append(x if x is not None else y)
        return counts, a[1] + b[1]
    if isinstance(op, O.CmpIOp) and op.predicate in SWAP:
        a, b, pred = axes_of(op.lhs), axes_of(op.rhs), op.predicate
        if a is None or b is None:
            return None
        ua, ub = _uniform_axes(a), _uniform_axes(b)
        if ua is not None and ub is not None:
            return [None] * rank, (Cond(pred, ua, ub),)
        if pred in ("sgt", "sge"):
            a, b, pred = b, a, SWAP[pred]
            ub = _uniform_axes(b)
        varying = [d for d, s in enumerate(a) if s.terms or s.lin]
        if ub is None or len(varying) != 1 or a[varying[0]].terms or a[varying[0]].lin != 1:
            return None
        start = Affine()
        for s in a:
            start = start + s.base
        count = ub + (-start)
        counts: List[Optional[Affine]] = [None] * rank
        counts[varying[0]] = count + Affine((), 1, 0) if pred == "sle" else count
        return counts, ()
    return None


def _uniform_axes(axes: Axes) -> Optional[Affine]:
    if any(s.terms or s.lin for s in axes):
        return None
    out = Affine()
    for s in axes:
        out = out + s.base
    return out


def _transfers(s: Split, n: int) -> int:
    """Expected transfers to move ``n`` positions of ``s`` (runs of slope 1, else elements)."""
    if s.slope != 1:
        return n
    g = s.period
    return 1 if g is None else n // g + 1


def by_columns(axes: Sequence[Split], shape: Sequence[int]) -> bool:
    """Whether a ``split-tiles`` access of a ``shape`` tile with the (normalized) split forms ``axes`` moves by
    runs along its first axis, columns (through a transposed copy of the tile, a scratch block of the tile's
    size beside it while it moves): the last axis does not move by runs of slope 1, or the first does with
    fewer transfers."""
    y, x = shape
    return axes[1].slope != 1 or axes[0].slope == 1 and _transfers(axes[0], y) * x < _transfers(axes[1], x) * y

