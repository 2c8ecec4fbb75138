"""``split-dots``: a ``tt.dot`` whose tiles do not fit in a PE's local memory is computed in sub-tiles that do, a step
of the local-memory ladder (``--remarks`` reports it, ``--Werror=spill`` makes it an error).

A GPU-tuned ``tl.dot`` of 512 x 512 x 512 fp32 blocks needs 1 MiB for each of A, B and the result, where a PE has
384 KiB of local memory.  When the local-memory plan (``mtiacc.opt.memory.plan``) overflows and a dot's own blocks
(A, B, the accumulator, and the bf16 parts the engine splits fp32 operands into) take more than the plan leaves
beside the blocks live around it, the dot is rewritten before the passes that pipeline and place it:

* along **K**: a loop over sub-tiles of ``BK``, each loading the columns ``k0:k0+BK`` of A and the rows of B,
  streamed through the engine into one accumulator carried by the loop (with 16-bit operands, summed in the order
  the engine sums the whole dot, 32 columns at a time, so the result is the same bits; fp32 operands split into
  bf16 parts sum each part's products per sub-tile, another order).  A dot already in a loop (the K loop of a
  tutorial matmul with a large ``BLOCK_K``) becomes a chain of sub-dots instead, each adding to the previous one's
  result (``split = "K 1024 by 256: 0"``, ...), so the loop keeps one accumulator; only while the engine holds
  that accumulator (in local memory each link's result would need a buffer of its own);
* along **N** (and **M**): a loop over bands of the result, each its own accumulator; the ops that read the dot's
  result (element-wise ops and the stores they end in, in the dot's block) move into the band loop and run on the
  band.  A band re-reads A (and an M band B) from memory: the cost the remark gives.

Each loop carries ``split = "AXIS EXTENT by SIZE"`` (``--emit=ir``).  Only a block larger than the whole SRAM is an
error (``check_sram`` in ``plan.py``), at its op, with the sizes.  The sub-tile sizes are powers of two, at least
32 (the engine's array) unless the dot is smaller, and chosen so the sub-dot's blocks fit in what the plan leaves,
fewest extra bytes moved first (``pipeline-dots`` then fetches ahead what room is left, with its own remark).  The
tiles are sliced by rebuilding their address, mask and ``other`` computations at the sub-tile's offset
(``narrow.py``); a dot whose operands are not computed so (a loop's block argument, a reshaped block), whose
accumulator is carried by a loop when it must be banded, or whose result feeds anything but element-wise ops and
stores when it must be banded, is left as it is: codegen then reports the blocks that do not fit.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.core import Operation, Pure, Value
from mtiacc.ir.dot_ops import DotOp, split_parts
from mtiacc.ir.types import FloatType, i32
from mtiacc.opt.memory.narrow import Narrower, _clone_resized, _elementwise_like, loads_feeding, reorder_safe, sliced_type
from mtiacc.opt.memory.plan import LocalMemoryPlan, check_sram, plan_function
from mtiacc.opt.pass_manager import FunctionPass, PassContext, Remark, register_pass

MIN_TILE = 32          # the engine's MAC array is 32 x 32: smaller sub-tiles waste it
SUB_DOT_COST = 2048    # bytes-equivalent of one more sub-dot (its issue and setup), to break ties toward fewer


@dataclasses.dataclass(frozen=True)
class Split:
    m: int
    n: int
    k: int


def _ebytes(v: Value) -> int:
    e = v.type.element_type
    return max(getattr(e, "width", 8), 8) // 8


def _need(dot: DotOp, m: int, n: int, k: int) -> int:
    """Bytes of local memory a sub-dot of ``m x k @ k x n`` takes: its tiles, its accumulator, and the engine's
    scratch (the bf16 parts of fp32 operands; the 16-bit copies of fp8 ones)."""
    a, b = _ebytes(dot.a) * m * k, _ebytes(dot.b) * k * n
    scratch, parts = 0, split_parts(dot.input_precision)
    for v, numel in ((dot.a, m * k), (dot.b, k * n)):
        e = v.type.element_type
        if isinstance(e, FloatType) and e.width == 32 and parts:
            scratch += 2 * parts * numel
        elif isinstance(e, FloatType) and e.is_fp8:
            scratch += 2 * numel
    return a + b + _ebytes(dot.acc) * m * n + scratch


def _sizes(extent: int, may_split: bool) -> List[int]:
    out, s = [extent], extent
    while may_split and s % 2 == 0 and s // 2 >= MIN_TILE:
        s //= 2
        out.append(s)
    return out


def _choose(dot: DotOp, budget: int, band: bool) -> Optional[Split]:
    """The sub-tile sizes whose blocks fit in ``budget``, fewest bytes moved first (each band converts its
    operands again: with fp32 operands, the bf16 parts of A are made once per band of N), then fewest sub-dots."""
    _, M, N, K = dot.shape
    ab, bb = _ebytes(dot.a) * M * K, _ebytes(dot.b) * K * N
    cands = [Split(m, n, k) for m in _sizes(M, band) for n in _sizes(N, band) for k in _sizes(K, True)
             if (m, n, k) != (M, N, K)]

    def cost(s: Split) -> Tuple[int, int]:
        subs = (M // s.m) * (N // s.n) * (K // s.k)
        return ab * (N // s.n) + bb * (M // s.m) + SUB_DOT_COST * subs, -s.k
    fits = [s for s in cands if _need(dot, s.m, s.n, s.k) <= budget]
    return min(fits, key=cost) if fits else None


def _cone(dot: DotOp) -> Optional[List[Operation]]:
    return _consumers(dot.result, dot)


def _consumers(result: Value, producer: Operation) -> Optional[List[Operation]]:
    """The ops that read ``result`` (of ``producer``: a dot, or a loop), directly or through each other, in block
    order, when they can run on a band of it: element-wise ops and stores of its shape in the producer's block, with
    no other op that writes memory among them (the stores move to the band loop)."""
    block, shape = producer.parent, result.type.shape
    found: Dict[int, Operation] = {}
    todo = [result]
    while todo:
        v = todo.pop()
        for use in v.uses:
            u = use.op
            if id(u) in found:
                continue
            if u.parent is not block or not (_elementwise_like(u) or isinstance(u, O.StoreOp)):
                return None
            if any(x.type.is_block() and x.type.shape != shape for x in u.operands):
                return None
            found[id(u)] = u
            todo.extend(u.results)
    ops = sorted(found.values(), key=block.ops.index)
    if not ops:
        return None
    lo, hi = block.ops.index(producer), block.ops.index(ops[-1])
    for op in block.ops[lo + 1:hi]:
        if id(op) not in found and scf.has_side_effects(op) and not isinstance(op, O.LoadOp):
            return None
    probe = Narrower(block)
    for op in ops:
        for x in op.operands:
            if not any(x is r for o in ops for r in o.results) and x is not result:
                if not probe.can_slice(x, (-2, -1)):
                    return None
    return ops


def block_after(op: Operation) -> Operation:
    """The op after ``op`` in its block (a block ends with its terminator, so there is one after any other op)."""
    ops = op.parent.ops
    return ops[ops.index(op) + 1]


def _sliceable(dot: DotOp, band: bool) -> bool:
    p = Narrower(dot.parent)
    if band:
        return all(p.can_slice(v, (-2, -1)) for v in (dot.a, dot.b, dot.acc))
    return p.can_slice(dot.a, (-1,)) and p.can_slice(dot.b, (-2,))


def clone_cone(block, narrower: Narrower, cone: Sequence[Operation], cuts, mapping: Dict[int, Value]) -> None:
    """Clones each op of ``cone`` into ``block`` cut to the band ``cuts`` (``(axis, start, size)`` each): its
    operands the clones ``mapping`` holds (by the original's id) or the band of the value outside (``narrower``),
    its results' types cut to the band; ``mapping`` gains each clone's results."""
    for op in cone:
        operands = [mapping[id(x)] if id(x) in mapping else narrower.slice(x, cuts) for x in op.operands]
        types = []
        for r in op.results:
            t = r.type
            for a, _, n in cuts:
                t = sliced_type(t, a % len(t.shape), n)
            types.append(t)
        new = _add(block, _clone_resized(op, operands, types))
        for old, r in zip(op.results, new.results):
            mapping[id(old)] = r


def _add(block, op: Operation) -> Operation:
    term = block.terminator
    if term is not None:
        block.insert_before(term, op)
    else:
        block.append(op)
    return op


class _Rewrite:
    def __init__(self, dot: DotOp, split: Split, cone: Optional[List[Operation]]):
        self.dot, self.split, self.cone = dot, split, cone
        self.block = dot.parent
        # the band loops go after the last op that reads the result (the ops they replace read values defined
        # up to there); a loop over K alone replaces the dot where it is
        self.anchor = self.block.ops[self.block.ops.index(cone[-1]) + 1] if cone else dot
        self.loc = dot.loc
        self.outer: Optional[Operation] = None    # the outermost loop made (the constants go before it)

    def const(self, v: int) -> Value:
        op = O.ConstantOp.get(v, i32, loc=self.loc)
        self.block.insert_before(self.outer or self.anchor, op)
        return op.result

    def put(self, cur, op: Operation) -> Operation:
        if cur is None:
            self.block.insert_before(self.anchor, op)
            self.outer = op
            return op
        return _add(cur, op)

    def loop(self, cur, axis: str, extent: int, size: int, inits: Sequence[Value] = ()) -> scf.ForOp:
        lp = scf.ForOp.get(self.const(0), self.const(extent), self.const(size), list(inits), loc=self.loc)
        lp.attrs["split"] = f"{axis} {extent} by {size}"
        lp.induction_var.name_hint = f"{axis.lower()}0"
        return self.put(cur, lp)

    def run(self) -> None:
        dot, s = self.dot, self.split
        _, M, N, K = dot.shape
        cur, m0, n0 = None, None, None
        if s.m < M:
            lp = self.loop(cur, "M", M, s.m)
            lp.block.append(scf.YieldOp.get(loc=self.loc))
            cur, m0 = lp.block, lp.induction_var
        if s.n < N:
            lp = self.loop(cur, "N", N, s.n)
            lp.block.append(scf.YieldOp.get(loc=self.loc))
            cur, n0 = lp.block, lp.induction_var
        acc = dot.acc
        if cur is not None:
            acc = self.slice2(cur, acc, m0, n0, s.m, s.n)
        if s.k < K and cur is None and isinstance(self.block.parent.parent, (scf.ForOp, scf.WhileOp)):
            res = self.chain(acc)
            dot.result.replace_all_uses_with(res)
            roots = list(dot.operands)
            dot.erase()
            _erase_dead(roots)
            return
        if s.k < K:
            lk = self.loop(cur, "K", K, s.k, [acc])
            body, k0, acc_in = lk.block, lk.induction_var, lk.iter_args[0]
            acc_in.name_hint = dot.result.name_hint
        else:
            lk, body, k0, acc_in = None, cur, None, acc
        a = self.slice2(body, dot.a, m0, k0, s.m, s.k)
        b = self.slice2(body, dot.b, k0, n0, s.k, s.n)
        sub = DotOp([a, b, acc_in], [acc_in.type], dict(dot.attrs), loc=dot.loc)
        sub.result.name_hint = dot.result.name_hint
        _add(body, sub)
        res = sub.result
        if lk is not None:
            body.append(scf.YieldOp.get([sub.result], loc=self.loc))
            res = lk.results[0]
            res.name_hint = dot.result.name_hint
        dead: List[Operation] = [dot]
        if self.cone:
            self.move_cone(cur, res, m0, n0)
            dead = list(reversed(self.cone)) + dead
        else:
            dot.result.replace_all_uses_with(res)
        roots = [x for op in dead for x in op.operands]
        for op in dead:
            op.erase()
        _erase_dead(roots)

    def chain(self, acc: Value) -> Value:
        """Inside a loop, the sub-dots along K as a chain, each adding to the previous one's result: the loop's
        accumulator stays one buffer (the engine's, or the carried block written in place), as for one dot."""
        dot, k = self.dot, self.split.k
        K = dot.shape[3]
        for i, k0 in enumerate(range(0, K, k)):
            off = self.const(k0)
            here = Narrower(self.block, self.loc, before=self.anchor)
            a, b = here.slice(dot.a, [(-1, off, k)]), here.slice(dot.b, [(-2, off, k)])
            sub = DotOp([a, b, acc], [acc.type], dict(dot.attrs), loc=dot.loc)
            sub.attrs["split"] = f"K {K} by {k}: {i}"
            sub.result.name_hint = dot.result.name_hint
            self.block.insert_before(self.anchor, sub)
            acc = sub.result
        return acc

    def slice2(self, block, v: Value, first: Optional[Value], second: Optional[Value], fs: int, ss: int) -> Value:
        """``v`` sliced along its last two axes (``first`` for the rows, ``second`` for the columns; None: whole)."""
        cuts = ([(-2, first, fs)] if first is not None else []) + ([(-1, second, ss)] if second is not None else [])
        return Narrower(block, self.loc).slice(v, cuts)

    def move_cone(self, cur, res: Value, m0, n0) -> None:
        s = self.split
        cuts = ([(-2, m0, s.m)] if m0 is not None else []) + ([(-1, n0, s.n)] if n0 is not None else [])
        mapping = {id(self.dot.result): res}
        clone_cone(cur, Narrower(cur, self.loc), self.cone, cuts, mapping)


def _erase_dead(roots: Sequence[Value]) -> None:
    """Erase the ops that computed the replaced ops' operands, once nothing reads them."""
    todo = [v.op for v in roots if hasattr(v, "op")]
    while todo:
        op = todo.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not (Pure in op.traits or isinstance(op, O.LoadOp) and not op.volatile):
            continue
        if op.regions and not _elementwise_like(op):
            continue
        operands = list(op.operands)
        op.erase()
        todo.extend(v.op for v in operands if hasattr(v, "op"))


def _blocks_beside(plan: LocalMemoryPlan, dot: DotOp) -> int:
    """Bytes of the blocks live at the dot other than its own."""
    pos = plan.ends[id(dot)][0]
    own = {id(dot.a), id(dot.b), id(dot.acc), id(dot.result)}
    return sum(b.size for b in plan.blocks if b.first <= pos <= b.last and id(b.value) not in own)


def _describe(dot: DotOp, s: Split) -> Tuple[str, str]:
    _, M, N, K = dot.shape
    axes = ", ".join(f"{ax} into {ext // sz} sub-tiles of {sz}" for ax, ext, sz in
                     (("M", M, s.m), ("N", N, s.n), ("K", K, s.k)) if sz < ext)
    reread = _ebytes(dot.a) * M * K * (N // s.n - 1) + _ebytes(dot.b) * K * N * (M // s.m - 1)
    subs = (M // s.m) * (N // s.n) * (K // s.k)
    cost = f"{subs} sub-dots of {s.m}x{s.k} @ {s.k}x{s.n}"
    cost += f", {reread} more bytes read from memory" if reread else ", no byte read twice"
    return axes, cost


def split_function(func: O.FuncOp, ctx: PassContext) -> bool:
    plan = plan_function(func, ctx.target)
    if plan.overflow() is None:
        return False
    check_sram(plan, ctx.target)
    from mtiacc.opt.dots.accumulators import engine_chains
    engine = {id(d) for _loop, _i, dots, held in engine_chains(func.entry, ctx.target.dpe_accumulator_rows)
              if held for d in dots}
    changed = False
    for dot in [op for op in func.walk() if isinstance(op, DotOp) and len(op.a.type.shape) == 2]:
        if isinstance(dot.parent.parent.parent, (scf.ForOp, scf.WhileOp)) and id(dot) not in engine:
            # a loop's chain of sub-dots adds into one accumulator only while the engine holds it (in local
            # memory each link's result would be a buffer of its own): such a dot is left to codegen's report
            continue
        _, M, N, K = dot.shape
        budget = plan.capacity - _blocks_beside(plan, dot)
        need = _need(dot, M, N, K)
        if need <= budget:
            continue
        cone = _cone(dot)
        band = cone is not None and _sliceable(dot, True)
        if not _sliceable(dot, False):
            continue
        split = _choose(dot, budget, band)
        if split is None:
            continue
        banded = split.m < M or split.n < N
        stores = [op for op in cone if isinstance(op, O.StoreOp)] if banded else []
        until = block_after(cone[-1]) if banded else dot
        if not reorder_safe(loads_feeding((dot.a, dot.b), dot.parent), stores, dot.parent, until, cone or ()):
            continue
        axes, cost = _describe(dot, split)
        ctx.remark(Remark("split-dot", f"split-dots: `tt.dot` of {M}x{K} @ {K}x{N} {dot.a.type.element_type} "
                          f"needs {need} bytes of local memory, {max(budget, 0)} are free beside the blocks live "
                          f"there: split along {axes}", dot.loc, cost))
        _Rewrite(dot, split, cone if banded else None).run()
        changed = True
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class SplitDots(FunctionPass):
    """Compute a dot too big for local memory in sub-tiles that fit (module docstring)."""

    name = "split-dots"
    needs_context = True

    def run_on_function(self, func: O.FuncOp, ctx: PassContext) -> bool:
        return split_function(func, ctx)


__all__ = ["SplitDots", "split_function"]
