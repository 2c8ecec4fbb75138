"""Counted DMA waits: a pipelined loop's next tiles stay in flight while it waits for this tile's.

``mtia.dma.wait N`` returns once every transfer of the PE has completed but the ``N`` issued last.  A prefetch
(``pipeline-loads``) issues the next tile's transfers first; the readers of the tiles issued before then wait
with ``N`` = the prefetches' transfers (the *tail*), so the DMA queue never drains between tiles.

The count is exact on every path or no count is used:

* a prefetch's transfers issue on every path through its code: a transfer of zero bytes (a masked-off tile) is
  issued rather than branched around (it counts, complete at once), and a prefetch past the loop's end (its
  ``guard`` false) waits for everything instead (``mtia.dma.wait``: the count after it is then moot);
* a reader's wait counts the tail's transfers only when nothing else moved data since the tail began (no other
  transfer in the code between, but one that a wait for every transfer follows on its one path, as in a guarded
  read's branch; no branch skipping a transfer of the tail, no label reached from outside) and it reads no
  block of the tail; otherwise it waits for every transfer, as before.

A tail ends at a loop (``scf.for`` / ``scf.while``), whose labels are reached from elsewhere; it goes on over an
``scf.if``, whose labels its own code reaches (a guarded read's branch that loads and waits for every transfer before
the join leaves the count exact or smaller: :func:`_waited_for`).  State: ``lw.dma.tail``.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Set

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import LabelDef, MInstr

TRANSFERS = ("mtia.dma.in", "mtia.dma.out", "mtia.dma.in2d", "mtia.dma.out2d")


@dataclasses.dataclass(eq=False)
class Tail:
    start: int                                              # the index in the function's items where it began
    values: Set[int] = dataclasses.field(default_factory=set)       # id() of the prefetched blocks
    transfers: Set[int] = dataclasses.field(default_factory=set)    # id() of their transfer instructions
    guards: Set[int] = dataclasses.field(default_factory=set)       # id() of guard branches (barrier when taken)
    extra: int = 0      # transfers issued right before the tail's loop body on every path into it, counted too


def countable(op) -> bool:
    """A prefetch whose lowering issues a fixed number of transfers: one contiguous block."""
    return op.attrs.get("access") == "contiguous"


def issue_every_transfer(items: List, start: int) -> None:
    """In ``items[start:]`` (one load's code), ``beqz nbytes, L; transfer; L:`` becomes ``transfer``: a zero-byte
    transfer issues and counts instead of being skipped."""
    i = start
    while i + 2 < len(items):
        br, tr, lab = items[i], items[i + 1], items[i + 2]
        if isinstance(br, MInstr) and br.op == "beqz" and isinstance(tr, MInstr) and tr.op in TRANSFERS \
                and isinstance(lab, LabelDef) and lab.label == br.target and br.args[0] == tr.args[2] \
                and not any(isinstance(x, MInstr) and x.target == lab.label and x is not br for x in items):
            del items[i + 2], items[i]
        i += 1


def add_to_tail(lw: Lowering, op, start: int, guard: Optional[MInstr]) -> None:
    """Record prefetch ``op``, lowered at ``items[start:]``, in the tail (a new one when its group is new)."""
    t = lw.dma.tail
    if t is None or not lw.dma.fresh:
        start = _with_stores_before(lw.b.fn.items, start, lw.dma.own_stores)
        t = lw.dma.tail = Tail(start, extra=_across(lw, start))
    t.values.add(id(op.result))
    t.transfers.update(id(x) for x in lw.b.fn.items[start:] if isinstance(x, MInstr) and x.op in TRANSFERS)
    if guard is not None:
        t.guards.add(id(guard))


def _across(lw: Lowering, start: int) -> int:
    """1 when a tail beginning at ``start`` is the first of a loop body entered, on every path, right after one
    transfer (control.py ``store_across_back_edge``: the store the previous trip left in flight, or a zero-byte
    one before the loop), with no transfer nor wait of the body before it; else 0."""
    a = lw.dma.across
    if a is None or lw.dma.across_covered:
        return 0
    if any(isinstance(x, MInstr) and (x.op in TRANSFERS or x.op == "mtia.dma.wait") for x in lw.b.fn.items[a[1]:start]):
        return 0
    return 1


def _with_stores_before(items: List, start: int, own: Set[int]) -> int:
    """Where a new tail begins: at ``start``, or earlier, at the store issued right before it (only scalar code
    between, whose branches stay within it; the store's zero-byte skip made a zero-byte transfer), so that the
    store stays in flight under the next compute too.  Only a store from a buffer of its own (``own``): never freed
    or reused for another value (isel keeps it), not a view of a kept slot; the op that computes it again, in the
    next trip of a pipelined loop, comes after that trip's first wait, which covers every transfer but the
    prefetches it issued."""
    i = start - 1
    while i >= 0:
        it = items[i]
        if isinstance(it, MInstr) and it.op == "mtia.dma.out":
            break
        if isinstance(it, MInstr) and (it.op.startswith(("v", "mtia.")) or it.op in TRANSFERS or it.op in
                                       ("ret", "call", "jal", "jalr")):
            return start
        i -= 1
    if i < 0 or id(items[i]) not in own:
        return start
    store = i
    if store >= 1 and isinstance(items[store - 1], MInstr) and items[store - 1].op == "beqz" \
            and store + 1 < len(items) and isinstance(items[store + 1], LabelDef):
        issue_every_transfer(items, store - 1)   # ``beqz n, L; mtia.dma.out ...; L:``: the skip goes
        if not (isinstance(items[store - 1], MInstr) and items[store - 1].op == "mtia.dma.out"):
            return start
        store, start = store - 1, start - 2
    labels = {it.label.name for it in items[store:start] if isinstance(it, LabelDef)}
    if any(isinstance(it, MInstr) and it.target is not None and it.target.name not in labels
           for it in items[store + 1:start]):
        return start
    if any(isinstance(it, MInstr) and it.target is not None and it.target.name in labels
           for it in items[:store] + items[start:]):
        return start
    return store


def count(lw: Lowering, reads_tail: bool = False) -> Optional[int]:
    """How many transfers a wait before a reader may leave in flight: the tail's, when exact (module
    docstring); None: wait for every transfer."""
    t = lw.dma.tail
    if t is None or reads_tail:
        return None
    items = lw.b.fn.items
    region = items[t.start:]
    labels = {it.label.name: i for i, it in enumerate(region) if isinstance(it, LabelDef)}
    at = []
    for i, it in enumerate(region):
        if isinstance(it, MInstr) and it.op in TRANSFERS:
            if id(it) not in t.transfers:
                if not _waited_for(region, i):
                    return None
                continue   # a full wait follows it on its one path: complete before the reader, uncounted
            at.append(i)
    for i, it in enumerate(region):
        if not isinstance(it, MInstr) or it.target is None:
            continue
        j = labels.get(it.target.name)
        if j is None:
            return None          # leaves the region (a call, a jump out)
        if id(it) in t.guards:
            continue
        lo, hi = min(i, j), max(i, j)
        if any(lo <= k <= hi for k in at):
            return None          # may skip a transfer, or issue it more than once
    # A label no branch reaches yet stays so: a tail ends at every loop (isel), so no back-edge can reach into it
    # later; the other branches of structured code (a strip loop's, an scf.if's) are emitted with their labels.
    for it in items[:t.start]:
        if isinstance(it, MInstr) and it.target is not None and it.target.name in labels:
            return None
    return len(at) + t.extra


def _waited_for(region: List, i: int) -> bool:
    """Whether the transfer ``region[i]`` completes before the code after it joins: the next wait is one for every
    transfer that ends a branch (a label follows it: ``scf.if``'s "this branch's loads complete before the branches
    join"), and no branch between them leaves for a label after it.  The tail's count can only be smaller after
    such a wait."""
    labels = {it.label.name: k for k, it in enumerate(region) if isinstance(it, LabelDef)}
    for k in range(i + 1, len(region)):
        it = region[k]
        if isinstance(it, MInstr) and it.op == "mtia.dma.wait":
            if it.args and it.args[0] != 0:
                return False
            return k + 1 < len(region) and isinstance(region[k + 1], LabelDef) and all(
                labels.get(x.target.name, len(region)) <= k for x in region[i + 1:k]
                if isinstance(x, MInstr) and x.target is not None)
    return False


def hoist(lw: Lowering, loc, comment: str) -> bool:
    """A prefetch that cannot be counted joins a group whose counted prefetches issued first: wait for every
    transfer before them instead (where the group would have waited without counts), when nothing else moved
    data since; True if done.  The group's blocks stay in flight, uncounted."""
    t = lw.dma.tail
    if t is None or count(lw) is None:
        return False
    lw.b.fn.items.insert(t.start, MInstr("mtia.dma.wait", [], loc, comment))
    lw.dma.across_covered = True
    lw.dma.inflight &= t.values
    lw.dma.pending_in = False
    lw.dma.tail = None
    return True


def wait(lw: Lowering, comment: str, reads_tail: bool = False) -> None:
    """Wait before a reader of blocks in flight: for all but the tail's transfers when it can, else all."""
    n = count(lw, reads_tail)
    if n:
        extra = lw.dma.tail.extra
        k = n - extra
        issued = "the transfer issued since" if k == 1 else f"the {k} transfers issued since"
        since = f"{issued} and the store before the loop's top" if extra else issued
        lw.b("mtia.dma.wait", n, comment=f"{comment} ({since} stay in flight)")
        if extra:
            lw.dma.across_waits.append(lw.b.fn.items[-1])
        else:
            lw.dma.across_covered = True
        lw.dma.inflight &= lw.dma.tail.values
    else:
        lw.dma.across_covered = True
        lw.b("mtia.dma.wait", comment=comment)
        lw.dma.inflight.clear()
        lw.dma.tail = None
