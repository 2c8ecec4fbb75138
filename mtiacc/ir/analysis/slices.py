"""Where a value is defined relative to a loop, and the pure ops of a loop's body that compute values from its
induction variable and from values defined outside it (what a pass copies to compute them for another
iteration: ``pipeline-loads``' prefetches, ``prefetch-rows``' next program's row)."""
from __future__ import annotations

from typing import List, Optional, Sequence

from mtiacc.ir import scf
from mtiacc.ir.core import BlockArgument, Operation, Pure, Value


def defined_in(v: Value, op: Operation) -> bool:
    """Whether ``v`` is defined in ``op``'s regions (at any depth)."""
    return nested_in(v.block if isinstance(v, BlockArgument) else v.op.parent, op)


def op_inside(inner: Operation, op: Operation) -> bool:
    """Whether ``inner`` is in ``op``'s regions (at any depth)."""
    return nested_in(inner.parent, op)


def nested_in(node, op: Operation) -> bool:
    """Whether block ``node`` is in ``op``'s regions (at any depth)."""
    while node is not None:
        owner = node.parent.parent if node.parent is not None else None
        if owner is op:
            return True
        node = owner.parent if owner is not None else None
    return False


def pure_slice(values: Sequence[Value], loop: scf.ForOp, leaves=frozenset()) -> Optional[List[Operation]]:
    """The ops directly in ``loop``'s body that compute ``values``, in body order, when they are pure and read
    only the induction variable, the loop's block arguments in ``leaves`` and values from outside the loop; else
    None."""
    body, seen, out = loop.block, set(), []

    def visit(v: Value) -> bool:
        if not defined_in(v, loop):
            return True
        if isinstance(v, BlockArgument):
            return v is loop.induction_var or v in leaves
        op = v.op
        if op.parent is not body or op.regions or Pure not in op.traits:
            return False
        if id(op) not in seen:
            seen.add(id(op))
            if not all(visit(o) for o in op.operands):
                return False
            out.append(op)
        return True

    if not all(visit(v) for v in values):
        return None
    return sorted(out, key=body.ops.index)


__all__ = ["defined_in", "pure_slice"]
