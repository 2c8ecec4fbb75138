"""Codegen for N-d blocks: the shape ops (the loops over N-d blocks are ``vector/nest.py``).

Blocks live row-major in local memory, so elementwise ops run over the flattened block (isel) and:

* ``tt.expand_dims``, ``tt.reshape`` and a ``tt.broadcast`` that stretches nothing are free: the
  result aliases its source's buffer (isel keeps the source alive as long as the alias).
* ``tt.trans`` of the last two axes is a command to the memory layout unit (``matrix/mlu.py``), no vector work.
* ``tt.broadcast`` and other ``tt.trans`` materialize with a strided copy: loops over the outer result
  dimensions and, per row, a strip-mined ``vlse`` (source stride: 0 for a stretched dimension, the
  permuted stride for a transpose) and a unit-stride ``vse``.

Loads and stores of N-d tiles are ``mtiacc/codegen/memory/tiles.py``.
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.matrix import mlu
from mtiacc.codegen.tensor.axes import materialize_scalar
from mtiacc.ir.analysis.scalar_blocks import scalar_root
from mtiacc.codegen.vector.nest import dense_strides, strided_copy
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.dot_ops import read_back_source
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp, TransOp


def is_alias(op) -> bool:
    """Ops whose result shares its source's buffer (an ``arith.truncf`` the matrix engine's accumulator store
    does: ``tt.dot {read_back}``)."""
    if read_back_source(op) is not None:
        return True
    if isinstance(op, (ExpandDimsOp, ReshapeOp)):
        return op.result.type.is_block() and op.src.type.is_block()
    return isinstance(op, O.BroadcastOp) and op.src.type.shape == op.result.type.shape


def alias_chain(v: Value) -> List[Value]:
    """``v`` and the values whose buffer it aliases (all must outlive a store of ``v``)."""
    out = [v]
    while isinstance(v, OpResult) and is_alias(v.op):
        v = v.op.src
        out.append(v)
    return out


def lower_shape_op(lw: Lowering, op) -> None:
    """Lower ``tt.expand_dims``/``tt.reshape``/``tt.broadcast``/``tt.trans`` with a block result."""
    res = op.result
    root = scalar_root(res)
    if root is not None:
        materialize_scalar(lw, root, res, lw.alloc(res))
        return
    if is_alias(op):
        lw.bufs[res] = lw.buffer(op.src)
        return
    if mlu.on_mlu(op):
        mlu.lower(lw, op)
        return
    src_shape, shape = op.src.type.shape, res.type.shape
    sstr = dense_strides(src_shape)
    if isinstance(op, O.BroadcastOp):
        strides = [0 if s == 1 and r != 1 else st for s, r, st in zip(src_shape, shape, sstr)]
    elif isinstance(op, TransOp):
        strides = [sstr[d] for d in op.order]
    else:
        raise CompileError(f"'{op.name}' is not supported by codegen yet")
    dst = lw.alloc(res)
    strided_copy(lw.b, dst.offset, shape, lw.buffer(op.src).offset, strides, res.type.element_type)


# --------------------------------------------------------------------------- dispatch

def handles(op) -> bool:
    """Shape ops that move data between N-d blocks (a same-shape broadcast is an alias)."""
    if isinstance(op, (ExpandDimsOp, ReshapeOp, TransOp)):
        return True
    return isinstance(op, O.BroadcastOp) and op.src.type.shape != op.result.type.shape


def lower(lw: Lowering, op) -> None:
    """Shape ops (reductions and scans are ``reduce.py``'s and ``scan.py``'s rows of isel's table)."""
    if not op.result.type.is_block():
        raise CompileError(f"'{op.name}' to a scalar is not supported by codegen yet")
    else:
        lower_shape_op(lw, op)
