"""The access plan: how each ``tt.load`` / ``tt.store`` moves between DRAM and local memory, decided once.

``plan_function(func)`` returns ``{op: kind}`` for every load and store of ``func`` (the ``access-plan``
pass writes it on the ops as the ``access`` attribute; codegen lowers each kind with its own strategy and
never decides again).  The kinds, in the order they are tried (the first that fits wins):

1. ``runs``: a block of one axis (at most one dimension longer than 1) with two elements or more, whose
   mask is absent or one ``split_index.mask_form`` understands (a prefix, all true, conditions on
   scalars), whose pointer is a split form (``split_index.split_pointer``: indices built with ``//`` and
   ``%``, constant strides), and that the affine paths below would not move one row per transfer:
   a 1-D pointer that is not affine, or not of stride 1, or of stride 1 with a mask that is neither a
   prefix nor uniform; an N-d one that is not affine, or whose long axis is not the last, or whose
   last stride is a constant other than 1.
2. ``wrapped-tiles``: a pointer block wrapped along one axis or more (``wrapped_nd.pointer_wrapped``:
   ``(u + arange(B)) % R`` times a stride, as every Triton GEMM indexes its operands) and affine along
   the others, with no mask or a prefix box (``affine_nd.prefix_box``); for a load, the wrapped term may
   be clamped instead (``where(u + arange(B) < R, u + arange(B), c)``, tutorial 09's persistent matmul).
3. ``split-tiles``: a 2-D block without size-1 axes whose index is ``S0(y) + S1(x)`` with a split form
   per axis (``split_axes.pointer_axes``), one of slope 1, and a mask ``split_axes.mask_box`` reads,
   unless the pointer is affine with a last stride of 1 or known only at run time (``tiles`` moves it).
4. ``scalar``: a scalar pointer.
5. ``tiles``: a pointer block affine in N-d (``affine_nd.pointer_nd``), except a 1-D block with a
   constant stride (``affine.pointer_affine``, left to the next two): N-d tiles, and run-time strides.
6. ``gather`` (a load) / ``scatter`` (a store): any other pointer block of rank > 1, or a 1-D block
   that is not affine.
7. ``contiguous``: a 1-D affine block of stride 1 with no mask, a prefix mask (``affine.prefix_count``)
   or a mask axis-info proves uniform over the block.
8. ``tiles`` again: a 1-D affine block whose mask is a range box (``affine_nd.range_box``: ``lo <= i < hi``,
   a block pointer's or a descriptor's bounds): the range clipped at run time, one DMA.
9. ``elements``: the other 1-D affine blocks (a constant stride other than 1, or a general mask).
"""
from __future__ import annotations

from typing import Callable, Dict, List

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import pointer_affine, prefix_count
from mtiacc.ir.analysis.affine_nd import pointer_nd, prefix_box, range_box
from mtiacc.ir.analysis.axis_info import AxisInfo, analyze, is_uniform
from mtiacc.ir.analysis.split_axes import mask_box, pointer_axes
from mtiacc.ir.analysis.split_index import mask_form, single_axis, split_pointer
from mtiacc.ir.analysis.wrapped_nd import pointer_wrapped
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.mtia import AsyncCopyOp

Facts = Dict[Value, AxisInfo]
LazyFacts = Callable[[], Facts]  # axis_info.analyze of the op's function, computed when first asked


def _one_transfer_per_row(op, facts: LazyFacts) -> bool:
    """Whether the affine paths (``tiles``, ``contiguous``) move this one-axis block a row per transfer."""
    ptr = op.ptr
    shape = ptr.type.shape
    if len(shape) == 1:
        aff = pointer_affine(ptr)
        if aff is None or aff[1].stride != 1:
            return False
        return op.mask is None or prefix_count(op.mask) is not None or is_uniform(op.mask, facts())
    nd = pointer_nd(ptr)
    if nd is None:
        return False
    axis = max(range(len(shape)), key=lambda d: shape[d])
    return axis == len(shape) - 1 and nd[1].strides[axis].as_const() in (1, None)


def _by_runs(op, facts: LazyFacts) -> bool:
    t = op.ptr.type
    if not t.is_block() or not single_axis(t.shape) or t.numel < 2:
        return False
    if op.mask is not None and mask_form(op.mask) is None:
        return False
    return not _one_transfer_per_row(op, facts) and split_pointer(op.ptr) is not None


def _by_split_tiles(op) -> bool:
    ptr = op.ptr
    shape = ptr.type.shape if ptr.type.is_block() else ()
    if len(shape) != 2 or 1 in shape:
        return False
    nd = pointer_nd(ptr)
    if nd is not None and nd[1].strides[-1].as_const() in (1, None):
        return False
    if op.mask is not None and mask_box(op.mask) is None:
        return False
    p = pointer_axes(ptr)
    return p is not None and any(s.normalized().slope == 1 for s in p[1])


def _by_wrapped_tiles(op) -> bool:
    if not op.ptr.type.is_block():
        return False
    p = pointer_wrapped(op.ptr)
    if p is None or (p[1].clamped and isinstance(op, O.StoreOp)):  # a repeated row stored: last write wins
        return False
    return op.mask is None or prefix_box(op.mask) is not None


def plan(op: Operation, facts: LazyFacts) -> str:
    """The kind of load/store ``op``; ``facts()`` gives ``axis_info.analyze`` of its function."""
    if _by_runs(op, facts):
        return "runs"
    if _by_wrapped_tiles(op):
        return "wrapped-tiles"
    if _by_split_tiles(op):
        return "split-tiles"
    ptr = op.ptr
    if not ptr.type.is_block():
        return "scalar"
    aff = pointer_affine(ptr)
    if aff is None:
        if pointer_nd(ptr) is not None:
            return "tiles"
        return "scatter" if isinstance(op, O.StoreOp) else "gather"
    mask = op.mask
    if aff[1].stride == 1 and (mask is None or prefix_count(mask) is not None or is_uniform(mask, facts())):
        return "contiguous"
    if mask is not None and range_box(mask) is not None:
        return "tiles"   # lo <= i < hi (a block pointer's bounds): one DMA of the clipped range
    return "elements"


def plan_function(func: O.FuncOp) -> Dict[Operation, str]:
    """The kind of every load and store of ``func`` (regions included), in walk order."""
    computed: List[Facts] = []

    def facts() -> Facts:  # axis-info, computed the first time a mask needs it (most functions never do)
        if not computed:
            computed.append(analyze(func))
        return computed[0]
    return {op: plan(op, facts) for op in func.walk() if isinstance(op, (O.LoadOp, O.StoreOp, AsyncCopyOp))}
