"""What the loop of a ``tt.fused_elementwise`` reads from local memory, and what it computes instead.

Codegen runs a fused op as one loop over chunks of its blocks (``codegen/tensor/fused.py``); the local-memory plan
(``opt/memory/plan.py``) gives buffers to the blocks that loop reads.  Both ask this module, so that they agree:

* a **prefix mask** ``splat(start) + tl.arange(0, n) < splat(bound)`` (1-D) and an **index range**
  ``splat(start) + tl.arange(0, n)`` (i32) are computed for each chunk (``vid``, an add, a compare), never read;
* a **column broadcast along the rows**, ``tt.broadcast`` of an ``[R, 1]`` block to the ``[R, C]`` blocks of the
  op with ``C >= ROW_MIN``, is read a scalar a row from the ``[R, 1]`` block (a scalar load of an element type in
  :data:`ROW_ELEMENTS`): the broadcast block is never built.
"""
from __future__ import annotations

from typing import List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import index_range
from mtiacc.ir.core import Operation, OpResult, Value
from mtiacc.ir.types import f32, f64, i32, i64

# the shortest row a column broadcast along it is read a scalar a row
ROW_MIN = 16
# the element types of a column read a scalar a row (codegen's scalar loads: flw, fld, lw, ld)
ROW_ELEMENTS = (f32, f64, i32, i64)


def _is(v: Value, cls) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, cls)


def iota(v: Value):
    """The scalar ``start`` when i32 block ``v`` is ``splat(start) + tl.arange(0, n)``: a block the loop computes
    for each chunk (``vid``, one add) instead of reading it from memory."""
    found = index_range(v) if _is(v, O.AddIOp) and v.type.element_type == i32 else None
    return found[0] if found else None


def prefix_mask(v: Value):
    """``(start, bound)`` scalars when block ``v`` is ``splat(start) + tl.arange(0, n) < splat(bound)`` (1-D):
    a mask the loop computes for each chunk (``vid``, add, compare) instead of reading it from memory."""
    if not (isinstance(v, OpResult) and isinstance(v.op, O.CmpIOp) and v.op.predicate == "slt"
            and len(v.type.shape) == 1):
        return None
    cols, bound = v.op.lhs, v.op.rhs
    start = iota(cols)
    return (start, bound.op.src) if start is not None and _is(bound, O.SplatOp) else None


def row_source(v: Value, shape) -> Optional[Value]:
    """The ``[R, 1]`` block that block ``v`` broadcasts along the rows of ``[R, C]`` blocks (``shape``), when the
    fused loop reads it a scalar a row; else None."""
    if len(shape) != 2 or shape[1] < ROW_MIN or not _is(v, O.BroadcastOp):
        return None
    src = v.op.src
    if not src.type.is_block() or list(src.type.shape) != [shape[0], 1] or src.type.element_type not in ROW_ELEMENTS:
        return None
    return src


def reads(op: Operation) -> List[Value]:
    """The inputs fused op ``op``'s loop reads from local memory: all but its prefix masks and index ranges, which
    it computes; a column broadcast along the rows as its ``[R, 1]`` column."""
    shape = op.results[0].type.shape
    out = []
    for v in op.operands:
        if prefix_mask(v) is None and iota(v) is None:
            src = row_source(v, shape) if v.type.is_block() else None
            out.append(v if src is None else src)
    return out


__all__ = ["ROW_MIN", "ROW_ELEMENTS", "iota", "prefix_mask", "row_source", "reads"]
