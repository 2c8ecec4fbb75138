"""A slice of a block, computed rather than cut: the ops that compute ``v[..., s:s+n, ...]`` (along one or more
axes, each at a run-time offset) from the ops that compute ``v``, for the passes that stream a block too big for
local memory through it in pieces (``split-dots``, ``stream-blocks``).

The slice of a value is built from the slices of its operands, one rule per kind of op:

* ``tt.make_range(s, e)`` -> ``tt.make_range(0, n) + splat(offset + s)``;
* a splat, or a constant block -> the same scalar at the narrower shape;
* ``tt.broadcast`` -> a broadcast of the source's slice (the source itself along a stretched axis of size 1);
* ``tt.expand_dims`` -> the expansion of the source's slice along the matching source axes;
* an op whose block operands all have its result's shape (an element-wise op, ``tt.addptr``, a comparison, a select,
  a cast, a fused element-wise loop, and ``tt.load`` of a pointer block with its mask and ``other``) -> the op on its
  operands' slices.

All the axes of a slice are cut in one rebuild (a tile of a load is one load, not a load of a load's band).  A value
along whose axes nothing varies (dimensions of size 1) is its own slice, and a scalar too.  Any other op (a
reduction, a reshape, a loop's block argument, a dot) has no slice here: :meth:`Narrower.slice` returns None and
the pass leaves the block as it is.  New ops go into the block the narrower was made for (a loop body being built):
a narrower serves one block, so that every slice it hands out is defined where it is used.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.core import Block, Operation, OpResult, Pure, Value
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.shape_ops import ExpandDimsOp
from mtiacc.ir.types import BlockType, i32


Cut = Tuple[int, Value, int]       # (axis, start: an i32 scalar, size)


def sliced_type(t: BlockType, axis: int, size: int) -> BlockType:
    shape = list(t.shape)
    shape[axis] = size
    return BlockType(tuple(shape), t.element_type)


class Narrower:
    """Slices of blocks at run-time offsets (i32 scalars) along one or more axes, appended to ``block`` (before its
    terminator when it has one, or before the op ``before``)."""

    def __init__(self, block: Block, loc=None, before: Optional[Operation] = None):
        self.block, self.loc, self.before = block, loc, before
        self.memo: Dict[tuple, Value] = {}

    def add(self, op: Operation) -> Operation:
        if self.before is not None:
            self.block.insert_before(self.before, op)
            return op
        term = self.block.terminator
        if term is not None:
            self.block.insert_before(term, op)
        else:
            self.block.append(op)
        return op

    def slice(self, v: Value, cuts: Sequence[Cut]) -> Optional[Value]:
        """``v`` sliced by ``cuts`` (``(axis, start, size)``; a negative axis counts from the end), or None when it
        cannot be."""
        t = v.type
        if not t.is_block():
            return v
        cuts = tuple(sorted(((a % len(t.shape), s, n) for a, s, n in cuts if t.shape[a % len(t.shape)] != 1),
                            key=lambda c: c[0]))
        if not cuts:
            return v
        key = (id(v),) + tuple((a, id(s), n) for a, s, n in cuts)
        if key not in self.memo:
            out = self._slice(v, cuts)
            if out is None:
                return None
            self.memo[key] = out
        return self.memo[key]

    def can_slice(self, v: Value, axes: Sequence[int], seen=None) -> bool:
        """Whether :meth:`slice` would succeed along ``axes``, without building anything."""
        seen = set() if seen is None else seen
        t = v.type
        if not t.is_block():
            return True
        axes = tuple(sorted({a % len(t.shape) for a in axes if t.shape[a % len(t.shape)] != 1}))
        if not axes or (id(v), axes) in seen:
            return True
        seen.add((id(v), axes))
        if not isinstance(v, OpResult):
            return False
        op = v.op
        if isinstance(op, O.MakeRangeOp) or isinstance(op, (O.ConstantOp, O.SplatOp)):
            return True
        if isinstance(op, O.BroadcastOp):
            return self.can_slice(op.src, axes, seen)
        if isinstance(op, ExpandDimsOp):
            return self.can_slice(op.src, [a if a < op.axis else a - 1 for a in axes], seen)
        if _elementwise_like(op):
            return all(self.can_slice(x, axes, seen) for x in op.operands)
        return False

    def _slice(self, v: Value, cuts: Tuple[Cut, ...]) -> Optional[Value]:
        if not isinstance(v, OpResult):
            return None
        op, loc = v.op, v.op.loc
        new_t = v.type
        for a, _, n in cuts:
            new_t = sliced_type(new_t, a, n)
        if isinstance(op, O.MakeRangeOp):
            (_, start, size), = cuts
            rng = self.add(O.MakeRangeOp.get(0, size, loc=loc)).result
            if op.start:
                c = self.add(O.ConstantOp.get(op.start, i32, loc=loc)).result
                start = self.add(O.AddIOp.get(start, c, loc=loc)).result
            off = self.add(O.SplatOp.get(start, (size,), loc=loc)).result
            return self._named(self.add(O.AddIOp.get(rng, off, loc=loc)).result, v)
        if isinstance(op, O.ConstantOp):
            return self._named(self.add(O.ConstantOp.get(op.value, new_t, loc=loc)).result, v)
        if isinstance(op, O.SplatOp):
            return self._named(self.add(O.SplatOp.get(op.src, new_t.shape, loc=loc)).result, v)
        if isinstance(op, O.BroadcastOp):
            src = self.slice(op.src, cuts)
            return None if src is None else self._named(self.add(O.BroadcastOp.get(src, new_t.shape, loc=loc)).result, v)
        if isinstance(op, ExpandDimsOp):
            src = self.slice(op.src, [(a if a < op.axis else a - 1, s, n) for a, s, n in cuts])
            return None if src is None else self._named(self.add(ExpandDimsOp.get(src, op.axis, loc=loc)).result, v)
        if _elementwise_like(op):
            operands = [self.slice(x, cuts) for x in op.operands]
            if any(x is None for x in operands):
                return None
            types = []
            for r in op.results:
                t = r.type
                for a, _, n in cuts:
                    t = sliced_type(t, a, n)
                types.append(t)
            new = self.add(_clone_resized(op, operands, types))
            for old, r in zip(op.results, new.results):
                self.memo[(id(old),) + tuple((a, id(s), n) for a, s, n in cuts)] = r
            return new.results[op.results.index(v)]
        return None

    @staticmethod
    def _named(new: Value, old: Value) -> Value:
        new.name_hint = old.name_hint
        return new


def loads_feeding(values, block: Block) -> list:
    """The ``tt.load`` ops of ``block`` that the pure computation of ``values`` reads (what a slice re-runs)."""
    seen, out, todo = set(), [], list(values)
    while todo:
        v = todo.pop()
        if not isinstance(v, OpResult) or id(v.op) in seen or v.op.parent is not block:
            continue
        seen.add(id(v.op))
        if isinstance(v.op, O.LoadOp):
            out.append(v.op)
        todo.extend(v.op.operands)
    return out


def reorder_safe(loads, stores, block: Block, until: Operation, allowed=(), chunkwise: bool = False) -> bool:
    """Whether re-running ``loads`` (ops of ``block``) as late as ``until``, and running ``stores`` interleaved with
    them, reads what the loads read where they stood: no op between the first load and ``until`` writes memory but
    ``allowed`` ones, and every store writes through another pointer parameter than every load reads (distinct
    parameters are distinct buffers, the rule ``licm`` and ``pipeline-loads`` move loads by).  With ``chunkwise``
    (each chunk's loads run before its stores, and chunks share no element), a store through the very pointer
    block of a load writes only what that load read already."""
    from mtiacc.ir import scf
    from mtiacc.ir.analysis.pointers import may_share, root_pointer
    if loads:
        first = min(block.ops.index(ld) for ld in loads)
        end = block.ops.index(until)
        ok = {id(o) for o in allowed}
        for op in block.ops[first:end]:
            if id(op) not in ok and not isinstance(op, O.LoadOp) and scf.has_side_effects(op):
                return False
    for st in stores:
        r = root_pointer(st.ptr)
        for ld in loads:
            x = root_pointer(ld.ptr)
            if r is None or x is None or may_share(x, r) and not (chunkwise and ld.ptr is st.ptr):
                return False
    return True


def _elementwise_like(op: Operation) -> bool:
    """An op that computes each element of its results from the same element of its block operands."""
    if not op.results or any(not r.type.is_block() for r in op.results):
        return False
    if op.regions and not isinstance(op, FusedElementwiseOp):
        return False
    if not (Pure in op.traits or isinstance(op, O.LoadOp) and not op.volatile):
        return False
    shape = op.results[0].type.shape
    return all(r.type.shape == shape for r in op.results) and \
        all(x.type.shape == shape for x in op.operands if x.type.is_block())


def _clone_resized(op: Operation, operands, result_types) -> Operation:
    from mtiacc.opt.inline import clone_regions
    regions = clone_regions(op, {})
    attrs = {k: v for k, v in op.attrs.items() if k != "access"}
    new = type(op)(list(operands), list(result_types), attrs, loc=op.loc, regions=regions, segments=op.segments)
    for old, r in zip(op.results, new.results):
        r.name_hint = old.name_hint
    return new


__all__ = ["Narrower", "sliced_type", "loads_feeding", "reorder_safe"]
