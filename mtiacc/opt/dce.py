"""``dce``: remove ``Pure`` ops whose results are unused, until none is left.

Region ops: an ``scf.for``/``scf.if`` without side effects whose results are unused goes whole;
an ``scf.for`` loses the carried values that neither its users nor its body read."""
from __future__ import annotations

import dataclasses

from mtiacc.ir.core import Block, IsolatedFromAbove, Pure
from mtiacc.ir.ops import ModuleOp
from mtiacc.ir import scf
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _is_dead(op) -> bool:
    # a region op isolated from above (tt.fused_elementwise) has no effects beyond its results
    return Pure in op.traits and (not op.regions or IsolatedFromAbove in op.traits) \
        and all(not r.uses for r in op.results)


def dce_block(block: Block) -> bool:
    """One sweep from the end (so a chain of dead ops goes in one sweep); True if anything went."""
    changed = False
    for op in reversed(list(block.ops)):
        for r in op.regions:
            for b in r.blocks:
                changed |= dce_block(b)
        if _is_dead(op):
            scf.erase_nested(op)
            changed = True
        elif scf.is_dead_region_op(op):
            scf.erase_nested(op)
            changed = True
        elif isinstance(op, scf.ForOp):
            changed |= scf.drop_unused_for_results(op)
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class DeadCodeElimination(ModulePass):
    name = "dce"

    def run(self, module: ModuleOp) -> None:
        while dce_block(module.body.block):
            pass
