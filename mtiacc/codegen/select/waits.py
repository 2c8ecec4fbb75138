"""Counted DMA waits, the lowering's side: which prefetches form a group, and the waits that may leave it in flight.

``mtia.dma.wait N`` returns once every transfer of the PE has completed but the ``N`` issued last.  A prefetch
(``pipeline-loads``) issues the next tile's transfers first; the readers of the tiles issued before then wait for
every transfer but the prefetches' (the *group*), so the DMA queue never drains between tiles.  Lowering does not
count: it tags the group's transfers, the first instruction of the group's code, the stores from buffers of their
own, and asks for waits that may leave the group in flight (``mir.DmaTag``); the machine pass ``insert-waits``
(``machine/insert_waits.py``) works out each count over the machine CFG, or waits for every transfer where no count
is exact.

A group is the counted prefetches issued with no op touching local memory between them; a new one begins at a
loop (``scf.for`` / ``scf.while``, isel) and after a wait for every transfer.  State: ``lw.dma.group``.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Set

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import DmaTag, MInstr
from mtiacc.ir.core import Value


@dataclasses.dataclass(eq=False)
class Group:
    """One group of counted prefetches (the tags of its transfers name it)."""

    values: Set[Value] = dataclasses.field(default_factory=set)    # the prefetched blocks


def countable(op) -> bool:
    """A prefetch whose lowering issues a fixed number of transfers: one contiguous block."""
    return op.attrs.get("access") == "contiguous"


def tag_transfers(lw: Lowering, start: int, **facts) -> None:
    """Set ``facts`` on the tags of the transfers lowered at ``items[start:]``."""
    for it in lw.b.fn.items[start:]:
        if isinstance(it, MInstr) and it.is_transfer:
            if it.dma is None:
                it.dma = DmaTag()
            for k, v in facts.items():
                setattr(it.dma, k, v)


def add_to_group(lw: Lowering, op, start: int) -> None:
    """Record prefetch ``op``, lowered at ``items[start:]``, in the group (a new one when its group is new)."""
    g = lw.dma.group
    if g is None or not lw.dma.fresh:
        g = lw.dma.group = Group()
        first = next((it for it in lw.b.fn.items[start:] if isinstance(it, MInstr)), None)
        if first is not None:
            first.dma = first.dma or DmaTag()
            first.dma.group, first.dma.opens = g, True
    g.values.add(op.result)
    tag_transfers(lw, start, group=g)


def hoist(lw: Lowering, loc, comment: str) -> bool:
    """A prefetch that cannot be counted joins a group whose counted prefetches issued first: wait for every
    transfer before them instead (where the group would have waited: insert-waits moves the wait there); True if
    done.  The group's blocks stay in flight, uncounted."""
    g = lw.dma.group
    if g is None:
        return False
    lw.b.fn.items.append(MInstr("mtia.dma.wait", [], loc, comment, DmaTag(before=g)))
    lw.dma.inflight &= g.values
    lw.dma.pending_in = False
    lw.dma.group = None
    return True


def wait(lw: Lowering, comment: str, reads_group: bool = False) -> None:
    """Wait before a reader of blocks in flight: for all but the group's transfers (and, in a pipelined loop, the
    store it leaves in flight across its back-edge) when insert-waits can count them, else all."""
    g: Optional[Group] = None if reads_group else lw.dma.group
    if g is None:
        lw.b("mtia.dma.wait", comment=comment)
        lw.dma.inflight.clear()
        lw.dma.group = None
        return
    lw.b.fn.items.append(MInstr("mtia.dma.wait", [], lw.b.loc, comment, DmaTag(group=g)))
    lw.dma.inflight &= g.values


def wait_for_stores(lw: Lowering, comment: str, which: Callable[[DmaTag], bool]) -> None:
    """A wait for every transfer where a store ``which`` names may be in flight (insert-waits drops it elsewhere):
    before a store that waits for the one before it, before an op that writes a stored block's buffer again."""
    lw.b.fn.items.append(MInstr("mtia.dma.wait", [], lw.b.loc, comment, DmaTag(only_if=which)))
