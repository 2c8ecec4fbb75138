"""``reuse-loads``: a block that two loops of a program load, tile for tile, is moved from DRAM once.

Layer norm reads its row three times: ``for off in range(0, N, BLOCK): tl.load(X + off + arange)`` for
the mean, again for the variance, again to normalize.  When the loads are the same, the first loop
copies each tile it loads into a slot of a local buffer and the later loops read the slot back, with no
DMA (``mtiacc/ir/mtia/kept.py``).

**When.**  Two ``scf.for`` ops of one block (the *fill* loop first) with the same lower bound, upper
bound and step, and in their bodies (directly, not nested) a block ``tt.load`` each, not volatile, whose
pointer, mask and ``other`` are the same expressions of the induction variable: equal up to renaming
the induction variables, built of ``Pure`` ops from the very same outside values or equal constants.
The later load may have no ``other`` (its masked-off elements are undefined; the fill's ``other`` will
do).  Every later loop with such a load reads the fill loop's buffer.

**Unrolled loops.**  At -O3 ``loop-unroll`` runs first and makes short loops with constant bounds (Inductor's
``tl.range(0, r0_numel, R0_BLOCK)`` over a row of 4096 in tiles of 1024) straight-line code: the two loops'
copies of a tile's load are then two ``tt.load`` ops of one block with the same operands (equal up to
``Pure`` ops, as above, without induction variables).  The later one takes the first one's value, under the
same rules for the stores between them (below); the value stays live in local memory until its last reader,
its bytes counted against the budget.

**Memory.**  The loops' step and lower bound must be constants, the bound not negative.  The buffer has one
slot per iteration, the tile's size each, allocated once for the
kernel (``mtia.local_alloc``, the first op of the function).  With constant bounds the trip count is
known: the buffer is that many slots, and the reuse is skipped when it would take more than ``budget``
bytes (by default its share of local memory, a third, no more than half of what the local-memory plan,
``mtiacc.opt.memory.plan``, leaves free at the kernel's peak: the other half stays for the blocks the later
passes hoist out of loops or fetch ahead; all buffers of a kernel together stay within it).  With a
run-time bound (``range(0, N, BLOCK)``) the buffer takes what is left of the budget (shared by the kept
loads of one loop), ``bytes // tile bytes`` slots, and a run-time
check before the fill loop, ``upper - lower <= slots * step``, chooses: when the row fits, the fill
loop fills and the later loops read from the buffer; when it does not, every loop loads from DRAM as
written (both paths are in the code: ``scf.if`` around the later loads).  The pass cannot see what else
the kernel keeps in local memory: when codegen runs out of it, the driver compiles the kernel again
without this pass (``mtiacc/driver.py``).

**Stores.**  A later load may read the buffer only when nothing stored to the tiles since the fill
loop loaded them: every op from the fill loop to the reading loop (both included), or between the two
loads of straight-line code, is looked at.  A
store through the load's own pointer argument, an atomic, or any op that may write memory and is not
a ``tt.store`` of a form below forbids the reuse at compile time.  A ``tt.store`` through another
pointer argument is checked at run time, since two arguments may point into one buffer: its bytes
(a scalar store in the loops' block, a block store there at ``splat(Q) + arange`` plus one-element terms,
or a store in a loop of that block at ``splat(Q) + iv + arange`` plus one-element terms) and the loaded
bytes (the same forms) must not overlap, else that loop, or that load, reads DRAM.  A one-element term is
a splat, a broadcast of a one-element block (Inductor's ``r0_numel * x0`` with ``x0`` of shape [1, 1],
its element taken as ``item()`` does, ``tt.reshape`` then a ``max`` ``tt.reduce``) or a constant.  The
checks cover a superset of the bytes (the whole ``[lower, upper + BLOCK)`` range of elements of a loop),
so they may refuse a reuse that was safe, never allow one that was not.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.pointers import OFFSETS_THROUGH, root_pointer
from mtiacc.ir.core import Block, BlockArgument, Operation, OpResult, Pure, Value
from mtiacc.ir.mtia import LocalAllocOp
from mtiacc.ir.mtia.kept import PtrToIntOp, SlotLoadOp, SlotStoreOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReduceOp, ReshapeOp
from mtiacc.ir.types import i32, i64
from mtiacc.opt.memory.plan import plan_function
from mtiacc.opt.pass_manager import FunctionPass, PassContext, register_pass

# Ops that never write DRAM (loads, local-memory and debug ops); Pure ops and scf terminators neither.
_READ_ONLY = {"tt.load", "tt.print", "tt.assert", "tt.return", "mtia.wait", "mtia.local_alloc", "mtia.local_load",
              "mtia.async_copy", "mtia.slot_store", "mtia.slot_load", "scf.yield", "scf.condition"}


def _elem_bytes(t) -> int:
    return t.element_type.bytes


class _Same:
    """Structural equality of two expressions, one in loop ``a``, one in loop ``b`` (induction variables
    paired), or, without loops, of two expressions of one block."""

    def __init__(self, a: Optional[scf.ForOp] = None, b: Optional[scf.ForOp] = None):
        self.ivs = (a.induction_var, b.induction_var) if a is not None else ()
        self.memo: Dict[Tuple[int, int], bool] = {}

    def __call__(self, u: Optional[Value], v: Optional[Value]) -> bool:
        if u is None or v is None:
            return u is None and v is None
        if u is v:
            return u not in self.ivs
        if self.ivs and (u, v) == self.ivs:
            return True
        key = (id(u), id(v))
        if key not in self.memo:
            self.memo[key] = False  # no cycles in SSA, but keep it finite
            self.memo[key] = self._ops(u, v)
        return self.memo[key]

    def _ops(self, u: Value, v: Value) -> bool:
        if not (isinstance(u, OpResult) and isinstance(v, OpResult)) or u.index != v.index or u.type != v.type:
            return False
        p, q = u.op, v.op
        if type(p) is not type(q) or Pure not in p.traits or p.regions or q.regions:
            return False
        if p.attrs != q.attrs or len(p.operands) != len(q.operands) or p.segments != q.segments:
            return False
        return all(self(x, y) for x, y in zip(p.operands, q.operands))


def _inside(v: Value, loop: Operation) -> bool:
    """Whether ``v`` is defined inside ``loop``'s regions."""
    block = v.owner if isinstance(v, BlockArgument) else v.op.parent
    while block is not None and block.parent is not None:
        op = block.parent.parent
        if op is loop:
            return True
        block = op.parent if op is not None else None
    return False


def _root(v: Value) -> Optional[BlockArgument]:
    """The function argument a pointer is computed from (through addptr, splat, broadcast), or None."""
    return root_pointer(v, OFFSETS_THROUGH)


def _leaves(v: Value, out: List[Value]) -> None:
    """The terms of ``v``, a sum (``arith.addi`` ops)."""
    if isinstance(v, OpResult) and isinstance(v.op, O.AddIOp):
        _leaves(v.op.lhs, out)
        _leaves(v.op.rhs, out)
    else:
        out.append(v)


def _range_end(v: Value) -> Optional[int]:
    """``B`` when ``v`` is ``arange(0, B)``, maybe given unit dimensions (``[None, :]``)."""
    while isinstance(v, OpResult) and isinstance(v.op, (ExpandDimsOp, ReshapeOp)):
        v = v.op.src
    if isinstance(v, OpResult) and isinstance(v.op, O.MakeRangeOp) and v.op.start == 0:
        return v.op.end
    return None


def _one_element(v: Value, loop: Optional[scf.ForOp]) -> bool:
    """Whether ``v`` is one value (outside ``loop``) splat or broadcast over a block, or a constant."""
    if loop is not None and _inside(v, loop) or not isinstance(v, OpResult):
        return False
    if isinstance(v.op, O.ConstantOp):
        return True
    if not isinstance(v.op, (O.SplatOp, O.BroadcastOp)):
        return False
    src = v.op.operands[0]
    return not src.type.is_block() or src.type.numel == 1


def _tile_form(ptr: Value, loop: Optional[scf.ForOp]) -> Optional[Tuple[Value, List[Value], int]]:
    """``(Q, rows, B)`` when ``ptr`` is ``splat(Q) + splat(iv) + arange(0, B)`` plus ``rows``, terms that
    are each one value splat or broadcast, or a constant (Inductor's ``r0_index + r0_numel * x0`` with a
    one-row ``x0``), ``Q`` and ``rows`` defined outside ``loop``, the terms in any order: the loop's tiles
    then lie in elements ``[sum(rows) + lower, sum(rows) + upper + B)`` of ``Q``.  Without ``loop``, a tile
    of straight-line code: no ``splat(iv)`` term, elements ``[sum(rows), sum(rows) + B)``."""
    if not (isinstance(ptr, OpResult) and isinstance(ptr.op, O.AddPtrOp)):
        return None
    base = ptr.op.ptr
    if not (isinstance(base, OpResult) and isinstance(base.op, O.SplatOp)):
        return None
    if loop is not None and _inside(base.op.src, loop):
        return None
    terms: List[Value] = []
    _leaves(ptr.op.offset, terms)
    ivs = [t for t in terms if loop is not None and isinstance(t, OpResult) and isinstance(t.op, O.SplatOp)
           and t.op.src is loop.induction_var]
    ranges = [(t, e) for t, e in ((t, _range_end(t)) for t in terms) if e is not None]
    if len(ivs) != (loop is not None) or len(ranges) != 1 or ranges[0][1] != ptr.type.numel:
        return None
    rows = [t for t in terms if t not in ivs and t is not ranges[0][0]]
    if not all(_one_element(t, loop) for t in rows):
        return None
    return base.op.src, rows, ranges[0][1]


class _Builder:
    """Inserts ops before an anchor op; with ``memo`` (shared by the builders of one block), a pure op
    that one of them inserted earlier in the block is not inserted again."""

    def __init__(self, block: Block, anchor: Operation, loc, memo: Optional[dict] = None):
        self.block, self.anchor, self.loc, self.memo = block, anchor, loc, memo

    def __call__(self, op: Operation) -> Value:
        key = None
        if self.memo is not None and Pure in op.traits:
            key = (op.name, tuple(id(v) for v in op.operands), repr(sorted(op.attrs.items())),
                   tuple(str(r.type) for r in op.results))
            old = self.memo.get(key)
            if old is not None and old.op.parent is self.block and (
                    self.block.ops.index(old.op) < self.block.ops.index(self.anchor)):
                return old
        self.block.insert_before(self.anchor, op)
        if key is not None:
            self.memo[key] = op.result
        return op.result

    def const(self, value, t) -> Value:
        return self(O.ConstantOp.get(value, t, loc=self.loc))

    def addr(self, q: Value, offset: Value) -> Value:
        """``q + offset`` elements as an i64 address."""
        return self(PtrToIntOp.get(self(O.AddPtrOp.get(q, offset, loc=self.loc)), loc=self.loc))

    def both(self, a: Optional[Value], b: Value) -> Value:
        return b if a is None else self(O.AndIOp.get(a, b, loc=self.loc))

    def scalar(self, term: Value) -> Value:
        """The one value of a term of :func:`_tile_form`: the splat's, or the broadcast block's one element
        (as ``item()`` takes it: reshaped to one dimension, its maximum)."""
        if isinstance(term.op, O.ConstantOp):
            return self.const(term.op.value, term.type.element_type)
        src = term.op.operands[0]
        if not src.type.is_block():
            return src
        if len(src.type.shape) > 1:
            src = self(ReshapeOp.get(src, [1], loc=self.loc))
        return self(ReduceOp.get(src, 0, "max", loc=self.loc))

    def rows(self, q: Value, rows: List[Value]) -> Value:
        """``q`` moved by the sum of ``rows`` elements."""
        for term in rows:
            q = self(O.AddPtrOp.get(q, self.scalar(term), loc=self.loc))
        return q


@dataclasses.dataclass
class _Group:
    fill: scf.ForOp
    load: O.LoadOp
    reads: List[Tuple[scf.ForOp, O.LoadOp]]


class _Function:
    def __init__(self, func: O.FuncOp, budget: int):
        self.func, self.left, self.count = func, budget, 0
        self.taken: set = set()

    def run(self) -> bool:
        blocks = [b for op in self.func.walk() for r in op.regions for b in r.blocks]
        changed = False
        for block in blocks:
            loops = [op for op in block.ops if isinstance(op, scf.ForOp)]
            for i, a in enumerate(loops):
                groups = []
                for load in [op for op in a.block.ops if self._candidate(op)]:
                    group = self._group(block, loops[i + 1:], a, load)
                    if group is not None:
                        groups.append(group)
                        self.taken.update(id(y) for _, y in group.reads)
                for k, group in enumerate(groups):  # the loop's groups share what is left of the budget
                    changed |= self._apply(block, group, min(self.left, self.left // (len(groups) - k)))
            changed |= self._straight(block)
        return changed

    def _candidate(self, op: Operation) -> bool:
        return (isinstance(op, O.LoadOp) and id(op) not in self.taken and op.result.type.is_block()
                and not op.volatile and op.result.has_uses())

    def _group(self, block: Block, later: List[scf.ForOp], a: scf.ForOp, load: O.LoadOp) -> Optional[_Group]:
        reads = []
        for b in later:
            same = _Same(a, b)
            if not (same(a.lower, b.lower) and same(a.upper, b.upper) and same(a.step, b.step)):
                continue
            for other in b.block.ops:
                if (self._candidate(other) and other.result.type == load.result.type and same(load.ptr, other.ptr)
                        and same(load.mask, other.mask) and (other.other is None or same(load.other, other.other))):
                    reads.append((b, other))
                    break
        return _Group(a, load, reads) if reads else None

    # ------------------------------------------------------------------ stores between the loops
    def _writes(self, ops: List[Operation]):
        """Every op among ``ops`` (and nested in them) that may write DRAM."""
        for op in ops:
            if Pure in op.traits or op.name in _READ_ONLY and not op.regions:
                continue
            if isinstance(op, (scf.ForOp, scf.IfOp, scf.WhileOp)):
                yield from self._writes([o for r in op.regions for b in r.blocks for o in b.ops])
                continue
            yield op

    def _footprint(self, block: Block, ptr: Value, owner: Operation, size: int):
        """A builder of the ``(lo, hi)`` i64 byte addresses ``ptr`` may touch, for code before a later op
        of ``block``, or None: a scalar pointer or a tile of an op in ``block``, or a tile of a loop in
        ``block``."""
        if not ptr.type.is_block() and owner.parent is block:
            return lambda bld: (lambda lo: (lo, bld(O.AddIOp.get(lo, bld.const(size, i64), loc=bld.loc))))(
                bld(PtrToIntOp.get(ptr, loc=bld.loc)))
        if owner.parent is block:
            form = _tile_form(ptr, None)
            if form is None:
                return None
            q, rows, width = form
            return lambda bld: (lambda q0: (bld(PtrToIntOp.get(q0, loc=bld.loc)), bld.addr(q0, bld.const(width, i32))))(
                bld.rows(q, rows))
        loop = owner.parent.parent.parent if owner.parent is not None else None
        if not isinstance(loop, scf.ForOp) or loop.parent is not block:
            return None
        form = _tile_form(ptr, loop)
        if form is None:
            return None
        q, rows, width = form

        def build(bld: _Builder):   # q + rows + upper + width as pointer steps: no i32 overflow
            q0 = bld.rows(q, rows)
            end = bld(O.AddPtrOp.get(q0, loop.upper, loc=bld.loc))
            return bld.addr(q0, loop.lower), bld.addr(end, bld.const(width, loop.upper.type))
        return build

    def _alias_checks(self, block: Block, load: O.LoadOp, span: List[Operation]):
        """The footprint of ``load`` and those of the stores among ``span`` (ops of ``block``), to check
        disjoint at run time, or None when a write forbids the reuse."""
        root = _root(load.ptr)
        mine = self._footprint(block, load.ptr, load, 0)
        pairs = []
        for w in self._writes(span):
            if not isinstance(w, O.StoreOp) or root is None:
                return None
            other = _root(w.ptr)
            if other is None or other is root or mine is None:
                return None
            theirs = self._footprint(block, w.ptr, w, _elem_bytes(w.value.type))
            if theirs is None:
                return None
            pairs.append(theirs)
        return mine, pairs

    # ------------------------------------------------------------------ the rewrite
    def _apply(self, block: Block, g: _Group, share: int) -> bool:
        """Rewrite ``g``, its buffer taking at most ``share`` bytes (a run-time trip count takes them all)."""
        t = g.load.result.type
        tile = t.numel * _elem_bytes(t)
        lo, hi, st = (O.const_value(v) for v in (g.fill.lower, g.fill.upper, g.fill.step))
        if st is None or st <= 0 or lo is None or lo < 0:   # so that upper - lower cannot wrap to a small value
            return False
        static = hi is not None
        slots = max(0, -(-(hi - lo) // st)) if static else min(share // tile, (2 ** 31 - 1) // st)
        if slots == 0 or slots * tile > share:
            return False
        ops = block.ops
        checks = [self._alias_checks(block, g.load, ops[ops.index(g.fill):ops.index(b) + 1]) for b, _ in g.reads]
        reads = [(b, y, c) for (b, y), c in zip(g.reads, checks) if c is not None]
        if not reads:
            return False
        self.left -= slots * tile
        loc = g.load.loc
        entry = self.func.entry
        alloc = LocalAllocOp.get(t.shape, t.element_type, slots, loc=loc)
        entry.insert_before(entry.ops[0], alloc)
        buf = alloc.buf
        buf.name_hint = f"kept{self.count}"
        self.count += 1
        fits = None
        if not static:  # the tiles fit when upper - lower <= slots * step
            bld = _Builder(block, g.fill, loc)
            span = bld(O.SubIOp.get(g.fill.upper, g.fill.lower, loc=loc))
            fits = bld(O.CmpIOp.get("sle", span, bld.const(slots * st, span.type), loc=loc))
        self._fill(g, buf, fits)
        for b, y, (mine, pairs) in reads:
            self._read(b, y, buf, self._guard(_Builder(block, b, loc), fits, mine, pairs))
        return True

    @staticmethod
    def _guard(bld: _Builder, guard: Optional[Value], mine, pairs) -> Optional[Value]:
        """``guard`` and, for each footprint of ``pairs``, that it does not overlap ``mine``."""
        llo, lhi = mine(bld) if pairs else (None, None)
        for theirs in pairs:
            slo, shi = theirs(bld)
            apart = bld(O.OrIOp.get(bld(O.CmpIOp.get("sle", shi, llo, loc=bld.loc)),
                                    bld(O.CmpIOp.get("sle", lhi, slo, loc=bld.loc)), loc=bld.loc))
            guard = bld.both(guard, apart)
        return guard

    # ------------------------------------------------------------------ straight-line code
    def _straight(self, block: Block) -> bool:
        """A block load repeated later in ``block`` itself (the copies of two loops that ``loop-unroll``
        unrolled): the later load takes the first's value, under the same checks of the stores between."""
        changed, memo = False, {}
        loads = [op for op in block.ops if self._candidate(op)]
        for i, first in enumerate(loads):
            if id(first) in self.taken:
                continue
            t = first.result.type
            kept = False
            same = _Same()
            for later in loads[i + 1:]:
                if id(later) in self.taken or later.result.type != t or not (
                        same(first.ptr, later.ptr) and same(first.mask, later.mask)
                        and (later.other is None or same(first.other, later.other))):
                    continue
                ops = block.ops
                checks = self._alias_checks(block, first, ops[ops.index(first) + 1:ops.index(later)])
                if checks is None:
                    continue
                if not kept:   # the first value stays live until its last reader: local memory
                    if t.numel * _elem_bytes(t) > self.left:
                        break
                    self.left -= t.numel * _elem_bytes(t)
                    kept = True
                self.taken.add(id(later))
                self._reuse(block, first, later, self._guard(_Builder(block, later, later.loc, memo), None, *checks))
                changed = True
        return changed

    @staticmethod
    def _reuse(block: Block, first: O.LoadOp, later: O.LoadOp, guard: Optional[Value]) -> None:
        if guard is None:
            later.result.replace_all_uses_with(first.result)
            later.erase()
            return
        loc = later.loc
        branch = scf.IfOp.get(guard, [later.result.type], loc=loc)
        block.insert_before(later, branch)
        later.result.replace_all_uses_with(branch.results[0])
        branch.then_block.append(scf.YieldOp.get([first.result], loc=loc))
        block.ops.remove(later)
        branch.else_block.append(later)
        branch.else_block.append(scf.YieldOp.get([later.result], loc=loc))

    @staticmethod
    def _slot(loop: scf.ForOp, anchor: Operation, loc) -> Value:
        bld = _Builder(loop.block, anchor, loc)
        slot = loop.induction_var
        if O.const_value(loop.lower) != 0:
            slot = bld(O.SubIOp.get(slot, loop.lower, loc=loc))
        step = O.const_value(loop.step)
        if step & (step - 1) == 0:   # a power of two: iv - lower >= 0, so a shift divides
            if step != 1:
                slot = bld(O.ShRSIOp.get(slot, bld.const(step.bit_length() - 1, slot.type), loc=loc))
        else:
            slot = bld(O.DivSIOp.get(slot, loop.step, loc=loc))
        return slot

    def _fill(self, g: _Group, buf: Value, fits: Optional[Value]) -> None:
        body = g.fill.block
        after = body.ops[body.ops.index(g.load) + 1]
        slot = self._slot(g.fill, after, g.load.loc)
        store = SlotStoreOp.get(buf, slot, g.load.result, loc=g.load.loc)
        if fits is None:
            body.insert_before(after, store)
            return
        branch = scf.IfOp.get(fits, loc=g.load.loc)
        branch.then_block.append(store)
        branch.then_block.append(scf.YieldOp.get(loc=g.load.loc))
        branch.else_block.append(scf.YieldOp.get(loc=g.load.loc))
        body.insert_before(after, branch)

    def _read(self, loop: scf.ForOp, load: O.LoadOp, buf: Value, guard: Optional[Value]) -> None:
        body, loc = loop.block, load.loc
        slot = self._slot(loop, load, loc)
        kept = SlotLoadOp.get(buf, slot, loc=loc)
        if guard is None:
            body.insert_before(load, kept)
            load.result.replace_all_uses_with(kept.result)
            load.erase()
            return
        branch = scf.IfOp.get(guard, [load.result.type], loc=loc)
        body.insert_before(load, branch)
        load.result.replace_all_uses_with(branch.results[0])
        branch.then_block.append(kept)
        branch.then_block.append(scf.YieldOp.get([kept.result], loc=loc))
        body.ops.remove(load)
        branch.else_block.append(load)
        branch.else_block.append(scf.YieldOp.get([load.result], loc=loc))


@register_pass
@dataclasses.dataclass(frozen=True)
class ReuseLoads(FunctionPass):
    """Keep a block that later loops load again in local memory (module docstring)."""

    name = "reuse-loads"
    budget: int = 0   # bytes of local memory all kept buffers of a kernel may take; 0: the plan's share
    needs_context = True

    def run_on_function(self, func: O.FuncOp, ctx: PassContext) -> bool:
        plan = plan_function(func, ctx.target)
        return _Function(func, self.budget or plan.share(3, plan.free() // 2)).run()
