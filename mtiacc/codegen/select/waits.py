"""DMA waits, the lowering's side: what each transfer moves, and the waits lowering asks for.

Lowering keeps no DMA state.  It tags each transfer with the block it moves and how that block is waited for
(``mir.DmaTag.kind``: a plain load's, read by the next op that touches local memory; a prefetch's, read by its
readers only; an async copy's, waited for by its own wait op), marks where each prefetch's code begins, and asks
for a wait (``mir.WaitRequest``) wherever one may be needed:

* before each op that touches local memory or reads a prefetched block (the hub, ``isel.py``);
* before a yield copies blocks, and at the end of an ``scf.if`` branch (``control.py``);
* before a prefetch whose transfers cannot be counted (``table.py``): the DMA engine has one completion barrier,
  so every transfer in flight but the prefetches issued with it completes before it issues;
* before a load that may read DRAM bytes an earlier store writes (``after_store``, ``access-plan``): the stores in
  flight complete first, since the machine does not order a load behind a store (:func:`after_store`); the same
  before an atomic without release that may update them.

Before a load or store that may access bytes an earlier atomic without acquire updates (``after_atomic``), lowering
puts a ``fence`` (:func:`after_atomic`): no wait counts atomics.

The machine pass ``insert-waits`` (``machine/insert_waits.py``) forms the prefetch groups (the counted prefetches
issued with no op touching local memory between them), keeps a requested wait only where something it names may
be in flight on some path of the machine CFG, and counts each wait that may leave a group in flight.
"""
from __future__ import annotations

from typing import Callable, FrozenSet, Iterable

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import DmaTag, MInstr, WaitRequest
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.dram_order import hazard_stores
from mtiacc.ir.atomic_ops import ATOMIC_OPS
from mtiacc.ir.core import OpResult, Operation, Value
from mtiacc.ir.mtia import AsyncCopyOp
from mtiacc.ir.mtia.kept import SlotFetchOp


def countable(op) -> bool:
    """A prefetch whose lowering issues a fixed number of transfers: one contiguous block."""
    return op.attrs.get("access") == "contiguous"


def kind_of(op: Operation) -> str:
    """How the inbound transfers ``op``'s lowering issues are waited for (``DmaTag.kind``)."""
    if isinstance(op, O.LoadOp) and op.prefetch:
        return "prefetch"
    if isinstance(op, (AsyncCopyOp, SlotFetchOp)):
        return "async"
    return "in"


def prefetched(values: Iterable[Value]) -> FrozenSet[Value]:
    """The values among ``values`` that are prefetched blocks (results of ``pipeline-loads``' next tiles)."""
    return frozenset(v for v in values if isinstance(v, OpResult) and isinstance(v.op, O.LoadOp) and v.op.prefetch)


def prefetched_reads(op: Operation) -> FrozenSet[Value]:
    """The prefetched blocks ``op`` or an op in its regions reads (any use: a value computed from one may be read
    lazily, later)."""
    return prefetched(v for nested in op.walk() for v in nested.operands)


def tag_transfers(lw: Lowering, start: int, **facts) -> None:
    """Set ``facts`` on the tags of the transfers lowered at ``items[start:]``."""
    for it in lw.b.fn.items[start:]:
        if isinstance(it, MInstr) and it.is_transfer:
            if it.dma is None:
                it.dma = DmaTag()
            for k, v in facts.items():
                setattr(it.dma, k, v)


def mark_prefetch(lw: Lowering, op, start: int, counted: bool) -> None:
    """Mark the first instruction of prefetch ``op``'s code, lowered at ``items[start:]`` (its wait request
    aside): insert-waits forms the prefetch groups from these marks."""
    first = next((it for it in lw.b.fn.items[start:] if isinstance(it, MInstr)
                  and (it.dma is None or it.dma.request is None)), None)
    if first is not None:
        first.dma = first.dma or DmaTag()
        first.dma.first_of, first.dma.counted = op.result, counted


def request(lw: Lowering, req: WaitRequest, comment: str, loc=None) -> MInstr:
    """Ask for a wait here (insert-waits keeps it where something it names may be in flight)."""
    ins = MInstr("mtia.dma.wait", [], lw.b.loc if loc is None else loc, comment, DmaTag(request=req))
    lw.b.fn.items.append(ins)
    return ins


def wait_for_stores(lw: Lowering, comment: str, which: Callable[[DmaTag], bool]) -> None:
    """A wait for every transfer where a store ``which`` names may be in flight (insert-waits drops it elsewhere):
    before a store that waits for the one before it, before an op that writes a stored block's buffer again."""
    lw.b.fn.items.append(MInstr("mtia.dma.wait", [], lw.b.loc, comment, DmaTag(only_if=which)))


def after_store(lw: Lowering, op: Operation) -> None:
    """Before load ``op``'s transfers: when ``access-plan`` found that it may read bytes an earlier store writes
    (its ``after_store``), a wait where one of the stores it may read (``dram_order.hazard_stores``) may be in
    flight, counted to leave the transfers issued after the last of them in flight (insert-waits).  The DMA engine
    runs the transfers into local memory and those out of it on two channels, in no order between them and
    comparing no DRAM addresses (docs/architecture.md, "DMA channels"), so without it the load could read the old
    bytes."""
    why = getattr(op, "after_store", None)
    if not why:
        return
    if lw.hazard_stores is None:
        lw.hazard_stores = hazard_stores(lw.func)
    stores = lw.hazard_stores.get(op)
    if stores is None:     # (the IR changed since access-plan: any store)
        def which(t):
            return t.dram_write
    else:
        def which(t):
            return t.dram_write and t.store in stores
    what = "the atomic updates" if isinstance(op, ATOMIC_OPS) else "the load reads"
    lw.b.fn.items.append(MInstr("mtia.dma.wait", [], lw.b.loc, f"a store in flight may write what {what} ({why})",
                                DmaTag(only_if=which, youngest=True)))


def after_atomic(lw: Lowering, op: Operation) -> None:
    """Before the transfers of load or store ``op``: when ``access-plan`` found that it may access bytes an earlier
    atomic without acquire updates (its ``after_atomic``), a ``fence``, which waits for the program's atomics (and
    its transfers): the machine orders no DMA transfer behind an atomic, which may not be performed yet."""
    why = getattr(op, "after_atomic", None)
    if why:
        what = "the store writes" if isinstance(op, O.StoreOp) else "the load reads"
        lw.b("fence", comment=f"an atomic in flight may update what {what} ({why})")
