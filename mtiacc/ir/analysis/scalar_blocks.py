"""Blocks that hold one scalar: a splat or a constant seen through shape ops.

Codegen fills such a block into a buffer of its own where an op reads it at an address (reductions, scans, sorts,
gathers, histograms: ``codegen/tensor/axes.py``), and the local-memory plan counts that buffer
(``opt/memory/plan.py``); both ask :func:`scalar_root`.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp, TransOp


def scalar_root(v: Value) -> Optional[Value]:
    """The splat or constant behind block ``v`` through shape ops (expand_dims, reshape, broadcast, trans), when
    the whole block is that one scalar; None otherwise."""
    while isinstance(v, OpResult):
        op = v.op
        if isinstance(op, (O.SplatOp, O.ConstantOp)):
            return v
        if isinstance(op, (ExpandDimsOp, ReshapeOp, O.BroadcastOp, TransOp)) and op.src.type.is_block():
            v = op.src
            continue
        return None
    return None
