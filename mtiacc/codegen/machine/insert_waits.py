"""``insert-waits``: where the DMA waits go and their counts, from what instruction selection tagged.

``mtia.dma.wait N`` returns once every transfer of the PE has completed but the ``N`` issued last.  Instruction
selection keeps no DMA state: it says what each transfer moves and how its block is waited for (``mir.DmaTag``: a
plain load's, a prefetch's, an async copy's), marks where each prefetch's code begins, tags the back-edges of the
``scf`` loops, and asks for a wait wherever one may be needed (``mir.WaitRequest``: before each op that touches
local memory or reads a prefetched block, before a yield copies blocks, ...).  A prefetch (``pipeline-loads``)
issues the next tile's transfers first; the readers of the tiles issued before then wait with ``N`` = the
transfers that may stay in flight, so the DMA queue never drains between tiles.  This pass turns the tags into
code, over the machine CFG, the way a GPU compiler places and counts its memory waits:

0. The prefetch groups: the counted prefetches issued with no op touching local memory between them (a request
   before an op ends the run); a loop ends a group (its code runs once more per trip), and so does a prefetch
   whose transfers cannot be counted issued after them: its wait for every transfer in flight moves before the
   group's code instead.  A request before an op that does not read the group's blocks may leave it in flight.
1. A transfer of a prefetch group, or the store a pipelined loop leaves in flight across its back-edge, issues on
   every path through its code: ``beqz nbytes, L; transfer; L:`` becomes ``transfer`` (a zero-byte transfer
   issues and counts, complete at once), so that a count over it is exact.
2. A store from a buffer of its own issued right before a group's code (only scalar code between, by the ISA
   table's unit column, whose branches stay within it) joins the group, so that it stays in flight under the next
   compute too: the op that computes its block again, in the next trip of a pipelined loop, comes after that
   trip's first wait, which covers every transfer but the prefetches it issued.
3. A wait tagged ``before`` a group moves to the group's start.
4. The waits, by a forward dataflow over the CFG: the state at a point is the transfers that may be in flight
   there, each with the fewest transfers issued after it on any path (its *age*) and what happened to it since
   (its group's code began again; its loop went round its back-edge, or was left).  A requested wait stays only
   where a transfer it names may be in flight: a plain inbound transfer (or a prefetch of an earlier trip, or of
   a loop left: the carried blocks it fills are read next) for the requests before ops that touch local memory,
   a prefetched block for its readers.  A wait that may leave its group (and the ``across`` store) in flight gets
   ``N`` = the smallest age of the others: every other transfer has completed on every path once it returns, and
   the group's transfers, all younger, stay in flight (none: a wait for every transfer).  A transfer of the group
   issued on an earlier trip (before the group's code began again) is one of the others.  A wait tagged
   ``only_if`` stays only where a transfer its predicate names may be in flight (the store of a block about to be
   written again); one tagged ``youngest`` too (before a load that may read what a store writes), counted to leave
   in flight the transfers issued after the last one its predicate names: ``N`` = the smallest age of those.
   The ISA table's effects columns say which instructions are transfers (``dma`` with a local-memory ``load`` or
   ``store``), which move data in, and which are waits.
   A requested wait where the only transfers out of local memory that may be in flight are output tiles' stores
   left under the next tile (tagged ``under``: ``control.store_under_next``) becomes ``mtia.dma.wait.in``: it
   waits for the inbound transfers as counted and leaves those stores in flight (their buffers are their own;
   the op writing one again waits for it with a wait of its own, tagged ``only_if``).
5. A wait goes when the next one covers it: every transfer it waits for moves data in, and every path from it
   reaches the next wait before anything reads or writes memory (a load whose lowering waits for its own
   transfers, right after the wait before it); the inbound transfers issued between them then overlap.
"""
from __future__ import annotations

from collections import Counter
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from mtiacc.codegen.machine.mir import LabelDef, MFunction, MInstr, WaitRequest
from mtiacc.codegen.machine.schedule import effects

MAX_KEEP = 2047          # the largest count a wait can leave in flight (mtia.dma.wait's immediate)
_CALLS = ("ret", "call", "jal", "jalr")

# A transfer that may be in flight: (the index of its instruction, what happened to it since it issued: the bits
# below); the state maps each to its age.
Key = Tuple[int, int]
State = Dict[Key, int]
REOPENED = 1    # its group's code began again (the group's transfers now are a later trip's)
EARLIER = 2     # its pipelined loop went round its back-edge since: a transfer of an earlier trip
LEFT = 4        # its pipelined loop was left since


# ----------------------------------------------------------------------------------------- step 0: the groups

class Group:
    """One group of counted prefetches (the tags of its transfers name it)."""

    def __init__(self):
        self.values: Set[object] = set()    # the prefetched blocks


def form_groups(items: List) -> None:
    """Step 0: in program order, the counted prefetches issued with no request before an op between them form a
    group (a new one after a loop's request and back-edge, and after a prefetch that waits before the group); a
    request before an op that reads none of the group's blocks may leave it in flight."""
    group: Optional[Group] = None
    fresh: Set[object] = set()        # the blocks prefetched since the last request before an op
    groups: Dict[object, Group] = {}  # prefetched block -> its group
    for it in items:
        tag = it.dma
        if tag is None or isinstance(it, LabelDef):
            continue
        req = tag.request
        if req is not None and req.kind == "op":
            if req.touch or req.reads:    # (not a loop's mark alone)
                fresh = set()
            if group is not None and not req.reads & group.values:
                tag.group = group
            else:
                group = None       # a wait for every transfer
                tag.across = False
            if req.loop:
                group = None
        elif req is not None and req.kind == "prefetch":
            req.fresh = frozenset(fresh)
            if fresh and group is not None:   # the group's prefetches issued first: wait before them
                tag.before, req.hoisted = group, True
                group = None
        if tag.back_edge:
            group = None
        if tag.first_of is not None:
            if tag.counted:
                if group is None or not fresh:
                    group = Group()
                    tag.group, tag.opens = group, True
                group.values.add(tag.first_of)
                groups[tag.first_of] = group
            fresh.add(tag.first_of)
        if tag.kind == "prefetch" and tag.block in groups and isinstance(it, MInstr) and it.is_transfer:
            tag.group = groups[tag.block]


def branch_counts(items: List) -> Counter:
    """How many instructions of ``items`` branch or jump to each label, by name."""
    return Counter(t.name for t in (x.target for x in items if isinstance(x, MInstr)) if t is not None)


def _skip_of(items: List, i: int, branches: Optional[Counter] = None) -> Optional[int]:
    """For the transfer ``items[i]`` in ``beqz n, L; transfer; L:`` (its zero-byte skip, no other branch to
    ``L``), the index of the ``beqz``; else None.  ``branches``: ``branch_counts(items)``, when the caller keeps
    it (else it is counted here)."""
    if i < 1 or i + 1 >= len(items):
        return None
    br, tr, lab = items[i - 1], items[i], items[i + 1]
    if isinstance(br, MInstr) and br.op == "beqz" and isinstance(lab, LabelDef) and lab.label == br.target \
            and br.args[0] == tr.args[2]:
        if branches is None:
            branches = branch_counts(items)
        if branches[lab.label.name] == 1:      # the beqz alone
            return i - 1
    return None


def _drop_skip(items: List, i: int, branches: Optional[Counter] = None) -> int:
    """Make the transfer ``items[i]`` issue on every path (its zero-byte skip goes); its new index.
    ``branches``: ``branch_counts(items)``, kept up to date here."""
    k = _skip_of(items, i, branches)
    if k is None:
        return i
    if branches is not None:
        branches[items[k].target.name] -= 1
    br, tr = items[k], items[i]
    if br.dma is not None and br.dma.opens:   # the group's code began at the skip: it begins at the transfer now
        tr.dma = tr.dma or br.dma
        tr.dma.group, tr.dma.opens = br.dma.group, True
    del items[i + 1], items[k]
    return i - 1


def issue_every_transfer(items: List) -> None:
    """Step 1: the transfers of a prefetch group and the ``across`` stores lose their zero-byte skips."""
    i = 0
    branches = branch_counts(items)
    while i < len(items):
        it = items[i]
        if isinstance(it, MInstr) and it.dma is not None and (it.dma.group is not None or it.dma.across) \
                and it.is_transfer:
            i = _drop_skip(items, i, branches)
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
        w.dma.before = None
        items.insert(first, w)


# ----------------------------------------------------------------------------------------- step 4: the waits

_KINDS: Dict[Tuple[str, int], Tuple[str, bool]] = {}


def _kind(it: MInstr) -> Tuple[str, Optional[str], bool]:
    """What ``it`` is to the dataflow, from the ISA table (once per mnemonic): "in" or "out" (a transfer into or
    out of local memory), "wait" or ""; the label it branches to; whether control never falls through it."""
    key = (it.op, len(it.args))
    k = _KINDS.get(key)
    if k is None:
        # a transfer that stores into local memory moves data in (the ISA table's effects column)
        kind = ("in" if "store" in it.info.effects else "out") if it.is_transfer else "wait" if it.is_dma_wait else ""
        k = _KINDS[key] = (kind, it.is_unconditional)
    target = it.target
    return k[0], target.name if target is not None else None, k[1]


def _merge(into: State, other: State) -> bool:
    changed = False
    for k, age in other.items():
        if k not in into or age < into[k]:
            into[k] = age
            changed = True
    return changed


def _flag(state: State, lo: int, hi: int, bit: int) -> State:
    """``state`` with ``bit`` set on the transfers issued at ``items[lo:hi + 1]``."""
    out: State = {}
    for k, age in state.items():
        if lo <= k[0] <= hi:
            k = (k[0], k[1] | bit)
        out[k] = min(age, out.get(k, MAX_KEEP + 1))
    return out


class _Counts:
    """Step 4: the dataflow, to a fixed point: each tagged wait's count only falls and a requested wait, once
    needed, stays; with those fixed each label's state only grows, so it ends."""

    def __init__(self, items: List):
        self.items = items
        self.labels = {it.label.name: i for i, it in enumerate(items) if isinstance(it, LabelDef)}
        self.at_label: Dict[int, State] = {}
        self.count: Dict[int, int] = {}      # tagged wait -> its count so far
        self.needed: Dict[int, bool] = {}    # ``only_if`` wait -> whether it stays
        self.asked: Dict[WaitRequest, bool] = {}     # request -> whether its wait stays
        self.pending: Dict[WaitRequest, bool] = {}   # "op" request -> whether a plain transfer keeps it
        self.kept: Dict[int, bool] = {}      # tagged wait -> whether an ``across`` store stays in flight past it
        self.win: Dict[int, bool] = {}       # requested wait -> whether it leaves the ``under`` stores in flight
        self.blocked: Dict[int, bool] = {}   # requested wait -> whether another outbound transfer may be in flight
        self.marks: Dict[object, int] = {}   # a ``branch`` request's ``since`` -> the index of its mark
        # the requests whose waits, before each transfer of a prefetch, replace the request's own
        self.inner: Set[WaitRequest] = set()
        # the items the dataflow looks at, found once: (index, kind, the label a branch goes to, whether control
        # never falls through); kind "label", "in", "out", "wait" or "" (a branch, or a group's first instruction)
        self.events: List[Tuple[int, str, Optional[int], bool]] = []
        for i, it in enumerate(items):
            if isinstance(it, LabelDef):
                self.events.append((i, "label", None, False))
                continue
            kind, target, jump = _kind(it)
            if it.dma is not None and it.dma.mark is not None:
                self.marks[it.dma.mark] = i
            if it.dma is not None and it.dma.part_of is not None and kind == "wait":
                self.inner.add(it.dma.part_of)
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
        return not key[1] & REOPENED and tag.group is not None and tag.group is wait.dma.group

    def _plain(self, key: Key) -> bool:
        """Whether the transfer ``key`` is one the next op touching local memory waits for: a plain inbound
        transfer, or any transfer of a pipelined loop's earlier trip (the carried blocks its prefetches fill are
        read next; its stores read buffers the trip writes again) but the store it leaves in flight across the
        back-edge, or of a pipelined loop left."""
        tag = self._tag(key)
        if key[1] & LEFT or (key[1] & EARLIER and not (tag is not None and (tag.across or tag.under is not None))):
            return True
        if _kind(self.items[key[0]])[0] != "in":
            return False
        return (tag.kind if tag is not None else None) not in ("prefetch", "async")

    def _prefetched(self, key: Key, reads: FrozenSet[object], but: bool = False) -> bool:
        """Whether the transfer ``key`` prefetches a block in ``reads`` (``but``: a block not in ``reads``)."""
        tag = self._tag(key)
        return tag is not None and tag.kind == "prefetch" and (tag.block in reads) != but

    def _asks(self, req: WaitRequest, state: State) -> bool:
        """Whether something ``req`` names may be in flight in ``state``."""
        if req.kind == "branch":
            since = self.marks.get(req.since, -1)
            return any(k[0] > since and self._plain(k) for k in state)
        plain = (req.touch or req.kind != "op") and any(self._plain(k) for k in state)
        if req.kind == "op" and plain:
            self.pending[req] = True
        if req.kind == "prefetch":
            return plain or any(self._prefetched(k, req.fresh, but=True) for k in state)
        return plain or any(self._prefetched(k, req.reads) for k in state)

    def _under(self, key: Key) -> bool:
        tag = self._tag(key)
        return tag is not None and tag.under is not None

    def _inbound_only(self, i: int, tag, state: State) -> bool:
        """Whether the requested wait ``i`` may leave the ``under`` stores in flight (``mtia.dma.wait.in``): one may
        be in flight here and no other transfer out of local memory may (once one may, it stays so: the states only
        grow over the sweeps)."""
        if tag is None or tag.only_if is not None or not (tag.request is not None or tag.part_of is not None
                                                          or tag.group is not None or tag.across):
            return False
        outs = [k for k in state if _kind(self.items[k[0]])[0] == "out"]
        if any(not self._under(k) for k in outs):
            self.blocked[i] = True
        self.win[i] = not self.blocked.get(i, False) and bool(outs)
        return self.win[i]

    def _wait(self, i: int, w: MInstr, state: State) -> State:
        tag = w.dma
        req = tag.request if tag is not None else None
        win = self._inbound_only(i, tag, state)
        if req is not None and self._asks(req, state):
            self.asked[req] = True
        if tag is not None and tag.part_of is not None:     # a prefetch's wait before its transfers
            n = 0 if self.asked.get(tag.part_of) and not tag.part_of.hoisted else MAX_KEEP + 1
        elif req is not None and not self.asked.get(req):
            n = MAX_KEEP + 1    # not needed
        # (a prefetch's wait that its waits before its transfers replace: those complete every transfer in flight
        # here by the end of its code, on every path, and nothing in between waits or issues a transfer: the
        # dataflow sees one wait here)
        elif tag is not None and tag.only_if is not None:
            ages = [age for k, age in state.items() if self._tag(k) is not None and tag.only_if(self._tag(k))]
            self.needed[i] = self.needed.get(i, False) or bool(ages)
            if not self.needed[i]:
                n = MAX_KEEP + 1
            elif tag.youngest:    # the transfers issued after the last one it names stay in flight
                n = min(ages + [self.count.get(i, MAX_KEEP), MAX_KEEP])
                self.count[i] = n
            else:
                n = 0
        elif tag is not None and (tag.group is not None or tag.across):
            others = [age for k, age in state.items() if not self._keepable(k, w) and not (win and self._under(k))]
            mine = [age for k, age in state.items() if self._keepable(k, w)]
            n = min(others) if others else (max(mine) + 1 if mine else 0)
            n = min(n, self.count.get(i, MAX_KEEP), MAX_KEEP)
            self.count[i] = n
            self.kept[i] = any(self._tag(k) is not None and self._tag(k).across and age < n for k, age in state.items())
        else:
            n = int(w.args[0]) if w.args else 0
        return {k: age for k, age in state.items() if age < n or (win and self._under(k))}

    def _issue(self, i: int, tr: MInstr, state: State) -> State:
        out: State = {}
        for k, age in state.items():
            if k[0] == i and not k[1] & REOPENED:   # this instruction's earlier issue: not the one its group's tags name
                k = (i, k[1] | REOPENED)
            out[k] = min(age + 1, out.get(k, MAX_KEEP + 1), MAX_KEEP + 1)
        out[(i, 0)] = 0
        return out

    def _opens(self, group, state: State) -> State:
        """The group's code begins again: its transfers in flight are an earlier trip's."""
        out: State = {}
        for k, age in state.items():
            tag = self._tag(k)
            if not k[1] & REOPENED and tag is not None and tag.group is group:
                k = (k[0], k[1] | REOPENED)
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
            if kind in ("in", "out"):
                state = self._issue(i, it, state)
            elif kind == "wait":
                req = it.dma.request if it.dma is not None else None
                before = (self.count.get(i), self.needed.get(i), self.asked.get(req), self.pending.get(req),
                          self.win.get(i))
                state = self._wait(i, it, state)
                changed |= before != (self.count.get(i), self.needed.get(i), self.asked.get(req), self.pending.get(req),
                                      self.win.get(i))
            back = it.dma is not None and it.dma.pipelined and target is not None and target < i
            if target is not None:
                out = _flag(state, target, i, EARLIER) if back else state
                if _merge(self.at_label.setdefault(target, {}), out):
                    changed = True
            if jump:
                state = None
            elif back:
                state = _flag(state, target, i, LEFT)
        return changed

    def solve(self) -> None:
        for _ in range(1000):
            if not self.sweep():
                return     # the last sweep saw the settled state: ``kept`` is the final one
        raise AssertionError("insert-waits: the counts did not settle")


def _since(k: int, across: bool) -> str:
    issued = "the transfer issued since" if k == 1 else f"the {k} transfers issued since"
    return f"{issued} and the store before the loop's top" if across else issued


def _stays(counts: _Counts, it) -> bool:
    """Whether ``it`` stays: a requested wait where something it names may be in flight (a prefetch's own wait
    unless its waits before its transfers replace it), the code of those waits with them."""
    tag = it.dma
    if tag is None:
        return True
    if tag.part_of is not None:
        return bool(counts.asked.get(tag.part_of)) and not tag.part_of.hoisted
    req = tag.request
    if req is not None:
        return bool(counts.asked.get(req)) and (req.hoisted or req not in counts.inner)
    return True


def place_counts(items: List) -> None:
    """Step 4, and the waits written: a count, or none (every transfer), or the wait goes."""
    counts = _Counts(items)
    counts.solve()
    out = []
    for i, it in enumerate(items):
        if not _stays(counts, it):
            continue
        if isinstance(it, MInstr) and it.dma is not None and it.is_dma_wait:
            if it.dma.only_if is not None and not counts.needed.get(i, False):
                continue
            req = it.dma.request
            if req is not None and req.kind == "op" and not counts.pending.get(req):
                it.comment = req.read_comment
            n = counts.count.get(i, 0)
            if counts.win.get(i):
                it.op = "mtia.dma.wait.in"
                it.comment = f"{it.comment} (the output tile's store stays in flight)"
            if n:
                across = counts.kept.get(i, False)
                it.args = [n]
                it.comment = f"{it.comment} ({_since(n - across, across)} stay in flight)"
            else:
                it.args = []
        out.append(it)
    items[:] = out


# ----------------------------------------------------------------------------------------- step 5: covered waits

def _config(it: MInstr) -> bool:
    """A DMA configuration write (``mtia.dma.cfg``): the DMA unit, neither a transfer nor a wait (ISA table)."""
    return _unit(it) == "dma" and not it.is_transfer and not it.is_dma_wait


def _touches_memory(it: MInstr) -> bool:
    """Whether ``it`` reads or writes memory (its effects), but an inbound transfer or a DMA configuration write:
    a later wait covers those too."""
    if (it.is_transfer and _kind(it)[0] == "in") or _config(it):
        return False
    e = effects(it)
    return e.barrier or "MEM" in e.uses or "MEM" in e.defs


def _left(wait: MInstr) -> int:
    """How many of the transfers issued last ``wait`` leaves in flight (its count; 0: none)."""
    return int(wait.args[0]) if wait.args else 0


def _covered(items: List, w: int, labels_at: Dict[str, int], last_branch_to: Dict[object, int],
             first_branch_to: Dict[object, int]) -> bool:
    """Whether the wait ``items[w]`` is covered by the next one: every transfer it waits for moves data in (no
    loop between; on every path to it: a wait that a forward branch around it skips does not end the scan),
    every path from it reaches the next wait before anything reads or writes memory, and that wait leaves in
    flight no more than this one did plus the inbound transfers issued between them."""
    floor = w    # the first branch to a label passed: the paths through it skip what lies between
    for k in range(w - 1, -1, -1):
        prev = items[k]
        if isinstance(prev, LabelDef):
            if last_branch_to.get(prev.label, -1) > k:
                return False     # a branch back to here: paths not scanned
            floor = min(floor, first_branch_to.get(prev.label, k))
            continue
        if prev.is_dma_wait:
            if _left(prev) or prev.op != "mtia.dma.wait":   # the transfers before it may be in flight still
                continue
            if k > floor:
                continue         # a path through a branch around it does not pass it (a guarded prefetch's skip)
            break
        if prev.is_transfer and _kind(prev)[0] == "out":
            return False
    nxt = next((k for k in range(w + 1, len(items)) if isinstance(items[k], MInstr) and items[k].is_dma_wait), None)
    if nxt is None:
        return False
    issued = sum(1 for k in range(w + 1, nxt) if isinstance(items[k], MInstr) and items[k].is_transfer)
    if _left(items[nxt]) > _left(items[w]) + issued:
        return False
    if items[nxt].op != items[w].op and items[w].op == "mtia.dma.wait":
        return False     # the next waits for the inbound transfers only
    for k in range(w + 1, nxt):
        it = items[k]
        if isinstance(it, LabelDef):
            continue
        if it.target is not None:
            t = labels_at.get(it.target.name)
            if t is None or not k < t < nxt:
                return False
            continue
        if it.is_unconditional or _touches_memory(it):
            return False
    return True


def drop_covered_waits(items: List) -> None:
    """Step 5: a wait goes when the next one covers it (:func:`_covered`): the inbound transfers issued between
    them then overlap with the ones before (a load whose lowering waits for its own transfers, right after the wait
    before it: a scalar load, a gather)."""
    def positions():
        labels_at = {x.label.name: i for i, x in enumerate(items) if isinstance(x, LabelDef)}
        last_branch_to: Dict[object, int] = {}
        first_branch_to: Dict[object, int] = {}
        for i, x in enumerate(items):
            if isinstance(x, MInstr) and x.target is not None:
                last_branch_to[x.target] = i
                first_branch_to.setdefault(x.target, i)
        return labels_at, last_branch_to, first_branch_to

    labels_at, last_branch_to, first_branch_to = positions()
    w = 0
    while w < len(items):
        it = items[w]
        if isinstance(it, MInstr) and it.is_dma_wait and _covered(items, w, labels_at, last_branch_to,
                                                                  first_branch_to):
            del items[w]
            labels_at, last_branch_to, first_branch_to = positions()    # the indices after ``w`` moved
            w = 0
            continue
        w += 1


def insert_waits(fn: MFunction) -> None:
    """The pass: steps 0 to 5 over ``fn``'s items (before register allocation)."""
    items = fn.items
    form_groups(items)
    issue_every_transfer(items)
    join_stores(items)
    hoist(items)
    place_counts(items)
    drop_covered_waits(items)


__all__ = ["insert_waits"]
