"""Structured control flow (``scf.*``) and calls (``tt.call``).

Every op here keeps control flow structured: a region op runs its regions and hands values out
through its results; nothing jumps.

* ``scf.for(lower, upper, step, inits...)``: one region whose single block takes the induction
  variable and one argument per init (the loop-carried values).  ``iv`` takes ``lower``,
  ``lower + step``, ... while ``iv < upper`` (signed); ``step`` must be positive (the frontend
  turns a constexpr negative step around, as Triton does).  The body ends with ``scf.yield``
  of the next carried values; the results are the carried values after the last iteration
  (the inits when the loop runs zero times).  ``lower``, ``upper``, ``step`` and ``iv`` share one
  scalar integer type.
* ``scf.if(cond)``: a then region and an else region, each one block without arguments ending
  with ``scf.yield`` of the results (an else region of an op without results may be just a yield).
* ``scf.while(inits...)``: a *before* region whose block takes the carried values and ends with
  ``scf.condition(cond, args...)``: when ``cond`` is false the loop ends with ``args`` as its
  results; otherwise the *after* region's block takes ``args`` and ends with ``scf.yield`` of the
  next carried values.
* ``tt.call(args...) {callee = "name"}``: calls the ``tt.func`` of that name in the module.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from mtiacc.ir.core import (AnyType, Block, Operation, OpResult, Region, ScalarInt, Terminator, Value,
                            attribute, operand, region, result, var_operand)
from mtiacc.ir.types import Type, i1


def _types(values) -> List[Type]:
    return [v.type for v in values]


def _fmt(types) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


class YieldOp(Operation):
    """Ends a block of an ``scf`` region, handing ``values`` to the parent op."""

    name = "scf.yield"
    values = var_operand()
    traits = frozenset({Terminator})

    @classmethod
    def get(cls, values: Sequence[Value] = (), loc=None) -> "YieldOp":
        return cls(list(values), [], loc=loc, segments=[len(values)])

    def verify_(self):
        if not isinstance(getattr(getattr(self.parent, "parent", None), "parent", None), (ForOp, IfOp, WhileOp)):
            self._fail("must end a block of an scf.for, scf.if or scf.while region")


class ConditionOp(Operation):
    """Ends the *before* region of ``scf.while``: continue when ``cond``, passing ``args`` on."""

    name = "scf.condition"
    cond = operand(AnyType)
    args = var_operand()
    traits = frozenset({Terminator})

    @classmethod
    def get(cls, cond: Value, args: Sequence[Value] = (), loc=None) -> "ConditionOp":
        return cls([cond] + list(args), [], loc=loc, segments=[1, len(args)])

    def verify_(self):
        if self.cond.type != i1:
            self._fail(f"condition must be i1, got {self.cond.type}")
        owner = getattr(getattr(self.parent, "parent", None), "parent", None)
        if not (isinstance(owner, WhileOp) and self.parent.parent is owner.before):
            self._fail("must end the before region of an scf.while")


def _check_single_block(op: Operation, r: Region, what: str, arg_types, term_cls, term_types) -> None:
    if len(r.blocks) != 1:
        op._fail(f"{what} region must have exactly one block, got {len(r.blocks)}")
    b = r.blocks[0]
    got = _types(b.args)
    if got != list(arg_types):
        op._fail(f"{what} block arguments {_fmt(got)} must be {_fmt(arg_types)}")
    term = b.terminator
    if not isinstance(term, term_cls):
        op._fail(f"{what} region must end with '{term_cls.name}'")
    values = term.args if isinstance(term, ConditionOp) else term.values
    if _types(values) != list(term_types):
        op._fail(f"'{term_cls.name}' of the {what} region passes {_fmt(_types(values))} "
                 f"but {_fmt(term_types)} is expected")


class ForOp(Operation):
    name = "scf.for"
    lower = operand(ScalarInt)
    upper = operand(ScalarInt)
    step = operand(ScalarInt)
    inits = var_operand()
    results_ = result(AnyType, variadic=True)
    body = region()
    num_stages = attribute(int, optional=True, doc="the kernel's hint, tl.range(..., num_stages=)")
    pipeline_stages = attribute(int, optional=True,
                                doc="`pipeline-dots` unrolled the body into this many stages")
    pipeline = attribute(int, optional=True, doc="`pipeline-loads`: each load runs this many stages deep; "
                         "`pipeline-dots`: 2, the first stage's tiles load a trip ahead")
    persistent = attribute(int, optional=True,
                           doc="`persistent-programs`: the loop over a slot's programs, this many slots")
    keep_invariant = attribute(int, optional=True,
                               doc="`keep-invariant`: how many of the slot loop's loads it keeps for later programs")
    prefetch_rows = attribute(int, optional=True,
                              doc="`prefetch-rows`: the slots in each half of the kept buffer (this program's row "
                                  "in one, the next program's fetched into the other)")
    flush_rows = attribute(int, optional=True,
                           doc="`prefetch-rows`: how many stores of a row the next program flushes in one transfer")
    split = attribute(str, optional=True,
                      doc="`split-dots`: the loop over the sub-tiles of a dot too big for local memory "
                          "(\"K 512 by 64\": the axis, its extent, the sub-tile)")
    ladder = attribute(str, optional=True,
                       doc="the local-memory ladder's step that made or narrowed the loop, and why "
                           "(`band-accumulators`, `stream-blocks`: what did not fit, the bytes free, the band or chunk)")
    store_under_next = attribute(bool, optional=True, default=False,
                                 doc="the local-memory plan: the output tile the loop stores last (its one store, "
                                     "of a K loop's accumulators) has a buffer of its own for the whole loop, so "
                                     "its store stays in flight under the next trip")

    @classmethod
    def get(cls, lower: Value, upper: Value, step: Value, inits: Sequence[Value] = (), loc=None,
            arg_names: Sequence[Optional[str]] = ()) -> "ForOp":
        """A loop with an empty body block (arguments: the induction variable, then the inits)."""
        block = Block([lower.type] + _types(inits), list(arg_names))
        return cls([lower, upper, step] + list(inits), _types(inits), loc=loc,
                   regions=[Region([block])], segments=[1, 1, 1, len(inits)])

    @property
    def block(self) -> Block:
        return self.body.blocks[0]

    @property
    def induction_var(self) -> Value:
        return self.block.args[0]

    @property
    def iter_args(self):
        return self.block.args[1:]

    def verify_(self):
        t = self.lower.type
        if self.upper.type != t or self.step.type != t:
            self._fail(f"lower, upper and step must have one type, got {t}, {self.upper.type}, "
                       f"{self.step.type}")
        inits = _types(self.inits)
        if _types(self.results) != inits:
            self._fail(f"results {_fmt(_types(self.results))} must match the inits {_fmt(inits)}")
        _check_single_block(self, self.body, "body", [t] + inits, YieldOp, inits)
        if self.store_under_next and not self._stores_a_k_loop_last():
            self._fail("store_under_next: the body's last op before the yield must be a tt.store of a K loop's result "
                       "or of an arith.truncf of it (the engine's store of its accumulators), in the body")

    def _stores_a_k_loop_last(self) -> bool:
        """The shape ``store_under_next`` needs (``mtiacc.ir.analysis.k_loops.tile_stored_under_next`` decides the
        rest: one store in the loop, the truncf the dot's ``read_back``)."""
        ops = self.block.ops
        s = ops[-2] if len(ops) >= 2 else None
        v = getattr(s, "value", None) if s is not None and s.name == "tt.store" else None
        cast = v.op if isinstance(v, OpResult) else None
        if isinstance(cast, ForOp):     # the K loop's result stored as the loop leaves it (int32 / fp32 / f16)
            return cast.parent is self.block
        if cast is None or cast.name != "arith.truncf" or cast.parent is not self.block:
            return False
        r = cast.operands[0]
        return isinstance(r, OpResult) and isinstance(r.op, ForOp) and r.op.parent is self.block

    def constant_trip_count(self) -> Optional[int]:
        """The number of iterations when the bounds and step are constants, else None."""
        from mtiacc.ir.ops import const_value
        lo, hi, st = (const_value(v) for v in (self.lower, self.upper, self.step))
        if lo is None or hi is None or st is None or st <= 0:
            return None
        return max(0, -(-(hi - lo) // st))


class IfOp(Operation):
    name = "scf.if"
    cond = operand(AnyType)
    results_ = result(AnyType, variadic=True)
    then_region = region()
    else_region = region()
    kept = attribute(str, optional=True,
                     doc="`keep-invariant`: why a slot's later programs read the load from local memory (then) "
                         "rather than DRAM (else)")

    @classmethod
    def get(cls, cond: Value, result_types: Sequence[Type] = (), then_block: Optional[Block] = None,
            else_block: Optional[Block] = None, loc=None) -> "IfOp":
        return cls([cond], list(result_types), loc=loc,
                   regions=[Region([then_block or Block()]), Region([else_block or Block()])])

    @property
    def then_block(self) -> Block:
        return self.then_region.blocks[0]

    @property
    def else_block(self) -> Block:
        return self.else_region.blocks[0]

    def verify_(self):
        if self.cond.type != i1:
            self._fail(f"condition must be an i1 scalar, got {self.cond.type}")
        rtypes = _types(self.results)
        _check_single_block(self, self.then_region, "then", [], YieldOp, rtypes)
        _check_single_block(self, self.else_region, "else", [], YieldOp, rtypes)


class WhileOp(Operation):
    name = "scf.while"
    inits = var_operand()
    results_ = result(AnyType, variadic=True)
    before = region()
    after = region()

    @classmethod
    def get(cls, inits: Sequence[Value], result_types: Sequence[Type], loc=None,
            arg_names: Sequence[Optional[str]] = ()) -> "WhileOp":
        before = Block(_types(inits), list(arg_names))
        after = Block(list(result_types), list(arg_names))
        return cls(list(inits), list(result_types), loc=loc, regions=[Region([before]), Region([after])],
                   segments=[len(inits)])

    @property
    def before_block(self) -> Block:
        return self.before.blocks[0]

    @property
    def after_block(self) -> Block:
        return self.after.blocks[0]

    def verify_(self):
        inits, rtypes = _types(self.inits), _types(self.results)
        _check_single_block(self, self.before, "before", inits, ConditionOp, rtypes)
        _check_single_block(self, self.after, "after", rtypes, YieldOp, inits)


class CallOp(Operation):
    name = "tt.call"
    callee = attribute(str, doc="the called function's name")
    args = var_operand()
    results_ = result(AnyType, variadic=True)

    @classmethod
    def get(cls, callee: str, args: Sequence[Value], result_types: Sequence[Type], loc=None) -> "CallOp":
        return cls(list(args), list(result_types), {"callee": callee}, loc=loc, segments=[len(args)])

    def verify_(self):
        from mtiacc.ir.ops import ModuleOp
        module = self.parent
        while module is not None and not isinstance(module, ModuleOp):
            module = getattr(module, "parent", None)
        if module is None:
            return  # not in a module yet: nothing to resolve against
        funcs = [f for f in module.funcs if f.sym_name == self.callee]
        if not funcs:
            self._fail(f"calls '{self.callee}', which is not a function of the module")
        ftype = funcs[0].function_type
        if tuple(_types(self.args)) != ftype.inputs or tuple(_types(self.results)) != ftype.outputs:
            self._fail(f"types {_fmt(_types(self.args))} -> {_fmt(_types(self.results))} do not match "
                       f"the callee's type {ftype}")


REGION_OPS = (ForOp, IfOp, WhileOp)
LOOP_OPS = (ForOp, WhileOp)


def erase_nested(op: Operation) -> None:
    """Erase ``op`` with everything nested in it (every nested op gives up its operand uses)."""
    for nested in reversed(list(op.walk())):
        if nested is not op:
            nested.drop_operands()
    op.erase()


def has_side_effects(op: Operation) -> bool:
    """Whether running ``op`` (and its regions) may change memory or anything but its results."""
    from mtiacc.ir.core import Pure
    for nested in op.walk():
        if nested is op and isinstance(op, REGION_OPS):
            continue
        if isinstance(nested, (YieldOp, ConditionOp)) or isinstance(nested, (ForOp, IfOp)):
            continue
        if Pure not in nested.traits:
            return True
    return False


# --------------------------------------------------------------------------- rewrites (used by the passes)

def _remove_block_arg(block: Block, index: int) -> None:
    block.args.pop(index)
    for i, a in enumerate(block.args):
        a.index = i


def _replace_yield(term: Operation, values: Sequence[Value]) -> None:
    new = YieldOp.get(values, loc=term.loc)
    term.parent.insert_before(term, new)
    term.erase()


def _feeds_only_its_slot(arg: Value, block: Block, term: Operation, k: int) -> bool:
    """Whether everything computed from ``arg`` in the body is pure and reaches only yield slot k."""
    from mtiacc.ir.core import Pure
    work, seen = [arg], set()
    while work:
        v = work.pop()
        for u in v.uses:
            if u.op is term:
                if u.index != k:
                    return False
                continue
            if Pure not in u.op.traits or u.op.regions or u.op.parent is not block:
                return False
            if id(u.op) not in seen:
                seen.add(id(u.op))
                work.extend(u.op.results)
    return True


def drop_unused_for_results(loop: ForOp) -> bool:
    """Remove loop-carried values nobody needs: result unused, and inside the body the carried
    argument feeds at most its own yield slot.  Returns True when something was removed."""
    term = loop.block.terminator
    dead = [k for k, r in enumerate(loop.results)
            if not r.uses and _feeds_only_its_slot(loop.iter_args[k], loop.block, term, k)]
    if not dead:
        return False
    keep = [k for k in range(len(loop.results)) if k not in dead]
    block = loop.body.blocks[0]
    _replace_yield(term, [term.values[k] for k in keep])
    for k in reversed(dead):
        _remove_block_arg(block, k + 1)
    inits = [loop.inits[k] for k in keep]
    region = loop.regions.pop()
    new = ForOp([loop.lower, loop.upper, loop.step] + inits, [loop.results[k].type for k in keep],
                dict(loop.attrs), loc=loop.loc, regions=[region], segments=[1, 1, 1, len(inits)])
    loop.parent.insert_before(loop, new)
    for j, k in enumerate(keep):
        new.results[j].name_hint = loop.results[k].name_hint
        loop.results[k].replace_all_uses_with(new.results[j])
    loop.erase()
    return True


def inline_taken_branch(op: IfOp, take_then: bool) -> None:
    """Replace ``op`` by the ops of one of its branches (its condition is known)."""
    block = op.then_block if take_then else op.else_block
    term = block.terminator
    for nested in list(block.ops):
        if nested is term:
            continue
        block.ops.remove(nested)
        op.parent.insert_before(op, nested)
    for r, v in zip(op.results, term.values):
        r.replace_all_uses_with(v)
    erase_nested(op)


def is_dead_region_op(op: Operation) -> bool:
    """An ``scf.for``/``scf.if`` whose results are unused and that changes nothing else.

    (``scf.while`` stays: removing it could turn a program that never ends into one that does.)
    """
    return isinstance(op, (ForOp, IfOp)) and all(not r.uses for r in op.results) \
        and not has_side_effects(op)
