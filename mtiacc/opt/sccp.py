"""``sccp``: sparse conditional constant propagation through structured control flow.

An optimistic analysis over values (unknown -> constant -> overdefined), then a rewrite:

* ops whose operands are (known to be) constants are evaluated with their own ``fold`` hook;
* ``scf.if`` on a constant condition visits only the taken branch, and is replaced by it;
  with an unknown condition its results are constant when both branches yield the same constant;
* an ``scf.for`` carried value is assumed equal to its constant init, the body is analyzed under
  that assumption, and the assumption is dropped when the body yields anything else (repeated to a
  fixed point); a loop that runs zero times yields its inits;
* every value found constant gets an ``arith.constant`` (its uses move to it; ``dce`` removes the rest).
"""
from __future__ import annotations

import dataclasses
from typing import Dict

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Block, ConstantLike, Operation, Pure, Value
from mtiacc.opt.pass_manager import ModulePass, register_pass

OVER = object()   # overdefined: not one constant


def _key(c):
    return (type(c).__name__, repr(c))


class Analysis:
    def __init__(self):
        self.lat: Dict[int, object] = {}     # id(value) -> Python constant or OVER
        self.values: Dict[int, Value] = {}

    def get(self, v: Value):
        c = O.const_value(v)
        if c is not None:
            return c
        return self.lat.get(id(v), OVER)

    def set(self, v: Value, c) -> None:
        self.lat[id(v)] = c
        self.values[id(v)] = v

    def block(self, b: Block) -> None:
        for op in b.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        if ConstantLike in op.traits:
            return
        if isinstance(op, scf.IfOp):
            return self.if_op(op)
        if isinstance(op, scf.ForOp):
            return self.for_op(op)
        if op.regions:
            for r in op.regions:
                for b in r.blocks:
                    for a in b.args:
                        self.set(a, OVER)
                    self.block(b)
            for r in op.results:
                self.set(r, OVER)
            return
        if Pure in op.traits and len(op.results) == 1:
            self.set(op.result, self.evaluate(op))
            return
        for r in op.results:
            self.set(r, OVER)

    def evaluate(self, op: Operation):
        """Fold ``op`` with its known-constant operands substituted by temporary constants."""
        temps = {}
        saved = list(op.operands)
        for i, v in enumerate(saved):
            c = self.get(v)
            if c is not OVER and O.const_value(v) is None and not v.type.is_ptr():
                t = O.ConstantOp.get(c, v.type)
                temps[id(t.result)] = c
                op.set_operand(i, t.result)
        try:
            r = op.fold()
        finally:
            for i, v in enumerate(saved):
                if op.operands[i] is not v:
                    op.set_operand(i, v)
        if r is None:
            return OVER
        if isinstance(r, Value):
            if id(r) in temps:
                return temps[id(r)]
            return self.get(r) if r.type == op.result.type else OVER
        return r

    def if_op(self, op: scf.IfOp) -> None:
        c = self.get(op.cond)
        branches = [op.then_block, op.else_block] if c is OVER else [op.then_block if c else op.else_block]
        outs = []
        for b in branches:
            self.block(b)
            outs.append([self.get(v) for v in b.terminator.values])
        for k, r in enumerate(op.results):
            vals = [o[k] for o in outs]
            same = all(v is not OVER for v in vals) and len({_key(v) for v in vals}) == 1
            self.set(r, vals[0] if same else OVER)

    def for_op(self, op: scf.ForOp) -> None:
        trip = op.constant_trip_count()
        self.set(op.induction_var, O.const_value(op.lower) if trip == 1 else OVER)
        for a, init in zip(op.iter_args, op.inits):
            self.set(a, self.get(init))
        while True:
            self.block(op.block)
            changed = False
            for a, y in zip(op.iter_args, op.block.terminator.values):
                have, got = self.get(a), self.get(y)
                if have is not OVER and (got is OVER or _key(got) != _key(have)):
                    self.set(a, OVER)
                    changed = True
            if not changed:
                break
        for r, a, init in zip(op.results, op.iter_args, op.inits):
            self.set(r, self.get(init) if trip == 0 else self.get(a))


def _materialize(an: Analysis) -> bool:
    changed = False
    for key, v in list(an.values.items()):
        c = an.lat.get(key)
        if c is OVER or c is None or not v.uses or O.const_value(v) is not None or v.type.is_ptr():
            continue
        owner = v.owner
        if isinstance(owner, Block):
            block, anchor = owner, (owner.ops[0] if owner.ops else None)
            loc = anchor.loc if anchor is not None else None
        else:
            block, anchor, loc = owner.parent, owner, owner.loc
        if block is None or anchor is None:
            continue
        const = O.ConstantOp.get(c, v.type, loc=loc)
        block.insert_before(anchor, const)
        const.result.name_hint = v.name_hint
        v.replace_all_uses_with(const.result)
        changed = True
    return changed


def _fold_ifs(block: Block) -> bool:
    changed = False
    for op in list(block.ops):
        if op.parent is not block:
            continue
        if isinstance(op, scf.IfOp) and O.const_value(op.cond) is not None:
            scf.inline_taken_branch(op, bool(O.const_value(op.cond)))
            changed = True
            continue
        for r in op.regions:
            for b in r.blocks:
                changed |= _fold_ifs(b)
    return changed


def sccp(module: O.ModuleOp) -> bool:
    changed = False
    for f in module.funcs:
        an = Analysis()
        for a in f.args:
            an.set(a, OVER)
        an.block(f.entry)
        changed |= _materialize(an)
        changed |= _fold_ifs(f.entry)
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class SparseConditionalConstantPropagation(ModulePass):
    name = "sccp"

    def run(self, module: O.ModuleOp) -> bool:
        return sccp(module)
