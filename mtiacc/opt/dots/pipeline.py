"""``pipeline-dots``: unroll a K loop by S stages so that the DMA of one stage's tiles overlaps the engine's
work on another's.

Blocks live at static local-memory addresses, so a loop body is one set of buffers: the DMA of the next
iteration's tiles would wait for the engine to finish reading this iteration's (the command processor
delays a DMA into bytes the engine still reads).  With the body unrolled into S copies, each copy's tiles
are other values, hence other buffers (codegen keeps the buffers engine commands read alive until the
engine is waited for or the loop body ends), and stage ``s + 1``'s loads run while the engine works on
stage ``s``.

A loop qualifies (a K loop: :func:`mtiacc.ir.analysis.k_loops.is_k_loop`; ``loop-unroll`` leaves those of a
constant trip count to this pass) when its step is a positive constant and its body holds a ``tt.dot`` with an
operand that a ``tt.load`` of the same body produces (through shape ops and casts), and no dot's result reaches a reduction
or another dot's operand in the body (:func:`chained_products`: flash attention's ``S = Q K^T``, softmax,
``P V``; ``pipeline-loads`` fetches those loops' tiles an iteration ahead, over the whole iteration's work).  S is the kernel's hint
(``tl.range(..., num_stages=S)``, the loop's ``num_stages``) when it has one, else ``stages`` (4: the back
edge, where the next iteration's first loads wait for the last dot's engine commands, comes once every 4 K
steps; 4 beat 2 by 5% on a 512^3 bf16 GEMM and cost nothing on the large ones); it is lowered while S copies
of the loaded tiles would take more than the local-memory plan leaves free while the loop runs
(``mtiacc.opt.memory.plan``; ``lmem-bytes``, when set, instead), or, unless the trip count is a constant
multiple of S, while the loop of the last iterations would not fit (it runs the body as it is, its carried
blocks in homes of their own while the pipelined loop's results, its inits, stay live: the plan's free bytes
while the loop runs must hold the carried blocks a second time, but for the accumulators the matrix engine keeps:
their rows go on to that loop as they are), with a remark; and to the trip count when that
is a smaller constant.  The loop gets ``{pipeline_stages = S}``.

The unrolled loop runs ``trip // S`` times (its upper bound computed in the IR when the trip count is not
a constant); the ``trip % S`` iterations left run in a second loop of the original body, marked
``{pipeline_stages = 1}``.

Inside the unrolled body, copy ``s + 1``'s operand loads (with the pure ops of the body computing their
pointers and masks) move up to just before copy ``s``'s dot and are marked ``{prefetch = true}``: a PE has
one DMA completion barrier, so codegen waits for copy ``s``'s tiles right before it issues copy ``s + 1``'s
transfers (its address arithmetic done first) and not again before copy ``s``'s dot.  The DMA engine then
goes from one stage's tiles to the next with only the issue of the transfers in between, where it used to
wait for the engine commands of the dot and the next load's address arithmetic as well.  Loads move only
when the body holds no store, atomic or barrier, and their address slice holds no dot and no op with regions.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.atomic_ops import AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.core import Block, Operation, OpResult, Pure, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import TransOp
from mtiacc.ir.analysis.k_loops import chained_products, is_k_loop, stage_loads  # noqa: F401  (pipeline-loads' import)
from mtiacc.ir.analysis.k_loops import loaded as _loaded
from mtiacc.opt.dots.rotate import prefetch_across
from mtiacc.opt.loop_unroll import _copy_body
from mtiacc.opt.memory.plan import plan_function
from mtiacc.opt.pass_manager import ModulePass, PassContext, Remark, register_pass

def _copies(loop: scf.ForOp) -> List[Value]:
    """The transposed copies of loaded tiles that the body's dots read as ``a`` (``tt.trans`` of a load, on the
    memory layout unit): a buffer per stage beside the loaded tile (a ``tt.trans`` read as ``b`` is none:
    the engine reads its source)."""
    out: List[Value] = []
    for op in loop.block.ops:
        if isinstance(op, DotOp):
            v = op.a
            if (isinstance(v, OpResult) and isinstance(v.op, TransOp) and v.op.parent is loop.block
                    and _loaded(v, loop.block) is not None and v not in out):
                out.append(v)
    return out


def _aligned(n: int) -> int:
    return (n + 63) // 64 * 64


def _bytes(v: Value) -> int:
    t = v.type
    return t.numel * max(getattr(t.element_type, "width", 8), 8) // 8


def _emit(op: Operation, before: Operation) -> Value:
    before.parent.insert_before(before, op)
    return op.result


def _const(value: int, like: Value, before: Operation) -> Value:
    return _emit(O.ConstantOp.get(value, like.type, loc=before.loc), before)


def main_upper(loop: scf.ForOp, stages: int, step: int, trip: Optional[int]) -> Value:
    """The upper bound of the unrolled loop: ``lower + (trip // S) * S * step``."""
    lo, hi, loc = loop.lower, loop.upper, loop.loc
    if trip is not None and O.const_value(lo) is not None:
        return _const(O.const_value(lo) + trip // stages * stages * step, lo, loop)
    diff = _emit(O.SubIOp.get(hi, lo, loc=loc), loop)
    diff = _emit(O.MaxSIOp.get(diff, _const(0, lo, loop), loc=loc), loop)
    count = diff
    if step != 1:
        count = _emit(O.AddIOp.get(diff, _const(step - 1, lo, loop), loc=loc), loop)
        count = _emit(O.DivSIOp.get(count, _const(step, lo, loop), loc=loc), loop)
    full = _emit(O.DivSIOp.get(count, _const(stages, lo, loop), loc=loc), loop)
    span = _emit(O.MulIOp.get(full, _const(stages * step, lo, loop), loc=loc), loop)
    return _emit(O.AddIOp.get(lo, span, loc=loc), loop)


def _new_loop(loop: scf.ForOp, lo: Value, hi: Value, step: Value, inits, stages: int) -> scf.ForOp:
    new = scf.ForOp.get(lo, hi, step, list(inits), loc=loop.loc, arg_names=[a.name_hint for a in loop.block.args])
    new.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    new.attrs["pipeline_stages"] = stages
    loop.parent.insert_before(loop, new)
    return new


def _fill(new: scf.ForOp, loop: scf.ForOp, copies: int, step: int) -> None:
    body = new.block
    anchor = body.append(scf.YieldOp.get([], loc=loop.loc))
    carried: List[Value] = list(new.iter_args)
    for k in range(copies):
        iv = new.induction_var
        if k:
            off = _const(k * step, loop.step, anchor)
            iv = _emit(O.AddIOp.get(new.induction_var, off, loc=loop.loc), anchor)
        carried = _copy_body(loop, anchor, iv, carried)
    body.insert_before(anchor, scf.YieldOp.get(carried, loc=loop.block.terminator.loc))
    anchor.erase()


def _slice(loads: List[O.LoadOp], body: Block) -> Optional[List[Operation]]:
    """The ops of ``body`` that compute ``loads``' operands, the loads included, in body order; None when one
    of them is neither pure nor one of the loads, or is a dot."""
    seen, out = set(), []

    def visit(op: Operation) -> bool:
        if id(op) in seen:
            return True
        seen.add(id(op))
        if isinstance(op, DotOp) or op.regions or (Pure not in op.traits and op not in loads):
            return False
        for v in op.operands:
            if isinstance(v, OpResult) and v.op.parent is body and not visit(v.op):
                return False
        out.append(op)
        return True

    if not all(visit(ld) for ld in loads):
        return None
    return sorted(out, key=body.ops.index)


def hoist_next_loads(loop: scf.ForOp) -> None:
    """Move each copy's operand loads (and their address slices) before the previous copy's dot, marked
    ``prefetch`` (the module docstring)."""
    body = loop.block
    if any(isinstance(op, (O.StoreOp, AtomicRMWOp, AtomicCASOp, BarrierOp)) for op in loop.walk()):
        return
    dots = [op for op in body.ops if isinstance(op, DotOp)]
    for prev, dot in zip(dots, dots[1:]):
        loads = [ld for ld in (_loaded(v, body) for v in (dot.a, dot.b)) if ld is not None]
        loads = list(dict.fromkeys(loads))
        moved = _slice(loads, body) if loads else None
        if not moved or body.ops.index(loads[0]) < body.ops.index(prev):
            continue
        for op in moved:
            if body.ops.index(op) > body.ops.index(prev):
                body.ops.remove(op)
                body.insert_before(prev, op)
        for ld in loads:
            ld.attrs["prefetch"] = True


def pipeline(loop: scf.ForOp, stages: int, step: int, trip: Optional[int]) -> None:
    hi = main_upper(loop, stages, step, trip)
    big_step = _const(stages * step, loop.step, loop)
    main = _new_loop(loop, loop.lower, hi, big_step, loop.inits, stages)
    _fill(main, loop, stages, step)
    hoist_next_loads(main)
    rotated = prefetch_across(main, _loaded, trip is None or trip < stages)
    main = rotated or main
    results = list(main.results[:len(loop.results)])
    if trip is None or trip % stages:
        rest = _new_loop(loop, hi, loop.upper, loop.step, results, 1)
        _fill(rest, loop, 1, step)
        results = list(rest.results)
    for r, nr in zip(loop.results, results):
        nr.name_hint = r.name_hint
        r.replace_all_uses_with(nr)
    scf.erase_nested(loop)


def visit(block: Block, p: "PipelineDots", ctx: PassContext, func: O.FuncOp) -> bool:
    changed = False
    for op in list(block.ops):
        for r in op.regions:
            for b in r.blocks:
                changed |= visit(b, p, ctx, func)
        if not isinstance(op, scf.ForOp) or op.pipeline_stages is not None:
            continue
        if not is_k_loop(op):
            continue
        step = O.const_value(op.step)
        loads = stage_loads(op)
        stages = op.num_stages if op.num_stages is not None else p.stages
        tiles = [ld.result for ld in loads] + _copies(op)
        per_stage = sum(_bytes(v) for v in tiles)
        wanted = stages
        trip = op.constant_trip_count()
        plan = plan_function(func, ctx.target)
        free = p.lmem_bytes or plan.share(2, plan.free_in(op, tiles))
        # the loop of the last trip % S iterations runs the body as it is, its carried blocks in buffers of
        # their own while the pipelined loop's results (its inits) stay live: that many bytes more, but for the
        # accumulators the matrix engine keeps (the pipelined loop hands their rows on as they are: no buffer)
        carried = sum(_aligned(_bytes(r)) for a, r in zip(op.iter_args, op.results)
                      if r.type.is_block() and id(a) not in plan.resident)
        rest = None if p.lmem_bytes else plan.free_in(op)
        while stages > 1 and (stages * per_stage > free or rest is not None and carried > rest
                              and (trip is None or trip % stages)):
            stages -= 1
        if stages < wanted and not p.lmem_bytes:
            if (stages + 1) * per_stage > free:   # the tiles of one stage more would not fit
                why = (f"{wanted} copies of its tiles take {wanted * per_stage} bytes of local memory, "
                       f"{max(free, 0)} bytes are available to them while it runs")
            else:
                why = (f"the loop after it for the last iterations holds its carried blocks a second time "
                       f"({carried} bytes), {max(rest, 0)} bytes are free while it runs")
            ctx.remark(Remark("stages", f"pipeline-dots: loop pipelined in {stages} stage(s) instead of {wanted}: "
                              f"{why}", op.loc, f"{(wanted - stages) * per_stage} bytes of tiles no longer fetched "
                              f"ahead per {wanted} iterations"))
        if trip is not None:
            stages = min(stages, trip)
        if stages <= 1:
            op.attrs["pipeline_stages"] = 1
            changed = True
            continue
        pipeline(op, stages, step, trip)
        changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class PipelineDots(ModulePass):
    name = "pipeline-dots"
    stages: int = 4
    lmem_bytes: int = 0     # bytes the tiles of a loop's stages may take; 0: what the local-memory plan leaves
    needs_context = True

    def run(self, module: O.ModuleOp, ctx: PassContext) -> Optional[bool]:
        changed = False
        for func in [op for op in module.body.block.ops if isinstance(op, O.FuncOp)]:
            changed |= visit(func.entry, self, ctx, func)
        return None if changed else False
