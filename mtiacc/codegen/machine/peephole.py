"""``machine-peephole``: local rewrites of machine code after register allocation, to a fixed point.

The rules, each a small function over the instruction list:

* ``mv x, x`` (and ``addi x, x, 0``, ``fmv.s f, f``) go.
* Known constants (from ``li`` in the same block): ``add rd, rs, c`` becomes ``addi rd, rs, c`` and
  ``sub rd, rs, c`` becomes ``addi rd, rs, -c`` when the immediate fits in 12 signed bits;
  ``mul``/``mulw`` by a power of two become ``slli``/``slliw``.
* Dead definitions: a side-effect-free integer instruction whose result is never read (liveness over
  the machine CFG) goes, typically the ``li`` a rewrite above made unused.
* ``vsetvli zero, rs, vtype`` right after a ``vsetvli`` that set the same vtype from the same,
  unchanged register (the same ``vl`` again) goes.

A DMA wait that a later one covers goes in ``insert-waits`` (``insert_waits.py``), which places the waits.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from mtiacc.codegen.machine.mir import LabelDef, MFunction, MInstr
from mtiacc.codegen.machine.schedule import effects, is_terminator

# Integer instructions without side effects (their only effect is the destination register).
_REMOVABLE_TIMING = ("IntALU", "IntMul")


def _fits12(v: int) -> bool:
    return -2048 <= v < 2048


# ----------------------------------------------------------------------------------------- rules

def drop_self_moves(items: List) -> bool:
    changed = False
    for it in list(items):
        if not isinstance(it, MInstr):
            continue
        a = it.args
        if (it.op in ("mv", "fmv.s") and len(a) == 2 and a[0] == a[1]) or \
           (it.op == "addi" and len(a) == 3 and a[0] == a[1] and a[2] == 0):
            items.remove(it)
            changed = True
    return changed


def fold_constants(items: List) -> bool:
    changed = False
    known: Dict[str, int] = {}
    for k, it in enumerate(items):
        if isinstance(it, LabelDef):
            known = {}
            continue
        a = it.args
        new: Optional[MInstr] = None
        if it.op == "add" and len(a) == 3:
            for x, y in ((a[1], a[2]), (a[2], a[1])):
                if y in known and _fits12(known[y]) and isinstance(x, str):
                    new = MInstr("addi", [a[0], x, known[y]], it.loc, it.comment)
                    break
        elif it.op == "sub" and len(a) == 3 and a[2] in known and _fits12(-known[a[2]]):
            new = MInstr("addi", [a[0], a[1], -known[a[2]]], it.loc, it.comment)
        elif it.op in ("mul", "mulw") and len(a) == 3:
            for x, y in ((a[1], a[2]), (a[2], a[1])):
                c = known.get(y)
                if c is not None and c > 0 and c & (c - 1) == 0 and isinstance(x, str):
                    new = MInstr("slli" if it.op == "mul" else "slliw", [a[0], x, c.bit_length() - 1],
                                 it.loc, it.comment)
                    break
        if new is not None:
            items[k] = it = new
            changed = True
        for r in effects(it).defs:
            known.pop(r, None)
        if it.op == "li" and isinstance(it.args[1], int) and it.args[0] != "zero":
            known[it.args[0]] = it.args[1]
        if is_terminator(it):
            known = {}
    return changed


def _cfg(items: List):
    """Basic blocks as item-index lists, and successors."""
    blocks: List[List[int]] = []
    label_block: Dict[str, int] = {}
    cur: List[int] = []
    pending_labels: List[str] = []
    for i, it in enumerate(items):
        if isinstance(it, LabelDef):
            if cur:
                blocks.append(cur)
                cur = []
            pending_labels.append(it.label.name)
            continue
        if not cur:
            for name in pending_labels:
                label_block[name] = len(blocks)
            pending_labels = []
        cur.append(i)
        if is_terminator(it):
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    for name in pending_labels:
        label_block[name] = len(blocks)     # a label at the very end: an empty exit block
    succs: List[List[int]] = []
    for b, idx in enumerate(blocks):
        last = items[idx[-1]]
        s = []
        if last.target is not None and last.target.name in label_block:
            s.append(label_block[last.target.name])
        if not last.is_unconditional and b + 1 < len(blocks):
            s.append(b + 1)
        succs.append([x for x in s if x < len(blocks)])
    return blocks, succs


def remove_dead_defs(items: List) -> bool:
    blocks, succs = _cfg(items)
    effs = {i: effects(items[i]) for idx in blocks for i in idx}
    # each block as live-in = uses + (live-out - defs): the registers it reads before writing them, and writes
    gen: List[Set[str]] = []
    kill: List[Set[str]] = []
    for idx in blocks:
        g: Set[str] = set()
        k: Set[str] = set()
        for i in reversed(idx):
            e = effs[i]
            g -= e.defs
            g |= e.uses
            k |= e.defs
        gen.append(g)
        kill.append(k)
    live_in: List[Set[str]] = [set() for _ in blocks]
    changed_any = True
    while changed_any:
        changed_any = False
        for b in reversed(range(len(blocks))):
            live = set().union(*(live_in[s] for s in succs[b])) if succs[b] else {"ra", "sp"}
            live = (live - kill[b]) | gen[b]
            if live != live_in[b]:
                live_in[b] = live
                changed_any = True
    dead: List[int] = []
    for b, idx in enumerate(blocks):
        live = set().union(*(live_in[s] for s in succs[b])) if succs[b] else {"ra", "sp"}
        for i in reversed(idx):
            it = items[i]
            e = effs[i]
            if (not e.barrier and e.timing in _REMOVABLE_TIMING and e.defs and not is_terminator(it)
                    and not (e.defs & live) and all(d[0] in "tsa" or d in ("ra", "gp", "tp") for d in e.defs)
                    and "sp" not in e.defs):
                dead.append(i)
                continue
            live -= e.defs
            live |= e.uses
    for i in sorted(dead, reverse=True):
        del items[i]
    return bool(dead)


def drop_repeated_vsetvli(items: List) -> bool:
    changed = False
    state = None     # (vtype, register whose value the current vl was set from)
    for it in list(items):
        if isinstance(it, LabelDef) or is_terminator(it):
            state = None
            continue
        if it.op == "vsetvli":
            rd, avl, vtype = it.args
            if rd == "zero" and state == (vtype, avl):
                # by identity: `remove` would take the first *equal* instruction, maybe an earlier one
                del items[next(i for i, x in enumerate(items) if x is it)]
                changed = True
                continue
            # after `vsetvli rd, avl, vt` the vl is in rd; after `vsetvli zero, avl, vt` it is min(avl, VLMAX)
            state = (vtype, rd) if rd != "zero" else (vtype, avl)
            if rd != "zero" and rd == avl:
                state = None
            continue
        if state is not None and state[1] in effects(it).defs:
            state = None
    return changed


RULES = (drop_self_moves, fold_constants, remove_dead_defs, drop_repeated_vsetvli)


def peephole_function(fn: MFunction, max_rounds: int = 10) -> None:
    """Apply the rules in turn, each until it changes nothing, round after round until a round changes nothing.
    A rule is a function of the instruction list that changes the list exactly when it returns True, so a rule
    that found nothing is not asked again until another rule has changed the list."""
    idle = set()     # the rules that found nothing in the list as it is now
    for _ in range(max_rounds):
        changed = False
        for rule in RULES:
            if rule in idle:
                continue
            while rule(fn.items):
                changed = True
                idle.clear()
            idle.add(rule)
        if not changed:
            return


__all__ = ["peephole_function", "RULES"]
