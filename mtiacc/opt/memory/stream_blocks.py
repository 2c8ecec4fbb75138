"""``stream-blocks``: one-dimensional blocks too big for local memory are streamed through it in chunks, a step of the
local-memory ladder (``--remarks`` reports it, ``--Werror=spill`` makes it an error).

Triton's fused softmax with ``BLOCK_SIZE`` 131072 fp32 holds a 512 KiB row, where a PE has 384 KiB of local memory.
When the local-memory plan (``mtiacc.opt.memory.plan``) overflows, the function's top-level block is rewritten
when every block of that size in it is computed element by element (loads, element-wise ops, splats, ranges:
``narrow.py`` slices them) and read only by such ops, by full reductions (``sum``, ``max``, ``min``) and by stores:

* each reduction becomes a loop over chunks (``split = "stream 131072 by 4096"``) carrying the partial result:
  the chunk of its operand is recomputed from the loads (re-read from memory: the row passes through the DMA
  engine once per reduction, the cost the remark gives), reduced, and combined with the carried value
  (``arith.addf``, ``arith.maxnumf``, ...; a float sum is added in another order than the whole row's);
* the stores become one loop over chunks at the last store, storing each chunk of the values they store.

A loop that walks a row in blocks of columns (``for start in range(0, N, BLOCK)``, a layer norm's) whose blocks do
not fit runs in trips of fewer columns first (``reblock.py``).  The body of a loop over rows that carries nothing (tutorial 02's ``for row_idx in tl.range(row_start, n_rows,
row_step)``) is streamed the same way when the blocks live while it runs do not fit: there a block of a quarter of
the capacity is big (the row's stored block has two buffers, one read by the previous row's store: the plan asks
how ``access-plan`` will move the store, ``plan_function(..., ahead=True)``), and the loop gets ``ladder = "..."``
saying so (``--emit=ir``).  The chunk is the largest power of two no more than half the block with sixteen
chunk-sized blocks fitting in the plan's capacity.  A block read by anything else (a scan, a reshape, a dot), or a reduction with a combine function,
leaves the function as it is: codegen then reports the blocks that do not fit.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Operation, OpResult, Pure, Value
from mtiacc.ir.shape_ops import ReduceOp
from mtiacc.ir.types import i32
from mtiacc.opt.memory.narrow import Narrower, _elementwise_like, loads_feeding, reorder_safe
from mtiacc.opt.memory.plan import block_bytes, check_sram, plan_function
from mtiacc.opt.memory.reblock import narrow_loops
from mtiacc.opt.pass_manager import FunctionPass, PassContext, Remark, register_pass

_COMBINE = {("sum", True): (O.AddFOp, 0.0), ("max", True): (O.MaxNumFOp, float("-inf")),
            ("min", True): (O.MinNumFOp, float("inf")), ("sum", False): (O.AddIOp, 0)}


def _combine(op: ReduceOp):
    if op.regions or not isinstance(op.result, Value) or op.result.type.is_block():
        return None
    return _COMBINE.get((op.kind, op.result.type.is_float()))


def _plan(block, capacity: int, parts: int = 2):
    """(the big shape, its reductions, its stores, the chunk) when ``block`` (the function's, or the body of a loop
    over rows) can be streamed, else None.  A block is big when it takes more than a ``parts``-th of the
    capacity."""
    big = None
    for op in block.ops:
        for r in op.results:
            if r.type.is_block() and len(r.type.shape) == 1 and block_bytes(r.type) > capacity // parts:
                big = big or r.type.shape
    if big is None:
        return None
    reduces, stores = [], []
    probe = Narrower(block)
    for op in block.ops:
        if op.regions and not _elementwise_like(op):
            if any(x.type.is_block() and x.type.shape == big for o in op.walk() if o is not op
                   for x in list(o.results) + list(o.operands)):
                return None
            if any(x.type.is_block() and x.type.shape == big for x in op.operands):
                return None
            continue
        reads_big = any(x.type.is_block() and x.type.shape == big for x in op.operands)
        if isinstance(op, ReduceOp) and op.src.type.shape == big:
            if _combine(op) is None or not probe.can_slice(op.src, (0,)):
                return None
            reduces.append(op)
        elif isinstance(op, O.StoreOp) and op.ptr.type.is_block() and op.ptr.type.shape == big:
            if not all(probe.can_slice(x, (0,)) for x in op.operands):
                return None
            stores.append(op)
        elif reads_big or any(r.type.is_block() and r.type.shape == big for r in op.results):
            if not (_elementwise_like(op) or isinstance(op, (O.MakeRangeOp, O.SplatOp, O.ConstantOp,
                                                             O.BroadcastOp))):
                return None
    # the reductions re-run the loads where they stand and the stores run at the last one, interleaved with the
    # loads of later chunks: the stores come after the reductions, nothing else writes memory from the first load on,
    # and the stores write other buffers than the loads read, or the very elements a load of the chunk read
    if stores and reduces and block.ops.index(stores[0]) < block.ops.index(reduces[-1]):
        return None
    loads = loads_feeding([r.src for r in reduces] + [x for st in stores for x in st.operands], block)
    if not reorder_safe(loads, stores, block, block.terminator, stores, chunkwise=True):
        return None
    (n,) = big
    chunk = n // 2
    while chunk > 32 and 16 * chunk * 8 > capacity:
        chunk //= 2
    if n % chunk or not (reduces or stores):
        return None
    return big, reduces, stores, chunk


def _loop(block, anchor: Operation, n: int, chunk: int, inits, loc) -> scf.ForOp:
    consts = [O.ConstantOp.get(v, i32, loc=loc) for v in (0, n, chunk)]
    for c in consts:
        block.insert_before(anchor, c)
    lp = scf.ForOp.get(*(c.result for c in consts), list(inits), loc=loc)
    lp.attrs["split"] = f"stream {n} by {chunk}"
    lp.induction_var.name_hint = "c0"
    block.insert_before(anchor, lp)
    return lp


def _row_loops(func: O.FuncOp) -> List[scf.ForOp]:
    """The loops of the function's block that carry nothing (a persistent kernel's loop over its rows,
    ``tl.range(row_start, n_rows, row_step)``): their bodies are streamed as the function's block is."""
    return [op for op in func.entry.ops if isinstance(op, scf.ForOp) and not op.iter_args]


def stream_function(func: O.FuncOp, ctx: PassContext) -> bool:
    plan = plan_function(func, ctx.target, ahead=True)
    if plan.overflow() is None:
        return False
    check_sram(plan, ctx.target)
    found = _plan(func.entry, plan.capacity)
    if found is not None:
        _stream(func.entry, found, plan, ctx)
        return True
    def narrowed(loop, B, b):
        ctx.remark(Remark("stream-blocks", f"stream-blocks: blocks of {B} elements in each trip of the loop do not fit "
                          f"in local memory ({plan.capacity} bytes for blocks): trips of {b} columns", loop.loc,
                          f"{B // b} times as many trips, the same bytes read"))
    changed = narrow_loops(func, plan.capacity, ctx, narrowed)
    if changed:
        plan = plan_function(func, ctx.target, ahead=True)
    for loop in _row_loops(func):
        # in a loop, the stored block has two buffers (the store of one row reads one while the next row is
        # computed into the other: plan.py's _double_buffered), so a block of a quarter of the capacity overflows
        lo, hi = plan.ends[id(loop)]
        if all(plan.live_at(p) <= plan.capacity for p in range(lo, hi + 1)):
            continue
        found = _plan(loop.block, plan.capacity, 4)
        if found is not None:
            _stream(loop.block, found, plan, ctx)
            loop.attrs["ladder"] = (f"stream-blocks: blocks of {found[0][0]} elements in each trip do not fit "
                                    f"{plan.capacity} bytes: streamed in chunks of {found[3]}")
            changed = True
    return changed


def _stream(block, found, plan, ctx: PassContext) -> None:
    (n,), reduces, stores, chunk = found
    passes = len(reduces) + (1 if stores else 0)
    at = (reduces + stores)[0]
    loaded = sum(block_bytes(op.result.type) for op in block.ops
                 if isinstance(op, O.LoadOp) and op.result.type.is_block() and op.result.type.shape == (n,))
    ctx.remark(Remark("stream-blocks", f"stream-blocks: blocks of {n} elements do not fit in local memory "
                      f"({plan.capacity} bytes for blocks): {len(reduces)} reduction(s) and {len(stores)} store(s) "
                      f"computed in chunks of {chunk}", at.loc,
                      f"{passes} pass(es) over the block's loads, each chunk recomputed from them: "
                      f"{(passes - 1) * loaded} more bytes read from memory"))
    for red in reduces:
        cls, ident = _combine(red)
        init = O.ConstantOp.get(ident, red.result.type, loc=red.loc)
        block.insert_before(red, init)
        lp = _loop(block, red, n, chunk, [init.result], red.loc)
        body, acc = lp.block, lp.iter_args[0]
        part = Narrower(body, red.loc).slice(red.src, [(0, lp.induction_var, chunk)])
        r = body.append(ReduceOp.get(part, 0, red.kind, loc=red.loc))
        nxt = body.append(cls.get(acc, r.result, loc=red.loc))
        body.append(scf.YieldOp.get([nxt.result], loc=red.loc))
        lp.results[0].name_hint = red.result.name_hint
        red.result.replace_all_uses_with(lp.results[0])
    roots: List[Value] = []
    if stores:
        last = stores[-1]
        anchor = block.ops[block.ops.index(last) + 1]
        lp = _loop(block, anchor, n, chunk, [], last.loc)
        lp.block.append(scf.YieldOp.get(loc=last.loc))
        here = Narrower(lp.block, last.loc)
        for st in stores:
            operands = [here.slice(x, [(0, lp.induction_var, chunk)]) for x in st.operands]
            new = type(st)(operands, [], {k: v for k, v in st.attrs.items() if k != "access"}, loc=st.loc,
                           segments=st.segments)
            here.add(new)
        for st in stores:
            roots.extend(st.operands)
            st.erase()
    for red in reduces:
        roots.extend(red.operands)
        red.erase()
    _erase_dead(roots)


def _erase_dead(roots) -> None:
    todo = [v.op for v in roots if isinstance(v, OpResult)]
    while todo:
        op = todo.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not (Pure in op.traits or isinstance(op, O.LoadOp) and not op.volatile):
            continue
        operands = list(op.operands)
        op.erase() if not op.regions else scf.erase_nested(op)
        todo.extend(v.op for v in operands if isinstance(v, OpResult))


@register_pass
@dataclasses.dataclass(frozen=True)
class StreamBlocks(FunctionPass):
    """Stream one-dimensional blocks too big for local memory through it in chunks (module docstring)."""

    name = "stream-blocks"
    needs_context = True

    def run_on_function(self, func: O.FuncOp, ctx: PassContext) -> bool:
        return stream_function(func, ctx)


__all__ = ["StreamBlocks", "stream_function"]
