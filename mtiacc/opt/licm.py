"""``licm``: loop-invariant code motion out of ``scf.for`` and ``scf.while`` bodies.

A ``Pure`` op without regions whose operands are all defined outside the loop (or by ops already
hoisted) moves to just before the loop.  Inner loops go first, so an invariant can climb several
levels.  Pure ops never trap in this IR (integer division by zero has a defined result on the
target), so hoisting out of a loop that may run zero times is safe.

A load moves too when it reads the same address in every iteration, nothing in the loop writes through
its pointer parameter or one ``may_alias`` groups with it (distinct parameters are distinct buffers otherwise,
the rule ``pipeline-loads`` reads by: ``ir/analysis/pointers.py``, ``may_share``; a
store through a pointer not traced to a parameter, an atomic or a barrier keeps every load in place), and
the loop runs at least once, so the load ran anyway: a constant trip count of one or more, or the
``persistent`` loop over a slot's programs (a slot is launched only when it has a program).  So a kernel's
seed or scale read through a pointer is read once per slot, not once per program, and no longer waits
behind the next program's prefetched tiles.  Loads stay in the loops of the local-memory ladder (``split``:
``split-dots``, ``band-accumulators``, ``stream-blocks``), which exist because the blocks did not fit: hoisted, a
load would be live through every band.
"""
from __future__ import annotations

import dataclasses

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.pointers import may_share, root_pointer
from mtiacc.ir.atomic_ops import AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.core import Block, BlockArgument, Operation, Pure, Value
from mtiacc.ir.mtia import MTIA_OPS, LocalAllocOp
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


# ops that write memory in ways the parameter roots below do not track
_WRITERS = (AtomicRMWOp, AtomicCASOp, BarrierOp, *[c for c in MTIA_OPS if c is not LocalAllocOp])


def _runs_once(loop: Operation) -> bool:
    """Whether ``loop`` runs its body at least once."""
    if not isinstance(loop, scf.ForOp) or loop.split:
        return False      # (a loop of the local-memory ladder's: a load hoisted out of it stays live through it)
    if loop.persistent:
        return True
    lo, hi = (None if isinstance(v, BlockArgument) or not isinstance(v.op, O.ConstantOp) else v.op.value
              for v in (loop.lower, loop.upper))
    return isinstance(lo, int) and isinstance(hi, int) and lo < hi


def _written_roots(loop: Operation):
    """The pointer parameters the loop stores through, or None when it may write anywhere."""
    roots = []
    for op in loop.walk():
        if isinstance(op, _WRITERS):
            return None
        if isinstance(op, O.StoreOp):
            root = root_pointer(op.ptr)
            if root is None:
                return None
            roots.append(root)
    return roots


def _invariant_load(op: Operation, loop: Operation, written) -> bool:
    if not isinstance(op, O.LoadOp) or op.volatile or written is None:
        return False
    root = root_pointer(op.ptr)
    return root is not None and not any(may_share(root, w) for w in written)


def hoist_loop(loop: Operation) -> int:
    moved = 0
    written = _written_roots(loop) if _runs_once(loop) else None
    for r in loop.regions:
        for b in r.blocks:
            for op in list(b.ops):
                if op.regions:
                    continue
                if any(_inside(v, loop) for v in op.operands):
                    continue
                if (Pure in op.traits and op.results) or (b is loop.regions[0].blocks[0]
                                                           and _invariant_load(op, loop, written)):
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

    def run(self, module: O.ModuleOp) -> bool:
        return licm_block(module.body.block) > 0
