"""``machine-schedule``: list scheduling of machine code within basic blocks, after register allocation.

The machine is in order: an instruction waits until its source registers are ready, and a result is
ready ``latency`` cycles after issue (the ``timing:`` section of the target YAML, per timing class of the
ISA table).  So an instruction placed right after the one it depends on stalls; the scheduler fills
the gap with independent work.

Dependencies come from the ISA table's access column (``xd`` is written, ``xs1`` read, ``mem`` reads
its base, ``mtia.dma.*`` read ``rd``, ``vfmacc`` reads and writes ``vd`` ...) and its effects column, as three
implicit resources: ``VTYPE`` (``setvl`` writes it, ``vtype`` reads it), ``MEM`` (``load`` reads it; ``store``,
``dma`` and ``io`` read and write it, so memory order is kept, loads aside) and ``DMA`` (``dma`` writes it);
``mtia.dma.cfg`` touches ``DMA`` only (a register of the DMA engine), and the spills and reloads (``sp``-based
``ld`` / ``sd``) a resource ``STACK`` of their own instead of ``MEM`` (nothing else reaches the spill area), so a
reload moves up past DMA commands and engine commands to hide its latency;
and the vector registers an operand names: ``LMUL`` of them from the operand's (``2 LMUL`` for an instruction
that widens or narrows), with ``LMUL`` from the block's last ``vsetvli`` before it (a superset of the registers
the instruction touches: a mask or a reduction's scalar takes one); before a block's first ``vsetvli``, eight
(the loops use LMUL up to 8).  An instruction the table does not know is a barrier.

The algorithm, per block (the branch ending a block stays last): build the dependence graph, then
repeatedly issue, among the instructions whose predecessors are all placed, the one that can start
soonest; ties go to the longest latency-weighted path to the block's end, then to source order.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Dict, List, Optional, Set, Tuple

from mtiacc.codegen.machine.mir import LabelDef, Mem, MFunction, MInstr, VMem
from mtiacc.target import instruction_info

# ----------------------------------------------------------------------------------------- effects


@dataclasses.dataclass(frozen=True)
class Effects:
    defs: frozenset
    uses: frozenset
    timing: str
    barrier: bool = False   # unknown instruction: keeps its place relative to everything


def _regs(a, span: int = 0) -> Tuple[str, ...]:
    """The registers operand ``a`` stands for: a vector register and the ``span - 1`` after it (``span`` 0: the
    aligned group of eight holding it), or the scalar register itself."""
    if isinstance(a, str) and a not in ("zero", "x0"):
        if a[0] == "v" and a[1:].isdigit():
            r = int(a[1:])
            if span <= 0:
                r, span = r // 8 * 8, 8
            return tuple(f"v{k}" for k in range(r, min(r + span, 32)))
        return (a,)
    return ()


# widening and narrowing: operands of two EMULs (the SE's conversion too)
_WIDE = ("vw", "vfw", "vn", "vfn", "vzext", "vsext", "mtia.se.fncvt")


def lmul_of(ins: MInstr) -> Optional[int]:
    """The register span a ``vsetvli`` / ``vsetivli`` sets (LMUL, 1 for a fractional one), else None."""
    if ins.op not in ("vsetvli", "vsetivli") or not ins.args or not isinstance(ins.args[-1], str):
        return None
    for part in ins.args[-1].replace(" ", "").split(","):
        if part.startswith("mf"):
            return 1
        if part.startswith("m") and part[1:].isdigit():
            return int(part[1:])
    return None


# effect (ISA table) -> the implicit resources it reads and writes
_RESOURCES = {
    "load": ({"MEM"}, set()), "store": ({"MEM"}, {"MEM"}), "io": ({"MEM"}, {"MEM"}),
    "dma": ({"MEM"}, {"MEM", "DMA"}), "engine": ({"MEM"}, {"MEM", "ENGINE"}),
    "atomic": ({"MEM", "DMA", "ENGINE"}, {"MEM", "DMA", "ENGINE"}), "vtype": ({"VTYPE"}, set()),
    "setvl": (set(), {"VTYPE"}),
}


def effects(ins: MInstr, lmul: int = 0) -> Effects:
    """What ``ins`` reads and writes; ``lmul``: the LMUL in effect (0: unknown, groups of eight).

    A function of the mnemonic, the operands and ``lmul`` only, so remembered by them: the peephole rules and the
    scheduler ask again for the same instructions, round after round."""
    try:
        return _effects(ins.op, tuple(ins.args), lmul)
    except TypeError:       # an operand that cannot be a key
        return _effects.__wrapped__(ins.op, tuple(ins.args), lmul)


@functools.lru_cache(maxsize=16384)
def _effects(op: str, args: tuple, lmul: int) -> Effects:
    row = instruction_info(op, len(args))
    if row is None:
        return Effects(frozenset(), frozenset(), "System", barrier=True)
    span = min(8, 2 * lmul) if lmul and op.startswith(_WIDE) else lmul
    defs: Set[str] = set()
    uses: Set[str] = set()
    for access, a in zip(row.access, args):
        if isinstance(a, (Mem, VMem)):
            uses.update(_regs(a.base))
            continue
        rs = _regs("v0" if a == "v0.t" else a, span)
        if "w" in access:
            defs.update(rs)
        if "r" in access:
            uses.update(rs)
    for e in row.effects:
        reads, writes = _RESOURCES.get(e, ((), ()))
        uses.update(reads)
        defs.update(writes)
    if op == "mtia.dma.cfg":          # a register of the DMA engine: ordered among DMA commands only
        uses.discard("MEM")
        defs.discard("MEM")
    elif _STACK_OPS.get(op) and any(isinstance(a, Mem) and a.base == "sp" for a in args):
        # the spill area: no DMA, engine command or vector access touches it, only other spills and reloads
        for s in (uses, defs):
            if "MEM" in s:
                s.discard("MEM")
                s.add("STACK")
    return Effects(frozenset(defs), frozenset(uses), row.timing)


_STACK_OPS = {"ld": True, "sd": True, "fld": True, "fsd": True}


def is_terminator(ins: MInstr) -> bool:
    return ins.is_branch or ins.is_unconditional


def basic_blocks(items: List) -> List[Tuple[int, int]]:
    """``[start, end)`` item ranges of straight-line instruction runs (no label inside, a branch only last)."""
    out, start = [], None
    for i, it in enumerate(items):
        if isinstance(it, LabelDef):
            if start is not None:
                out.append((start, i))
            start = None
            continue
        if start is None:
            start = i
        if is_terminator(it):
            out.append((start, i + 1))
            start = None
    if start is not None:
        out.append((start, len(items)))
    return out


# ----------------------------------------------------------------------------------------- scheduling

def schedule_block(block: List[MInstr], latency) -> List[MInstr]:
    n = len(block)
    body = block[:-1] if n and is_terminator(block[-1]) else block
    if len(body) < 2:
        return block
    eff = []
    lmul = 0
    for ins in body:
        eff.append(effects(ins, lmul))
        lmul = lmul_of(ins) or lmul
    preds: List[Dict[int, int]] = [dict() for _ in body]    # pred index -> minimum distance in cycles
    last_def: Dict[str, int] = {}
    uses_since: Dict[str, List[int]] = {}
    last_barrier = None
    for j, e in enumerate(eff):
        if e.barrier:
            for i in range(j):
                preds[j][i] = max(preds[j].get(i, 0), 0)
            last_barrier = j
        elif last_barrier is not None:
            preds[j][last_barrier] = 0
        for r in e.uses:                                    # read after write
            if r in last_def:
                i = last_def[r]
                preds[j][i] = max(preds[j].get(i, 0), latency(eff[i].timing))
        for r in e.defs:
            if r in last_def:                               # write after write
                preds[j][last_def[r]] = max(preds[j].get(last_def[r], 0), 1)
            for i in uses_since.get(r, ()):                 # write after read
                if i != j:
                    preds[j][i] = max(preds[j].get(i, 0), 0)
        for r in e.uses:
            uses_since.setdefault(r, []).append(j)
        for r in e.defs:
            last_def[r] = j
            uses_since[r] = []
    succs: List[List[int]] = [[] for _ in body]
    for j, p in enumerate(preds):
        for i in p:
            succs[i].append(j)
    height = [0] * len(body)
    for i in reversed(range(len(body))):
        height[i] = max([preds[j][i] + height[j] for j in succs[i]] + [latency(eff[i].timing)])
    placed_at: Dict[int, int] = {}
    waiting = {j: len(p) for j, p in enumerate(preds)}
    ready = [j for j, c in waiting.items() if c == 0]
    # the cycle a ready instruction's operands allow it to start: fixed once it is ready (its preds are placed)
    earliest = {j: 0 for j in ready}
    order: List[int] = []
    cycle = 0
    while ready:
        def start(j):
            return max(cycle, earliest[j])
        best = min(ready, key=lambda j: (start(j), -height[j], j))
        ready.remove(best)
        t = start(best)
        placed_at[best] = t
        cycle = t + 1
        order.append(best)
        for s in succs[best]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
                earliest[s] = max(placed_at[i] + d for i, d in preds[s].items())
    assert len(order) == len(body), "scheduling lost an instruction"
    return [body[j] for j in order] + block[len(body):]


def schedule_function(fn: MFunction, target) -> None:
    items = fn.items
    for start, end in basic_blocks(items):
        items[start:end] = schedule_block(items[start:end], target.latency)


__all__ = ["effects", "Effects", "basic_blocks", "schedule_block", "schedule_function"]
