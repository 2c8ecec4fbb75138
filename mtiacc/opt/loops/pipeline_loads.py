"""``pipeline-loads``: software-pipeline the tile loads of ``scf.for`` loops, so that the DMA of the next
iteration's tiles runs while this iteration computes.

A PE's DMA engine has one completion barrier (``mtia.dma.wait`` waits for every transfer issued), so a load
whose data is read in the same iteration makes the DMA and the compute take turns.  This pass runs the loop
two iterations a trip, ping-pong, each copy of the body computing on tiles fetched while the other computed:

    a = load(p(lo))                            # the first tiles, before the loop (under ``scf.if lo < hi``
    for i = lo .. lo + 2s * (trip // 2) step 2s, carrying a:   # unless they read nothing then)
        b  = load(p(i + s)) {prefetch = true}  # runs while the first copy computes
        ... the body at i, reading a ...
        a' = load(p(i + 2s)) {prefetch = true} # runs while the second copy computes
        ... the body at i + s, reading b ...
        yield ..., a'
    if the trip count is odd: the body at the last i, reading the carried a

A loop of ``persistent-programs`` runs at least once, so its first tiles need no ``scf.if`` either.
``p(i + 2s)`` past the end reads nothing: its addresses are this iteration's (``i + 2s < hi ? i + 2s : i``: no
address the loop did not read; masks are computed from it as they were from ``i``) and the load is guarded by
``i + 2s < hi`` (its ``guard`` operand: no transfer when false), unless the load's mask reads nothing past the end (``cols = off + tl.arange(0, B)``, ``mask = cols < N`` in ``range(0, N, B)``):
then it reads ``i + 2s`` (nothing), and when every moved load is so, the first tiles need no ``scf.if``.
Codegen (``select/table.py``, ``select/isel.py``) waits before a prefetch for the transfers in flight (the
tiles the next copy reads) and before the first reader of a prefetched tile, not before the other ops; ``a'``
lands in the carried block's home (no copy at the yield).  The loop gets ``{pipeline = 2}``, each moved load
``{prefetch = true}``.

A load moves when it is a block load of pointers (not volatile) directly in the loop body, its pointer, mask
and ``other`` are computed by pure ops of the body from the induction variable, values defined outside the
loop and *counters* (carried integers the body advances by a loop-invariant amount, ``c + d``: Triton's
tutorial 06 walks K and V by ``offsetk_y += BLOCK_N``; a copy of the load ``k`` iterations ahead reads
``c + k * d``, the prologue's the loop's init) but never other carried values, and it cannot see a store of
the loop: every store in the loop
writes through a pointer parameter other than the one the load reads through and not one the kernel's
``may_alias`` groups with it (distinct pointer parameters are distinct buffers unless the launch passed shared
memory: ``ir/analysis/pointers.py``, ``may_share``; a pointer not traced to a parameter blocks the loop),
and its tile does not reach the pointer or mask of another load or store (a gather's indices: needed at once).  A loop with atomics or a barrier is left alone, and so is one with a ``tt.dot`` that
``pipeline-dots`` pipelines (it takes those whose products are not chained: ``chained_products``), and so is
one whose step is not known positive: a positive constant, or ``tl.num_programs(axis)``, the stride of a row
loop the programs share (Triton's tutorial 02: ``for row in tl.range(tl.program_id(0), n_rows,
tl.num_programs(0), num_stages=...)``), whose pairs then end at ``lower + (ceil((upper - lower) / step) // 2) *
2 * step``, computed before the loop.

Depth: the loop's ``num_stages`` hint (``tl.range(..., num_stages=)``) when it has one, else ``stages``
(the kernel's config ``num_stages``, default 2); 1 turns the pass off for the loop.  Deeper prefetch buys
nothing with one completion barrier, so any depth above 1 is 2.  Loads stop moving once twice their bytes
(the carried tile and the one in flight) would exceed what the local-memory plan leaves free while the loop
runs (``lmem-bytes``, when set); in a loop with dots four times their bytes (the first tiles, chosen by the
prologue's ``scf.if``, and the blocks the engine still reads live beside them: tutorial 06's forward at head dim
128 did not fit at twice).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Optional, Sequence, Union

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.atomic_ops import AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.core import Block, BlockArgument, Operation, Value
from mtiacc.ir.analysis.pointers import POINTER_THROUGH, may_share, root_pointer
from mtiacc.ir.analysis.slices import defined_in, pure_slice
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import TransOp
from mtiacc.opt.dots.pipeline import chained_products, main_upper
from mtiacc.opt.loop_unroll import clone_op
from mtiacc.opt.memory.plan import LocalMemoryPlan, plan_function
from mtiacc.opt.pass_manager import ModulePass, PassContext, Remark, register_pass

BLOCKERS = (AtomicRMWOp, AtomicCASOp, BarrierOp)
# a transposed pointer block (transposed-loads' tt.trans of K's pointers) points into its parameter's buffer too
THROUGH = POINTER_THROUGH + (TransOp,)


_inside = defined_in


def counters(loop: scf.ForOp) -> Dict[int, Value]:
    """The loop's scalar integer iter args that the body advances by a loop-invariant amount (the yield is
    ``arg + d``, ``d`` defined outside the loop): id of the arg -> ``d``."""
    out: Dict[int, Value] = {}
    for arg, y in zip(loop.iter_args, loop.block.terminator.values):
        if arg.type.is_block() or not arg.type.is_int() or not _is(y, O.AddIOp) or y.op.parent is not loop.block:
            continue
        a, b = y.op.operands
        for x, d in ((a, b), (b, a)):
            if x is arg and not defined_in(d, loop):
                out[id(arg)] = d
    return out


def address_slice(ld: O.LoadOp, loop: scf.ForOp) -> Optional[List[Operation]]:
    """The body's ops that compute ``ld``'s operands, in body order, when they are pure and read only the
    induction variable, counters (:func:`counters`) and values from outside the loop; else None."""
    found = counters(loop)
    return pure_slice(ld.operands, loop, leaves=frozenset(a for a in loop.iter_args if id(a) in found))


def _is(v: Value, cls) -> bool:
    return not isinstance(v, BlockArgument) and isinstance(v.op, cls)


def empty_past_end(ld: O.LoadOp, loop: scf.ForOp) -> bool:
    """Whether ``ld`` reads nothing at any ``iv >= upper``: its mask is ``splat(iv) + range(s, e) <
    splat(upper)`` with ``s >= 0`` (``cols = off + tl.arange(0, B)``, ``mask = cols < N`` of a loop
    ``range(0, N, B)``)."""
    m = ld.mask
    if m is None or not _is(m, O.CmpIOp) or m.op.predicate != "slt" or len(m.type.shape) != 1:
        return False
    lhs, rhs = m.op.lhs, m.op.rhs
    if not (_is(rhs, O.SplatOp) and rhs.op.src is loop.upper and _is(lhs, O.AddIOp)):
        return False
    a, b = lhs.op.operands
    for iv, rng in ((a, b), (b, a)):
        if _is(iv, O.SplatOp) and iv.op.src is loop.induction_var and _is(rng, O.MakeRangeOp) \
                and rng.op.start >= 0:
            return True
    return False


def feeds_addresses(ld: O.LoadOp, loop: scf.ForOp) -> bool:
    """Whether ``ld``'s tile reaches the pointer or mask of a load or store of the body (indices of a gather):
    the body needs those now, so fetching them early buys nothing."""
    seen, work = set(), [ld.result]
    while work:
        v = work.pop()
        for u in v.uses:
            op = u.op
            if isinstance(op, (O.LoadOp, O.StoreOp)) and v is not getattr(op, "value", None):
                return True
            if id(op) not in seen and op.parent is loop.block:
                seen.add(id(op))
                work.extend(op.results)
    return False


def _bytes(t) -> int:
    return t.numel * max(getattr(t.element_type, "width", 8), 8) // 8


def movable_loads(loop: scf.ForOp, lmem_bytes: Union[int, Callable[[], int]]) -> List[O.LoadOp]:
    """The loads of ``loop``'s body this pass moves (the module docstring's rules).  ``lmem_bytes`` may be a
    function giving the bytes, called only when a load is otherwise movable (planning costs compile time)."""
    stored, dots = [], False
    for op in loop.walk():
        if isinstance(op, BLOCKERS) or (isinstance(op, DotOp) and not chained_products(loop)):
            return []
        dots = dots or isinstance(op, DotOp)
        if isinstance(op, O.StoreOp):
            root = root_pointer(op.ptr, THROUGH)
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
        root = root_pointer(op.ptr, THROUGH)
        if root is None or any(may_share(root, s) for s in stored) or address_slice(op, loop) is None \
                or feeds_addresses(op, loop):
            continue
        if callable(lmem_bytes):
            lmem_bytes = lmem_bytes()
        copies = 4 if dots else 2    # with dots: the first tiles' blocks and the engine's operands live beside
        if used + copies * _bytes(t) > lmem_bytes:
            continue
        used += copies * _bytes(t)
        out.append(op)
    return out


def free_for_loads(func: O.FuncOp, loop: scf.ForOp, ctx: PassContext,
                   plan: Optional[LocalMemoryPlan] = None) -> int:
    """The bytes the two copies of ``loop``'s moved tiles may take: what the local-memory plan leaves free while
    the loop runs (a moved tile's own block still counted: one copy more than it needs, as its first copy
    lives from before the loop).  ``plan``: ``func``'s plan, when the caller has it for ``func`` as it is."""
    plan = plan or plan_function(func, ctx.target)
    return plan.share(2, plan.free_in(loop))


def _emit(op: Operation, before: Operation) -> Value:
    before.parent.insert_before(before, op)
    return op.result


def _clone_loads(loads: Sequence[O.LoadOp], loop: scf.ForOp, iv: Value, before: Operation,
                 prefetch: bool, at: Optional[Dict[int, Value]] = None) -> List[Value]:
    """Copies of ``loads`` (with their address slices) reading iteration ``iv``, inserted before ``before``;
    ``at``: the counters' values at that iteration (id of the old loop's arg -> value)."""
    mapping: Dict[int, Value] = {id(loop.induction_var): iv, **(at or {})}
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
    """The first iteration's tiles, loaded before the loop (guarded when the loop may not run, unless the
    loads read nothing then)."""
    trip = loop.constant_trip_count()
    # a `persistent-programs` loop runs at least once: its launch starts only programs that exist
    first = {id(a): init for a, init in zip(loop.iter_args, loop.inits) if id(a) in counters(loop)}
    if (trip is not None and trip >= 1) or loop.persistent or all(empty_past_end(ld, loop) for ld in loads):
        return _clone_loads(loads, loop, loop.lower, loop, prefetch=False, at=first)
    loc = loop.loc
    runs = _emit(O.CmpIOp.get("slt", loop.lower, loop.upper, loc=loc), loop)
    guard = scf.IfOp.get(runs, [ld.result.type for ld in loads], loc=loc)
    loop.parent.insert_before(loop, guard)
    then_end = guard.then_block.append(scf.YieldOp.get([], loc=loc))
    tiles = _clone_loads(loads, loop, loop.lower, then_end, prefetch=False, at=first)
    guard.then_block.insert_before(then_end, scf.YieldOp.get(tiles, loc=loc))
    then_end.erase()
    zeros = [guard.else_block.append(O.ConstantOp.get(0, ld.result.type, loc=loc)).result for ld in loads]
    guard.else_block.append(scf.YieldOp.get(zeros, loc=loc))
    return list(guard.results)


def _ahead(loop: scf.ForOp, loads: Sequence[O.LoadOp], iv: Value, at: Value, anchor: Operation,
           may_pass_end: bool, now: Dict[int, Value], k: int) -> List[Value]:
    """The prefetch of the tiles of iteration ``at``, ``k`` iterations ahead (inside the loop; ``iv``: the
    current one; ``now``: the counters' values at ``iv``).  When ``at`` may be past the loop's end
    (``may_pass_end``), a load whose mask does not say so reads iteration ``iv``'s addresses instead, and is
    guarded: it moves nothing then."""
    loc, safe, more, out = loop.loc, None, None, []
    steps = counters(loop)
    later: Dict[int, Value] = {}
    for key, c in now.items():   # c + k * d
        v = c
        for _ in range(k):
            v = _emit(O.AddIOp.get(v, steps[key], loc=loc), anchor)
        later[key] = v
    safe_at: Dict[int, Value] = {}
    for ld in loads:   # past the end: nothing (the mask says so), else nothing under the guard
        where, vals = at, later
        if not empty_past_end(ld, loop):
            if safe is None:
                more = _emit(O.CmpIOp.get("slt", at, loop.upper, loc=loc), anchor)
                safe = _emit(O.SelectOp.get(more, at, iv, loc=loc), anchor)
                safe_at = {key: _emit(O.SelectOp.get(more, later[key], now[key], loc=loc), anchor) for key in now}
            where, vals = safe, safe_at
        tile = _clone_loads([ld], loop, where, anchor, prefetch=True, at=vals)
        if where is safe and may_pass_end:
            tile[0].op.set_guard(more)
        out += tile
    return out


def _clone_body(loop: scf.ForOp, loads: Sequence[O.LoadOp], anchor: Operation, iv: Value,
                carried: Sequence[Value], tiles: Sequence[Value]) -> List[Value]:
    """One copy of the body before ``anchor``, its moved loads replaced by ``tiles``; returns the values it
    yields."""
    mapping: Dict[int, Value] = {id(loop.induction_var): iv}
    for a, v in zip(loop.iter_args, carried):
        mapping[id(a)] = v
    for ld, t in zip(loads, tiles):
        mapping[id(ld.result)] = t
    moved = {id(ld) for ld in loads}
    term = loop.block.terminator
    for op in loop.block.ops:
        if op is not term and id(op) not in moved:
            anchor.parent.insert_before(anchor, clone_op(op, mapping))
    return [mapping.get(id(v), v) for v in term.values]


def positive_step(loop: scf.ForOp) -> bool:
    """Whether ``loop``'s step is positive at every launch: a constant above 0, or ``tl.num_programs(axis)`` (at
    least one program runs; the stride of a loop over rows shared by the programs, as in Triton's tutorial 02:
    ``for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0))``)."""
    step = O.const_value(loop.step)
    if step is not None:
        return isinstance(step, int) and step > 0
    return _is(loop.step, O.GetNumProgramsOp)


def _pairs_upper(loop: scf.ForOp):
    """For a step known only at run time (``positive_step``): the upper bound of the two-iterations-a-trip
    loop, ``lower + (ceil(max(upper - lower, 0) / step) // 2) * 2 * step``, and ``2 * step``."""
    lo, hi, st, loc = loop.lower, loop.upper, loop.step, loop.loc

    def const(v):
        return _emit(O.ConstantOp.get(v, lo.type, loc=loc), loop)
    diff = _emit(O.MaxSIOp.get(_emit(O.SubIOp.get(hi, lo, loc=loc), loop), const(0), loc=loc), loop)
    count = _emit(O.DivSIOp.get(_emit(O.AddIOp.get(diff, _emit(O.SubIOp.get(st, const(1), loc=loc), loop),
                                                   loc=loc), loop), st, loc=loc), loop)
    pairs = _emit(O.DivSIOp.get(count, const(2), loc=loc), loop)
    two = _emit(O.AddIOp.get(st, st, loc=loc), loop)
    return _emit(O.AddIOp.get(lo, _emit(O.MulIOp.get(pairs, two, loc=loc), loop), loc=loc), loop), two


def pipeline(loop: scf.ForOp, loads: Sequence[O.LoadOp], depth: int) -> None:
    """Two iterations a trip, ping-pong: tile B is fetched while the body computes on tile A, then A's
    home receives the tile after B while the body computes on B; an odd last iteration runs after."""
    loc, n, step = loop.loc, len(loop.inits), O.const_value(loop.step)
    trip = loop.constant_trip_count()
    first = _prologue(loop, loads)
    names = [a.name_hint for a in loop.block.args] + [None] * len(loads)
    if step is not None:
        hi = main_upper(loop, 2, step, trip)
        two = _emit(O.ConstantOp.get(2 * step, loop.step.type, loc=loc), loop)
    else:
        hi, two = _pairs_upper(loop)
    new = scf.ForOp.get(loop.lower, hi, two, list(loop.inits) + first, loc=loc, arg_names=names)
    new.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    new.attrs["pipeline"] = depth
    loop.parent.insert_before(loop, new)
    anchor = new.block.append(scf.YieldOp.get([], loc=loc))
    iv, args = new.induction_var, list(new.iter_args)
    now = {id(a): args[i] for i, a in enumerate(loop.iter_args) if id(a) in counters(loop)}
    one = _emit(O.AddIOp.get(iv, loop.step, loc=loc), anchor)
    after = _emit(O.AddIOp.get(iv, two, loc=loc), anchor)
    b_tiles = _ahead(loop, loads, iv, one, anchor, False, now, 1)   # iv + s < hi: always inside
    mid = _clone_body(loop, loads, anchor, iv, args[:n], args[n:])
    a_tiles = _ahead(loop, loads, iv, after, anchor, True, now, 2)
    out = _clone_body(loop, loads, anchor, one, mid, b_tiles)
    new.block.insert_before(anchor, scf.YieldOp.get(out + a_tiles, loc=loop.block.terminator.loc))
    anchor.erase()
    results = list(new.results[:n])
    if trip is None:   # the odd last iteration, on the tiles the loop fetched last
        rest = _emit(O.CmpIOp.get("slt", hi, loop.upper, loc=loc), loop)
        guard = scf.IfOp.get(rest, [r.type for r in loop.results], loc=loc)
        loop.parent.insert_before(loop, guard)
        end = guard.then_block.append(scf.YieldOp.get([], loc=loc))
        vals = _clone_body(loop, loads, end, hi, results, new.results[n:])
        guard.then_block.insert_before(end, scf.YieldOp.get(vals, loc=loc))
        end.erase()
        guard.else_block.append(scf.YieldOp.get(results, loc=loc))
        results = list(guard.results)
    elif trip % 2:
        results = _clone_body(loop, loads, loop, hi, results, new.results[n:])
    for old, res in zip(loop.results, results):
        res.name_hint = old.name_hint
        old.replace_all_uses_with(res)
    scf.erase_nested(loop)


def visit(block: Block, p: "PipelineLoads", ctx: PassContext, func: O.FuncOp, plans: list) -> bool:
    """Pipeline the loops nested in ``block``, innermost first.  ``plans``: ``func``'s local-memory plan once
    computed (``[plan]``), emptied when a loop is pipelined (the function changed)."""
    changed = False
    for op in list(block.ops):
        for r in op.regions:
            for b in r.blocks:
                changed |= visit(b, p, ctx, func, plans)
        if not isinstance(op, scf.ForOp) or op.pipeline is not None or op.pipeline_stages is not None:
            continue
        stages = op.num_stages if op.num_stages is not None else p.stages
        trip = op.constant_trip_count()
        if not positive_step(op) or stages < 2 or (trip is not None and trip < 2):
            continue
        def free(loop=op) -> int:
            if not plans:
                plans.append(plan_function(func, ctx.target))
            return free_for_loads(func, loop, ctx, plans[0])
        loads = movable_loads(op, p.lmem_bytes or free)
        if loads:
            pipeline(op, loads, 2)
            plans.clear()
            changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class PipelineLoads(ModulePass):
    name = "pipeline-loads"
    stages: int = 2
    lmem_bytes: int = 0     # bytes the tiles fetched ahead may take; 0: what the local-memory plan leaves
    needs_context = True

    def run(self, module: O.ModuleOp, ctx: PassContext) -> Optional[bool]:
        changed = False
        for func in [op for op in module.body.block.ops if isinstance(op, O.FuncOp)]:
            changed |= visit(func.entry, self, ctx, func, [])
        return None if changed else False


__all__ = ["PipelineLoads", "root_pointer", "address_slice", "movable_loads", "empty_past_end"]
