"""``keep-invariant``: a tile that every program of a ``persistent-programs`` slot loads alike is moved
from DRAM once per slot and kept in local memory for the slot's later programs.

Layer norm's last loop reads ``W + cols`` and ``B + cols``: the same columns in every row, so in every
program.  Under ``persistent-programs`` a PE runs the programs of its slot one after another in a loop
(``scf.for ... {persistent = SLOTS}``); the loop of columns is versioned:

    %first = arith.cmpi eq, %program, %slot             # the slot's first program
    %later = arith.cmpi ne, %program, %slot
    %fills = %first and %program + SLOTS < total        # ... and later programs will read the slots
    scf.if %fits and %later {                           # a copy of the loop reading the slots, no DMA
        for off = lower .. upper step S:  %w = mtia.slot_load %keptinv0, (off - lower) / S; ...
    } else {                                            # the loop as written (pipeline-loads pipelines it)
        for off = lower .. upper step S:
            %w = tt.load W + off + arange(B), mask
            scf.if %fits and %fills { mtia.slot_store %keptinv0, (off - lower) / S, %w }
            ...
    }

The slot loop gets ``{keep_invariant = K}`` (how many loads it keeps), so ``--emit=ir`` shows the choice.
A slot that runs one program (a grid no larger than the PE count) never copies.

**When.**  A block ``tt.load`` (not volatile) directly in the body of an ``scf.for`` that is directly in
the slot loop's body, whose pointer, mask and ``other`` are pure expressions of the inner loop's induction
variable and of values that do not depend on the program (defined before the slot loop, or pure ops of
such values; ``tt.get_program_id`` and the slot loop's own induction variable do).  The inner loop's
upper bound must not depend on the program either, its lower bound and step be constants (lower >= 0,
step > 0).  Nothing in the slot loop may write what is kept: every ``tt.store`` writes through a pointer
parameter other than the load's (distinct pointer parameters are distinct buffers, the rule
``pipeline-loads`` and ``persistent-programs`` reorder programs by), and no other op that may write memory
runs in the loop (the kernel has no atomics under ``persistent-programs``).

**Memory.**  The kept loads of a kernel share ``budget`` bytes (default 64 KiB of MTIA-2i's 384 KiB, next
to the 128 KiB ``reuse-loads`` may take and the tiles in flight): each buffer has ``share // tile bytes``
slots, and a run-time check before the inner loop, ``upper - lower <= slots * step``, chooses: when the
row fits, the slot's first program fills the buffers and the others read them; when it does not, every
program loads from DRAM as written.  When codegen still runs out of local memory, the driver compiles the
kernel again without this pass (``mtiacc/driver.py``).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.pointers import OFFSETS_THROUGH, root_pointer
from mtiacc.ir.core import BlockArgument, Operation, Pure, Value
from mtiacc.ir.mtia import LocalAllocOp
from mtiacc.ir.mtia.kept import SlotLoadOp, SlotStoreOp
from mtiacc.ir.types import i32
from mtiacc.opt.loop_unroll import clone_op
from mtiacc.opt.pass_manager import ModulePass, register_pass

# Ops that never write memory (besides Pure ops and the loops and branches, looked into).
_READ_ONLY = {"tt.load", "tt.print", "tt.assert", "mtia.local_alloc", "mtia.slot_store", "mtia.slot_load",
              "scf.yield", "scf.condition", "tt.return", "tt.fused_yield"}


def _root(v: Value) -> Optional[BlockArgument]:
    return root_pointer(v, OFFSETS_THROUGH)


def slot_loops(func: O.FuncOp) -> List[scf.ForOp]:
    """The ``persistent-programs`` loops of ``func``."""
    return [op for op in func.walk() if isinstance(op, scf.ForOp) and "persistent" in op.attrs]


class _Invariant:
    """Whether values read in ``inner`` (a loop of ``slot``'s body) are the same for every program."""

    def __init__(self, slot: scf.ForOp, inner: scf.ForOp):
        self.slot, self.inner = slot, inner
        self.memo: Dict[int, bool] = {}

    def __call__(self, v: Optional[Value]) -> bool:
        if v is None:
            return True
        if isinstance(v, BlockArgument):
            return v is self.inner.induction_var or not _within(v.block, self.slot)
        if id(v) not in self.memo:
            op = v.op
            if not _within(op.parent, self.slot):
                self.memo[id(v)] = True
            else:
                self.memo[id(v)] = False   # SSA has no cycles; keeps it finite all the same
                self.memo[id(v)] = (Pure in op.traits and not op.regions and not isinstance(op, O.GetProgramIdOp)
                                    and all(self(o) for o in op.operands))
        return self.memo[id(v)]


def _within(block, loop: Operation) -> bool:
    """Whether ``block`` is ``loop``'s body or nested in it."""
    while block is not None and block.parent is not None:
        op = block.parent.parent
        if op is loop:
            return True
        block = op.parent if op is not None else None
    return False


def _writes(slot: scf.ForOp):
    """The ops of ``slot`` that may write memory (stores and anything not known to be read-only)."""
    for op in slot.walk():
        if op is slot or Pure in op.traits or op.name in _READ_ONLY or isinstance(op, (scf.ForOp, scf.IfOp,
                                                                                     scf.WhileOp)):
            continue
        yield op


def candidates(slot: scf.ForOp) -> List[O.LoadOp]:
    """The loads of ``slot``'s inner loops this pass keeps (the module docstring's rules), before the budget."""
    stored = []
    for op in _writes(slot):
        root = _root(op.ptr) if isinstance(op, O.StoreOp) else None
        if root is None:
            return []
        stored.append(root)
    out = []
    for inner in [op for op in slot.block.ops if isinstance(op, scf.ForOp)]:
        inv = _Invariant(slot, inner)
        lo, st = O.const_value(inner.lower), O.const_value(inner.step)
        if lo is None or lo < 0 or st is None or st <= 0 or not inv(inner.upper):
            continue
        for op in inner.block.ops:
            if not isinstance(op, O.LoadOp) or op.volatile or not op.result.type.is_block() \
                    or not op.ptr.type.is_block() or not op.result.has_uses():
                continue
            root = _root(op.ptr)
            if root is None or any(root is s for s in stored):
                continue
            if all(inv(v) for v in op.operands):
                out.append(op)
    return out


class _Builder:
    def __init__(self, block, anchor: Operation, loc):
        self.block, self.anchor, self.loc = block, anchor, loc

    def __call__(self, op: Operation) -> Value:
        self.block.insert_before(self.anchor, op)
        return op.result

    def const(self, value, t=i32) -> Value:
        return self(O.ConstantOp.get(value, t, loc=self.loc))


def _slot_index(inner: scf.ForOp, anchor: Operation, loc) -> Value:
    """``(iv - lower) / step``, the slot of this iteration (a shift when the step is a power of two)."""
    bld = _Builder(inner.block, anchor, loc)
    k, lo, st = inner.induction_var, O.const_value(inner.lower), O.const_value(inner.step)
    if lo:
        k = bld(O.SubIOp.get(k, inner.lower, loc=loc))
    if st & (st - 1) == 0:
        return bld(O.ShRSIOp.get(k, bld.const(st.bit_length() - 1, k.type), loc=loc)) if st != 1 else k
    return bld(O.DivSIOp.get(k, inner.step, loc=loc))


class _Function:
    def __init__(self, func: O.FuncOp, budget: int):
        self.func, self.budget, self.count = func, budget, 0

    def run(self) -> bool:
        changed = False
        for slot in slot_loops(self.func):
            loads = candidates(slot)
            share = self.budget // max(len(loads), 1)
            loads = [ld for ld in loads if share // _tile_bytes(ld) > 0]
            if not loads:
                continue
            loc = slot.loc
            bld = _Builder(slot.block, slot.block.ops[0], loc)
            first = bld(O.CmpIOp.get("eq", slot.induction_var, slot.lower, loc=loc))
            first.name_hint = "first"
            later = bld(O.CmpIOp.get("ne", slot.induction_var, slot.lower, loc=loc))
            later.name_hint = "later"
            after = bld(O.AddIOp.get(slot.induction_var, slot.step, loc=loc))
            more = bld(O.CmpIOp.get("slt", after, slot.upper, loc=loc))
            fills = bld(O.AndIOp.get(first, more, loc=loc))   # the first program, and later ones will read
            fills.name_hint = "fills"
            inners: List[scf.ForOp] = []
            for ld in loads:
                if ld.parent.parent.parent not in inners:
                    inners.append(ld.parent.parent.parent)
            for inner in inners:
                self._version(slot, inner, [ld for ld in loads if ld.parent is inner.block], share, fills, later)
            slot.attrs["keep_invariant"] = len(loads)
            changed = True
        return changed

    def _version(self, slot: scf.ForOp, inner: scf.ForOp, loads: List[O.LoadOp], share: int, fills: Value,
                 later: Value) -> None:
        """``scf.if reuse { inner, reading the slots } else { inner, the first program filling them }``."""
        loc = inner.loc
        bufs = []
        for ld in loads:
            t = ld.result.type
            alloc = LocalAllocOp.get(t.shape, t.element_type, share // _tile_bytes(ld), loc=ld.loc)
            entry = self.func.entry
            entry.insert_before(entry.ops[0], alloc)
            alloc.buf.name_hint = f"keptinv{self.count}"
            self.count += 1
            bufs.append(alloc.buf)
        slots = min(b.type.shape[0] for b in bufs)
        # Whether the row fits: upper - lower <= slots * step, before the inner loop (once per program).
        bld = _Builder(slot.block, inner, loc)
        span = bld(O.SubIOp.get(inner.upper, inner.lower, loc=loc))
        fits = bld(O.CmpIOp.get("sle", span, bld.const(slots * O.const_value(inner.step), span.type), loc=loc))
        reuse = bld(O.AndIOp.get(fits, later, loc=loc))
        fill = bld(O.AndIOp.get(fits, fills, loc=loc))
        branch = scf.IfOp.get(reuse, [r.type for r in inner.results], loc=loc)
        slot.block.insert_before(inner, branch)
        # then: a copy of the loop whose kept loads read their slots
        copy = clone_op(inner, {})
        branch.then_block.append(copy)
        branch.then_block.append(scf.YieldOp.get(list(copy.results), loc=loc))
        twins = [copy.block.ops[inner.block.ops.index(ld)] for ld in loads]
        for ld, buf, twin in zip(loads, bufs, twins):
            read = SlotLoadOp.get(buf, _slot_index(copy, twin, ld.loc), loc=ld.loc)
            read.result.name_hint = ld.result.name_hint
            copy.block.insert_before(twin, read)
            twin.result.replace_all_uses_with(read.result)
            twin.erase()
        # else: the loop as written; the slot's first program copies what it loads into the slots
        for old, new in zip(inner.results, branch.results):
            old.replace_all_uses_with(new)
        slot.block.ops.remove(inner)
        branch.else_block.append(inner)
        branch.else_block.append(scf.YieldOp.get(list(inner.results), loc=loc))
        for ld, buf in zip(loads, bufs):
            nxt = inner.block.ops[inner.block.ops.index(ld) + 1]
            k = _slot_index(inner, nxt, ld.loc)
            store = scf.IfOp.get(fill, loc=ld.loc)
            store.then_block.append(SlotStoreOp.get(buf, k, ld.result, loc=ld.loc))
            store.then_block.append(scf.YieldOp.get(loc=ld.loc))
            store.else_block.append(scf.YieldOp.get(loc=ld.loc))
            inner.block.insert_before(nxt, store)


def _tile_bytes(ld: O.LoadOp) -> int:
    return ld.result.type.numel * ld.result.type.element_type.bytes


@register_pass
@dataclasses.dataclass(frozen=True)
class KeepInvariant(ModulePass):
    """Keep the tiles every program of a slot loads alike in local memory (module docstring)."""

    name = "keep-invariant"
    budget: int = 65536   # bytes of local memory all kept buffers of a kernel may take

    def run(self, module: O.ModuleOp) -> bool:
        changed = False
        for op in list(module.body.block.ops):
            if isinstance(op, O.FuncOp):
                changed |= _Function(op, self.budget).run()
        return changed


__all__ = ["KeepInvariant", "candidates", "slot_loops"]
