"""Register allocation: liveness over the machine CFG, then linear scan with spilling.

Intervals are single ranges [first, last] over instruction positions, widened to cover every
block in which the value is live (so values live around a loop's back edge stay allocated for
the whole loop).  When a class runs out of registers, one interval (below) is spilled to an 8-byte
stack slot; its uses reload into a scratch register and its defs store back.

The interval spilled is the one whose register saves least per instruction it spans: its uses times what
each costs spilled, over its length (as LLVM weighs spills), the longest on a tie.  A constant (a register
whose one definition is ``li``) takes no slot when spilled: its ``li`` goes, and each use gets its own ``li``
into a scratch register (rematerialized: one or two integer instructions instead of a reload's load latency
and its store); so a constant read at every step of a loop (Philox's multipliers) stays in its register while
a value read twice over the same loop is reloaded.  An integer parameter (its one definition a load from the
argument block, which nothing writes) is reloaded from the argument block, and its load and the store to a
slot go.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Set

from mtiacc.codegen.machine.mir import Item, Label, LabelDef, Mem, MFunction, MInstr, VMem, VReg

ALLOCATABLE = {
    "x": ["t0", "t1", "t2", "t3", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
          "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"],
    "f": [f"ft{i}" for i in range(9)] + [f"fa{i}" for i in range(8)] + [f"fs{i}" for i in range(12)],
}
SCRATCH = {"x": ["t4", "t5", "t6"], "f": ["ft9", "ft10", "ft11"]}


@dataclasses.dataclass
class Interval:
    reg: VReg
    start: int
    end: int
    phys: Optional[str] = None
    slot: Optional[int] = None  # stack offset when spilled


def _blocks(items: List[Item]):
    """Split into basic blocks: list of (label or None, [(pos, MInstr)])."""
    blocks, cur, label, pos = [], [], None, 0
    for it in items:
        if isinstance(it, LabelDef):
            if cur or label is not None:
                blocks.append((label, cur))
            cur, label = [], it.label
            continue
        cur.append((pos, it))
        pos += 1
        if it.is_branch or it.is_unconditional:
            blocks.append((label, cur))
            cur, label = [], None
    if cur or label is not None:
        blocks.append((label, cur))
    return blocks


def live_intervals(fn: MFunction) -> Dict[int, Interval]:
    blocks = _blocks(fn.items)
    index_of = {lab.name: i for i, (lab, _) in enumerate(blocks) if lab is not None}
    succs: List[List[int]] = []
    for i, (_, instrs) in enumerate(blocks):
        s = []
        last = instrs[-1][1] if instrs else None
        if last is not None and last.target is not None:
            s.append(index_of[last.target.name])
        if last is None or not last.is_unconditional:
            if i + 1 < len(blocks):
                s.append(i + 1)
        succs.append(s)
    use: List[Set[int]] = []
    defs: List[Set[int]] = []
    regs: Dict[int, VReg] = {}
    for _, instrs in blocks:
        u, d = set(), set()
        for _, ins in instrs:
            for r in ins.uses():
                regs[r.id] = r
                if r.id not in d:
                    u.add(r.id)
            for r in ins.defs():
                regs[r.id] = r
                d.add(r.id)
        use.append(u)
        defs.append(d)
    live_in = [set() for _ in blocks]
    live_out = [set() for _ in blocks]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(blocks))):
            out = set().union(*(live_in[s] for s in succs[i])) if succs[i] else set()
            inn = use[i] | (out - defs[i])
            if out != live_out[i] or inn != live_in[i]:
                live_out[i], live_in[i], changed = out, inn, True
    spans: Dict[int, List[int]] = {}

    def touch(rid: int, pos: int):
        s = spans.get(rid)
        if s is None:
            spans[rid] = [pos, pos]
        elif pos < s[0]:
            s[0] = pos
        elif pos > s[1]:
            s[1] = pos

    for i, (_, instrs) in enumerate(blocks):
        if not instrs:
            continue
        first, last = instrs[0][0], instrs[-1][0]
        for rid in live_in[i]:
            touch(rid, first)
        for rid in live_out[i]:
            touch(rid, last)
        for pos, ins in instrs:
            for r in ins.regs():
                touch(r.id, pos)
    return {rid: Interval(regs[rid], s[0], s[1]) for rid, s in spans.items()}


def constants(fn: MFunction) -> Dict[int, tuple]:
    """The registers ``fn`` can recompute where it uses them, by id: defined once, by ``li`` of an integer
    (``("li", value)``) or by a load of an integer parameter from the argument block (``(op, slot)``)."""
    defs: Dict[int, int] = {}
    value: Dict[int, tuple] = {}
    for it in fn.items:
        if not isinstance(it, MInstr):
            continue
        for r in it.defs():
            defs[r.id] = defs.get(r.id, 0) + 1
            if it.op == "li" and isinstance(it.args[1], int) and not isinstance(it.args[1], bool):
                value[r.id] = ("li", it.args[1])
            elif it.op in ("ld", "lw") and isinstance(it.args[1], Mem) and it.args[1].base == "zero" \
                    and (it.comment or "").startswith("parameter "):
                value[r.id] = (it.op, it.args[1])
    return {rid: v for rid, v in value.items() if defs[rid] == 1}


def _use_cost(rid: int, remat: Dict[int, tuple]) -> int:
    """The instructions a use of spilled register ``rid`` costs: a constant's ``li`` again (one instruction,
    two past 12 bits, four past 32), a parameter's load, else a reload (a load and its latency)."""
    how = remat.get(rid)
    if how is None:
        return 3
    if how[0] != "li":
        return 2
    v = how[1]
    return 1 if -2048 <= v < 2048 else 2 if -(1 << 31) <= v < (1 << 31) else 4


def _spill_weight(iv: Interval, uses: Dict[int, int], remat: Dict[int, tuple]) -> float:
    """What keeping ``iv`` in a register saves per instruction it spans: its uses times what each would cost
    spilled, over its length (the value to spill is the one that costs least where it frees a register)."""
    return uses.get(iv.reg.id, 0) * _use_cost(iv.reg.id, remat) / (iv.end - iv.start + 1)


def linear_scan(fn: MFunction, remat: Optional[Dict[int, tuple]] = None) -> Dict[int, Interval]:
    intervals = live_intervals(fn)
    remat = remat or {}
    by_class: Dict[str, List[Interval]] = {"x": [], "f": []}
    for iv in intervals.values():
        by_class[iv.reg.cls].append(iv)
    uses: Dict[int, int] = {}
    for it in fn.items:
        if isinstance(it, MInstr):
            for r in it.uses():
                uses[r.id] = uses.get(r.id, 0) + 1
    next_slot = 0
    for cls, ivs in by_class.items():
        ivs.sort(key=lambda iv: (iv.start, iv.end))
        free = list(ALLOCATABLE[cls])
        active: List[Interval] = []
        soonest = None     # the earliest end among the active intervals
        for iv in ivs:
            if soonest is not None and soonest < iv.start:   # the expired free their registers, in active's order
                free.extend(a.phys for a in active if a.end < iv.start)
                active = [a for a in active if a.end >= iv.start]
                soonest = min((a.end for a in active), default=None)
            if free:
                iv.phys = free.pop(0)
                active.append(iv)
                soonest = iv.end if soonest is None else min(soonest, iv.end)
                continue
            victim = min(active + [iv], key=lambda a: (_spill_weight(a, uses, remat), -a.end))
            if victim is not iv:
                iv.phys, victim.phys = victim.phys, None
                del active[next(i for i, a in enumerate(active) if a is victim)]
                active.append(iv)
                soonest = min(a.end for a in active)
            if victim.reg.id not in remat:
                victim.slot = next_slot
                next_slot += 8
    fn.frame_bytes = (next_slot + 15) // 16 * 16
    return intervals


IMM12_MAX = 2047


def adjust_sp(delta: int, loc, comment: Optional[str] = None) -> List[MInstr]:
    """``sp += delta`` as ``addi`` steps within the 12-bit immediate (no scratch register needed)."""
    steps = []
    while delta:
        step = max(-IMM12_MAX - 1, min(IMM12_MAX, delta))
        steps.append(MInstr("addi", ["sp", "sp", step], loc, comment if not steps else None))
        delta -= step
    return steps


def at_stack_offset(op: str, reg: str, offset: int, loc, comment: str) -> List[MInstr]:
    """``op reg, offset(sp)``; beyond the 12-bit immediate, sp is moved there and back around it (a spill
    or reload has no free register for the address)."""
    shift = max(0, offset - IMM12_MAX)
    return [*adjust_sp(shift, loc), MInstr(op, [reg, Mem("sp", offset - shift)], loc, comment),
            *adjust_sp(-shift, loc)]


def _physical(a, intervals: Dict[int, Interval]):
    """Operand ``a`` with its virtual register replaced by the one allocated to it (it has one)."""
    if isinstance(a, VReg):
        return intervals[a.id].phys
    if isinstance(a, Mem) and isinstance(a.base, VReg):
        return Mem(intervals[a.base.id].phys, a.offset)
    if isinstance(a, VMem) and isinstance(a.base, VReg):
        return VMem(intervals[a.base.id].phys)
    return a


def rewrite(fn: MFunction, intervals: Dict[int, Interval], remat: Optional[Dict[int, tuple]] = None) -> None:
    """Replace virtual registers by physical ones, with reloads and stores around spilled ones (``li`` again
    before each use of a spilled constant of ``remat``, whose own ``li`` goes)."""
    remat = remat or {}
    out: List[Item] = []
    turn = {"x": 0, "f": 0}   # the scratch registers rotate, so a reload may move up past the previous one
    for it in fn.items:
        if isinstance(it, LabelDef):
            out.append(it)
            continue
        d = it.defs()
        if len(d) == 1 and d[0].id in remat and intervals[d[0].id].phys is None:
            continue   # a spilled constant or parameter: recomputed at its uses
        regs = it.regs()
        spilled = [r for r in regs if intervals[r.id].phys is None]
        if not spilled:      # every register in its own: no scratch register, no reload, no store
            out.append(MInstr(it.op, [_physical(a, intervals) for a in it.args], it.loc, it.comment))
            continue
        scratch = {c: SCRATCH[c][turn[c]:] + SCRATCH[c][:turn[c]] for c in SCRATCH}
        for c in SCRATCH:
            if any(r.cls == c for r in spilled):
                turn[c] = (turn[c] + 1) % len(SCRATCH[c])
        mapping: Dict[int, str] = {}
        before, after = [], []
        defs = {r.id for r in it.defs()}
        for r in it.regs():
            if r.id in mapping:
                continue
            iv = intervals[r.id]
            if iv.phys is not None:
                mapping[r.id] = iv.phys
                continue
            tmp = scratch[r.cls].pop(0)
            mapping[r.id] = tmp
            if r.id in remat:
                op, arg = remat[r.id]
                before.append(MInstr(op, [tmp, arg], it.loc, f"rematerialize {r!r}"))
                continue
            load, store = ("ld", "sd") if r.cls == "x" else ("fld", "fsd")  # all 64 bits: doubles, boxed singles
            if any(u.id == r.id for u in it.uses()):
                before.extend(at_stack_offset(load, tmp, iv.slot, it.loc, f"reload {r!r}"))
            if r.id in defs:
                after.extend(at_stack_offset(store, tmp, iv.slot, it.loc, f"spill {r!r}"))

        def sub(a):
            if isinstance(a, VReg):
                return mapping[a.id]
            if isinstance(a, Mem) and isinstance(a.base, VReg):
                return Mem(mapping[a.base.id], a.offset)
            if isinstance(a, VMem) and isinstance(a.base, VReg):
                return VMem(mapping[a.base.id])
            return a

        out.extend(before)
        out.append(MInstr(it.op, [sub(a) for a in it.args], it.loc, it.comment))
        out.extend(after)
    fn.items = out


def allocate(fn: MFunction) -> None:
    remat = constants(fn)
    rewrite(fn, linear_scan(fn, remat), remat)


def used_labels(fn: MFunction) -> Set[str]:
    return {it.target.name for it in fn.items if isinstance(it, MInstr) and it.target is not None}


__all__ = ["adjust_sp", "at_stack_offset", "allocate", "live_intervals", "linear_scan", "rewrite", "Label", "used_labels"]
