"""Loads and stores: one leaf strategy per kind of access plan, chosen by the op's ``access`` attribute.

The ``access-plan`` pass (``mtiacc/ir/analysis/access_plan.py``) decides, once and in the IR, how each
``tt.load`` / ``tt.store`` moves between DRAM and local memory; ``STRATEGIES`` maps each kind to its
lowerings, and the functions below only look the kind up.  A load or store without a plan is a
compiler bug (``AccessPlanError``), never decided here.

    contiguous, elements     dma.py          one DMA, or one per element
    runs                     runs.py         one DMA per run of a split index
    split-tiles              split_tiles.py  2-D tiles of split indices, by runs along one axis (or one 2-D DMA)
    tiles                    tiles.py        N-d affine tiles, one 2-D DMA per slab
    wrapped-tiles            wrapped.py      N-d tiles wrapped along some axes, one 2-D DMA per run
    gather, scatter, scalar  gather.py       one element at a time
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Optional

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import VReg, WaitRequest
from mtiacc.codegen.memory import dma, gather, runs, split_tiles, tiles, wrapped
from mtiacc.codegen.memory.common import AccessPlanError
from mtiacc.ir import ops as O
from mtiacc.ir.core import Operation, OpResult, Value


@dataclasses.dataclass(frozen=True)
class Strategy:
    """The lowerings of one plan kind (``op``: the load or store)."""

    needs_buffers: Callable[[Operation], List[Value]]  # block operands the lowering reads from local memory
    lower_load: Optional[Callable[[Lowering, Operation], None]] = None
    lower_store: Optional[Callable[[Lowering, Operation], None]] = None
    lower_scalar_load: Optional[Callable[[Lowering, Operation], VReg]] = None  # returns the result register
    # a load that first waits for every transfer in flight, its addresses computed meanwhile: the wait goes right
    # before its transfers issue, tagged with the request it serves (None: the request's wait, before the load's
    # code, stays)
    lower_load_waiting: Optional[Callable[[Lowering, Operation, WaitRequest], None]] = None


STRATEGIES: Dict[str, Strategy] = {
    "contiguous": Strategy(dma.needs_buffers, dma.lower_load, dma.lower_store),
    "elements": Strategy(dma.needs_buffers, dma.lower_load, dma.lower_store),
    "runs": Strategy(runs.needs_buffers, runs.lower_load, runs.lower_store),
    "split-tiles": Strategy(split_tiles.needs_buffers, split_tiles.lower_load, split_tiles.lower_store),
    "tiles": Strategy(tiles.needs_buffers, tiles.lower_load, tiles.lower_store),
    "wrapped-tiles": Strategy(wrapped.needs_buffers, wrapped.lower_load, wrapped.lower_store,
                              lower_load_waiting=wrapped.lower_load_waiting),
    "gather": Strategy(gather.needs_buffers, lower_load=gather.lower_load),
    "scatter": Strategy(gather.needs_buffers, lower_store=gather.lower_store),
    "scalar": Strategy(gather.needs_buffers, lower_store=gather.lower_scalar_store,
                       lower_scalar_load=gather.lower_scalar_load),
}


def _lowering(op, what: str) -> Callable:
    kind = op.attrs.get("access")
    if kind is None:
        raise AccessPlanError(op, "no access plan (the access-plan pass must run right before codegen)")
    strategy = STRATEGIES.get(kind)
    fn = getattr(strategy, what) if strategy is not None else None
    if fn is None:
        raise AccessPlanError(op, f"no {what.replace('_', ' ')} for this kind")
    return fn


def needs_buffers(op) -> List[Value]:
    """The block operands whose data the lowering of this load/store reads from local memory: the strategy's,
    and a load's ``other`` when it is a computed block (every strategy fills masked-off elements from it; a splat
    or a constant is read from its scalar)."""
    out = list(_lowering(op, "needs_buffers")(op))
    other = getattr(op, "other", None) if isinstance(op, O.LoadOp) else None
    if (other is not None and other.type.is_block() and other not in out
            and not (isinstance(other, OpResult) and isinstance(other.op, (O.SplatOp, O.ConstantOp)))):
        out.append(other)
    return out


def lower_load(lw: Lowering, op, owed: Optional[WaitRequest] = None) -> None:
    """Lower block load ``op``.  ``owed``: a prefetch's request to wait for every transfer in flight before its
    transfers issue (its one completion barrier); a lowering that can place that wait after its address arithmetic
    places it there, tagged with the request (else the request's own wait, before the load's code, stays)."""
    if owed is not None:
        strategy = STRATEGIES.get(op.attrs.get("access"))
        if strategy is not None and strategy.lower_load_waiting is not None:
            strategy.lower_load_waiting(lw, op, owed)
            return
    _lowering(op, "lower_load")(lw, op)


def lower_store(lw: Lowering, op) -> None:
    _lowering(op, "lower_store")(lw, op)


def lower_scalar_load(lw: Lowering, op) -> VReg:
    """``tl.load`` of a scalar pointer; returns the result register."""
    return _lowering(op, "lower_scalar_load")(lw, op)


lower_addptr = gather.lower_addptr  # a pointer block a gather or scatter reads (tt.addptr on blocks)

__all__ = ["STRATEGIES", "Strategy", "AccessPlanError", "needs_buffers", "lower_load", "lower_store",
           "lower_scalar_load", "lower_addptr"]
