"""``band-accumulators``: a loop's ``tt.dot`` accumulator too big for the matrix engine and for local memory is
computed in bands of columns, each band's accumulator in the engine's registers, a step of the local-memory ladder
(``--remarks`` reports it, ``--Werror=spill`` makes it an error).

A K loop accumulating a 256 x 256 fp32 block needs 2,048 of the engine's 1,024 accumulator rows, so its
accumulator lives in local memory (256 KiB) beside the loop's tiles; with 256 x 128 bf16 tiles of A and B that is
more than a PE's 384 KiB.  When the local-memory plan overflows and such a loop carries nothing but the accumulator
(its body reads memory and computes, and writes nothing), the loop is run once per band of ``nb`` columns:

    for n0 in range(0, N, nb) {split = "N 256 by 128"}:
        acc = init[:, n0:n0+nb]
        for k ...: a = load(...); b = load(...)[:, n0:n0+nb]; acc = dot(a, b, acc)
        ... the element-wise ops and stores that read the loop's result, on the band

The band is the widest power of two whose rows fit the engine (``M * nb / 32`` rows) and whose tiles fit the plan;
each band re-reads A (the remark's cost).  The columns of a band are the same sums as in the whole dot, in the same
order: the result is the same bits.  A loop whose accumulator the engine already holds, or whose result is read by
anything but element-wise ops and stores in the loop's block, is left as it is.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.types import i32
from mtiacc.opt.inline import clone_op
from mtiacc.opt.memory.narrow import Narrower, _clone_resized, reorder_safe, sliced_type
from mtiacc.opt.memory.plan import check_sram, plan_function
from mtiacc.opt.memory.split_dots import MIN_TILE, _add, _consumers, _ebytes, _erase_dead, _need
from mtiacc.opt.pass_manager import FunctionPass, PassContext, Remark, register_pass


def _candidate(loop: scf.ForOp, dots: List[DotOp]) -> Optional[List[Operation]]:
    """The ops reading the loop's result (:func:`_consumers`) when the loop can run per band, else None."""
    if len(dots) != 1 or len(loop.iter_args) != 1 or len(dots[0].a.type.shape) != 2:
        return None
    dot = dots[0]
    for op in loop.block.ops:
        if op is not loop.block.terminator and scf.has_side_effects(op) and not isinstance(op, O.LoadOp):
            return None
    probe = Narrower(loop.block)
    if not (probe.can_slice(dot.b, (-1,)) and probe.can_slice(loop.inits[0], (-1,))):
        return None
    cone = _consumers(loop.results[0], loop)
    if cone is None:
        return None
    # the loop runs again for each band after the stores of the bands before: they must not write what it reads
    loads = [op for op in loop.walk() if isinstance(op, O.LoadOp)]
    stores = [op for op in cone if isinstance(op, O.StoreOp)]
    from mtiacc.ir.analysis.pointers import root_pointer
    roots = [root_pointer(ld.ptr) for ld in loads]
    if any(r is None for r in roots) or not reorder_safe([], stores, loop.parent, loop) or \
            any(root_pointer(st.ptr) is r for st in stores for r in roots):
        return None
    return cone


def _band(dot: DotOp, rows: int, budget: int) -> Optional[int]:
    """The widest band of columns (a power of two, at least 32) whose accumulator rows fit the engine and whose
    tiles fit ``budget``, or None."""
    _, M, N, K = dot.shape

    def fits(nb: int) -> bool:
        return M * -(-nb // 32) <= rows and _need(dot, M, nb, K) - _ebytes(dot.acc) * M * nb <= budget
    nb = N
    while not fits(nb) and nb % 2 == 0 and nb // 2 >= MIN_TILE:
        nb //= 2
    return nb if nb < N and fits(nb) else None


def _rewrite(loop: scf.ForOp, dot: DotOp, cone: List[Operation], nb: int) -> None:
    block, loc = loop.parent, loop.loc
    N = dot.shape[2]
    anchor = block.ops[block.ops.index(cone[-1]) + 1]
    consts = [O.ConstantOp.get(v, i32, loc=loc) for v in (0, N, nb)]
    for c in consts:
        block.insert_before(anchor, c)
    band = scf.ForOp.get(*(c.result for c in consts), loc=loc)
    band.attrs["split"] = f"N {N} by {nb}"
    band.induction_var.name_hint = "n0"
    block.insert_before(anchor, band)
    body = band.block
    body.append(scf.YieldOp.get(loc=loc))
    n0 = band.induction_var
    cut = [(-1, n0, nb)]
    init = Narrower(body, loc).slice(loop.inits[0], cut)
    inner = scf.ForOp.get(loop.lower, loop.upper, loop.step, [init], loc=loc)
    inner.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    _add(body, inner)
    mapping: Dict[int, Value] = {id(loop.induction_var): inner.induction_var, id(loop.iter_args[0]): inner.iter_args[0]}
    inner.induction_var.name_hint = loop.induction_var.name_hint
    inner.iter_args[0].name_hint = loop.iter_args[0].name_hint
    here = Narrower(inner.block, loc)
    for op in loop.block.ops:
        if op is dot:
            b = here.slice(mapping[id(dot.b)], cut)
            acc = inner.iter_args[0]
            new = DotOp([mapping.get(id(dot.a), dot.a), b, acc], [acc.type], dict(dot.attrs), loc=dot.loc)
            new.result.name_hint = dot.result.name_hint
            inner.block.append(new)
            mapping[id(dot.result)] = new.result
        elif op is loop.block.terminator:
            inner.block.append(scf.YieldOp.get([mapping[id(dot.result)]], loc=op.loc))
        else:
            inner.block.append(clone_op(op, mapping))
    _erase_dead([mapping[id(dot.b)]])
    inner.results[0].name_hint = loop.results[0].name_hint
    outside = Narrower(body, loc)
    done = {id(loop.results[0]): inner.results[0]}
    for op in cone:
        operands = [done[id(x)] if id(x) in done else outside.slice(x, cut) for x in op.operands]
        types = [sliced_type(r.type, len(r.type.shape) - 1, nb) for r in op.results]
        new = _add(body, _clone_resized(op, operands, types))
        for old, r in zip(op.results, new.results):
            done[id(old)] = r
    for op in reversed(cone):
        op.erase()
    roots = list(loop.operands)
    scf.erase_nested(loop)
    _erase_dead(roots)


def band_function(func: O.FuncOp, ctx: PassContext) -> bool:
    plan = plan_function(func, ctx.target)
    if plan.overflow() is None:
        return False
    check_sram(plan, ctx.target)
    from mtiacc.opt.dots.accumulators import engine_chains
    rows = ctx.target.dpe_accumulator_rows
    changed = False
    for loop, _i, dots, engine in list(engine_chains(func.entry, rows)):
        if engine or loop.parent.parent.parent is not func:
            continue
        cone = _candidate(loop, dots)
        if cone is None:
            continue
        dot = dots[0]
        _, M, N, K = dot.shape
        lo, hi = plan.ends[id(loop)]
        own = {id(loop.iter_args[0]), id(loop.results[0]), id(dot.result)}
        beside = max(sum(b.size for b in plan.blocks if b.first <= p <= b.last and id(b.value) not in own)
                     for p in range(lo, hi + 1))
        nb = _band(dot, rows, plan.capacity - beside)
        if nb is None:
            continue
        tile = _ebytes(dot.a) * M * K
        ctx.remark(Remark("band-accumulators", f"band-accumulators: the loop's `tt.dot` accumulator {M}x{N} "
                          f"{dot.acc.type.element_type} needs {M * -(-N // 32)} of the engine's {rows} accumulator "
                          f"rows, and in local memory its blocks do not fit: the loop runs once per band of {nb} "
                          "columns, each band's accumulator in the engine", dot.loc,
                          f"the loop runs {N // nb} times, each trip's tile of A ({tile} bytes) read {N // nb} "
                          "times"))
        _rewrite(loop, dot, cone, nb)
        changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class BandAccumulators(FunctionPass):
    """Run a loop whose dot accumulator does not fit once per band of its columns (module docstring)."""

    name = "band-accumulators"
    needs_context = True

    def run_on_function(self, func: O.FuncOp, ctx: PassContext) -> bool:
        return band_function(func, ctx)


__all__ = ["BandAccumulators", "band_function"]
