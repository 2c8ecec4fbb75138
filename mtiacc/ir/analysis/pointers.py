"""Which function parameter a pointer is computed from: the unit of aliasing the optimizer reasons with.

Triton kernels receive their buffers as pointer parameters, and a launch passes distinct tensors for distinct
parameters that a kernel writes (the assumption Triton's own pipeliner makes); a pointer built from one
parameter by offsets and shape ops stays inside that parameter's buffer.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir import ops as O
from mtiacc.ir.core import BlockArgument, Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp
from mtiacc.ir.types import PointerType, i1, i8

POINTER_THROUGH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp, ExpandDimsOp, ReshapeOp)


# offsets, splats and broadcasts only (no reshapes): what reuse-loads and keep-invariant trace
OFFSETS_THROUGH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp)


def is_byte_view(op) -> bool:
    """``tt.bitcast`` of pointers to i1 into pointers to i8: how a load through an i1 pointer reads its bytes
    (Triton's rule, the frontend's ``_load_bool``).  The same buffer, and offsets in the same 1-byte elements."""
    if not isinstance(op, O.BitcastOp):
        return False
    src, dst = op.src.type.element_type, op.result.type.element_type
    return isinstance(src, PointerType) and isinstance(dst, PointerType) and src.pointee == i1 \
        and dst.pointee == i8


def root_pointer(v: Value, through=POINTER_THROUGH) -> Optional[BlockArgument]:
    """The function parameter a pointer (block) is computed from by the ops ``through`` (offsets and shape ops by
    default) and byte views of i1 pointers (:func:`is_byte_view`), if any."""
    while True:
        if isinstance(v, BlockArgument):
            owner = v.block.parent.parent if v.block.parent is not None else None
            return v if isinstance(owner, O.FuncOp) else None
        if is_byte_view(v.op):
            v = v.op.src
            continue
        if not isinstance(v.op, through):
            return None
        v = v.op.operands[0]
