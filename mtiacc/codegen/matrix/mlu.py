"""Transposes on the memory layout unit (MLU): ``tt.trans`` of the last two axes of a block in local memory.

``mtia.mlu.trans.e<W> dst, src, shape`` (``shape = rows << 16 | cols``) goes through the matrix engine's command
queue (docs/matrix-engine.md, "The memory layout unit"): it costs the vector unit nothing, runs in order with
the engine's commands (an ``mm`` streaming the transposed block starts after it), and, like them, is waited for
(``mtia.dpe.wait``) before the core or the vector unit touches its result; its source is held until then.
A leading batch of up to ``MAX_BATCH`` blocks is one command per block; other permutations, element widths
and shapes stay strided vector copies (``tensor/ndblocks.py``).
"""
from __future__ import annotations

import math

from mtiacc.codegen.context import SCALAR_BACKED, Lowering
from mtiacc.codegen.matrix import engine as E
from mtiacc.codegen.vector.vloop import elem_bytes
from mtiacc.ir.core import OpResult
from mtiacc.ir.shape_ops import TransOp

MAX_BATCH = 16      # commands per transpose (a larger batch stays a vector copy)
MAX_SIDE = 65535    # rows and columns fit 16 bits of the shape operand


def on_mlu(op) -> bool:
    """Whether ``op`` is a ``tt.trans`` the MLU does: the last two axes of a block (not a splat) swapped."""
    if not isinstance(op, TransOp) or not op.result.type.is_block():
        return False
    src = op.src
    if isinstance(src, OpResult) and isinstance(src.op, SCALAR_BACKED):
        return False
    shape = src.type.shape
    rank = len(shape)
    if rank < 2 or list(op.order) != list(range(rank - 2)) + [rank - 1, rank - 2]:
        return False
    if elem_bytes(src.type.element_type) not in (1, 2, 4, 8):
        return False
    return max(shape[-2:]) <= MAX_SIDE and math.prod(shape[:-2]) <= MAX_BATCH


def lower(lw: Lowering, op) -> None:
    b = lw.b
    shape = op.src.type.shape
    rows, cols = shape[-2], shape[-1]
    es = elem_bytes(op.src.type.element_type)
    block = rows * cols * es
    src, dst = lw.buffer(op.src), lw.alloc(op.result)
    size = b.li((rows << 16) | cols, "shape")
    for i in range(math.prod(shape[:-2])):
        b(f"mtia.mlu.trans.e{8 * es}", E.reg_of(b, dst.offset, i * block), E.reg_of(b, src.offset, i * block),
          size, comment=f"{rows} x {cols} -> {cols} x {rows}")
    lw.engine.busy = True
    E.hold(lw, src)
