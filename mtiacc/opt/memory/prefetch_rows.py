"""``prefetch-rows``: the row a program keeps in local memory is fetched whole, one program ahead.

After ``reuse-loads`` a row-wise kernel such as layer norm loads its row tile by tile in its first loop and
copies each tile into a kept buffer that the later loops read (``%kept0``); after ``persistent-programs``
the programs of a slot run one after another in one loop.  The first loop still takes turns with the DMA
engine: its tiles arrive while the program waits, and the next program's row only starts moving once that
program runs.  This pass splits the kept buffer into two halves and moves the row with one transfer while the
*previous* program of the slot computes:

    %fits = N - lower <= HALF * B                         # was SLOTS * B: a row now takes half the buffer
    scf.if %fits and first < total and lower < N {        # the slot's first row, before the loop
        mtia.slot_fetch %kept0, 0, P(first) + lower, N - lower, other   # (other: the last tile's rest)
    }
    scf.for %program = first .. total step SLOTS {persistent, flush_rows = 1, prefetch_rows = HALF}:
        %base = ((program - first) / SLOTS) % 2 * HALF    # this program's half
        scf.if %fits and program > first and lower < N {  # the previous program's results, from its half
            mtia.slot_flush %kept0, HALF - %base, Q(program - SLOTS) + lower, N - lower
            mtia.slot_wait {behind = 1}                   # its row has landed; the flush stays in flight
        } else {
            mtia.slot_wait                                # its row has landed
        }
        scf.if %fits and program + SLOTS < total and lower < N {
            mtia.slot_fetch %kept0, HALF - %base, P(program + SLOTS) + lower, N - lower, other
        }
        scf.if %fits { for off ...: %a = mtia.slot_load %kept0, %base + (off - lower) / B; ... }
        else { the first loop as written, loading from DRAM }
        ... the later loops read %kept0 at %base + (off - lower) / B ...
        scf.if %fits and program + SLOTS < total {        # the last loop: results into the slots read
            for off ...: ...; mtia.slot_store %kept0, %base + (off - lower) / B, %y
        } else { the loop as written, storing %y through Q + off + arange(0, B) }

``P(v)`` is the row's pointer computed for program ``v`` (the pure ops of the slot loop's body that give it,
copied with the program replaced).  The DMA engine then always has the next row to move while the vector
unit works on this one; a program waits once, at its start, for transfers issued a whole program earlier.

**Stores.**  When the loops' stores through a pointer ``Q`` are all ``tt.store(splat(Q) + (off + arange(0, B)),
%y, mask = ... < N)`` directly in loops of the fill loop's bounds, nothing else in the slot loop reads or writes
through ``Q``'s parameter, and no op after such a store reads the kept buffer (in its iteration, or after its
loop in the program), a program that has a successor writes each ``%y`` into the slot it read (``mtia.slot_store``,
in place) and the successor stores the whole row with one transfer (``mtia.slot_flush``), queued ahead of the
fetch that next writes that half (the DMA engine runs its transfers in issue order).  The slot's last program
stores as written: its stores run under its own compute instead of after it.  The slot loop gets
``{flush_rows = K}``, K the loops that store so.

**When.**  The slot loop (``{persistent}``) holds, directly, a loop ``for off = lower .. N step B`` (``lower``
and ``B`` constants, ``N`` defined outside the slot loop) whose block load ``tt.load(splat(P) + (off +
arange(0, B)), mask = off + arange(0, B) < N, other)`` is the fill of a kept buffer under ``%fits`` (the
``reuse-loads`` form, with a run-time row length).  ``P`` is computed from the program by pure ops in the
slot loop's body; ``other``, when present, outside it.  Every store of the slot loop writes through a pointer
parameter other than ``P``'s, and not one ``may_alias`` groups with it (``may_share``: distinct pointer
parameters are distinct buffers otherwise: the rule by which
``persistent-programs`` and ``pipeline-loads`` move loads before other programs' stores), and nothing in it
writes memory otherwise.  The buffer has at least two slots.  The slot loop gets ``{prefetch_rows = HALF}``,
so ``--emit=ir`` shows the choice.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.pointers import may_share, root_pointer
from mtiacc.ir.analysis.slices import defined_in, pure_slice
from mtiacc.ir.core import Block, Operation, Pure, Value
from mtiacc.ir.mtia import LocalAllocOp
from mtiacc.ir.mtia.kept import SlotFetchOp, SlotFlushOp, SlotLoadOp, SlotStoreOp, SlotWaitOp
from mtiacc.ir.types import BlockType, i32
from mtiacc.opt.loop_unroll import clone_op
from mtiacc.opt.pass_manager import ModulePass, register_pass

# Ops of the slot loop that write no memory the row could be read from (besides Pure ops and tt.store).
_HARMLESS = {"tt.load", "tt.print", "tt.assert", "mtia.slot_store", "mtia.slot_load", "scf.yield", "scf.for",
             "scf.if", "tt.fused_yield", "tt.reduce_return"}


def _varies(v: Value, loop: scf.ForOp, hoist: bool) -> bool:
    """Whether ``v`` is defined in ``loop``; with ``hoist``, only when ``licm`` could not move it out (pure
    ops of its body from values defined outside, not from its induction variable)."""
    if not defined_in(v, loop):
        return False
    op = getattr(v, "op", None)
    if not hoist or op is None or op.parent is not loop.block or Pure not in op.traits or op.regions:
        return True
    return any(_varies(o, loop, hoist) for o in op.operands)


def _within(op: Operation, loop: Operation) -> bool:
    """Whether ``op`` is nested in ``loop``'s regions."""
    while op is not None and op.parent is not None and op.parent.parent is not None:
        op = op.parent.parent.parent
        if op is loop:
            return True
    return False


def _is_cols(v: Value, iv: Value, size: int) -> bool:
    """``splat(iv) + arange(0, size)`` (either order)."""
    op = getattr(v, "op", None)
    if not isinstance(op, O.AddIOp):
        return False
    for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        sp, rg = getattr(a, "op", None), getattr(b, "op", None)
        if isinstance(sp, O.SplatOp) and sp.src is iv and isinstance(rg, O.MakeRangeOp) \
                and rg.start == 0 and rg.end == size:
            return True
    return False


class _Row:
    """One match: the slot loop, its fill loop, the fill's load and slot store, the buffer."""

    def __init__(self, slots: scf.ForOp, fill: scf.ForOp, load: O.LoadOp, guard: scf.IfOp, buf: Value,
                 ptr: Value, fits: O.CmpIOp, ptr_slice: List[Operation]):
        self.slots, self.fill, self.load, self.guard, self.buf = slots, fill, load, guard, buf
        self.ptr, self.fits, self.ptr_slice = ptr, fits, ptr_slice


def _writes_elsewhere(slots: scf.ForOp, root) -> bool:
    """Nothing in the slot loop writes memory but stores through pointer parameters other than ``root``."""
    for op in slots.walk():
        if op is slots:
            continue
        if isinstance(op, O.StoreOp):
            r = root_pointer(op.ptr)
            if r is None or may_share(r, root):
                return False
        elif Pure not in op.traits and op.name not in _HARMLESS:
            return False
    return True


def _match(slots: scf.ForOp, fill: scf.ForOp, hoist: bool) -> Optional[_Row]:
    lower, step = O.const_value(fill.lower), O.const_value(fill.step)
    if lower is None or step is None or lower < 0 or step <= 0 or _varies(fill.upper, slots, hoist):
        return None
    for guard in fill.block.ops:
        if not isinstance(guard, scf.IfOp) or guard.results or len(guard.then_block.ops) != 2 \
                or len(guard.else_block.ops) != 1:
            continue
        store = guard.then_block.ops[0]
        if not isinstance(store, SlotStoreOp) or not isinstance(getattr(store.buf, "op", None), LocalAllocOp):
            continue
        load = getattr(store.value, "op", None)
        if not isinstance(load, O.LoadOp) or load.parent is not fill.block or load.volatile:
            continue
        row = _match_load(slots, fill, load, guard, store, step, hoist)
        if row is not None:
            return row
    return None


def _match_load(slots, fill, load, guard, store, step, hoist) -> Optional[_Row]:
    t = load.result.type
    if len(t.shape) != 1 or t.shape[0] != step or load.guard is not None:
        return None
    ptr = getattr(load.ptr, "op", None)
    if not isinstance(ptr, O.AddPtrOp) or not _is_cols(ptr.offset, fill.induction_var, step):
        return None
    splat = getattr(ptr.ptr, "op", None)
    if not isinstance(splat, O.SplatOp):
        return None
    mask = getattr(load.mask, "op", None)
    if not isinstance(mask, O.CmpIOp) or mask.predicate != "slt" or not _is_cols(mask.lhs, fill.induction_var, step):
        return None
    bound = getattr(mask.rhs, "op", None)
    if not isinstance(bound, O.SplatOp) or bound.src is not fill.upper:
        return None
    if load.other is not None and _varies(load.other, slots, hoist):
        return None
    fits = getattr(guard.cond, "op", None)
    nslots = store.buf.type.shape[0]
    if not isinstance(fits, O.CmpIOp) or fits.predicate != "sle" or _varies(guard.cond, slots, hoist) \
            or O.const_value(fits.rhs) != nslots * step or nslots < 2:
        return None
    if not all(isinstance(u.op, (SlotLoadOp, SlotStoreOp)) and _within(u.op, slots) for u in store.buf.uses):
        return None
    ptr_slice = pure_slice([splat.src], slots)
    root = root_pointer(splat.src)
    if ptr_slice is None or root is None or not _writes_elsewhere(slots, root):
        return None
    return _Row(slots, fill, load, guard, store.buf, splat.src, fits, ptr_slice)


class _At:
    """Inserts ops before an anchor."""

    def __init__(self, block: Block, anchor: Operation, loc):
        self.block, self.anchor, self.loc = block, anchor, loc

    def __call__(self, op: Operation) -> Value:
        self.block.insert_before(self.anchor, op)
        return op.result if op.results else None

    def const(self, value) -> Value:
        return self(O.ConstantOp.get(value, i32, loc=self.loc))


def _row_pointer(row: _Row, at: _At, program: Value, ptr: Value, ptr_slice: List[Operation]) -> Value:
    """``ptr(program) + lower``: the row's first element for ``program``, ``ptr`` computed by ``ptr_slice``."""
    mapping: Dict[int, Value] = {id(row.slots.induction_var): program}
    for op in ptr_slice:
        at(clone_op(op, mapping))
    p = mapping.get(id(ptr), ptr)
    lower = O.const_value(row.fill.lower)
    return at(O.AddPtrOp.get(p, at.const(lower), loc=at.loc)) if lower else p


def _slot_of(at: _At, iv: Value, lower: int, step: int) -> Value:
    """``(iv - lower) / step``, as reuse-loads numbers the slots."""
    s = at(O.SubIOp.get(iv, at.const(lower), loc=at.loc)) if lower else iv
    if step & (step - 1) == 0:
        return at(O.ShRSIOp.get(s, at.const(step.bit_length() - 1), loc=at.loc)) if step > 1 else s
    return at(O.DivSIOp.get(s, at.const(step), loc=at.loc))


def _rewrite(row: _Row) -> None:
    slots, fill, buf, loc = row.slots, row.fill, row.buf, row.fill.loc
    step, lower = O.const_value(fill.step), O.const_value(fill.lower)
    half = buf.type.shape[0] // 2
    outer = slots.parent
    # a row now fits in half of the buffer
    before = _At(row.fits.parent, row.fits, row.fits.loc)
    row.fits.set_operand(1, before.const(half * step))
    fits = row.fits.result
    # the fill's copy into the buffer goes: the fetch fills it
    row.guard.then_block.ops[0].erase()
    row.guard.erase()
    # this program's half, and every slot of the buffer read in it offset into that half
    top = _At(slots.block, slots.block.ops[0], loc)
    nth = top(O.DivSIOp.get(top(O.SubIOp.get(slots.induction_var, slots.lower, loc=loc)), slots.step, loc=loc))
    base = top(O.MulIOp.get(top(O.AndIOp.get(nth, top.const(1), loc=loc)), top.const(half), loc=loc))
    base.name_hint = "half"
    for op in [u.op for u in buf.uses]:
        op.set_operand(1, _offset(op.slot, base, op, slots))
    # the row length, and the fetch before the loop: the slot's first row into half 0
    pre = _At(outer, slots, loc)
    count = pre(O.SubIOp.get(fill.upper, pre.const(lower), loc=loc))
    some = pre(O.CmpIOp.get("sgt", count, pre.const(0), loc=loc))
    runs = pre(O.CmpIOp.get("slt", slots.lower, slots.upper, loc=loc))
    ready = pre(O.AndIOp.get(fits, some, loc=loc))      # the row fits and is not empty: rows move whole
    go = pre(O.AndIOp.get(ready, runs, loc=loc))
    other = _scalar_other(row, pre)
    at = _if(pre, go)
    at(SlotFetchOp.get(buf, at.const(0), _row_pointer(row, at, slots.lower, row.ptr, row.ptr_slice), count, other,
                       loc=loc))
    # in the loop: store the previous program's row (when this pass keeps the stores) and wait for this program's
    # row with the store in flight (the DMA engine moves it as soon as the row has landed), else just wait; then
    # fetch the next program's row into the other half, behind the store
    other_half = top(O.SubIOp.get(top.const(half), base, loc=loc))
    stores = _row_stores(row)
    if stores is not None:
        q, q_slice = stores[1], stores[2]
        later = top(O.CmpIOp.get("sgt", slots.induction_var, slots.lower, loc=loc))
        at, otherwise = _if_else(top, top(O.AndIOp.get(ready, later, loc=loc)))
        prev = at(O.SubIOp.get(slots.induction_var, slots.step, loc=loc))
        at(SlotFlushOp.get(buf, other_half, _row_pointer(row, at, prev, q, q_slice), count, loc=loc))
        at(SlotWaitOp.get(behind=1, loc=loc))
        otherwise(SlotWaitOp.get(loc=loc))
    else:
        top(SlotWaitOp.get(loc=loc))
    nxt = top(O.AddIOp.get(slots.induction_var, slots.step, loc=loc))
    more = top(O.CmpIOp.get("slt", nxt, slots.upper, loc=loc))
    at = _if(top, top(O.AndIOp.get(ready, more, loc=loc)))
    at(SlotFetchOp.get(buf, other_half, _row_pointer(row, at, nxt, row.ptr, row.ptr_slice), count, other, loc=loc))
    _version(fill, fits, lambda copy, m: _read_slots(row, copy, m, base))
    if stores is not None:   # a program with a successor stores its row in place; the slot's last stores it as written
        ahead = top(O.AndIOp.get(fits, more, loc=loc))
        for loop, store in stores[0]:
            at = loop.block.ops.index(store)
            _version(loop, ahead, lambda copy, m, at=at: _store_slots(row, copy, copy.block.ops[at], base))
        slots.attrs["flush_rows"] = len(stores[0])
    slots.attrs["prefetch_rows"] = half


def _if(at: _At, cond: Value) -> _At:
    """An ``scf.if cond`` (no results) inserted by ``at``; a builder for its then-block."""
    return _if_else(at, cond)[0]


def _if_else(at: _At, cond: Value) -> Tuple[_At, _At]:
    """An ``scf.if cond`` (no results) inserted by ``at``; builders for its then- and else-blocks."""
    branch = scf.IfOp.get(cond, loc=at.loc)
    otherwise = _At(branch.else_block, branch.else_block.append(scf.YieldOp.get(loc=at.loc)), at.loc)
    at(branch)
    return _At(branch.then_block, branch.then_block.append(scf.YieldOp.get(loc=at.loc)), at.loc), otherwise


def _scalar_other(row: _Row, at: _At) -> Optional[Value]:
    """The fill load's ``other`` as a scalar (a splat or a block constant), or None."""
    other = row.load.other
    op = getattr(other, "op", None)
    if isinstance(op, O.SplatOp):
        return op.src
    if isinstance(op, O.ConstantOp):
        return at(O.ConstantOp.get(op.value, other.type.element_type, loc=at.loc))
    return None


def _offset(slot: Value, base: Value, user: Operation, slots: scf.ForOp) -> Value:
    """``slot + base`` computed where ``slot`` is (so a guarded read's branch keeps its one op), or, for a slot
    defined outside the slot loop, before the op of its body that holds ``user``."""
    if defined_in(slot, slots) and hasattr(slot, "op"):
        block, anchor = slot.op.parent, slot.op.parent.ops[slot.op.parent.ops.index(slot.op) + 1]
    elif defined_in(slot, slots):
        block, anchor = slot.block, slot.block.ops[0]
    else:
        anchor = user
        while anchor.parent is not slots.block:
            anchor = anchor.parent.parent.parent
        block = slots.block
    return _At(block, anchor, user.loc)(O.AddIOp.get(slot, base, loc=user.loc))


def _version(loop: scf.ForOp, fits: Value, edit) -> None:
    """``scf.if %fits { a copy of loop, edited } else { the loop as written }``; ``edit(copy, mapping)``."""
    loc = loop.loc
    mapping: Dict[int, Value] = {}
    copy = clone_op(loop, mapping)
    edit(copy, mapping)
    branch = scf.IfOp.get(fits, [r.type for r in loop.results], loc=loc)
    loop.parent.insert_before(loop, branch)
    for old, new in zip(loop.results, branch.results):
        old.replace_all_uses_with(new)
    branch.then_block.append(copy)
    branch.then_block.append(scf.YieldOp.get(list(copy.results), loc=loc))
    loop.parent.ops.remove(loop)
    branch.else_block.append(loop)
    branch.else_block.append(scf.YieldOp.get(list(loop.results), loc=loc))


def _slot_here(row: _Row, copy: scf.ForOp, anchor: Operation, base: Value, loc) -> Value:
    """This iteration's slot of the buffer in this program's half, computed before ``anchor``."""
    step, lower = O.const_value(row.fill.step), O.const_value(row.fill.lower)
    at = _At(copy.block, anchor, loc)
    return at(O.AddIOp.get(_slot_of(at, copy.induction_var, lower, step), base, loc=loc))


def _read_slots(row: _Row, copy: scf.ForOp, mapping, base: Value) -> None:
    """In the fill loop's copy: the tile from the buffer instead of DRAM."""
    twin = mapping[id(row.load.result)].op
    read = SlotLoadOp.get(row.buf, _slot_here(row, copy, twin, base, twin.loc), loc=twin.loc)
    copy.block.insert_before(twin, read)
    read.result.name_hint = row.load.result.name_hint
    twin.result.replace_all_uses_with(read.result)
    twin.erase()


def _store_slots(row: _Row, copy: scf.ForOp, store: O.StoreOp, base: Value) -> None:
    """In a storing loop's copy: the tile into the buffer, in place of the row's tile (``mtia.slot_flush``
    stores the row)."""
    value = getattr(store.value, "op", None)   # the slot computed before the value: codegen can compute it in place
    anchor = value if value is not None and value.parent is copy.block else store
    write = SlotStoreOp.get(row.buf, _slot_here(row, copy, anchor, base, store.loc), store.value, loc=store.loc)
    copy.block.insert_before(store, write)
    store.erase()


def _row_stores(row: _Row):
    """``([(loop, store)], Q, Q's slice)``: the stores of the slot loop through ``Q``'s parameter, every one
    ``tt.store(splat(Q) + (off + arange(0, B)), value, mask = ... < N)`` directly in a loop of the fill loop's
    bounds, after which no op of the program reads the buffer; None when there are none or another does."""
    slots, fill, buf = row.slots, row.fill, row.buf
    step, lower = O.const_value(fill.step), O.const_value(fill.lower)
    found, q = [], None
    for st in slots.walk():
        if not isinstance(st, O.StoreOp):
            continue
        loop = st.parent.parent.parent if st.parent is not None and st.parent.parent is not None else None
        ptr = getattr(st.ptr, "op", None)
        if not isinstance(loop, scf.ForOp) or loop is slots or not isinstance(ptr, O.AddPtrOp):
            continue
        if O.const_value(loop.lower) != lower or O.const_value(loop.step) != step or loop.upper is not fill.upper:
            continue
        splat = getattr(ptr.ptr, "op", None)
        if not isinstance(splat, O.SplatOp) or not _is_cols(ptr.offset, loop.induction_var, step) \
                or not _prefix_mask(st.mask, loop, step, fill.upper) \
                or st.value.type != BlockType((step,), buf.type.element_type):
            continue
        if q is not None and splat.src is not q:
            return None
        q = splat.src
        found.append((loop, st))
    if q is None:
        return None
    root, q_slice = root_pointer(q), pure_slice([q], slots)
    if root is None or q_slice is None:
        return None
    mine = {id(st) for _, st in found}
    for op in slots.walk():
        if isinstance(op, O.StoreOp) and may_share(root_pointer(op.ptr), root) and id(op) not in mine:
            return None
        if isinstance(op, O.LoadOp) and may_share(root_pointer(op.ptr), root):
            return None
    for loop, st in found:
        if not _last_reader(row, loop, st):
            return None
    return found, q, q_slice


def _prefix_mask(mask: Optional[Value], loop: scf.ForOp, step: int, bound: Value) -> bool:
    op = getattr(mask, "op", None)
    return isinstance(op, O.CmpIOp) and op.predicate == "slt" and _is_cols(op.lhs, loop.induction_var, step) \
        and isinstance(getattr(op.rhs, "op", None), O.SplatOp) and op.rhs.op.src is bound


def _reads_buffer(op: Operation, buf: Value) -> bool:
    return any(isinstance(o, SlotLoadOp) and o.buf is buf for o in op.walk())


def _last_reader(row: _Row, loop: scf.ForOp, store: O.StoreOp) -> bool:
    """No op reads the buffer after ``store`` in its iteration, nor after ``loop`` in the program."""
    body = loop.block.ops
    if any(_reads_buffer(op, row.buf) for op in body[body.index(store) + 1:]):
        return False
    anchor = loop
    while anchor.parent is not row.slots.block:
        block = anchor.parent
        if any(_reads_buffer(op, row.buf) for op in block.ops[block.ops.index(anchor) + 1:]):
            return False
        anchor = block.parent.parent
    ops = row.slots.block.ops
    return not any(_reads_buffer(op, row.buf) for op in ops[ops.index(anchor) + 1:])


def row_of(slots: scf.ForOp, hoist: bool = False) -> Optional[_Row]:
    """The row this pass would fetch ahead in the slot loop ``slots``, if any; with ``hoist``, counting the
    invariant values ``licm`` will move out of it as outside (``persistent-programs`` asks before it runs)."""
    for fill in slots.block.ops:
        if isinstance(fill, scf.ForOp):
            row = _match(slots, fill, hoist)
            if row is not None:
                return row
    return None


def _rows(func: O.FuncOp) -> List[_Row]:
    out = []
    for slots in func.walk():
        if isinstance(slots, scf.ForOp) and slots.persistent and "prefetch_rows" not in slots.attrs:
            row = row_of(slots)
            if row is not None:
                out.append(row)
    return out


@register_pass
@dataclasses.dataclass(frozen=True)
class PrefetchRows(ModulePass):
    """Fetch each program's kept row whole while the previous program of its slot computes (module docstring)."""

    name = "prefetch-rows"

    def run(self, module: O.ModuleOp) -> bool:
        changed = False
        for op in list(module.body.block.ops):
            if isinstance(op, O.FuncOp):
                for row in _rows(op):
                    _rewrite(row)
                    changed = True
        return changed


__all__ = ["PrefetchRows", "row_of"]
