"""``insert-waits``: the counts of the DMA waits, from the transfers instruction selection tagged.

``mtia.dma.wait N`` returns once every transfer of the PE has completed but the ``N`` issued last.  A prefetch
(``pipeline-loads``) issues the next tile's transfers first; the readers of the tiles issued before then wait
with ``N`` = the transfers that may stay in flight, so the DMA queue never drains between tiles.  Instruction
selection says what each transfer moves and what each wait may leave in flight (``mir.DmaTag``); this pass turns
that into code, over the machine CFG, the way a GPU compiler counts its memory waits:

1. A transfer of a prefetch group, or the store a pipelined loop leaves in flight across its back-edge, issues on
   every path through its code: ``beqz nbytes, L; transfer; L:`` becomes ``transfer`` (a zero-byte transfer
   issues and counts, complete at once), so that a count over it is exact.
2. A store from a buffer of its own issued right before a group's code (only scalar code between, by the ISA
   table's unit column, whose branches stay within it) joins the group, so that it stays in flight under the next
   compute too: the op that computes its block again, in the next trip of a pipelined loop, comes after that
   trip's first wait, which covers every transfer but the prefetches it issued.
3. A wait tagged ``before`` a group moves to the group's start.
4. The counts, by a forward dataflow over the CFG: the state at a point is the transfers that may be in flight
   there, each with the fewest transfers issued after it on any path (its *age*).  A wait that may leave its
   group (and the ``across`` store) in flight gets ``N`` = the smallest age of the others: every other transfer
   has completed on every path once it returns, and the group's transfers, all younger, stay in flight (none:
   a wait for every transfer).  A transfer of the group issued on an earlier trip (before the group's code began
   again) is one of the others.  A wait tagged ``only_if`` stays only where a transfer its predicate names may be
   in flight (the store of a block about to be written again).  The ISA table's effects columns say which
   instructions are transfers (``dma`` with a local-memory ``load`` or ``store``) and which are waits.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from mtiacc.codegen.machine.mir import LabelDef, MFunction, MInstr

MAX_KEEP = 2047          # the largest count a wait can leave in flight (mtia.dma.wait's immediate)
_CALLS = ("ret", "call", "jal", "jalr")

# A transfer that may be in flight: (the index of its instruction, whether it was issued before its group's code
# began again); the state maps each to its age.
Key = Tuple[int, bool]
State = Dict[Key, int]


def _skip_of(items: List, i: int) -> Optional[int]:
    """For the transfer ``items[i]`` in ``beqz n, L; transfer; L:`` (its zero-byte skip, no other branch to
    ``L``), the index of the ``beqz``; else None."""
    if i < 1 or i + 1 >= len(items):
        return None
    br, tr, lab = items[i - 1], items[i], items[i + 1]
    if isinstance(br, MInstr) and br.op == "beqz" and isinstance(lab, LabelDef) and lab.label == br.target \
            and br.args[0] == tr.args[2] \
            and not any(isinstance(x, MInstr) and x.target == lab.label and x is not br for x in items):
        return i - 1
    return None


def _drop_skip(items: List, i: int) -> int:
    """Make the transfer ``items[i]`` issue on every path (its zero-byte skip goes); its new index."""
    k = _skip_of(items, i)
    if k is None:
        return i
    br, tr = items[k], items[i]
    if br.dma is not None and br.dma.opens:   # the group's code began at the skip: it begins at the transfer now
        tr.dma = tr.dma or br.dma
        tr.dma.group, tr.dma.opens = br.dma.group, True
    del items[i + 1], items[k]
    return i - 1


def issue_every_transfer(items: List) -> None:
    """Step 1: the transfers of a prefetch group and the ``across`` stores lose their zero-byte skips."""
    i = 0
    while i < len(items):
        it = items[i]
        if isinstance(it, MInstr) and it.dma is not None and (it.dma.group is not None or it.dma.across) \
                and it.is_transfer:
            i = _drop_skip(items, i)
        i += 1


def _unit(it: MInstr) -> Optional[str]:
    """The unit that runs ``it`` (the ISA table's unit column; a pseudo-instruction's base's), None if unknown."""
    row = it.info
    return getattr(row, "base", row).unit if row is not None else None


def _join_store_before(items: List, start: int, group) -> None:
    """Step 2 for the group whose code begins at ``items[start]``."""
    i = start - 1
    while i >= 0:
        it = items[i]
        if isinstance(it, MInstr) and it.is_transfer and it.info.sem_op == "out":
            break
        if isinstance(it, MInstr) and (_unit(it) != "scalar" or it.op in _CALLS):
            return     # not scalar code (the ISA table's unit column): a vector loop, an engine command, ...
        i -= 1
    if i < 0 or items[i].dma is None or not items[i].dma.own:
        return
    store = i
    if _skip_of(items, store) is not None:
        store = _drop_skip(items, store)
        start -= 2
    labels = {it.label.name for it in items[store:start] if isinstance(it, LabelDef)}
    if any(isinstance(it, MInstr) and it.target is not None and it.target.name not in labels
           for it in items[store + 1:start]):
        return
    if any(isinstance(it, MInstr) and it.target is not None and it.target.name in labels
           for it in items[:store] + items[start:]):
        return
    items[store].dma.group, items[store].dma.opens = group, True   # the group's code begins at the store now
    items[start].dma.opens = False


def _starts(items: List) -> Dict[object, int]:
    return {it.dma.group: i for i, it in enumerate(items)
            if isinstance(it, MInstr) and it.dma is not None and it.dma.opens}


def join_stores(items: List) -> None:
    for group in _starts(items):
        _join_store_before(items, _starts(items)[group], group)


def hoist(items: List) -> None:
    """Step 3: a wait tagged ``before`` a group goes right before the group's code (its first transfer, the store
    that joined it, when one did)."""
    moved = [it for it in items if isinstance(it, MInstr) and it.dma is not None and it.dma.before is not None]
    for w in moved:
        at = items.index(w)
        del items[at]
        group = w.dma.before
        first = next((i for i, it in enumerate(items) if isinstance(it, MInstr) and it.dma is not None
                      and it.dma.group is group and (it.dma.opens or it.is_transfer)), at)
        w.dma = None
        items.insert(first, w)


# ----------------------------------------------------------------------------------------- the counts

_KINDS: Dict[Tuple[str, int], Tuple[str, bool]] = {}


def _kind(it: MInstr) -> Tuple[str, Optional[str], bool]:
    """What ``it`` is to the dataflow, from the ISA table (once per mnemonic): "transfer", "wait" or ""; the label
    it branches to; whether control never falls through it."""
    key = (it.op, len(it.args))
    k = _KINDS.get(key)
    if k is None:
        k = _KINDS[key] = ("transfer" if it.is_transfer else "wait" if it.is_dma_wait else "", it.is_unconditional)
    target = it.target
    return k[0], target.name if target is not None else None, k[1]


def _merge(into: State, other: State) -> bool:
    changed = False
    for k, age in other.items():
        if k not in into or age < into[k]:
            into[k] = age
            changed = True
    return changed


class _Counts:
    """Step 4: the dataflow, to a fixed point: each tagged wait's count only falls, and with the counts fixed
    each label's state only grows, so it ends."""

    def __init__(self, items: List):
        self.items = items
        self.labels = {it.label.name: i for i, it in enumerate(items) if isinstance(it, LabelDef)}
        self.at_label: Dict[int, State] = {}
        self.count: Dict[int, int] = {}      # tagged wait -> its count so far
        self.needed: Dict[int, bool] = {}    # ``only_if`` wait -> whether it stays
        self.kept: Dict[int, bool] = {}      # tagged wait -> whether an ``across`` store stays in flight past it
        # the items the dataflow looks at, found once: (index, kind, the label a branch goes to, whether control
        # never falls through); kind "label", "transfer", "wait" or "" (a branch, or a group's first instruction)
        self.events: List[Tuple[int, str, Optional[int], bool]] = []
        for i, it in enumerate(items):
            if isinstance(it, LabelDef):
                self.events.append((i, "label", None, False))
                continue
            kind, target, jump = _kind(it)
            if kind or target is not None or jump or (it.dma is not None and it.dma.opens):
                self.events.append((i, kind, self.labels.get(target) if target is not None else None, jump))

    def _tag(self, key: Key):
        return self.items[key[0]].dma

    def _keepable(self, key: Key, wait: MInstr) -> bool:
        """Whether ``wait`` may leave the transfer ``key`` in flight."""
        tag = self._tag(key)
        if tag is None:
            return False
        if tag.across and wait.dma.across:
            return True
        return not key[1] and tag.group is not None and tag.group is wait.dma.group

    def _wait(self, i: int, w: MInstr, state: State) -> State:
        tag = w.dma
        if tag is not None and tag.only_if is not None:
            pending = any(self._tag(k) is not None and tag.only_if(self._tag(k)) for k in state)
            self.needed[i] = self.needed.get(i, False) or pending
            n = 0 if self.needed[i] else MAX_KEEP + 1
        elif tag is not None and (tag.group is not None or tag.across):
            others = [age for k, age in state.items() if not self._keepable(k, w)]
            mine = [age for k, age in state.items() if self._keepable(k, w)]
            n = min(others) if others else (max(mine) + 1 if mine else 0)
            n = min(n, self.count.get(i, MAX_KEEP), MAX_KEEP)
            self.count[i] = n
            self.kept[i] = any(self._tag(k) is not None and self._tag(k).across and age < n for k, age in state.items())
        else:
            n = int(w.args[0]) if w.args else 0
        return {k: age for k, age in state.items() if age < n}

    def _issue(self, i: int, tr: MInstr, state: State) -> State:
        out = {(k[0], k[1]): min(age + 1, MAX_KEEP + 1) for k, age in state.items()}
        if (i, False) in out:     # this instruction's earlier issue: not the one the group's tags name
            out[(i, True)] = min(out.pop((i, False)), out.get((i, True), MAX_KEEP + 1))
        out[(i, False)] = 0
        return out

    def _opens(self, group, state: State) -> State:
        """The group's code begins again: its transfers in flight are an earlier trip's."""
        out: State = {}
        for k, age in state.items():
            tag = self._tag(k)
            if not k[1] and tag is not None and tag.group is group:
                k = (k[0], True)
            out[k] = min(age, out.get(k, MAX_KEEP + 1))
        return out

    def sweep(self) -> bool:
        changed = False
        state: Optional[State] = {}
        for i, kind, target, jump in self.events:
            it = self.items[i]
            if kind == "label":
                mine = self.at_label.setdefault(i, {})
                if state is not None and _merge(mine, state):
                    changed = True
                state = dict(mine)
                continue
            if state is None:      # not reached by falling through: only by branches to a label
                continue
            if it.dma is not None and it.dma.opens:
                state = self._opens(it.dma.group, state)
            if kind == "transfer":
                state = self._issue(i, it, state)
            elif kind == "wait":
                before = (self.count.get(i), self.needed.get(i))
                state = self._wait(i, it, state)
                changed |= before != (self.count.get(i), self.needed.get(i))
            if target is not None and _merge(self.at_label.setdefault(target, {}), state):
                changed = True
            if jump:
                state = None
        return changed

    def solve(self) -> None:
        for _ in range(1000):
            if not self.sweep():
                return     # the last sweep saw the settled state: ``kept`` is the final one
        raise AssertionError("insert-waits: the counts did not settle")


def _since(k: int, across: bool) -> str:
    issued = "the transfer issued since" if k == 1 else f"the {k} transfers issued since"
    return f"{issued} and the store before the loop's top" if across else issued


def place_counts(items: List) -> None:
    """Step 4, and the waits written: a count, or none (every transfer), or the wait goes."""
    counts = _Counts(items)
    counts.solve()
    out = []
    for i, it in enumerate(items):
        if isinstance(it, MInstr) and it.dma is not None and it.is_dma_wait:
            if it.dma.only_if is not None and not counts.needed.get(i, False):
                continue
            n = counts.count.get(i, 0)
            if n:
                across = counts.kept.get(i, False)
                it.args = [n]
                it.comment = f"{it.comment} ({_since(n - across, across)} stay in flight)"
            else:
                it.args = []
        out.append(it)
    items[:] = out


def insert_waits(fn: MFunction) -> None:
    """The pass: steps 1 to 4 over ``fn``'s items (before register allocation)."""
    items = fn.items
    issue_every_transfer(items)
    join_stores(items)
    hoist(items)
    place_counts(items)


__all__ = ["insert_waits"]
