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

POINTER_THROUGH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp, ExpandDimsOp, ReshapeOp)


def root_pointer(v: Value) -> Optional[BlockArgument]:
    """The function parameter a pointer (block) is computed from by offsets and shape ops, if any."""
    while True:
        if isinstance(v, BlockArgument):
            owner = v.block.parent.parent if v.block.parent is not None else None
            return v if isinstance(owner, O.FuncOp) else None
        if not isinstance(v.op, POINTER_THROUGH):
            return None
        v = v.op.operands[0]
