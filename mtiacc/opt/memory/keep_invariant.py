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
parameter other than the load's, and not one ``may_alias`` groups with it (``may_share``: distinct pointer
parameters are distinct buffers otherwise, the rule
``pipeline-loads`` and ``persistent-programs`` reorder programs by), and no other op that may write memory
runs in the loop (the kernel has no atomics under ``persistent-programs``).

**Periodic loads in the slot loop's body.**  A block ``tt.load`` directly in the slot loop's body whose
address is *periodic* in the program, with a period that divides the slot step, reads the same tile in every
program of a slot: Inductor's bias ``in_ptr2 + xindex % ks0`` with ``xindex = pid * XBLOCK + arange``,
``ks0 = 4096`` and ``XBLOCK = 1024`` repeats every ``4096 / gcd(4096, 1024) = 4`` programs, and 4 divides
``SLOTS = 64``.  The proof is modulo arithmetic on constants over the pure ops from the program to the
pointer: ``pid`` is ``1 * pid + 0``; ``+``, ``-``, ``*`` by a constant, splats and broadcasts keep the form
``a * pid + c`` (``c`` the same in every program); ``x % m`` (``m`` a constant, ``x = a * pid + c >= 0``)
repeats every ``m / gcd(m, a)`` programs; any other pure op of periodic operands repeats with the lcm of their
periods.  The mask must be periodic with such a period too, or *shrink* as the program grows
(``a * pid + c < n`` with ``a >= 0``, ``n`` the same in every program, and conjunctions of such masks): the
slot's first program, which fills the buffer, then loads every element a later program's mask keeps (a
masked-off element of a load without ``other`` is undefined, so a later program may see the first one's).
``other`` must be absent, or invariant with a periodic mask.  Index arithmetic is taken not to wrap around
(as Triton's own contiguity analysis takes it).  Program ids are the slot loop's program only in a
one-dimensional launch (``program % nprogs(0)`` is the program when ``nprogs(0)`` is the grid's size), so
a run-time check ``nprogs(0) == total`` joins the conditions:

    %t = scf.if %reuse {kept = "address repeats every 4 programs, 4 divides the slot step 64; ..."} {
        mtia.slot_load %keptinv0, 0                     # the tile the slot's first program loaded
    } else {
        tt.load in_ptr2 + x0, xmask                     # the load as written (and its address ops)
    }
    scf.if %fill { mtia.slot_store %keptinv0, 0, %t }

**Memory.**  The kept loads of a kernel share ``budget`` bytes (by default its share of local memory, a sixth,
no more than the local-memory plan, ``mtiacc.opt.memory.plan``, leaves free at the kernel's peak once
``reuse-loads`` took its buffers): each buffer has ``share // tile bytes`` slots, and a run-time check before the inner
loop, ``upper - lower <= slots * step``, chooses: when the row fits, the slot's first program fills the buffers
and the others read them; when it does not, every program loads from DRAM as written.  A load whose tile does
not fit its share is not kept, with a remark (a step of the local-memory ladder).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.pointers import OFFSETS_THROUGH, may_share, root_pointer
from mtiacc.ir.core import BlockArgument, Operation, Pure, Value
from mtiacc.ir.mtia import LocalAllocOp
from mtiacc.ir.mtia.kept import SlotLoadOp, SlotStoreOp
from mtiacc.ir.types import i32
from mtiacc.opt.loop_unroll import clone_op
from mtiacc.opt.memory.plan import plan_function
from mtiacc.opt.pass_manager import FunctionPass, PassContext, Remark, register_pass

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


@dataclasses.dataclass(frozen=True)
class _Form:
    """How a value of the slot loop's body varies with the program ``p``: ``a * p + c`` (``coef`` = a, ``c``
    the same in every program; 0 for a value that does not depend on the program), or repeating every
    ``period`` programs (``coef`` None)."""
    coef: Optional[int] = None
    period: Optional[int] = None

    @property
    def repeats(self) -> Optional[int]:
        return 1 if self.coef == 0 else self.period


_SAME = _Form(coef=0)
_SHRINKS = ("slt", "sle", "ult", "ule")     # a * p + c < n: fewer elements as p grows (a >= 0)
_GROWS = {"sgt": "slt", "sge": "sle", "ugt": "ult", "uge": "ule"}


class _Periodic:
    """The :class:`_Form` of the values of ``slot``'s body, in a one-dimensional launch (where ``pid(0)``
    and ``program % nprogs(0)`` are the program)."""

    def __init__(self, slot: scf.ForOp):
        self.slot = slot
        self.memo: Dict[int, Optional[_Form]] = {}

    def _program(self, v: Value) -> bool:
        if v is self.slot.induction_var:
            return True
        op = getattr(v, "op", None)
        if type(op) is O.GetProgramIdOp:
            return op.axis == 0
        return isinstance(op, O.RemSIOp) and op.lhs is self.slot.induction_var \
            and isinstance(op.rhs.op if not isinstance(op.rhs, BlockArgument) else None, O.GetNumProgramsOp) \
            and op.rhs.op.axis == 0

    def nonneg(self, v: Value) -> bool:
        """Whether ``v`` is never negative (integers that do not wrap around)."""
        if self._program(v):
            return True
        op = getattr(v, "op", None)
        if isinstance(op, O.ConstantOp):
            return isinstance(op.value, int) and op.value >= 0
        if isinstance(op, O.MakeRangeOp):
            return op.start >= 0
        if isinstance(op, (O.SplatOp, O.BroadcastOp)):
            return self.nonneg(op.operands[0])
        if isinstance(op, (O.AddIOp, O.MulIOp, O.RemSIOp, O.DivSIOp)):
            return self.nonneg(op.lhs) and self.nonneg(op.rhs)
        return isinstance(op, O.GetProgramIdOp)   # and tt.get_num_programs

    def __call__(self, v: Value) -> Optional[_Form]:
        if self._program(v):
            return _Form(coef=1)
        if isinstance(v, BlockArgument):
            return None if _within(v.block, self.slot) else _SAME
        if id(v) not in self.memo:
            self.memo[id(v)] = None
            self.memo[id(v)] = self._form(v.op)
        return self.memo[id(v)]

    def _form(self, op: Operation) -> Optional[_Form]:
        if not _within(op.parent, self.slot):
            return _SAME
        if Pure not in op.traits or op.regions or type(op) is O.GetProgramIdOp:
            return None
        forms = [self(o) for o in op.operands]
        if any(f is None for f in forms):
            return None
        if not forms:
            return _SAME
        if isinstance(op, (O.SplatOp, O.BroadcastOp)):
            return forms[0]
        if all(f.coef is not None for f in forms):
            if isinstance(op, O.AddIOp):
                return _Form(coef=forms[0].coef + forms[1].coef)
            if isinstance(op, O.SubIOp):
                return _Form(coef=forms[0].coef - forms[1].coef)
            k = [O.const_value(o) for o in op.operands]
            if isinstance(op, O.MulIOp) and (isinstance(k[0], int) or isinstance(k[1], int)):
                return _Form(coef=forms[0].coef * k[1] if isinstance(k[1], int) else forms[1].coef * k[0])
        m = O.const_value(op.operands[1]) if len(op.operands) == 2 else None
        if isinstance(op, (O.RemSIOp, O.RemUIOp)) and isinstance(m, int) and m > 0 and forms[1].coef == 0 \
                and forms[0].coef is not None and self.nonneg(op.lhs):
            # (a * (p + P) + c) % m == (a * p + c) % m when m divides a * P: the least such P
            return _Form(period=m // math.gcd(m, abs(forms[0].coef)))
        periods = [f.repeats for f in forms]
        if any(p is None for p in periods):
            return None
        period = math.lcm(*periods)
        return _SAME if period == 1 else _Form(period=period)

    def mask_shrinks(self, mask: Value, step: int) -> bool:
        """Whether ``mask`` keeps, in every later program of the slot, no element the first one does not."""
        f = self(mask)
        if f is not None and f.repeats is not None and step % f.repeats == 0:
            return True
        op = getattr(mask, "op", None)
        if isinstance(op, O.AndIOp):
            return self.mask_shrinks(op.lhs, step) and self.mask_shrinks(op.rhs, step)
        if not isinstance(op, O.CmpIOp):
            return False
        lhs, rhs, pred = op.lhs, op.rhs, op.predicate
        if pred in _GROWS:
            lhs, rhs, pred = rhs, lhs, _GROWS[pred]
        fl, fr = self(lhs), self(rhs)
        return pred in _SHRINKS and fl is not None and fl.coef is not None and fl.coef >= 0 \
            and self.nonneg(lhs) and fr is not None and fr.coef == 0

    def why(self, ld: O.LoadOp, step: int) -> Optional[str]:
        """Why every program of the slot reads the same elements through ``ld``, or None when they may not."""
        p = self(ld.ptr)
        if p is None or p.repeats is None or step % p.repeats:
            return None
        if ld.mask is None:
            mask = "no mask"
        else:
            m = self(ld.mask)
            if m is not None and m.repeats is not None and step % m.repeats == 0:
                mask = f"the mask repeats every {m.repeats}"
            elif ld.other is None and self.mask_shrinks(ld.mask, step):
                mask = "the mask shrinks as the program grows"
            else:
                return None
        if ld.other is not None and self(ld.other) != _SAME:
            return None
        return f"address repeats every {p.repeats} programs, {p.repeats} divides the slot step {step}; {mask}"


def periodic_candidates(slot: scf.ForOp) -> List[Tuple[O.LoadOp, str]]:
    """The loads directly in ``slot``'s body that every program of the slot reads alike (the module
    docstring's periodic loads), each with the reason, before the budget."""
    stored = _stored(slot)
    step = O.const_value(slot.step)
    if stored is None or not isinstance(step, int) or step <= 0:
        return []
    per, out = _Periodic(slot), []
    for op in slot.block.ops:
        if not isinstance(op, O.LoadOp) or op.volatile or op.guard is not None or not op.result.type.is_block() \
                or not op.ptr.type.is_block() or not op.result.has_uses():
            continue
        root = _root(op.ptr)
        if root is None or any(may_share(root, s) for s in stored):
            continue
        why = per.why(op, step)
        if why is not None:
            out.append((op, why))
    return out


def _stored(slot: scf.ForOp) -> Optional[List[BlockArgument]]:
    """The pointer parameters ``slot`` stores through, or None when something else may write memory."""
    stored = []
    for op in _writes(slot):
        root = _root(op.ptr) if isinstance(op, O.StoreOp) else None
        if root is None:
            return None
        stored.append(root)
    return stored


def candidates(slot: scf.ForOp) -> List[O.LoadOp]:
    """The loads of ``slot`` this pass keeps (the module docstring's rules), before the budget: those of its
    inner loops, then the periodic ones of its body."""
    return _inner_candidates(slot) + [ld for ld, _ in periodic_candidates(slot)]


def _inner_candidates(slot: scf.ForOp) -> List[O.LoadOp]:
    stored = _stored(slot)
    if stored is None:
        return []
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
            if root is None or any(may_share(root, s) for s in stored):
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
    def __init__(self, func: O.FuncOp, budget: int, ctx: Optional[PassContext] = None):
        self.func, self.budget, self.count, self.ctx = func, budget, 0, ctx

    def run(self) -> bool:
        changed = False
        for slot in slot_loops(self.func):
            periodic = dict((id(ld), why) for ld, why in periodic_candidates(slot))
            loads = _inner_candidates(slot) + [ld for ld in slot.block.ops if id(ld) in periodic]
            share = self.budget // max(len(loads), 1)
            if self.ctx is not None:
                for ld in loads:
                    if share // _tile_bytes(ld) == 0:
                        self.ctx.remark(Remark("keep-invariant", f"keep-invariant: tile of {_tile_bytes(ld)} bytes not "
                                               f"kept: {share} bytes of local memory are left for it", ld.loc,
                                               "the slot's later programs load it from DRAM"))
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
                if id(ld) in periodic:
                    self._guard(slot, ld, periodic[id(ld)], fills, later)
                elif ld.parent.parent.parent not in inners:
                    inners.append(ld.parent.parent.parent)
            for inner in inners:
                self._version(slot, inner, [ld for ld in loads if ld.parent is inner.block], share, fills, later)
            slot.attrs["keep_invariant"] = len(loads)
            changed = True
        return changed

    def _alloc(self, ld: O.LoadOp, slots: int) -> Value:
        t = ld.result.type
        alloc = LocalAllocOp.get(t.shape, t.element_type, slots, loc=ld.loc)
        entry = self.func.entry
        entry.insert_before(entry.ops[0], alloc)
        alloc.buf.name_hint = f"keptinv{self.count}"
        self.count += 1
        return alloc.buf

    def _guard(self, slot: scf.ForOp, ld: O.LoadOp, why: str, fills: Value, later: Value) -> None:
        """``scf.if reuse {slot 0} else {ld, and the ops only it reads}``, then ``scf.if fill {slot 0 = it}``
        (the module docstring's periodic loads)."""
        loc, buf = ld.loc, self._alloc(ld, 1)
        # a one-dimensional launch, where the program ids are the slot loop's program (checked before the loop)
        pre = _Builder(slot.parent, slot, loc)
        nprogs = next((op.result for op in slot.parent.ops[:slot.parent.ops.index(slot)]
                       if isinstance(op, O.GetNumProgramsOp) and op.axis == 0), None)
        one_d = pre(O.CmpIOp.get("eq", nprogs or pre(O.GetNumProgramsOp.get(0, loc=loc)), slot.upper, loc=loc))
        one_d.name_hint = "one_d"
        bld = _Builder(slot.block, ld, loc)
        zero = bld.const(0)          # outside the branch: codegen then reads the slot where it is (no copy)
        reuse = bld(O.AndIOp.get(one_d, later, loc=loc))
        fill = bld(O.AndIOp.get(one_d, fills, loc=loc))
        branch = scf.IfOp.get(reuse, [ld.result.type], loc=loc)
        branch.attrs["kept"] = why
        slot.block.insert_before(ld, branch)
        ld.result.replace_all_uses_with(branch.results[0])
        read = branch.then_block.append(SlotLoadOp.get(buf, zero, loc=loc))
        read.result.name_hint = ld.result.name_hint
        branch.then_block.append(scf.YieldOp.get([read.result], loc=loc))
        for op in _only_for(ld, slot.block) + [ld]:   # the load and the address ops only it reads
            slot.block.ops.remove(op)
            branch.else_block.append(op)
        branch.else_block.append(scf.YieldOp.get([ld.result], loc=loc))
        store = scf.IfOp.get(fill, loc=loc)
        store.then_block.append(SlotStoreOp.get(buf, zero, branch.results[0], loc=loc))
        store.then_block.append(scf.YieldOp.get(loc=loc))
        store.else_block.append(scf.YieldOp.get(loc=loc))
        slot.block.insert_before(slot.block.ops[slot.block.ops.index(branch) + 1], store)

    def _version(self, slot: scf.ForOp, inner: scf.ForOp, loads: List[O.LoadOp], share: int, fills: Value,
                 later: Value) -> None:
        """``scf.if reuse { inner, reading the slots } else { inner, the first program filling them }``."""
        loc = inner.loc
        bufs = [self._alloc(ld, share // _tile_bytes(ld)) for ld in loads]
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


def _only_for(ld: O.LoadOp, block) -> List[Operation]:
    """The pure ops of ``block`` whose results only ``ld`` reads (directly or through each other), in order."""
    mine = {id(ld)}
    out = []
    for op in reversed(block.ops[:block.ops.index(ld)]):
        uses = [u for r in op.results for u in r.uses]
        if Pure in op.traits and not op.regions and uses and all(id(u.op) in mine for u in uses):
            mine.add(id(op))
            out.append(op)
    return out[::-1]


def _tile_bytes(ld: O.LoadOp) -> int:
    return ld.result.type.numel * ld.result.type.element_type.bytes


@register_pass
@dataclasses.dataclass(frozen=True)
class KeepInvariant(FunctionPass):
    """Keep the tiles every program of a slot loads alike in local memory (module docstring)."""

    name = "keep-invariant"
    budget: int = 0   # bytes of local memory all kept buffers of a kernel may take; 0: the plan's share
    needs_context = True

    def run_on_function(self, func: O.FuncOp, ctx: PassContext) -> bool:
        budget = self.budget or plan_function(func, ctx.target, ahead=True).share(6)
        return _Function(func, budget, ctx if not self.budget else None).run()


__all__ = ["KeepInvariant", "candidates", "periodic_candidates", "slot_loops"]
