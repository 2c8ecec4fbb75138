"""Narrower column loops, a step of ``stream-blocks`` (``stream_blocks.py``): a loop that walks a row in blocks of
``B`` columns, ``for start in range(lo, hi, B): cols = start + tl.arange(0, B); ...``, whose blocks do not fit in
local memory, is run with blocks of ``b < B`` columns instead: ``range(lo, hi, b)``, ``tl.arange(0, b)``, every
block of ``B`` elements one of ``b``.

A layer norm with ``BLOCK_SIZE`` 16384 fp32 carries a 64 KiB partial sum across its first loop beside the 64 KiB
block it loads: 128 KiB where 96 KiB of local memory hold 94 KiB of blocks.  Its loops touch each column on its
own (loads, stores and element-wise ops of the columns ``start + arange``; masks ``cols < N``; a carried block of
partial sums, reduced whole after the loop), so the same columns are visited in more trips of fewer columns.  The
loop qualifies when

* its step is the constant ``B``, and its induction variable is used only as ``splat(start) + arange(0, B)``;
* every block the body makes or reads is one-dimensional of ``B`` elements (or a scalar); those made outside the
  loop are constants, splats or that range, which are made again at ``b``;
* the body has no op with regions but element-wise ones, no reduction, scan, dot or shape op;
* each carried block starts as a constant, and after the loop is only reduced whole (``sum``, ``max``, ``min``).

A partial sum then adds the same elements in another order (each lane of ``b`` sums ``B / b`` times as many);
a loaded block's masked lanes add what they added before (the load's ``other``).  The loop gets ``ladder = "..."``
(``--emit=ir``); the remark gives the extra trips.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import BlockArgument, OpResult, Value
from mtiacc.ir.shape_ops import ReduceOp
from mtiacc.ir.types import BlockType
from mtiacc.opt.inline import clone_op
from mtiacc.opt.memory.narrow import _clone_resized, _elementwise_like

_REDUCE_KINDS = ("sum", "max", "min")


def _resized(t, B: int, b: int):
    return BlockType((b,), t.element_type) if t.is_block() and t.shape == (B,) else t


def _remakeable(v: Value, B: int) -> bool:
    """A block of ``B`` elements made outside the loop that can be made again at another size."""
    if not isinstance(v, OpResult):
        return False
    op = v.op
    if isinstance(op, O.MakeRangeOp):
        return op.start == 0 and op.end == B
    if isinstance(op, O.SplatOp):
        return not op.operands[0].type.is_block()
    return isinstance(op, O.ConstantOp)


def qualifies(loop: scf.ForOp) -> Optional[int]:
    """``B`` when ``loop`` is such a column loop (module docstring), else None."""
    B = O.const_value(loop.step)
    if not isinstance(B, int) or B < 64:
        return None
    iv = loop.induction_var
    for use in iv.uses:
        s = use.op
        if not (isinstance(s, O.SplatOp) and s.parent is loop.block and s.result.type.shape == (B,)):
            return None
        for u in s.result.uses:
            if not isinstance(u.op, O.AddIOp) or not any(isinstance(x, OpResult) and isinstance(x.op, O.MakeRangeOp)
                                                         and x.op.start == 0 and x.op.end == B for x in u.op.operands):
                return None
    for arg, init, res in zip(loop.iter_args, loop.inits, loop.results):
        if not arg.type.is_block():
            continue
        if arg.type.shape != (B,) or not (isinstance(init, OpResult) and isinstance(init.op, O.ConstantOp)):
            return None
        if not all(isinstance(u.op, ReduceOp) and u.op.kind in _REDUCE_KINDS and not u.op.regions for u in res.uses):
            return None
    for op in loop.block.ops:
        if op.regions and not _elementwise_like(op):
            return None
        if isinstance(op, (ReduceOp,)) or not (_elementwise_like(op) or isinstance(
                op, (O.LoadOp, O.StoreOp, O.SplatOp, O.MakeRangeOp, O.ConstantOp, O.AddPtrOp, scf.YieldOp))):
            if any(x.type.is_block() for x in list(op.operands) + list(op.results)):
                return None
        for x in list(op.operands) + list(op.results):
            if x.type.is_block() and x.type.shape != (B,):
                return None
        for x in op.operands:
            if x.type.is_block() and not _inside(x, loop) and not _remakeable(x, B):
                return None
    return B


def _inside(v: Value, loop: scf.ForOp) -> bool:
    if isinstance(v, BlockArgument):
        return v.block is loop.block
    p = v.op.parent
    while p is not None:
        if p is loop.block:
            return True
        owner = p.parent.parent if p.parent is not None else None
        p = owner.parent if owner is not None else None
    return False


def rewrite(loop: scf.ForOp, B: int, b: int) -> scf.ForOp:
    """The loop with blocks of ``b`` columns in place of ``B`` (``qualifies`` said it may)."""
    block, loc = loop.parent, loop.loc
    step = O.ConstantOp.get(b, loop.step.type, loc=loc)
    block.insert_before(loop, step)
    mapping: Dict[int, Value] = {}
    anchor = [loop]     # the new loop, once made: what is made again goes before it

    def outside(v: Value) -> Value:       # a constant, splat or range of B elements, made again before the loop
        if id(v) not in mapping:
            op = v.op
            if isinstance(op, O.MakeRangeOp):
                new = O.MakeRangeOp.get(0, b, loc=op.loc)
            else:
                new = _clone_resized(op, list(op.operands), [_resized(op.result.type, B, b)])
            block.insert_before(anchor[0], new)
            new.result.name_hint = v.name_hint
            mapping[id(v)] = new.result
        return mapping[id(v)]

    inits = [outside(x) if x.type.is_block() else x for x in loop.inits]
    new = scf.ForOp.get(loop.lower, loop.upper, step.result, inits, loc=loc)
    new.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    block.insert_before(loop, new)
    anchor[0] = new
    mapping[id(loop.induction_var)] = new.induction_var
    new.induction_var.name_hint = loop.induction_var.name_hint
    for old, arg in zip(loop.iter_args, new.iter_args):
        mapping[id(old)] = arg
        arg.name_hint = old.name_hint
    for op in loop.block.ops:
        operands = [mapping[id(x)] if id(x) in mapping else (outside(x) if x.type.is_block() else x)
                    for x in op.operands]
        if isinstance(op, O.MakeRangeOp):
            made = O.MakeRangeOp.get(0, b, loc=op.loc)
        elif isinstance(op, scf.YieldOp):
            made = scf.YieldOp.get(operands, loc=op.loc)
        elif any(r.type.is_block() for r in op.results) or any(x.type.is_block() for x in op.operands):
            made = _clone_resized(op, operands, [_resized(r.type, B, b) for r in op.results])
        else:
            made = clone_op(op, mapping)
        new.block.append(made)
        for old, r in zip(op.results, made.results):
            mapping[id(old)] = r
            r.name_hint = old.name_hint
    for old, r in zip(loop.results, new.results):
        r.name_hint = old.name_hint
        if not old.type.is_block():
            old.replace_all_uses_with(r)
            continue
        for use in list(old.uses):
            red = use.op
            again = ReduceOp.get(r, 0, red.kind, loc=red.loc)
            red.parent.insert_before(red, again)
            again.result.name_hint = red.result.name_hint
            red.result.replace_all_uses_with(again.result)
            red.erase()
    scf.erase_nested(loop)
    return new


def narrow_loops(root, capacity: int, ctx, remark) -> bool:
    """Narrow every qualifying column loop under ``root`` (a function) whose blocks of ``B`` elements take more than
    an eighth of ``capacity`` each, to the widest ``b`` (a power of two) whose blocks do not."""
    changed = False
    for loop in [op for op in root.walk() if isinstance(op, scf.ForOp)]:
        B = qualifies(loop)
        if B is None:
            continue
        widths = [x.type.element_type for op in loop.block.ops for x in op.results if x.type.is_block()]
        esize = max((max(getattr(e, "width", 8), 8) // 8 for e in widths), default=4)
        if B * esize <= capacity // 8:
            continue
        b = B
        while b > 64 and b * esize > capacity // 8:
            b //= 2
        if b % 2 or B % b:
            continue
        remark(loop, B, b)
        rewrite(loop, B, b).attrs["ladder"] = (f"stream-blocks: blocks of {B} columns in each trip do not fit "
                                               f"{capacity} bytes: trips of {b} columns")
        changed = True
    return changed


__all__: List[str] = ["qualifies", "rewrite", "narrow_loops"]
