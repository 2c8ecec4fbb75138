"""``pipeline-loads``: software-pipeline the tile loads of ``scf.for`` loops, so that the DMA of the next
iteration's tiles runs while this iteration computes.

A PE's DMA engine has one completion barrier (``mtia.dma.wait`` waits for every transfer issued), so a load
whose data is read in the same iteration makes the DMA and the compute take turns.  This pass rotates the
loop by one iteration for the loads it can move:

    x0 = load(p(lo))                          # before the loop (under ``scf.if lo < hi`` unless the loop
    for i = lo..hi step s, carrying x = x0:   #  surely runs)
        n  = i + s < hi ? i + s : i           # the next iteration, or this one again in the last
        xn = load(p(n)) {prefetch = true}     # issued first: its DMA overlaps what follows
        ... the body, reading x ...
        yield ..., xn

The last iteration loads its own tile again instead of one past the end (one extra tile per loop, and no
address outside what the loop already reads; masks are computed from ``n`` as they were from ``i``).
Codegen issues a ``prefetch`` load without marking local memory as pending: the body's readers do not wait
for it; the yield that moves it into the carried block waits (``codegen/control.py``).  The loop gets
``{pipeline = 2}``, each moved load ``{prefetch = true}``.

A load moves when it is a block load of pointers (not volatile) directly in the loop body, its pointer, mask
and ``other`` are computed by pure ops of the body from the induction variable and values defined outside
the loop (never from other carried values), and it cannot see a store of the loop: every store in the loop
writes through a pointer parameter other than the one the load reads through (distinct pointer parameters
are distinct buffers, as ``mtiasim`` gives each its own array; a pointer not traced to a parameter blocks
the loop).  A loop with atomics, a barrier, a ``tt.dot`` (``pipeline-dots`` pipelines those) or a
non-constant or non-positive step is left alone.

Depth: the loop's ``num_stages`` hint (``tl.range(..., num_stages=)``) when it has one, else ``stages``
(the kernel's config ``num_stages``, default 2); 1 turns the pass off for the loop.  Deeper prefetch buys
nothing with one completion barrier, so any depth above 1 is 2.  Loads stop moving once twice their bytes
(the carried tile and the one in flight) would exceed ``lmem-bytes`` (half of mtia2i's local memory).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.atomic_ops import AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.core import Block, BlockArgument, Operation, Pure, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp
from mtiacc.opt.loop_unroll import clone_op
from mtiacc.opt.pass_manager import ModulePass, register_pass

POINTER_THROUGH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp, ExpandDimsOp, ReshapeOp)
BLOCKERS = (AtomicRMWOp, AtomicCASOp, BarrierOp, DotOp)


def root_pointer(v: Value) -> Optional[BlockArgument]:
    """The function parameter a pointer (block) is computed from by offsets and shape ops, if any."""
    while True:
        if isinstance(v, BlockArgument):
            owner = v.block.parent.parent if v.block.parent is not None else None
            return v if isinstance(owner, O.FuncOp) else None
        if not isinstance(v.op, POINTER_THROUGH):
            return None
        v = v.op.operands[0]


def _inside(v: Value, loop: scf.ForOp) -> bool:
    """Whether ``v`` is defined in ``loop``'s body (at any depth)."""
    node = v.block if isinstance(v, BlockArgument) else v.op.parent
    while node is not None:
        op = node.parent.parent if node.parent is not None else None
        if op is loop:
            return True
        node = op.parent if op is not None else None
    return False


def address_slice(ld: O.LoadOp, loop: scf.ForOp) -> Optional[List[Operation]]:
    """The body's ops that compute ``ld``'s operands, in body order, when they are pure and read only the
    induction variable and values from outside the loop; else None."""
    body, seen, out = loop.block, set(), []

    def visit(v: Value) -> bool:
        if not _inside(v, loop):
            return True
        if isinstance(v, BlockArgument):
            return v is loop.induction_var
        op = v.op
        if op.parent is not body or op.regions or Pure not in op.traits:
            return False
        if id(op) not in seen:
            seen.add(id(op))
            if not all(visit(o) for o in op.operands):
                return False
            out.append(op)
        return True

    if not all(visit(o) for o in ld.operands):
        return None
    return sorted(out, key=body.ops.index)


def _bytes(t) -> int:
    return t.numel * max(getattr(t.element_type, "width", 8), 8) // 8


def movable_loads(loop: scf.ForOp, lmem_bytes: int) -> List[O.LoadOp]:
    """The loads of ``loop``'s body this pass moves (the module docstring's rules)."""
    stored = []
    for op in loop.walk():
        if isinstance(op, BLOCKERS):
            return []
        if isinstance(op, O.StoreOp):
            root = root_pointer(op.ptr)
            if root is None:
                return []
            stored.append(root)
    out, used = [], 0
    for op in loop.block.ops:
        if not isinstance(op, O.LoadOp) or op.volatile or op.prefetch:
            continue
        t = op.result.type
        if not (t.is_block() and op.ptr.type.is_block()) or not (t.is_float() or t.is_int()):
            continue
        root = root_pointer(op.ptr)
        if root is None or any(root is s for s in stored) or address_slice(op, loop) is None:
            continue
        if used + 2 * _bytes(t) > lmem_bytes:
            continue
        used += 2 * _bytes(t)
        out.append(op)
    return out


def _emit(op: Operation, before: Operation) -> Value:
    before.parent.insert_before(before, op)
    return op.result


def _clone_loads(loads: Sequence[O.LoadOp], loop: scf.ForOp, iv: Value, before: Operation,
                 prefetch: bool) -> List[Value]:
    """Copies of ``loads`` (with their address slices) reading iteration ``iv``, inserted before ``before``."""
    mapping: Dict[int, Value] = {id(loop.induction_var): iv}
    done = set()
    out = []
    for ld in loads:
        for op in address_slice(ld, loop):
            if id(op) not in done:
                done.add(id(op))
                before.parent.insert_before(before, clone_op(op, mapping))
        new = clone_op(ld, mapping)
        if prefetch:   # the load keeps its name; the first tile and the carried block take none
            new.attrs["prefetch"] = True
        else:
            new.result.name_hint = None
        before.parent.insert_before(before, new)
        out.append(new.result)
    return out


def _prologue(loop: scf.ForOp, loads: Sequence[O.LoadOp]) -> List[Value]:
    """The first iteration's tiles, loaded before the loop (guarded when the loop may not run)."""
    trip = loop.constant_trip_count()
    if trip is not None and trip >= 1:
        return _clone_loads(loads, loop, loop.lower, loop, prefetch=False)
    loc = loop.loc
    runs = _emit(O.CmpIOp.get("slt", loop.lower, loop.upper, loc=loc), loop)
    guard = scf.IfOp.get(runs, [ld.result.type for ld in loads], loc=loc)
    loop.parent.insert_before(loop, guard)
    then_end = guard.then_block.append(scf.YieldOp.get([], loc=loc))
    tiles = _clone_loads(loads, loop, loop.lower, then_end, prefetch=False)
    guard.then_block.insert_before(then_end, scf.YieldOp.get(tiles, loc=loc))
    then_end.erase()
    zeros = [guard.else_block.append(O.ConstantOp.get(0, ld.result.type, loc=loc)).result for ld in loads]
    guard.else_block.append(scf.YieldOp.get(zeros, loc=loc))
    return list(guard.results)


def pipeline(loop: scf.ForOp, loads: Sequence[O.LoadOp], depth: int) -> None:
    loc, n = loop.loc, len(loop.inits)
    first = _prologue(loop, loads)
    names = [a.name_hint for a in loop.block.args] + [None] * len(loads)
    new = scf.ForOp.get(loop.lower, loop.upper, loop.step, list(loop.inits) + first, loc=loc, arg_names=names)
    new.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    new.attrs["pipeline"] = depth
    loop.parent.insert_before(loop, new)
    body = new.block
    anchor = body.append(scf.YieldOp.get([], loc=loc))
    iv = new.induction_var
    nxt = _emit(O.AddIOp.get(iv, loop.step, loc=loc), anchor)
    more = _emit(O.CmpIOp.get("slt", nxt, loop.upper, loc=loc), anchor)
    at = _emit(O.SelectOp.get(more, nxt, iv, loc=loc), anchor)
    ahead = _clone_loads(loads, loop, at, anchor, prefetch=True)
    anchor.erase()
    for old, arg in zip(loop.block.args, body.args[:n + 1]):
        old.replace_all_uses_with(arg)
    for ld, arg in zip(loads, body.args[n + 1:]):
        ld.result.replace_all_uses_with(arg)
        ld.erase()
    term = loop.block.terminator
    for op in list(loop.block.ops):
        if op is not term:
            loop.block.ops.remove(op)
            body.append(op)
    body.append(scf.YieldOp.get(list(term.values) + ahead, loc=term.loc))
    for old, res in zip(loop.results, new.results[:n]):
        res.name_hint = old.name_hint
        old.replace_all_uses_with(res)
    scf.erase_nested(loop)


def visit(block: Block, p: "PipelineLoads") -> bool:
    changed = False
    for op in list(block.ops):
        for r in op.regions:
            for b in r.blocks:
                changed |= visit(b, p)
        if not isinstance(op, scf.ForOp) or op.pipeline is not None or op.pipeline_stages is not None:
            continue
        step = O.const_value(op.step)
        stages = op.num_stages if op.num_stages is not None else p.stages
        if not isinstance(step, int) or step <= 0 or stages < 2 or op.constant_trip_count() == 0:
            continue
        loads = movable_loads(op, p.lmem_bytes)
        if loads:
            pipeline(op, loads, 2)
            changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class PipelineLoads(ModulePass):
    name = "pipeline-loads"
    stages: int = 2
    lmem_bytes: int = 196608

    def run(self, module: O.ModuleOp) -> Optional[bool]:
        return None if visit(module.body.block, self) else False


__all__ = ["PipelineLoads", "root_pointer", "address_slice", "movable_loads"]
