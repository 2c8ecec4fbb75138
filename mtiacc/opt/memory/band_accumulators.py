"""``band-accumulators``: a K loop whose ``tt.dot`` accumulator and tiles do not fit in local memory is run once per
band of the result (rows, columns, or both), each band's accumulator in the engine's registers, a step of the
local-memory ladder (``--remarks`` reports it, ``--Werror=spill`` makes it an error).

A K loop accumulating a 256 x 256 fp32 block needs 2,048 of the engine's 1,024 accumulator rows, so its
accumulator lives in local memory (256 KiB) beside the loop's tiles; with 256 x 128 bf16 tiles of A and B that is
more than a PE's 384 KiB.  A 256 x 128 accumulator the engine holds still has a home in local memory for the loop's
result (its read-back, 128 KiB of fp32, given before the loop as codegen gives a loop's results their homes): at
96 KiB or 128 KiB of local memory that does not fit either.  When the local-memory plan overflows and such a loop
carries nothing but the accumulator and scalars (its body reads memory and computes, and writes nothing), the
loop is run once per band of ``mb`` rows and ``nb`` columns:

    for m0 in range(0, M, mb) {split = "M 256 by 128", ladder = "..."}:
      for n0 in range(0, N, nb) {split = "N 128 by 64"}:
        acc = init[m0:m0+mb, n0:n0+nb]
        for k ...: a = load(...)[m0:m0+mb, :]; b = load(...)[:, n0:n0+nb]; acc = dot(a, b, acc)
        ... the element-wise ops and stores that read the loop's result, on the band

The bands are powers of two, at least 32, whose rows fit the engine (``mb * nb / 32`` rows) and whose tiles and
result fit what the plan leaves beside the loop; of those, the fewest bytes read again (a band of rows re-reads B,
a band of columns A: the remark's cost), then the fewest bands, then bands of columns.  The outer band loop's
``ladder`` attribute says what was done and why (``--emit=ir``).  The elements of a band are the same sums as in
the whole dot, in the same order: the result is the same bits.  A loop whose result is read by anything but
element-wise ops and stores in the loop's block, or that carries another block, is left as it is.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.types import i32
from mtiacc.opt.inline import clone_op
from mtiacc.opt.memory.narrow import Narrower, reorder_safe
from mtiacc.opt.memory.plan import block_bytes, check_sram, plan_function
from mtiacc.opt.memory.split_dots import _add, _consumers, clone_cone, _ebytes, _erase_dead, _need, _sizes
from mtiacc.opt.pass_manager import FunctionPass, PassContext, Remark, register_pass


def _candidate(loop: scf.ForOp, i: int, dots: List[DotOp]) -> Optional[Tuple[List[Operation], Tuple[bool, bool]]]:
    """(the ops reading the loop's result (:func:`_consumers`), whether it can be banded by rows, by columns) when
    the loop can run per band, else None."""
    if len(dots) != 1 or len(dots[0].a.type.shape) != 2:
        return None
    for j, arg in enumerate(loop.iter_args):    # the other carried values: scalars nothing reads after the loop
        if j != i and (arg.type.is_block() or loop.results[j].uses):
            return None
    dot = dots[0]
    for op in loop.block.ops:
        if op is not loop.block.terminator and scf.has_side_effects(op) and not isinstance(op, O.LoadOp):
            return None
    probe = Narrower(loop.block)
    init = loop.inits[i]
    rows = probe.can_slice(dot.a, (-2,)) and probe.can_slice(init, (-2,))
    cols = probe.can_slice(dot.b, (-1,)) and probe.can_slice(init, (-1,))
    if not (rows or cols):
        return None
    cone = _consumers(loop.results[i], loop)
    if cone is None:
        return None
    # the loop runs again for each band after the stores of the bands before: they must not write what it reads
    loads = [op for op in loop.walk() if isinstance(op, O.LoadOp)]
    stores = [op for op in cone if isinstance(op, O.StoreOp)]
    from mtiacc.ir.analysis.pointers import may_share, root_pointer
    roots = [root_pointer(ld.ptr) for ld in loads]
    if any(r is None for r in roots) or not reorder_safe([], stores, loop.parent, loop) or \
            any(may_share(root_pointer(st.ptr), r) for st in stores for r in roots):
        return None
    return cone, (rows, cols)


def _vector_chains(block) -> List[Tuple[scf.ForOp, int, List[DotOp]]]:
    """The K loops directly in ``block`` whose carried block is the accumulator of one ``tt.dot`` the vector unit
    computes (fp32 operands with ``input_precision="ieee"``: exact products), yielded as it is."""
    out = []
    for loop in block.ops:
        if not isinstance(loop, scf.ForOp):
            continue
        for i, arg in enumerate(loop.iter_args):
            if len(arg.uses) != 1 or not isinstance(arg.uses[0].op, DotOp) or arg.uses[0].index != 2:
                continue
            dot = arg.uses[0].op
            r = dot.result
            if dot.parent is loop.block and not dot.on_engine() and len(r.uses) == 1 and \
                    r.uses[0].op is loop.block.terminator and r.uses[0].index == i:
                out.append((loop, i, [dot]))
    return out


def _need_band(dot: DotOp, mb: int, nb: int, after: int) -> int:
    """Bytes of local memory a band of ``mb`` x ``nb`` takes: its tiles and accumulator (:func:`_need`), the
    result of a dot the vector unit computes (a buffer beside its accumulator), and its share of ``after``, the
    blocks the ops reading the loop's result make."""
    _, M, N, K = dot.shape
    result = 0 if dot.on_engine() else _ebytes(dot.acc) * mb * nb
    return _need(dot, mb, nb, K) + result + after * mb * nb // (M * N)


def _band(dot: DotOp, rows: int, budget: int, axes: Tuple[bool, bool], after: int) -> Optional[Tuple[int, int]]:
    """The band ``(mb, nb)`` (powers of two, at least 32) whose accumulator rows fit the engine and whose blocks
    (:func:`_need_band`) fit ``budget``, fewest bytes read again first (a band of rows re-reads B, of columns A),
    then the fewest bands, then bands of columns, widest first; or None."""
    _, M, N, K = dot.shape
    a, b = _ebytes(dot.a) * M * K, _ebytes(dot.b) * K * N
    cands = [(mb, nb) for mb in _sizes(M, axes[0]) for nb in _sizes(N, axes[1]) if (mb, nb) != (M, N)
             and (mb * -(-nb // 32) <= rows or not dot.on_engine()) and _need_band(dot, mb, nb, after) <= budget]

    def cost(s):
        mb, nb = s
        return a * (N // nb - 1) + b * (M // mb - 1), (M // mb) * (N // nb), mb < M, -nb
    return min(cands, key=cost) if cands else None


def _rewrite(loop: scf.ForOp, i: int, dot: DotOp, cone: List[Operation], mb: int, nb: int, why: str) -> None:
    block, loc = loop.parent, loop.loc
    _, M, N, _K = dot.shape
    anchor = block.ops[block.ops.index(cone[-1]) + 1]
    body, outer, m0, n0 = None, None, None, None
    for axis, extent, size in (("M", M, mb), ("N", N, nb)):
        if size >= extent:
            continue
        consts = [O.ConstantOp.get(v, i32, loc=loc) for v in (0, extent, size)]
        for c in consts:
            block.insert_before(outer or anchor, c)
        band = scf.ForOp.get(*(c.result for c in consts), loc=loc)
        band.attrs["split"] = f"{axis} {extent} by {size}"
        band.induction_var.name_hint = f"{axis.lower()}0"
        if body is None:
            band.attrs["ladder"] = why
            block.insert_before(anchor, band)
            outer = band
        else:
            _add(body, band)
        band.block.append(scf.YieldOp.get(loc=loc))
        body = band.block
        if axis == "M":
            m0 = band.induction_var
        else:
            n0 = band.induction_var
    cut = ([(-2, m0, mb)] if m0 is not None else []) + ([(-1, n0, nb)] if n0 is not None else [])
    inits = [Narrower(body, loc).slice(x, cut) if j == i else x for j, x in enumerate(loop.inits)]
    inner = scf.ForOp.get(loop.lower, loop.upper, loop.step, inits, loc=loc)
    inner.attrs.update({k: v for k, v in loop.attrs.items() if k != "operandSegmentSizes"})
    _add(body, inner)
    mapping: Dict[int, Value] = {id(loop.induction_var): inner.induction_var}
    inner.induction_var.name_hint = loop.induction_var.name_hint
    for old, new in zip(loop.iter_args, inner.iter_args):
        mapping[id(old)] = new
        new.name_hint = old.name_hint
    here = Narrower(inner.block, loc)
    for op in loop.block.ops:
        if op is dot:
            a = mapping.get(id(dot.a), dot.a)
            a = here.slice(a, [(-2, m0, mb)]) if m0 is not None else a
            b = mapping.get(id(dot.b), dot.b)
            b = here.slice(b, [(-1, n0, nb)]) if n0 is not None else b
            acc = inner.iter_args[i]
            new = DotOp([a, b, acc], [acc.type], dict(dot.attrs), loc=dot.loc)
            new.result.name_hint = dot.result.name_hint
            inner.block.append(new)
            mapping[id(dot.result)] = new.result
        elif op is loop.block.terminator:
            inner.block.append(scf.YieldOp.get([mapping.get(id(y), y) for y in op.operands], loc=op.loc))
        else:
            inner.block.append(clone_op(op, mapping))
    _erase_dead([mapping.get(id(dot.a), dot.a), mapping.get(id(dot.b), dot.b)])
    for old, new in zip(loop.results, inner.results):
        new.name_hint = old.name_hint
    done = {id(loop.results[i]): inner.results[i]}
    clone_cone(body, Narrower(body, loc), cone, cut, done)
    for op in reversed(cone):
        op.erase()
    roots = list(loop.operands)
    scf.erase_nested(loop)
    _erase_dead(roots)


def _staged(loop: scf.ForOp, i: int, dot: DotOp, plan, ctx: PassContext, rows: int,
            axes: Tuple[bool, bool]) -> Optional[Tuple[int, int, str]]:
    """For a loop whose accumulator the engine holds and whose blocks fit: the band ``(mb, nb)`` and why, when
    ``pipeline-dots`` would pipeline the loop in one stage (two stages of its tiles over its share of what the plan
    leaves: ``LocalMemoryPlan.share(2, ...)``, half of local memory at most, less the loop's result's home, which
    codegen gives from the loop's start) and bands leave room for two stages of theirs; else None.  Two stages of a
    band's tiles beat one stage of the whole tile's: the engine waits for no load (tutorial 03's 128x128x64 at 128
    KiB: 18,817 cycles in one stage, 14,196 in bands of 128x64; benchmarks/lmem_small.py)."""
    from mtiacc.ir.analysis.k_loops import stage_loads
    if not isinstance(O.const_value(loop.step), int) or dot.a.type.shape[0] != dot.shape[1]:
        return None
    loads = stage_loads(loop)
    if sorted(id(ld.result) for ld in loads) != sorted({id(dot.a), id(dot.b)}):
        return None       # (tiles through a transposed copy, or loaded elsewhere: pipeline-dots' own count)
    wanted = loop.num_stages if loop.num_stages is not None else (ctx.num_stages or 4)
    trip = loop.constant_trip_count()
    if wanted < 2 or trip is not None and trip < 2:
        return None
    _, M, N, K = dot.shape
    a, b = _ebytes(dot.a) * M * K, _ebytes(dot.b) * K * N
    home = _ebytes(dot.acc) * M * N
    free = plan.free_in(loop, [ld.result for ld in loads])
    if 2 * (a + b) <= plan.share(2, free):
        return None       # two stages fit as it is
    cands = [(mb, nb) for mb in _sizes(M, axes[0]) for nb in _sizes(N, axes[1]) if (mb, nb) != (M, N)
             and mb * -(-nb // 32) <= rows
             and 2 * (a * mb // M + b * nb // N) <= plan.share(2, free + home - home * mb * nb // (M * N))]
    if not cands:
        return None
    mb, nb = min(cands, key=lambda s: (a * (N // s[1] - 1) + b * (M // s[0] - 1), (M // s[0]) * (N // s[1]),
                                       s[0] < M, -s[1]))
    why = (f"band-accumulators: two stages of the loop's tiles ({2 * (a + b)} bytes) are over what pipeline-dots may "
           f"take ({plan.share(2, free)} bytes: half of local memory, no more than is free beside the loop's blocks, "
           f"its result's home of {home} bytes among them): bands of {mb}x{nb} take two stages")
    return mb, nb, why


def band_function(func: O.FuncOp, ctx: PassContext) -> bool:
    plan = plan_function(func, ctx.target)
    if plan.overflow() is None:
        return _band_for_stages(func, plan, ctx)
    check_sram(plan, ctx.target)
    from mtiacc.opt.dots.accumulators import engine_chains
    rows = ctx.target.dpe_accumulator_rows
    changed = False
    chains = [(loop, i, dots, "engine" if engine else "local") for loop, i, dots, engine in
              engine_chains(func.entry, rows) if loop.parent.parent.parent is func]
    chains += [(loop, i, dots, "vector") for loop, i, dots in _vector_chains(func.entry)]
    for loop, i, dots, held in chains:
        found = _candidate(loop, i, dots)
        if found is None:
            continue
        cone, axes = found
        dot = dots[0]
        _, M, N, K = dot.shape
        lo = plan.ends[id(loop)][0]
        hi = plan.ends[id(cone[-1])][1]
        own = {id(loop.iter_args[i]), id(loop.results[i]), id(dot.result), id(dot.a), id(dot.b)}
        own.update(id(r) for op in cone for r in op.results)
        beside = max(sum(b.size for b in plan.blocks if b.first <= p <= b.last and id(b.value) not in own)
                     for p in range(lo, hi + 1))
        budget = plan.capacity - beside
        after = sum(block_bytes(r.type) for op in cone for r in op.results if r.type.is_block())
        whole = _need_band(dot, M, N, after)
        if whole <= budget:
            continue       # its own blocks fit: the overflow is elsewhere
        band = _band(dot, rows, budget, axes, after)
        if band is None:
            continue
        mb, nb = band
        a, b = _ebytes(dot.a) * M * K, _ebytes(dot.b) * K * N
        reread = a * (N // nb - 1) + b * (M // mb - 1)
        where = {"engine": "in the engine (its result's home in local memory)",
                 "local": f"in local memory (it needs {M * -(-N // 32)} of the engine's {rows} accumulator rows)",
                 "vector": "in local memory (the vector unit's exact products)"}[held]
        home = "in the engine" if held != "vector" else "in local memory"
        why = (f"band-accumulators: the accumulator {M}x{N} {dot.acc.type.element_type} {where}, its tiles and "
               "results take "
               f"{whole} bytes, {budget} are free beside the loop: bands of {mb}x{nb}")
        ctx.remark(Remark("band-accumulators", f"band-accumulators: the loop's `tt.dot` accumulator {M}x{N} "
                          f"{dot.acc.type.element_type} {where}, its tiles and the blocks made of its result take "
                          f"{whole} bytes of local memory, "
                          f"{budget} bytes are free beside the loop: the loop runs once per band of {mb} rows and "
                          f"{nb} columns, each band's accumulator {home}", dot.loc,
                          f"the loop runs {(M // mb) * (N // nb)} times, {reread} bytes of tiles read again per "
                          "trip of its K loop"))
        _rewrite(loop, i, dot, cone, mb, nb, why)
        changed = True
    return changed


def _band_for_stages(func: O.FuncOp, plan, ctx: PassContext) -> bool:
    """Where the plan fits: the loops :func:`_staged` bands so that ``pipeline-dots`` can take two stages."""
    from mtiacc.opt.dots.accumulators import engine_chains
    rows = ctx.target.dpe_accumulator_rows
    changed = False
    for loop, i, dots, engine in list(engine_chains(func.entry, rows)):
        if not engine or loop.parent.parent.parent is not func or len(dots) != 1:
            continue
        found = _candidate(loop, i, dots)
        if found is None:
            continue
        cone, axes = found
        band = _staged(loop, i, dots[0], plan, ctx, rows, axes)
        if band is None:
            continue
        mb, nb, why = band
        dot = dots[0]
        _, M, N, K = dot.shape
        reread = _ebytes(dot.a) * M * K * (N // nb - 1) + _ebytes(dot.b) * K * N * (M // mb - 1)
        ctx.remark(Remark("band-accumulators", f"{why}: the loop runs once per band of {mb} rows and {nb} columns",
                          dot.loc, f"the loop runs {(M // mb) * (N // nb)} times, {reread} bytes of tiles read "
                          "again per trip of its K loop"))
        _rewrite(loop, i, dot, cone, mb, nb, why)
        changed = True
        plan = plan_function(func, ctx.target)
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class BandAccumulators(FunctionPass):
    """Run a K loop whose dot accumulator and tiles do not fit once per band of its result (module docstring)."""

    name = "band-accumulators"
    needs_context = True

    def run_on_function(self, func: O.FuncOp, ctx: PassContext) -> bool:
        return band_function(func, ctx)


__all__ = ["BandAccumulators", "band_function"]
