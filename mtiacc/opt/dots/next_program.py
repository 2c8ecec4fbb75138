"""``persistent-programs`` for dot kernels: the next program's first tiles are fetched during this program's last
dot, before its accumulators are written back and stored.

A GEMM program with few K steps (``4096 x 4096 x 512``: 8 steps of 64) spends much of its time outside its K
loop: the first tiles' transfer before the engine can start, the accumulators' write-back and the store after it.
``pipeline-dots`` overlaps the K steps with each other; run in one loop over a slot's programs
(:mod:`mtiacc.opt.loops.persistent_programs`), the first tiles of program ``v + SLOTS`` can be fetched while
program ``v`` ends:

    a0, b0 = load(p(first))                        # the slot's first program's first tiles
    for v = first .. total step SLOTS, carrying a0, b0 {persistent = SLOTS, pipeline = 2}:
        ... the program, its K loop starting from the carried a0, b0 ...
        for k ... {pipeline_stages = S, pipeline = 2}            # the pipelined K loop
        a0', b0' = load(p(v + SLOTS < total ? v + SLOTS : v)) {prefetch, guard = v + SLOTS < total && ...}
        ... the K loop's remainder, the write-back and the store ...
        yield a0', b0'

The prefetch is the first op after the pipelined K loop, so the core issues it as soon as it has issued the last
dot's engine commands: its transfer runs under that dot, where the DMA engine had nothing to do, and lands before
the engine has written the accumulators back.  Its addresses are the program's first-tile addresses computed
for the next program (the slice of pure ops computing them, cloned); past the slot's last program the guard moves
nothing.  Codegen lands the prefetch in the slot loop's carried block, which the next program's K loop takes as
its own carried block (``codegen/matrix/resident.py``: ``adopts_carried``), so nothing is copied.

Which kernels: the function body (the slot loop's body) has exactly one loop of ``pipeline-dots`` whose first
stage's tiles come a trip ahead (``{pipeline = 2}``) from loads of the body that only it reads (the rotation's
first tiles), and every ``tt.store`` writes through a pointer parameter none of those loads reads (programs of a
launch have no order among them; reads of the next program move before the stores of this one only through
distinct buffers, as ``pipeline-loads`` requires), and those tiles fit in local memory beside every block live
after the K loop (the local-memory plan: the slot loop keeps them through the whole program).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.pointers import POINTER_THROUGH, may_share, root_pointer
from mtiacc.ir.analysis.slices import pure_slice
from mtiacc.ir.core import Block, Operation, OpResult, Pure, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import TransOp
from mtiacc.opt.loop_unroll import clone_op
from mtiacc.opt.memory.plan import block_bytes


# a transposed pointer block (transposed-loads' tt.trans of a tile's pointers) points into its parameter's buffer too
THROUGH = POINTER_THROUGH + (TransOp,)


def first_tiles(block: Block) -> Optional[Tuple[scf.ForOp, List[Tuple[int, O.LoadOp]]]]:
    """The pipelined K loop of ``block`` and its first tiles (the index of the init, the load), or None."""
    found = []
    for op in block.ops:
        if not (isinstance(op, scf.ForOp) and op.pipeline == 2 and op.pipeline_stages
                and any(isinstance(o, DotOp) for o in op.block.ops)):
            continue
        tiles = []
        for i, v in enumerate(op.inits):
            if (isinstance(v, OpResult) and isinstance(v.op, O.LoadOp) and v.op.parent is block
                    and len(v.uses) == 1 and v.type.is_block() and not v.op.prefetch and not v.op.volatile):
                tiles.append((i, v.op))
        if tiles:
            found.append((op, tiles))
    return found[0] if len(found) == 1 else None


def _distinct_buffers(func: O.FuncOp, loads: List[O.LoadOp]) -> bool:
    """Whether every store of ``func`` writes through a pointer parameter none of ``loads`` reads."""
    read = []
    for ld in loads:
        root = root_pointer(ld.ptr, THROUGH)
        if root is None:
            return False
        read.append(root)
    for op in func.walk():
        if isinstance(op, O.StoreOp):
            root = root_pointer(op.ptr, THROUGH)
            if root is None or any(may_share(root, r) for r in read):
                return False
    return True


def _clone_fetch(ops: List[Operation], loads: List[O.LoadOp], at: Dict[int, Value], before: Operation,
                 guard: Optional[Value] = None, prefetch: bool = False) -> List[Value]:
    """Clone the address slice ``ops`` and ``loads`` before ``before`` with the values ``at`` maps; each load's
    guard is its own (mapped) and'ed with ``guard``.  Returns the loads' clones' results."""
    for op in ops:
        before.parent.insert_before(before, clone_op(op, at))
    out = []
    for ld in loads:
        m = at
        if guard is not None and ld.guard is not None:
            both = O.AndIOp.get(guard, at.get(id(ld.guard), ld.guard), loc=ld.loc)
            before.parent.insert_before(before, both)
            m = dict(at)
            m[id(ld.guard)] = both.result
        new = clone_op(ld, m)
        before.parent.insert_before(before, new)
        if guard is not None and ld.guard is None:
            new.set_guard(guard)
        if prefetch:
            new.attrs["prefetch"] = True
        new.result.name_hint = ld.result.name_hint
        out.append(new.result)
    return out


def _pure_operands(loads: List[O.LoadOp], block: Block) -> bool:
    """Whether the ops of ``block`` computing ``loads``' operands are pure and have no regions."""
    seen, work = set(), [v for ld in loads for v in ld.operands]
    while work:
        v = work.pop()
        if not isinstance(v, OpResult) or v.op.parent is not block or id(v.op) in seen:
            continue
        if v.op.regions or Pure not in v.op.traits:
            return False
        seen.add(id(v.op))
        work.extend(v.op.operands)
    return True


def qualifies(func: O.FuncOp, plan) -> bool:
    """Whether ``func`` (before the slot loop) qualifies (the module docstring) and the first tiles of its
    pipelined K loop fit in local memory beside the blocks live after that loop (the slot loop's carried tiles
    live through the whole program; ``plan``: ``func``'s local-memory plan)."""
    found = first_tiles(func.entry)
    if found is None:
        return False
    kloop, tiles = found
    loads = [ld for _, ld in tiles]
    if not _distinct_buffers(func, loads) or not _pure_operands(loads, func.entry):
        return False
    size = sum(block_bytes(ld.result.type) for _, ld in tiles)
    # and the K panels a dot after the K loop (its remainder loop) transposes on the MLU, which the plan leaves out
    size += max([block_bytes(d.a.type) for d in func.walk() if isinstance(d, DotOp) and isinstance(d.a, OpResult)
                 and isinstance(d.a.op, TransOp)], default=0)
    ops = func.entry.ops
    lo = plan.ends[id(kloop)][1] + 1
    hi = max(plan.ends[id(op)][1] for op in ops)
    return all(plan.live_at(p) + size <= plan.capacity for p in range(lo, hi + 1))


def fetch_next_program(slot: scf.ForOp) -> scf.ForOp:
    """Rewrite the slot loop ``slot`` (no carried values; its body the body of a function that
    :func:`qualifies`, its program ids read from the induction variable) as the module docstring says; returns
    the new loop."""
    kloop, tiles = first_tiles(slot.block)
    loads = [ld for _, ld in tiles]
    addr = pure_slice([v for ld in loads for v in ld.operands], slot)
    assert addr is not None, "next_program: the first tiles' addresses are not pure ops (qualifies checks them)"
    loc = slot.loc
    # the slot's first program's tiles, before the loop (it runs at least once: no guard of its own)
    first = _clone_fetch(addr, loads, {id(slot.induction_var): slot.lower}, slot)
    new = scf.ForOp.get(slot.lower, slot.upper, slot.step, first, loc=loc,
                        arg_names=[slot.induction_var.name_hint] + [ld.result.name_hint for ld in loads])
    new.attrs.update({k: v for k, v in slot.attrs.items() if k != "operandSegmentSizes"})
    new.attrs["pipeline"] = 2   # the next program's first tiles load a trip ahead (codegen: the back edge)
    slot.parent.insert_before(slot, new)
    body = new.block
    for op in list(slot.block.ops):
        slot.block.ops.remove(op)
        body.append(op)
        op.parent = body
    slot.induction_var.replace_all_uses_with(new.induction_var)
    for ld, arg in zip(loads, new.iter_args):
        ld.result.replace_all_uses_with(arg)
    # the next program's tiles, right after the pipelined K loop
    after = body.ops[body.ops.index(kloop) + 1]
    iv = new.induction_var
    nxt = O.AddIOp.get(iv, new.step, loc=loc)
    more = O.CmpIOp.get("slt", nxt.result, new.upper, loc=loc)
    at = O.SelectOp.get(more.result, nxt.result, iv, loc=loc)
    for op in (nxt, more, at):
        body.insert_before(after, op)
    nxt.result.name_hint, more.result.name_hint = "next_program", "more_programs"
    fetched = _clone_fetch(addr, loads, {id(iv): at.result}, after, guard=more.result, prefetch=True)
    term = body.terminator
    body.insert_before(term, scf.YieldOp.get(fetched, loc=term.loc))
    term.erase()
    for ld in loads:
        ld.erase()
    slot.erase()
    return new


__all__ = ["fetch_next_program"]
