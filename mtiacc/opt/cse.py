"""``cse``: a ``Pure`` op identical to an earlier one (same name, operands, attributes and result
types) in the same block or an enclosing one (up to an
``IsolatedFromAbove`` op) is replaced by the earlier one's results."""
from __future__ import annotations

import dataclasses
from typing import Dict, Tuple

from mtiacc.ir.core import Block, IsolatedFromAbove, Operation, Pure
from mtiacc.ir.ops import ModuleOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    # repr keeps 0.0 and -0.0 (equal in Python) apart, and the kind keeps 1 and True apart.
    return (type(v).__name__, repr(v))


def _key(op: Operation) -> Tuple:
    return (op.name, tuple(id(v) for v in op.operands), tuple(op.segments or ()),
            tuple(sorted((k, _freeze(v)) for k, v in op.attrs.items())),
            tuple(str(r.type) for r in op.results))


def cse_block(block: Block, seen: Dict[Tuple, Operation]) -> bool:
    """Replace each pure op of ``block`` (and the blocks nested in it) equal to one seen before by that one;
    whether any was."""
    changed = False
    seen = dict(seen)
    for op in list(block.ops):
        for r in op.regions:
            for b in r.blocks:
                changed |= cse_block(b, {} if IsolatedFromAbove in op.traits else seen)
        if Pure not in op.traits or op.regions:
            continue
        key = _key(op)
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = op
            continue
        for old, new in zip(op.results, earlier.results):
            old.replace_all_uses_with(new)
        op.erase()
        changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class CommonSubexpressionElimination(ModulePass):
    name = "cse"

    def run(self, module: ModuleOp) -> bool:
        return cse_block(module.body.block, {})
