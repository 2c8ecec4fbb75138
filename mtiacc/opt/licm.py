"""``licm``: loop-invariant code motion out of ``scf.for`` and ``scf.while`` bodies.

A ``Pure`` op without regions whose operands are all defined outside the loop (or by ops already
hoisted) moves to just before the loop.  Inner loops go first, so an invariant can climb several
levels.  Pure ops never trap in this IR (integer division by zero has a defined result on the
target), so hoisting out of a loop that may run zero times is safe.
"""
from __future__ import annotations

import dataclasses

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Block, Operation, Pure, Value
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _inside(v: Value, loop: Operation) -> bool:
    """Whether ``v`` is defined inside ``loop``'s regions."""
    node = v.owner if isinstance(v.owner, Block) else v.owner.parent
    while node is not None:
        region = node.parent
        if region is None:
            return False
        op = region.parent
        if op is loop:
            return True
        node = op.parent if op is not None else None
    return False


def hoist_loop(loop: Operation) -> int:
    moved = 0
    for r in loop.regions:
        for b in r.blocks:
            for op in list(b.ops):
                if op.regions:
                    continue
                if Pure in op.traits and op.results and not any(_inside(v, loop) for v in op.operands):
                    b.ops.remove(op)
                    loop.parent.insert_before(loop, op)
                    moved += 1
    return moved


def licm_block(block: Block) -> int:
    moved = 0
    for op in list(block.ops):
        for r in op.regions:
            for b in r.blocks:
                moved += licm_block(b)
        if isinstance(op, scf.LOOP_OPS):
            moved += hoist_loop(op)
    return moved


@register_pass
@dataclasses.dataclass(frozen=True)
class LoopInvariantCodeMotion(ModulePass):
    name = "licm"

    def run(self, module: O.ModuleOp) -> None:
        licm_block(module.body.block)
