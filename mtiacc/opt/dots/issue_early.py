"""``issue-dots-early``: a product issued as soon as its operands exist, so the matrix engine computes it while the
vector unit works on the product before it.

Flash attention's loop, as ``pipeline-loads`` leaves it (two iterations a trip, K and V fetched ahead), gives the
engine ``S_a = Q K_a^T``, then the vector unit ``softmax(S_a)``, then the engine ``P_a V_a``, then ``S_b = Q K_b^T``
..., each waiting for the one before: the engine idles during each softmax and the vector unit during each
product.  ``S_b`` reads only ``Q`` and a tile fetched at the top of the trip, so this pass moves it (and the pure
ops computing its operands there, a ``tt.trans``) to just after ``S_a``::

    %qk   = tt.dot %q, %k, %zero
    %qk_b = tt.dot %q, %k_b, %zero {early = true}      # moved up from after P_a V_a
    %m    = tt.reduce %qk {kind = "max"} ...              # codegen: mtia.dpe.wait N, S_b's commands run on

Codegen then waits only for the commands computing what an op reads (``mtia.dpe.wait N``,
``codegen/matrix/engine.py``: ``wait_for``), so ``S_b`` runs on the engine during ``softmax(S_a)``, and ``P_a V_a``
during the row maximum and exponentials of ``S_b``.

A ``tt.dot`` ``D`` moves to just after the first earlier ``tt.dot`` ``P`` of its block such that every operand of
``D`` is defined before ``P`` or by pure ops (no regions, not dots) between ``P`` and ``D`` that move with it, and
some op between them that is not a dot and does not move reads ``P``'s result (work for the vector unit to
overlap).  (Just after ``P``, not after that reader: the core may stall issuing ``D`` until the engine's queue has
room, but it would wait for ``P`` there anyway; measured on tutorial 06's forward, a little faster.)  Values do not
change: a dot reads the same operands wherever it is issued.  The cost is local memory: ``D``'s result lives from
its new place on.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir.core import Block, Operation, OpResult, Pure
from mtiacc.ir.dot_ops import DotOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _cone(dot: DotOp, after: int, pos) -> Optional[List[Operation]]:
    """The ops between position ``after`` and ``dot`` computing ``dot``'s operands, when all are pure (no regions,
    not dots) and reach back to values defined at or before ``after``; else None."""
    cone, todo, seen = [], list(dot.operands), set()
    while todo:
        v = todo.pop()
        if not isinstance(v, OpResult) or v.op not in pos or pos[v.op] <= after:
            continue            # outside the block (or a block argument), or defined early enough
        op = v.op
        if op in seen:
            continue
        if Pure not in op.traits or op.regions or isinstance(op, DotOp):
            return None
        seen.add(op)
        cone.append(op)
        todo.extend(op.operands)
    return sorted(cone, key=pos.__getitem__)


def _move(block: Block) -> bool:
    changed = False
    for dot in [op for op in block.ops if isinstance(op, DotOp)]:
        pos = {op: i for i, op in enumerate(block.ops)}
        here = pos[dot]
        for earlier in block.ops[:here]:
            if not isinstance(earlier, DotOp):
                continue
            p = pos[earlier]
            cone = _cone(dot, p, pos)
            if cone is None:
                continue
            if not any(u.op.parent is block and p < pos.get(u.op, -1) < here and u.op not in cone
                       and not isinstance(u.op, DotOp) for u in earlier.result.uses):
                continue        # nothing for the vector unit to do meanwhile (but what moves with the dot)
            moved = cone + [dot]
            for op in moved:
                block.ops.remove(op)
            at = block.ops.index(earlier) + 1
            block.ops[at:at] = moved
            dot.attrs["early"] = True
            changed = True
            break
    return changed


def visit(op: Operation) -> bool:
    changed = False
    for region in op.regions:
        for block in region.blocks:
            for inner in list(block.ops):
                changed |= visit(inner)
            changed |= _move(block)
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class IssueDotsEarly(ModulePass):
    name = "issue-dots-early"

    def run(self, module: O.ModuleOp) -> Optional[bool]:
        return None if visit(module) else False
