"""2-D tiles whose index is a sum of split forms, one per axis (Inductor's y/x kernels).

Inductor's tiled pointwise kernels index ``(YBLOCK, XBLOCK)`` tiles with ``x2 + 49*y3`` and store
them transposed, ``y0 + 3*x2 + 147*y1`` with ``y0 = yindex % 3``, ``y1 = yindex // 3``: the index is
``S0(y) + S1(x)``, each ``S`` a split form (``split_index.Split``) of its own axis.  When one axis
moves by runs of slope 1 the tile moves by runs along it (``split_dma.runs``):

* along the last axis (x): per active row y, the x runs, from ``S0(y)`` on (rows of the tile are
  contiguous in local memory);
* along the first axis (y): per active column x, the y runs, through a transposed scratch copy of the
  tile (``ndblocks.strided_copy``) since a column is not contiguous in local memory.

The axis with fewer expected transfers wins; an axis with a slope other than 1 moves element by
element inside its runs.  Masks: a prefix per axis (``ymask & xmask``), all-true ones, scalar
conditions.  Tiles whose index is affine with unit last stride stay with ndblocks.py.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from mtiacc.ir.analysis.affine import Affine
from mtiacc.ir.analysis.affine_nd import _reshape_map, pointer_nd
from mtiacc.codegen.machine.mir import VReg
from mtiacc.ir.analysis.split_index import (Cond, Split, SWAP, div_rem, int_const, uniform_part,
                                        uniform_at_zero, split_of)
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
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


# --------------------------------------------------------------------------- the access

def _transfers(s: Split, n: int) -> int:
    """Expected transfers to move ``n`` positions of ``s`` (runs of slope 1, else elements)."""
    if s.slope != 1:
        return n
    g = s.period
    return 1 if g is None else n // g + 1


class TileAccess:
    """A 2-D load or store ``S0(y) + S1(x)`` that ndblocks.py would move element by element."""

    def __init__(self, op):
        self.pointer = None
        ptr = op.ptr
        shape = ptr.type.shape if ptr.type.is_block() else ()
        if len(shape) != 2 or 1 in shape:
            return
        nd = pointer_nd(ptr)
        if nd is not None and nd[1].strides[-1].as_const() in (1, None):
            return  # rows by DMA (ndblocks.py), or a run-time stride it branches on
        box = ([None, None], ()) if op.mask is None else mask_box(op.mask)
        p = pointer_axes(ptr)
        if box is None or p is None:
            return
        axes = [s.normalized() for s in p[1]]
        if all(s.slope != 1 for s in axes):
            return
        self.pointer = (p[0], axes)
        self.counts, self.conds = box
        y, x = shape
        # the run axis moves by runs of slope 1; the other one is looped over
        self.by_columns = axes[1].slope != 1 or \
            axes[0].slope == 1 and _transfers(axes[0], y) * x < _transfers(axes[1], x) * y


def handles(op) -> bool:
    return TileAccess(op).pointer is not None


def needs_buffers(op):
    return [op.value] if isinstance(op, O.StoreOp) else []


def _axis_offset(lw, k, s: Split, xs: VReg, pos: VReg) -> VReg:
    """``S(pos) - S.base`` in a register (the base is added once, into the start address)."""
    from mtiacc.codegen.memory.runs import run_index
    b = lw.b
    acc = b.li(0) if not s.terms else None
    if s.terms:
        x = b.x()
        b("add", x, xs, pos)
        acc = run_index(b, k, s, x)
    if s.lin:
        t = b.x()
        b("mul", t, pos, k(s.lin))
        r = b.x()
        b("add", r, acc, t)
        acc = r
    return acc


def _move(lw, op, acc: TileAccess, lmem: int, esize: int, inbound: bool) -> None:
    """Per position of the outer axis, the runs of the run axis (local rows ``shape[run]`` apart)."""
    from mtiacc.codegen.memory.dma import affine_scalar, clamp, element_address
    from mtiacc.codegen.memory.runs import cond_flag, per_run, prepare_consts
    b = lw.b
    base, axes = acc.pointer
    shape = op.ptr.type.shape
    total = Affine()
    for s in axes:
        total = total + s.base
    dram0 = element_address(lw, lw.get(base), affine_scalar(lw, total), esize)
    cnts = [clamp(lw, affine_scalar(lw, c), d) if c is not None else b.li(d) for c, d in zip(acc.counts, shape)]
    for c in acc.conds:
        b("mul", cnts[0], cnts[0], cond_flag(lw, c))
    run_axis = 0 if acc.by_columns else 1
    outer_axis = 1 - run_axis
    run, outer = axes[run_axis], axes[outer_axis]
    k = prepare_consts(b, run, esize, run.slope * esize)
    ko = prepare_consts(b, outer, esize)
    if outer.lin:
        ko.make(outer.lin)
    xs_run, xs_outer = [affine_scalar(lw, s.xs) if s.xs is not None else b.li(0) for s in (run, outer)]
    # local layout: rows of the run axis, `shape[run_axis]` elements apart
    row_bytes = shape[run_axis] * esize
    i, top, done = b.li(0, "o"), b.new_label("tile"), b.new_label("tiledone")
    local, step = b.x("row"), b.li(row_bytes)
    b("li", local, lmem)
    b("bge", i, cnts[outer_axis], done)
    b.label(top)
    off = _axis_offset(lw, ko, outer, xs_outer, i)
    dram = element_address(lw, dram0, off, esize)
    per_run(lw, run, k, dram, xs_run, cnts[run_axis], local, esize, inbound)
    b("add", local, local, step)
    b("addi", i, i, 1)
    b("blt", i, cnts[outer_axis], top)
    b.label(done)


def lower_load(lw, op) -> None:
    from mtiacc.codegen.vector.blocks import lower_fill
    from mtiacc.codegen.tensor.ndblocks import strided_copy
    acc = TileAccess(op)
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    y, x = op.result.type.shape
    dst = lw.alloc(op.result)
    target = dst
    if acc.by_columns:
        target = lw.lmem.alloc(y * x * esize, "transposed tile", op.loc)
    if op.other is not None:
        lower_fill(lw.b, y * x, lw.src(op.other), Src(elem, addr=target.offset))
    _move(lw, op, acc, target.offset, esize, True)
    lw.b("mtia.dma.wait")
    if acc.by_columns:  # tile[y, x] = scratch[x * Y + y]
        strided_copy(lw, dst.offset, (y, x), target.offset, (1, y), elem)
        lw.lmem.free(target)


def lower_store(lw, op) -> None:
    from mtiacc.codegen.vector.blocks import stored_value_addr
    from mtiacc.codegen.tensor.ndblocks import strided_copy
    acc = TileAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    y, x = op.value.type.shape
    addr = stored_value_addr(lw, op)
    if not acc.by_columns:
        _move(lw, op, acc, addr, esize, False)
        return
    scratch = lw.lmem.alloc(y * x * esize, "transposed tile", op.loc)
    strided_copy(lw, scratch.offset, (x, y), addr, (1, x), elem)  # scratch[x, y] = tile[y, x]
    _move(lw, op, acc, scratch.offset, esize, False)
    lw.b("mtia.dma.wait")  # the transfers read the scratch copy
    lw.lmem.free(scratch)
