"""``loop-unroll``: unroll ``scf.for`` loops whose trip count is a constant.

* Full unrolling (the default): a loop of at most ``max-trip`` iterations (16) becomes that many
  copies of its body, the induction variable a constant in each, the carried values threaded from
  one copy to the next; the loop's results are the last copy's yields.
* Partial unrolling, ``loop-unroll{factor=N}``: a loop whose trip count is a multiple of N gets a
  step N times larger and N copies of its body (the k-th sees ``iv + k * step``).
* A K loop of two trips or more (:func:`mtiacc.ir.analysis.k_loops.is_k_loop`: its dots read tiles its body
  loads) is unrolled whole only while every trip's tiles and each product's accumulators (what the unrolled
  code keeps live: codegen holds the blocks engine commands read until it waits for the engine) fit the share
  of local memory the plan gives tiles fetched ahead (``pipeline-dots``' share of what the plan leaves free
  while the loop runs); else it is left to ``pipeline-dots``, which unrolls it by as many stages as the plan
  holds and keeps the accumulators in the engine across the loop (``loop-unroll{k-loops=true}`` unrolls it as
  any other).

Inner loops are unrolled first.  Loops with non-constant bounds are left alone.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Sequence

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Block, Operation, Region, Value
from mtiacc.ir.analysis.k_loops import is_k_loop, stage_loads
from mtiacc.opt.pass_manager import ModulePass, PassContext, register_pass


def clone_op(op: Operation, mapping: Dict[int, Value]) -> Operation:
    """A deep copy of ``op`` whose operands go through ``mapping`` (id(old) -> new); results are added to it."""
    regions = []
    for r in op.regions:
        nr = Region()
        for b in r.blocks:
            nb = Block([a.type for a in b.args], [a.name_hint for a in b.args])
            for a, na in zip(b.args, nb.args):
                mapping[id(a)] = na
            nr.add_block(nb)
        regions.append(nr)
    new = type(op)([mapping.get(id(v), v) for v in op.operands], [r.type for r in op.results],
                   dict(op.attrs), loc=op.loc, regions=regions, segments=op.segments)
    for old, res in zip(op.results, new.results):
        res.name_hint = old.name_hint
        mapping[id(old)] = res
    for r, nr in zip(op.regions, regions):
        for b, nb in zip(r.blocks, nr.blocks):
            for inner in b.ops:
                nb.append(clone_op(inner, mapping))
    return new


def _copy_body(loop: scf.ForOp, before: Operation, iv: Value, carried: Sequence[Value]) -> List[Value]:
    """Insert one copy of the body before ``before``; returns the values it yields."""
    mapping: Dict[int, Value] = {id(loop.induction_var): iv}
    for a, v in zip(loop.iter_args, carried):
        mapping[id(a)] = v
    term = loop.block.terminator
    for op in loop.block.ops:
        if op is term:
            continue
        before.parent.insert_before(before, clone_op(op, mapping))
    return [mapping.get(id(v), v) for v in term.values]


def _const(value: int, like: Value, before: Operation) -> Value:
    c = O.ConstantOp.get(value, like.type, loc=before.loc)
    before.parent.insert_before(before, c)
    return c.result


def full_unroll(loop: scf.ForOp, trip: int) -> None:
    lo, st = O.const_value(loop.lower), O.const_value(loop.step)
    carried = list(loop.inits)
    for k in range(trip):
        carried = _copy_body(loop, loop, _const(lo + k * st, loop.lower, loop), carried)
    for r, v in zip(loop.results, carried):
        r.replace_all_uses_with(v)
    scf.erase_nested(loop)


def partial_unroll(loop: scf.ForOp, factor: int) -> None:
    st = O.const_value(loop.step)
    new_step = _const(st * factor, loop.step, loop)
    new = scf.ForOp.get(loop.lower, loop.upper, new_step, list(loop.inits), loc=loop.loc,
                        arg_names=[a.name_hint for a in loop.block.args])
    loop.parent.insert_before(loop, new)
    body = new.block
    anchor = body.append(scf.YieldOp.get([], loc=loop.loc))   # a placeholder to insert before
    carried: List[Value] = list(new.iter_args)
    for k in range(factor):
        iv = new.induction_var
        if k:
            off = _const(k * st, loop.step, anchor)
            add = O.AddIOp.get(new.induction_var, off, loc=loop.loc)
            body.insert_before(anchor, add)
            iv = add.result
        carried = _copy_body(loop, anchor, iv, carried)
    body.insert_before(anchor, scf.YieldOp.get(carried, loc=loop.block.terminator.loc))
    anchor.erase()
    for r, nr in zip(loop.results, new.results):
        nr.name_hint = r.name_hint
        r.replace_all_uses_with(nr)
    scf.erase_nested(loop)


def _fetched_ahead(loop: scf.ForOp, trip: int) -> int:
    """The bytes a K loop unrolled whole keeps live: every trip's tiles and each product's accumulators (codegen
    keeps the blocks engine commands read until it waits for the engine), or one trip's when the body waits for
    the engine anyway (an op of the core or the vector unit on local memory, a dot's fp32 operands split)."""
    from mtiacc.ir.dot_ops import DotOp
    from mtiacc.opt.memory.plan import block_bytes, drains_engine
    tiles = sum(block_bytes(ld.result.type) for ld in stage_loads(loop))
    accs = sum(block_bytes(op.result.type) for op in loop.block.ops if isinstance(op, DotOp))
    return (1 if any(drains_engine(op) for op in loop.block.ops) else trip) * (tiles + accs)


def unroll_block(block: Block, max_trip: int, factor: int, k_loops: bool = True, budget=None) -> bool:
    """Unroll the loops of ``block`` and the blocks nested in it; whether any was unrolled.  ``budget(loop)``: the
    bytes a K loop unrolled whole may keep live (None: K loops are not unrolled whole)."""
    changed = False
    for op in list(block.ops):
        for r in op.regions:
            for b in r.blocks:
                changed |= unroll_block(b, max_trip, factor, k_loops, budget)
        if not isinstance(op, scf.ForOp):
            continue
        trip = op.constant_trip_count()
        if trip is None:
            continue
        if not k_loops and trip >= 2 and is_k_loop(op) and (
                budget is None or factor > 1 or trip > max_trip or _fetched_ahead(op, trip) > budget(op)):
            continue
        if factor > 1:
            if trip % factor == 0 and trip >= factor:
                partial_unroll(op, factor)
                changed = True
        elif trip <= max_trip:
            full_unroll(op, trip)
            changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class LoopUnroll(ModulePass):
    name = "loop-unroll"
    max_trip: int = 16
    factor: int = 0
    k_loops: bool = False     # unroll every K loop (else those whose trips do not fit go to pipeline-dots)
    needs_context = True

    def run(self, module: O.ModuleOp, ctx: PassContext) -> bool:
        from mtiacc.opt.memory.plan import plan_function
        changed = False
        for func in [op for op in module.body.block.ops if isinstance(op, O.FuncOp)]:
            plan = []

            def budget(loop: scf.ForOp) -> int:
                if not plan:
                    plan.append(plan_function(func, ctx.target))
                return plan[0].share(2, plan[0].free_in(loop, [ld.result for ld in stage_loads(loop)]))
            changed |= unroll_block(func.entry, self.max_trip, self.factor, self.k_loops, budget)
        return changed
