"""``dce``: remove ``Pure`` ops whose results are unused, until none is left."""
from __future__ import annotations

import dataclasses

from mtiacc.ir.core import Block, Pure
from mtiacc.ir.ops import ModuleOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _is_dead(op) -> bool:
    return Pure in op.traits and not op.regions and all(not r.uses for r in op.results)


def dce_block(block: Block) -> bool:
    """One sweep from the end (so a chain of dead ops goes in one sweep); True if anything went."""
    changed = False
    for op in reversed(list(block.ops)):
        for r in op.regions:
            for b in r.blocks:
                changed |= dce_block(b)
        if _is_dead(op):
            op.erase()
            changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class DeadCodeElimination(ModulePass):
    name = "dce"

    def run(self, module: ModuleOp) -> None:
        while dce_block(module.body.block):
            pass
