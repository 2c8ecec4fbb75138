"""``transposed-loads``: load a column-major operand tile of ``tt.dot`` as the row-major tile of its transpose.

A GEMM written with strides (Triton's tutorial 03) loads ``a`` as ``a_ptr + offs_am[:, None] * stride_am +
offs_k[None, :] * stride_ak``.  When ``a`` arrives transposed (a torch ``x.t()``, ``stride_am == 1``: Triton
specializes an integer argument equal to 1, so the stride is the constant 1 in the IR), the tile's elements are
consecutive in DRAM down its columns and scattered along its rows: a 2-D DMA moves one element per row, and the
``wrapped-tiles`` / ``tiles`` plans fall back to a DMA per column.  The transposed tile, ``[BK, BM]``, has
rows of consecutive elements: one 2-D DMA per run, as ``a @ b`` with row-major operands.

This pass rewrites a load whose pointer block (affine, ``affine_nd.pointer_nd``, or wrapped,
``wrapped_nd.pointer_wrapped``) has the constant element stride 1 along its second-to-last axis and any other
stride along its last, and whose every use is an operand ``a`` or ``b`` of an engine ``tt.dot``::

    %t = tt.load %ptr, %mask, %other                      # [BM, BK], column-major in DRAM
    -->
    %pt = tt.trans %ptr {order = [1, 0]}                  # [BK, BM], row-major in DRAM
    %mt = tt.trans %mask {order = [1, 0]}
    %ld = tt.load %pt, %mt, %other_t                      # a splat constant ``other`` is rebuilt transposed
    %t  = tt.trans %ld {order = [1, 0]}

The access plan reads the pointer and the mask through ``tt.trans`` (``affine_nd``, ``wrapped_nd``), so the
new load moves rows of consecutive elements.  The transpose of the loaded tile costs nothing as a dot's ``b``
(the engine reads the weight tile transposed: ``w_trans``) and one transpose on the memory layout unit as its
``a`` (``codegen/matrix/mlu.py``: behind the engine's command queue, it overlaps the streaming of the
engine command before it, never the vector unit).  Loads used by anything else are left alone (a transpose
there would cost the MLU and an engine wait where the strided DMA may be cheaper).

The pass runs before ``pipeline-dots``, which unrolls the rewritten loads with the rest of the body (its
``_loaded`` follows ``tt.trans`` to the load).  The values are the same elements in the same places: no
numerics change.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine_nd import Poly, pointer_nd
from mtiacc.ir.analysis.wrapped_nd import pointer_wrapped
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import TransOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _strides(ptr: Value) -> Optional[List[Poly]]:
    """Per axis, the pointer block's element stride (a wrapped axis: its row stride), or None."""
    w = pointer_wrapped(ptr)
    if w is not None:
        return [wr.coef if wr is not None else s for s, wr in zip(w[1].affine.strides, w[1].wraps)]
    nd = pointer_nd(ptr)
    return None if nd is None else list(nd[1].strides)


def column_major(op: O.LoadOp) -> bool:
    """Whether ``op``'s tile is consecutive in DRAM along its second-to-last axis and not along its last."""
    shape = op.ptr.type.shape if op.ptr.type.is_block() else ()
    if len(shape) < 2 or shape[-1] < 2 or shape[-2] < 2:
        return False
    strides = _strides(op.ptr)
    return strides is not None and strides[-2].as_const() == 1 and strides[-1].as_const() != 1


def _feeds_dots_only(v: Value) -> bool:
    return bool(v.uses) and all(isinstance(u.op, DotOp) and u.index in (0, 1) and u.op.on_engine()
                                for u in v.uses)


def _swap_order(rank: int) -> List[int]:
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def rewrite(op: O.LoadOp) -> None:
    rank = len(op.ptr.type.shape)
    order = _swap_order(rank)
    loc = op.loc

    def before(new: Operation) -> Value:
        op.parent.insert_before(op, new)
        return new.result

    ptr = before(TransOp.get(op.ptr, order, loc=loc))
    mask = before(TransOp.get(op.mask, order, loc=loc)) if op.mask is not None else None
    other = None
    if op.other is not None:
        value = O.const_value(op.other)
        other = (before(O.ConstantOp.get(value, ptr.type.with_element(op.result.type.element_type), loc=loc))
                 if value is not None else before(TransOp.get(op.other, order, loc=loc)))
    attrs = {k: v for k, v in op.attrs.items() if k not in ("operandSegmentSizes", "access")}
    new = O.LoadOp.get(ptr, mask, other, loc=loc, attrs=attrs)
    new.result.name_hint = op.result.name_hint
    loaded = before(new)
    back = TransOp.get(loaded, order, loc=loc)
    op.parent.insert_before(op, back)
    op.result.replace_all_uses_with(back.result)
    op.erase()


@register_pass
@dataclasses.dataclass(frozen=True)
class TransposedLoads(ModulePass):
    name = "transposed-loads"

    def run(self, module: O.ModuleOp) -> Optional[bool]:
        loads = [op for op in module.walk() if isinstance(op, O.LoadOp) and op.guard is None
                 and column_major(op) and _feeds_dots_only(op.result)]
        for op in loads:
            rewrite(op)
        return None if loads else False
