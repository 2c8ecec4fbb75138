"""``pipeline-dots``' back edge: the tiles of the next trip's first stage are fetched during this trip's last dot.

After :func:`mtiacc.opt.dots.pipeline.hoist_next_loads` each stage ``s + 1``'s loads are issued before stage
``s``'s dot, but the first stage's loads are still at the top of the body: they issue only once the core has
issued the last stage's engine commands, and with a command queue shorter than a dot (an 8-bit dot of
``256 x 128 x 128`` is 32 commands, the queue 16) the core reaches them when that dot is half done, too late for
the transfer to land before the engine runs out of work.  This module rotates the loop by one stage:

    t0 = load(p(lo)) {guard = lo < hi}              # the first trip's first stage, before the loop
    for i = lo .. hi step S * s, carrying t0 {pipeline_stages = S, pipeline = 2}:
        ... stage 0's dot reads the carried t0 ...
        ... stages 1 .. S - 1 as before, stage S - 1's loads before stage S - 2's dot ...
        t0' = load(p(i + S * s)) {prefetch, guard = i + S * s < hi}   # before stage S - 1's dot
        dot(stage S - 1)
        yield ..., t0'

The prefetch's addresses are computed from the next trip's induction variable and carried scalars (the yielded
values, the scalar ops computing them moved before the prefetch); past the loop's end the guard moves nothing
and the addresses are this trip's (selects on the guard).  Codegen lands ``t0'`` in the carried block's home
(``select/table.py``); the command processor keeps the transfer from overwriting bytes the engine still reads.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.atomic_ops import AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.analysis.slices import op_inside
from mtiacc.ir.core import Block, BlockArgument, Operation, Pure, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.types import FloatType
from mtiacc.opt.loop_unroll import clone_op

def _split_on_vector(dot: DotOp) -> bool:
    """Whether ``dot``'s operands are f32, split into bf16 parts on the vector unit before the engine sees them
    (``codegen/matrix/dot.py``): the vector unit, not the engine's command queue, paces such a loop, and the
    rotation only adds scalar work (measured: three resnet18 convolutions of the corpus, tf32, 0.3-0.8% slower)."""
    t = dot.a.type.element_type
    return isinstance(t, FloatType) and t.kind == "f32"


def _emit(op: Operation, before: Operation) -> Value:
    before.parent.insert_before(before, op)
    return op.result


class _Slice:
    """The pure ops of a loop body computing some values, in body order, when they read only the induction
    variable, scalar carried values and values from outside the loop."""

    def __init__(self, loop: scf.ForOp, stop: Optional[Operation] = None):
        self.loop, self.body, self.stop = loop, loop.block, stop
        self.ops: List[Operation] = []
        self.args: List[BlockArgument] = []
        self.seen = set()

    def add(self, v: Value) -> bool:
        body = self.body
        if isinstance(v, BlockArgument):
            if v.block is not body:
                return True
            if v is self.loop.induction_var or not v.type.is_block():
                if v not in self.args:
                    self.args.append(v)
                return True
            return False
        op = v.op
        if op.parent is not body:
            return op.parent is not None and not op_inside(op, self.loop)
        if self.stop is not None and body.ops.index(op) < body.ops.index(self.stop):
            return True   # computed before the stop: available there as it is
        if op.regions or Pure not in op.traits:
            return isinstance(op, O.LoadOp) and self.stop is None and self._load(op)
        if id(op) not in self.seen:
            self.seen.add(id(op))
            if not all(self.add(o) for o in op.operands):
                return False
            self.ops.append(op)
        return True

    def _load(self, ld: O.LoadOp) -> bool:
        if ld.volatile or ld.prefetch or ld.guard is not None or id(ld) in self.seen:
            return id(ld) in self.seen
        self.seen.add(id(ld))
        if not all(self.add(o) for o in ld.operands):
            return False
        self.ops.append(ld)
        return True

    def ordered(self) -> List[Operation]:
        return sorted(self.ops, key=self.body.ops.index)


def prefetch_across(loop: scf.ForOp, loaded: Callable[[Value, Block], Optional[O.LoadOp]],
                    trip_may_be_zero: bool) -> Optional[scf.ForOp]:
    """Rotate ``loop`` (a pipelined main loop, :func:`hoist_next_loads` applied) as the module docstring says;
    ``loaded(v, body)``: the load of ``body`` producing dot operand ``v``.  Returns the new loop, or None when
    it does not qualify (it is then unchanged)."""
    body = loop.block
    if any(isinstance(op, (O.StoreOp, AtomicRMWOp, AtomicCASOp, BarrierOp)) for op in loop.walk()):
        return None
    dots = [op for op in body.ops if isinstance(op, DotOp)]
    if len(dots) < 2 or any(_split_on_vector(d) for d in dots):
        return None
    loads = list(dict.fromkeys(ld for ld in (loaded(v, body) for v in (dots[0].a, dots[0].b)) if ld is not None))
    if not loads or any(ld.prefetch or ld.guard is not None or ld.volatile for ld in loads):
        return None
    if any(body.ops.index(ld) > body.ops.index(dots[0]) for ld in loads):
        return None
    # the second stage's loads go before the first stage's dot (hoist_next_loads): their prefetch waits for the
    # transfers in flight, the carried tiles among them, before that dot reads them
    second = [loaded(v, body) for v in (dots[1].a, dots[1].b)]
    if not any(ld is not None and ld.prefetch and body.ops.index(ld) < body.ops.index(dots[0]) for ld in second):
        return None
    # the first stage's tiles are read by its dot only (through shape ops)
    for ld in loads:
        if len(ld.result.uses) != 1:
            return None
    fetch = _Slice(loop)
    if not all(fetch._load(ld) for ld in loads):
        return None
    anchor = dots[-1]
    term = body.terminator
    index = {id(a): i for i, a in enumerate(loop.iter_args)}
    # the carried scalars the next trip's addresses read: their yielded values, computed before the last dot
    nexts = _Slice(loop, stop=anchor)
    for a in fetch.args:
        if a is not loop.induction_var and not nexts.add(term.values[index[id(a)]]):
            return None
    if any(isinstance(op, O.LoadOp) for op in nexts.ops):
        return None
    moved = nexts.ordered()
    moved_ids = {id(op) for op in moved}

    loc, n = loop.loc, len(loop.inits)
    # the first trip's tiles, before the loop
    pre: Dict[int, Value] = {id(loop.induction_var): loop.lower}
    for a, init in zip(loop.iter_args, loop.inits):
        pre[id(a)] = init
    runs = _emit(O.CmpIOp.get("slt", loop.lower, loop.upper, loc=loc), loop) if trip_may_be_zero else None
    for op in fetch.ordered():
        new = clone_op(op, pre)
        loop.parent.insert_before(loop, new)
        if isinstance(op, O.LoadOp):
            new.result.name_hint = None
            if runs is not None:
                new.set_guard(runs)
    first = [pre[id(ld.result)] for ld in loads]
    names = [a.name_hint for a in loop.block.args] + [ld.result.name_hint for ld in loads]
    new_loop = scf.ForOp.get(loop.lower, loop.upper, loop.step, list(loop.inits) + first, loc=loc, arg_names=names)
    new_loop.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    new_loop.attrs["pipeline"] = 2   # the first stage's loads run a trip ahead (codegen waits at the body's top)
    loop.parent.insert_before(loop, new_loop)
    nb = new_loop.block
    end = nb.append(scf.YieldOp.get([], loc=loc))
    m: Dict[int, Value] = {id(loop.induction_var): new_loop.induction_var}
    for a, v in zip(loop.iter_args, new_loop.iter_args[:n]):
        m[id(a)] = v
    for ld, v in zip(loads, new_loop.iter_args[n:]):
        m[id(ld.result)] = v
    tiles: List[Value] = []
    for op in body.ops:
        if op is term or id(op) in moved_ids or op in loads:
            continue   # the moved ops go before the prefetch; the first stage's loads are the carried tiles
        if op is anchor:
            for mv in moved:
                nb.insert_before(end, clone_op(mv, m))
            tiles = _prefetch(loop, fetch, loads, m, end)
        nb.insert_before(end, clone_op(op, m))
    nb.insert_before(end, scf.YieldOp.get([m.get(id(v), v) for v in term.values] + tiles, loc=term.loc))
    end.erase()
    for old, new in zip(loop.results, new_loop.results[:n]):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    scf.erase_nested(loop)
    return new_loop


def _prefetch(loop: scf.ForOp, fetch: _Slice, loads: List[O.LoadOp], m: Dict[int, Value],
              end: Operation) -> List[Value]:
    """The next trip's first-stage tiles, before ``end``'s position (the last dot's clone comes next)."""
    loc = loop.loc
    iv = m[id(loop.induction_var)]
    nxt = _emit(O.AddIOp.get(iv, loop.step, loc=loc), end)
    more = _emit(O.CmpIOp.get("slt", nxt, m.get(id(loop.upper), loop.upper), loc=loc), end)
    at: Dict[int, Value] = {id(loop.induction_var): _emit(O.SelectOp.get(more, nxt, iv, loc=loc), end)}
    term = loop.block.terminator
    for i, a in enumerate(loop.iter_args):
        if a in fetch.args:
            at[id(a)] = _emit(O.SelectOp.get(more, m.get(id(term.values[i]), term.values[i]), m[id(a)], loc=loc),
                              end)
    for op in fetch.ordered():
        new = clone_op(op, at)
        end.parent.insert_before(end, new)
        if isinstance(op, O.LoadOp):
            new.attrs["prefetch"] = True
            new.set_guard(more)
    return [at[id(ld.result)] for ld in loads]


__all__ = ["prefetch_across"]
