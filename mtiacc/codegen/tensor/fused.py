"""Instruction selection for ``tt.fused_elementwise``: a chain of elementwise ops in one vector loop.

The loop walks the elements in chunks of ``vl``.  Each chunk loads every block input once (at its
first use), broadcasts scalar inputs and the region's constants, evaluates the region's ops on
vector register groups, and stores only the values used outside the chain (right after computing
them).  Intermediates stay in registers.

Registers: the widest element type runs at LMUL 4 (groups ``v4, v8, ..., v28``: seven) when the
chain fits, else at LMUL 2 (``v2, ..., v30``: fifteen); narrower types run at a proportionally
smaller (possibly fractional) LMUL so that one ``vl`` serves every type.  ``v0`` is the mask
register of the moment.  ``i1`` values live as masks (the first register of a group); they are
read from and written to local memory as 0/1 bytes.  Groups are handed out at a value's definition
and taken back after its last use; ``math.*`` ops run the device math library's expansions
(``mathlib/``) with the free groups as temporaries, their constants hoisted out of the loop.

When even fifteen groups do not hold a chain (long math chains with many live values), it is cut
into consecutive segments, each its own loop; values crossing a cut go through local memory.

A chain of at least ``PAIR_MIN_OPS`` ops runs two chunks an iteration at LMUL 2, each in seven groups of its own,
emitted op by op (:func:`_emit_pairs`): the in-order vector unit then finds the other chunk's step between two
dependent ones.  Index ranges (``off + arange(n)``) are computed per chunk (``vid``, one add), and
``codegen/vector/masks.py`` decides where a compare goes straight into ``v0`` and where a multiply by a bool becomes a
masked multiply by zero.

A chain reading a prefix mask (``off + arange(n) < N``, computed per chunk) is versioned: when every such mask
is whole (``N - off >= n``, one scalar compare) a copy of the loop runs with the masks known true, so a
``tl.where`` on them is its chosen operand and an ``and`` with them the other operand, without instructions
(``known`` in :class:`Segment`); the masked loop runs otherwise (the last, partial chunk of a row).

A chain over ``[R, C]`` blocks that reads a column broadcast along its rows (``x[:, None]`` of an ``[R]`` block,
``tt.broadcast`` of ``[R, 1]`` to ``[R, C]``, with ``C >= ROW_MIN``) runs *by rows*: a loop over the ``R`` rows
loads element ``r`` of each such column into a scalar register (``flw``) and runs the chunks of the row's ``C``
elements with it as a scalar operand (``vfsub.vf``), so the broadcast block is never built (:func:`reads` names
the ``[R, 1]`` block, not the broadcast, as what the loop reads).  Where a row fits one chunk at LMUL 4 and the
chain fits three groups, two rows run an iteration, each in three groups of its own, emitted op by op (as
:func:`_emit_pairs` does): the in-order vector unit finds the other row's step between two dependent ones.  Each
row's stores of a step follow both rows' arithmetic of it (``Segment.flush``): a store waits for its result, and the
other row's load would otherwise wait behind it (``acc * alpha[:, None]``: load, load, multiply, multiply, store,
store).  A result whose one reader is ``tl.sum(., 1)`` (:func:`row_sums`: f32 rows of at most a group) is summed
there instead of stored: the row's elements after its first slid down one (``vslidedown.vi``; by the SE's store and
load where the rows move through it and are at least ``SE_SLIDE_MIN`` long) and reduced into
its first (``vfredusum.vs``), the additions the reduction of the stored row makes (``tensor/reduce.py``), each sum
stored from ``v1`` / ``v2`` at the end of the iteration; the ``tt.reduce`` emits nothing (flash attention's
``l_ij = tl.sum(p, 1)``: its f32 ``p`` neither stored nor read back).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from mtiacc.codegen import control, mathlib
from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import Mem, VMem, VReg
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.arith.scalar import constant
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.codegen.vector.fused_loop import (POOLS, OutOfRegisters, Segment, _is, _pointer,  # noqa: F401
                                              iota, prefix_mask)
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.fused_inputs import ROW_MIN, reads, row_source  # noqa: F401  (isel's table reads fused.reads)
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.shape_ops import ReduceOp
from mtiacc.ir.types import f32, f64, i32, i64


# A column broadcast along rows of at least ROW_MIN elements is read a scalar a row (the module docstring); a
# shorter row would spend more on the loop over rows than the broadcast block costs.  Which inputs the loop reads
# (reads, row_source) the local-memory plan asks too: ir/analysis/fused_inputs.py
# the scalar load of a row's element, by element type (fused_inputs.ROW_ELEMENTS)
ROW_LOADS = {f32: "flw", f64: "fld", i32: "lw", i64: "ld"}


def row_sums(lw: Lowering, op: FusedElementwiseOp, shape) -> Dict[Value, Operation]:
    """The results of ``op`` (an ``[R, C]`` f32 chain run by rows) whose one reader is ``tl.sum`` along the rows,
    by the region value yielded: the pair loop sums each row beside computing it (the module docstring) where the
    reduction would have been ``tensor/reduce.py``'s short rows (the row's first element, plus the unordered sum
    of the rest), so the result is the same, and the block is never stored."""
    if len(shape) != 2 or shape[0] % 2 or not 2 <= shape[1] <= lw.target.vlen_bits * 4 // 32:
        return {}
    out = {}
    for r, y in zip(op.results, op.block.terminator.values):
        if r.type.element_type != f32 or len(r.uses) != 1 or r in lw.keep:
            continue
        red = r.uses[0].op        # in the same block: its result's buffer lives from here as a block of it would
        if isinstance(red, ReduceOp) and red.parent is op.parent and not red.regions and red.kind == "sum" \
                and red.axis in (1, -1) \
                and red.result.type.element_type == f32 and red.result in lw.demanded:
            out[y] = red
    return out


def _emit_pairs(b, a: Segment, c: Segment, pairs: int, vlmax: int, comment: str) -> None:
    """``pairs`` iterations over two chunks of ``vlmax`` elements each, ``a`` computing the first and ``c`` the
    second in registers of their own: two independent chains the scheduler interleaves, so that each fills the
    other's latencies (a long dependent chain alone stalls the in-order vector unit at every step)."""
    count = b.x("n")
    b("li", count, pairs, comment=comment + ", two chunks an iteration")
    steps: Dict[Value, int] = {}
    for k, s in a.memory().items():
        a.ptrs[k], c.ptrs[k] = _pointer(b, s, 0), _pointer(b, s, vlmax)
        steps[k] = 2 * vlmax * elem_bytes(s.elem)
    if a.per_chunk():
        a.base = b.li(0, "base")
        c.base = b.x("base")
    avl = b.li(vlmax, "vlmax")
    top = b.new_label("fused")
    b.label(top)
    a.vl = c.vl = b.x("vl")
    b("vsetvli", a.vl, avl, f"e{a.wmax}, m{a.lmul}, {a.masks.policy}")
    a.cur = (a.wmax, a.lmul)
    if c.base is not None:
        b("addi", c.base, a.base, vlmax)
    j = 0
    while j < len(a.ops):   # op by op: each chunk's chain between the other's dependent steps; from a compare
        run = a.masks.reader.get(j, j) + 1 - j        # into v0 to its reader, one chunk's run and then the other's
        for seg in (a, c):
            for i in range(j, j + run):
                seg.step(i, a.ops[i])
            (c if seg is a else a).cur = seg.cur
        j += run
    b("addi", count, count, -1)
    if a.base is not None:
        b("addi", a.base, a.base, 2 * vlmax)
    for k, step in steps.items():
        for p in (a.ptrs[k], c.ptrs[k]):
            b("addi", p, p, step) if -2048 <= step < 2048 else b("add", p, p, b.li(step))
    b("bnez", count, top)


# A chain of at least this many ops runs two chunks an iteration (:func:`_emit_pairs`) where it fits
PAIR_MIN_OPS = 24
# the register groups of the two chunks at LMUL 2
PAIR_POOLS = (POOLS[2][:7], POOLS[2][7:14])


def _loop(b, lw: Lowering, work, lmul, wmax, srcs, scalars, stores, consts, numel, comment, prefix=None, known=None,
          iotas=None) -> None:
    """The loop of a one-segment chain: pairs of chunks at LMUL 2 where the chain is long and fits, the rest
    (or all of it) one chunk an iteration at ``lmul``."""
    args = (b, work)
    kw = dict(se=lw.se, prefix=prefix, known=known, iotas=iotas)
    vlmax = lw.target.vlen_bits * 2 // wmax
    pairs = numel // (2 * vlmax)
    done = 0
    if len(work) >= PAIR_MIN_OPS and pairs and lmul == 4 \
            and all(_fits(*args, 2, wmax, srcs, scalars, stores, consts, pool=pool, **kw) for pool in PAIR_POOLS):
        a, c = (Segment(*args, 2, wmax, srcs, scalars, stores, consts, dry=False, pool=pool, **kw)
                for pool in PAIR_POOLS)
        _emit_pairs(b, a, c, pairs, vlmax, comment)
        done = pairs * 2 * vlmax
    if done < numel:
        Segment(*args, lmul, wmax, srcs, scalars, stores, consts, dry=False, **kw).emit(numel - done, comment, done)


# the register groups of the two rows of a pair at LMUL 4
ROW_PAIR_POOLS = (POOLS[4][:3], POOLS[4][3:6])
# rows at least this long are slid down one for their sums by the SE (_sum_rows): a shorter row's slide costs the
# vector unit little (4 cycles at 32 fp32), less than the SE's store and load wait (bert_tiny's 32-element softmax
# rows: 0.2% slower through the SE; flash attention's 64-element rows of p: 3% faster)
SE_SLIDE_MIN = 64


def _by_row_pairs(b, lw: Lowering, work, wmax, srcs, scalars, stores, consts, rows: Dict[Value, tuple], shape,
                  comment: str, sums: Dict[Value, Operation]) -> bool:
    """Two rows an iteration (the module docstring), when ``R`` is even, a row fits one chunk at LMUL 4 and the
    chain fits :data:`ROW_PAIR_POOLS`; False (nothing emitted) otherwise.  ``sums``: the yielded values whose
    row sums the loop computes (:func:`row_sums`), their ``tt.reduce`` results written here."""
    R, C = shape
    if R % 2 or C > lw.target.vlen_bits * 4 // wmax or sums and wmax != 32:
        return False
    segs = []
    for pool in ROW_PAIR_POOLS:
        own = {k: (b.f("row") if src.elem.is_float() else b.x("row"), src) for k, (_, src) in rows.items()}
        mine = dict(srcs)
        mine.update({k: Src(src.elem, scalar=reg) for k, (reg, src) in own.items()})
        if not _fits(b, work, 4, wmax, mine, scalars, stores, consts, lw.se, pool=pool):
            return False
        segs.append((Segment(b, work, 4, wmax, mine, scalars, stores, consts, dry=False, se=lw.se, pool=pool,
                             se_mem=True), own))
    (a, a_rows), (c, c_rows) = segs
    count = b.x("rows")
    b("li", count, R // 2, comment=comment + ", two rows at a time" + (", row sums fused" if sums else ""))
    steps: Dict[Value, int] = {}
    cols = []
    for y, red in sums.items():     # each row's sum: element r of the reduction's result
        lw.fused_reductions.add(red)
        at = Src(f32, addr=lw.alloc(red.result).offset)
        pa, pc = _pointer(b, at, 0), _pointer(b, at, 1)
        a.row_sums[y], c.row_sums[y] = ("v1", pa), ("v2", pc)
        cols.append((pa, pc, None, None, at))
    for k, s in a.memory().items():
        a.ptrs[k], c.ptrs[k] = _pointer(b, s, 0), _pointer(b, s, C)
        steps[k] = 2 * C * elem_bytes(s.elem)
    cols += [(_pointer(b, src, 0), _pointer(b, src, 1), ra, c_rows[k][0], src) for k, (ra, src) in a_rows.items()]
    rest, one = (b.li(C - 1, "rest"), b.li(1, "one")) if sums else (None, None)
    avl = b.li(C, "n")
    shift, scratch = None, None
    if sums and a.se_mem and C >= SE_SLIDE_MIN:   # each row slid down one through local memory by the SE
        scratch = lw.lmem.alloc(4 * len(sums) * C * 4, "rows the SE slides down one", None)
        at = [scratch.offset + i * C * 4 for i in range(2 * len(sums))]
        shift = (avl, [(b.li(x, "slide"), b.li(x + 4, "slid")) for x in at])
    top = b.new_label("rows")
    b.label(top)
    for pa, pc, ra, rc, src in cols:
        if ra is not None:
            b(ROW_LOADS[src.elem], ra, Mem(pa, 0))
            b(ROW_LOADS[src.elem], rc, Mem(pc, 0))
    a.vl = c.vl = b.x("vl")
    b("vsetvli", a.vl, avl, f"e{wmax}, m4, {a.masks.policy}")
    a.cur = c.cur = (wmax, 4)
    a.pending, c.pending = [], []    # each row's stores after the other row's step (Segment.flush)
    j = 0
    stored: List[tuple] = []       # row sums reduced, not yet stored
    while j < len(work):   # op by op, a compare into v0 and its reader kept together (as in _emit_pairs)
        run = a.masks.reader.get(j, j) + 1 - j
        if any(op.name.startswith("math.") for op in work[j:j + run]):
            _store_sums(b, one, stored, a)     # the expansion may take v1 / v2 as temporaries
        for seg in (a, c):
            for i in range(j, j + run):
                if i > j:
                    seg.flush()
                    _sum_rows(b, a, c, rest, stored, shift)
                seg.step(i, work[i])
            (c if seg is a else a).cur = seg.cur
        for seg in (a, c):       # both rows' stores of this step after both rows' arithmetic
            seg.flush()
            (c if seg is a else a).cur = seg.cur
        _sum_rows(b, a, c, rest, stored, shift)
        j += run
    _store_sums(b, one, stored, a)
    for pa, pc, _, _, src in cols:
        b("addi", pa, pa, 2 * elem_bytes(src.elem))
        b("addi", pc, pc, 2 * elem_bytes(src.elem))
    for k, step in steps.items():
        for p in (a.ptrs[k], c.ptrs[k]):
            b("addi", p, p, step) if -2048 <= step < 2048 else b("add", p, p, b.li(step))
    b("addi", count, count, -1)
    b("bnez", count, top)
    if scratch is not None:
        lw.lmem.free(scratch)
    return True


def _sum_rows(b, a: Segment, c: Segment, rest: VReg, stored: List[tuple], shift=None) -> None:
    """The row sums of the values the two rows' steps just computed (``Segment.sums``): per row, its elements after
    the first slid down one, reduced at ``vl = C - 1`` into its first element (``vfredusum.vs`` with the row's own
    group as the start): the additions ``tensor/reduce.py`` makes of the stored row (``_reduce_short_rows``).  The
    slide: where the loop moves its rows through the SE (``shift``: ``(C's register, [(a scratch row's address,
    the address of its second element)])``), the SE stores the row and loads it back from its second element
    (``mtia.se.vse32.v``, ``mtia.se.vle32.v``: 4 of the SE's cycles), else the vector unit slides it
    (``vslidedown.vi``: 8 of its cycles).  The sums' m1 registers go to ``stored`` (:func:`_store_sums`)."""
    pend = [(seg, *x) for seg in (a, c) for x in seg.sums]
    if not pend:
        return
    temps = [next((t for t in seg.free if t != g), POOLS[4][-1])   # a group of the row's own that is free,
             for seg, g, _, _ in pend]                              # else the one no pair takes
    if shift is not None:
        avl, rows = shift
        if a.cur != (32, 4):    # (the loop's vl is C throughout, but after the sums' vl = C - 1 and 1)
            b("vsetvli", "zero", avl, "e32, m4, ta, ma")
        for (_, g, _, _), (at, _) in zip(pend, rows):
            b("mtia.se.vse32.v", g, VMem(at), comment="the row, to be read back from its second element")
    b("vsetvli", "zero", rest, "e32, m4, ta, ma")
    for i, ((seg, g, _, _), t) in enumerate(zip(pend, temps)):
        if shift is not None:
            b("mtia.se.vle32.v", t, VMem(shift[1][i][1]), comment="its elements after the first")
        else:
            b("vslidedown.vi", t, g, 1)
    for (_, g, acc, _), t in zip(pend, temps):
        b("vfredusum.vs", acc, t, g, comment="tt.reduce sum of the row, fused")
    stored.extend((acc, ptr) for _, _, acc, ptr in pend)
    for seg in (a, c):
        seg.sums.clear()
        seg.cur = None


def _store_sums(b, one: VReg, stored: List[tuple], seg: Optional[Segment] = None) -> None:
    """Store the row sums from their m1 registers at ``vl = 1``, as late in the iteration as nothing else may
    use ``v1`` / ``v2`` (after the steps that follow, unless one is a math library expansion): each store waits
    for its reduction, and the steps between fill that wait."""
    if stored:
        b("vsetvli", "zero", one, "e32, m1, ta, ma")
        for acc, ptr in stored:
            b(seg.move("vse", 32) if seg is not None else "vse32.v", acc, VMem(ptr))
        stored.clear()


def _by_rows(b, seg: Segment, rows: Dict[Value, tuple], shape, comment: str) -> None:
    """``seg``'s loop run a row at a time: each row loads its element of the row-broadcast columns (``rows``:
    id of a region argument -> (its scalar register, the column's :class:`Src`)) into their scalar registers,
    then runs the chunks of the row."""
    used = {v for op in seg.ops for v in op.operands}
    mine = [(reg, src) for k, (reg, src) in rows.items() if k in used]
    count = b.x("rows")
    b("li", count, shape[0], comment=comment + ", a row at a time")
    seg.setup(0)
    ptrs = [(_pointer(b, src, 0), reg, src) for reg, src in mine]
    top = b.new_label("rows")
    b.label(top)
    for p, reg, src in ptrs:
        b(ROW_LOADS[src.elem], reg, Mem(p, 0))
        b("addi", p, p, elem_bytes(src.elem))
    seg.chunks(b.li(shape[1], "n"))
    b("addi", count, count, -1)
    b("bnez", count, top)


def _fits(b, ops, lmul, wmax, srcs, scalars, stores, consts, se=mathlib.NO_SE, prefix=None, known=None,
          iotas=None, pool=None) -> bool:
    seg = Segment(b, ops, lmul, wmax, srcs, scalars, stores, consts, dry=True, se=se, prefix=prefix, known=known,
                  iotas=iotas, pool=pool)
    seg.vl = None
    try:
        seg.body()
    except OutOfRegisters:
        return False
    return True


def lower(lw: Lowering, op: FusedElementwiseOp) -> None:
    """Emit the loop(s) of ``op``: inputs from ``lw``'s buffers and registers, results to new buffers."""
    b = lw.b
    outs = [r for r in op.results if r in lw.demanded]
    if not outs:
        return
    inner = op.inner_ops()
    yielded = op.block.terminator.values
    srcs: Dict[Value, Src] = {}
    prefix: Dict[Value, VReg] = {}
    iotas: Dict[Value, VReg] = {}
    shape = op.results[0].type.shape
    rows: Dict[Value, tuple] = {}     # region argument -> (scalar register, column): read a scalar a row
    for a, v in zip(op.block.args, op.inputs):
        col = row_source(v, shape) if v.type.is_block() else None
        if col is not None:
            s = lw.src(col)
            if s.is_scalar:
                srcs[a] = Src(a.type, scalar=s.scalar)
            else:
                reg = b.f("row") if a.type.is_float() else b.x("row")
                rows[a] = (reg, Src(a.type, addr=s.addr))
                srcs[a] = Src(a.type, scalar=reg)
            continue
        pm = prefix_mask(v) if v.type.is_block() else None
        if pm is not None:   # bound - start: how many of the block's elements are set
            prefix[a] = b.x("bound")
            b("subw", prefix[a], lw.get(pm[1]), lw.get(pm[0]))
            continue
        start = iota(v) if v.type.is_block() else None
        if start is not None:
            iotas[a] = lw.get(start)
            continue
        srcs[a] = lw.src(v) if v.type.is_block() else Src(v.type, scalar=lw.get(v))
    stores: Dict[Value, Src] = {}
    work_last = next((c for c in reversed(inner) if not isinstance(c, O.ConstantOp)), None)
    sums = row_sums(lw, op, shape) if rows else {}
    for r, y in zip(op.results, yielded):
        if y in sums:                 # stored only if the pair loop does not take its row sum (below)
            stores[y] = Src(r.type.element_type)
        elif r in lw.demanded:
            home = (control.carried_home(lw, op, r) if len(op.results) == 1 and getattr(y, "op", None) is work_last else None)
            stores[y] = Src(r.type.element_type, addr=home.offset if home else lw.result_addr_in_place(op, r))
            if y in srcs:  # a yielded input: copy it through the loop
                raise CompileError("internal: tt.fused_elementwise yields one of its inputs")
    scalars: Dict[Value, VReg] = {}
    for c in inner:
        if isinstance(c, O.ConstantOp):
            scalars[c.result] = constant(b, c.value, c.result.type)
    types = [a.type for a in op.block.args] + [c.result.type for c in inner]
    wmax = max(sew_of(t) for t in types)
    consts: Dict[tuple, Optional[VReg]] = {}
    work = [c for c in inner if not isinstance(c, O.ConstantOp)]
    comment = f"{op.name} ({len(work)} ops)"
    temps: List[Buffer] = []
    numel = op.results[0].type.numel
    whole = {k: True for k in prefix}
    if _fits(b, work, 4, wmax, srcs, scalars, stores, consts, lw.se, prefix, iotas=iotas):
        plan = [(work, 4)]
    else:
        plan = _split(b, work, wmax, srcs, scalars, stores, consts, lw, numel, temps, prefix, iotas)
    # one loop: its whole-chunk version at the same LMUL (a loop cut in segments keeps its masks)
    lmul = plan[0][1]
    versioned = bool(prefix) and len(plan) == 1 and _fits(b, work, lmul, wmax, srcs, scalars, stores, consts, lw.se,
                                                         known=whole, iotas=iotas)
    mathlib._materialize(b, consts)
    if rows:    # no prefix masks or index ranges (1-D only) in a loop over 2-D blocks
        if len(plan) == 1 and _by_row_pairs(b, lw, work, wmax, srcs, scalars, stores, consts, rows, shape, comment,
                                            sums):
            return
        for r, y in zip(op.results, yielded):
            if y in sums:
                stores[y] = Src(r.type.element_type, addr=lw.result_addr_in_place(op, r))
        for ops, seg_lmul in plan:
            _by_rows(b, Segment(b, ops, seg_lmul, wmax, srcs, scalars, stores, consts, dry=False, se=lw.se,
                                se_mem=True), rows, shape, comment)
        for buf in temps:
            lw.lmem.free(buf)
        return
    if versioned:   # every prefix mask whole (bound >= numel): the loop without them
        partial, join = b.new_label("partial"), b.new_label("whole")
        n = b.li(numel, "n")
        for bound in prefix.values():
            b("blt", bound, n, partial)
        _loop(b, lw, work, lmul, wmax, srcs, scalars, stores, consts, numel, comment + ", its masks whole",
              known=whole, iotas=iotas)
        b("j", join)
        b.label(partial)
    if len(plan) == 1:
        _loop(b, lw, work, lmul, wmax, srcs, scalars, stores, consts, numel, comment, prefix=prefix, iotas=iotas)
    else:
        for ops, seg_lmul in plan:
            Segment(b, ops, seg_lmul, wmax, srcs, scalars, stores, consts, dry=False, se=lw.se, prefix=prefix,
                    iotas=iotas).emit(numel, comment)
    if versioned:
        b.label(join)
    for buf in temps:  # intermediates between segments
        lw.lmem.free(buf)


def _split(b, work, wmax, srcs, scalars, stores, consts, lw: Lowering, numel: int, temps: List[Buffer], prefix,
           iotas):
    """Cut ``work`` into segments that each fit at LMUL 2; values crossing a cut go through memory."""
    plan = []
    start = 0
    n = len(work)
    while start < n:
        end = n
        while end > start + 1 and not _fits(b, work[start:end], 2, wmax, srcs, scalars, stores, consts, lw.se,
                                            prefix, iotas=iotas):
            end -= 1
        if not _fits(b, work[start:end], 2, wmax, srcs, scalars, stores, consts, lw.se, prefix, iotas=iotas):
            raise CompileError(f"internal: '{work[start].name}' does not fit the vector registers")
        seg = work[start:end]
        later = {v for op in work[end:] for v in op.operands}
        for op in seg:
            r = op.result
            if r in later and r not in stores:
                buf = lw.lmem.alloc(numel * elem_bytes(r.type), f"a fused intermediate of type {r.type}", op.loc)
                temps.append(buf)
                stores[r] = Src(r.type, addr=buf.offset)
                srcs[r] = Src(r.type, addr=buf.offset)
            elif r in later:
                srcs[r] = stores[r]
        plan.append((seg, 2))
        start = end
    return plan

