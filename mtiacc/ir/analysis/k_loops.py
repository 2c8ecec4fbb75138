"""Which loops are K loops: an ``scf.for`` whose dots read tiles its own body loads, accumulating product after
product (``pipeline-dots`` pipelines them; ``loop-unroll`` leaves them to it).

A K loop qualifies when its step is a positive constant and its body holds a ``tt.dot`` with an operand that a
``tt.load`` of the same body produces (through shape ops and casts), and no dot's result reaches a reduction or
another dot's operand in the body (:func:`chained_products`: flash attention's ``S = Q K^T``, softmax, ``P V``).
"""
from __future__ import annotations

from typing import List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Block, OpResult, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReduceOp, ReshapeOp, TransOp

THROUGH = (TransOp, ExpandDimsOp, ReshapeOp, O.CastOp, O.BroadcastOp)


def loaded(v: Value, body: Block) -> Optional[O.LoadOp]:
    """The ``tt.load`` of ``body`` that produces ``v`` (through shape ops and casts), if any."""
    while isinstance(v, OpResult) and v.op.parent is body:
        if isinstance(v.op, O.LoadOp):
            return v.op
        if not isinstance(v.op, THROUGH):
            return None
        v = v.op.operands[0]
    return None


def chained_products(loop: scf.ForOp) -> bool:
    """Whether a dot's result reaches, through ops of the body, a ``tt.reduce`` or another dot's ``a`` or ``b``
    (not its accumulator): work between the products, as in attention, rather than a K loop's accumulation."""
    body = loop.block
    for op in body.ops:
        if not isinstance(op, DotOp):
            continue
        seen, work = set(), [op.result]
        while work:
            v = work.pop()
            for u in v.uses:
                user = u.op
                if isinstance(user, ReduceOp) or (isinstance(user, DotOp) and v is not user.acc):
                    return True
                if user.parent is body and id(user) not in seen and not isinstance(user, DotOp):
                    seen.add(id(user))
                    work.extend(user.results)
    return False


def stage_loads(loop: scf.ForOp) -> List[O.LoadOp]:
    """The loads of the body that feed its dots' operands."""
    out: List[O.LoadOp] = []
    for op in loop.block.ops:
        if isinstance(op, DotOp):
            for v in (op.a, op.b):
                ld = loaded(v, loop.block)
                if ld is not None and ld not in out:
                    out.append(ld)
    return out


def is_k_loop(loop: scf.ForOp) -> bool:
    """Whether ``loop`` is a K loop (the module docstring)."""
    step = O.const_value(loop.step)
    return (isinstance(step, int) and not isinstance(step, bool) and step > 0 and bool(stage_loads(loop))
            and not chained_products(loop))


def tile_stored_under_next(op: scf.ForOp) -> Optional[Value]:
    """The output tile a loop over tiles stores last, when that store may stay in flight under the next trip (its
    loads and dot products): the body's last op before the yield is the loop's one store, of the ``arith.truncf``
    the matrix engine's accumulator store does (``read_back``) for the result of a K loop of the body that only
    the truncf reads, or of that K loop's result itself (stored as the loop leaves it: an int8 GEMM's int32 tile,
    an fp32 tile, an f16 accumulator).  Tutorial 09's loop over tiles, and ``persistent-programs``' loop over a
    slot's programs (tutorial 03).  Whether the tile does go under the next trip (a buffer of its own for the whole loop) is the
    local-memory plan's decision, the loop's ``store_under_next`` (``mtiacc.opt.memory.plan``)."""
    from mtiacc.ir.dot_ops import read_back_source
    if len(op.block.ops) < 2:
        return None
    s = op.block.ops[-2]
    if not isinstance(s, O.StoreOp) or sum(isinstance(o, O.StoreOp) for o in op.walk()) != 1:
        return None
    v = s.value
    if not (v.type.is_block() and isinstance(v, OpResult) and v.op.parent is op.block and len(v.uses) == 1):
        return None
    if isinstance(v.op, scf.ForOp):     # the K loop's result stored as the loop leaves it (int32 / fp32)
        r = v
    elif read_back_source(v.op) is not None:
        r = v.op.operands[0]
    else:
        return None
    if not (isinstance(r, OpResult) and isinstance(r.op, scf.ForOp) and r.op.parent is op.block and len(r.uses) == 1):
        return None
    return v


__all__ = ["THROUGH", "loaded", "chained_products", "stage_loads", "is_k_loop", "tile_stored_under_next"]
