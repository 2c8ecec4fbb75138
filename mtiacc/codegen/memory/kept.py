"""Blocks kept in local memory between loops (``mtiacc/ir/mtia/kept.py``, the ``reuse-loads`` pass).

* ``mtia.slot_store %buf, %slot, %value``: a vector copy of the block into ``buf + slot * tile bytes``
  (the slot a register; isel waits for the DMA that filled ``%value`` first, as before any reader);
* ``mtia.slot_load %buf, %slot``: a vector copy of the slot into the result's own buffer, or, under the
  pass's ``scf.if`` (slot or DRAM), straight into the ``if``'s result, where the DRAM load lands too;
  or no copy at all when every reader of the result (of the ``if``'s result) reads its operands where a
  register points (``tt.fused_elementwise``, ``mtia.slot_store``): the readers read the slot where it is
  (under the ``if``, a register holds the ``if``'s home, set before branching, or the slot's address:
  :func:`view_for_if`);
* ``mtia.slot_fetch %buf, %slot, %src, %count``: one ``mtia.dma.in`` of ``count`` elements to
  ``buf + slot * tile bytes`` (none when ``count`` is 0); isel does not wait for it before
  readers: ``mtia.slot_wait`` (``mtia.dma.wait``) does; with ``other``, a vector fill of the last slot's rest;
* ``mtia.slot_flush %buf, %slot, %dst, %count``: one ``mtia.dma.out`` of the run, not waited for;
* ``tt.ptr_to_int``: a pointer is its address in a register already.
"""
from __future__ import annotations

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.mtia.kept import PtrToIntOp, SlotFetchOp, SlotFlushOp, SlotLoadOp, SlotStoreOp, SlotWaitOp
from mtiacc.ir.ops import ELEMENTWISE_BINARY_FLOAT, ELEMENTWISE_BINARY_INT, LoadOp
from mtiacc.ir.scf import IfOp, YieldOp


def _slot_address(lw: Lowering, buf_value, slot_value):
    b = lw.b
    t = buf_value.type
    tile = t.numel // t.shape[0] * elem_bytes(t)
    addr = b.x("slot")
    b("mul", addr, lw.get(slot_value), b.li(tile))
    b("add", addr, addr, b.li(lw.buffer(buf_value).offset))
    return addr


def place_in_slot(lw: Lowering, op) -> None:
    """Before lowering ``op``: when its one block result is read only by a ``mtia.slot_store`` later in its
    block, whose slot is computed already, ``op`` computes it straight into the slot (a view register: fused
    and one-dimensional elementwise ops write their result through ``result_addr``), and the store copies
    nothing.  An elementwise op reading a block in the same slot reads each chunk before writing it."""
    if not (isinstance(op, FusedElementwiseOp) or isinstance(op, _ARITH)) or len(op.results) != 1:
        return
    res = op.results[0]
    if not res.type.is_block() or len(res.uses) != 1 or (not isinstance(op, FusedElementwiseOp)
                                                        and len(res.type.shape) != 1):
        return
    store = res.uses[0].op
    if not isinstance(store, SlotStoreOp) or store.value is not res or store.parent is not op.parent:
        return
    slot = store.slot
    where = lw.order.pos.get(slot.op) if hasattr(slot, "op") else None
    if where is None or where > lw.order.pos[op]:
        return
    lw.homes.views[res] = _slot_address(lw, store.buf, slot)
    lw.homes.in_slot.add(store)


def _store(lw: Lowering, op: SlotStoreOp) -> None:
    if op in lw.homes.in_slot:   # its value was computed in the slot (place_in_slot)
        return
    elem = op.value.type.element_type
    lower_fill(lw.b, op.value.type.numel, lw.src(op.value), Src(elem, addr=_slot_address(lw, op.buf, op.slot)))


def _branch_home(lw: Lowering, op: SlotLoadOp):
    """When ``op`` is the then-branch of ``scf.if`` whose else-branch loads the same block from DRAM (the
    pass's guarded read), the home of the ``if``'s result: both branches write it directly, no copy at the
    yield.  Their values then never free it (``keep``); the ``if``'s result does."""
    block = op.parent
    term = block.terminator if block is not None else None
    branch = block.parent.parent if block is not None and block.parent is not None else None
    if not isinstance(branch, IfOp) or block is not branch.then_block or not isinstance(term, YieldOp):
        return None
    if list(term.values) != [op.result] or len(op.result.uses) != 1 or branch.results[0] not in lw.bufs:
        return None
    other = branch.else_block.terminator
    home = lw.bufs[branch.results[0]]
    if isinstance(other, YieldOp) and len(other.values) == 1:
        load = other.values[0]
        if isinstance(getattr(load, "op", None), LoadOp) and len(load.uses) == 1 and load.op.parent is other.parent:
            lw.homes.placed[load] = home
            lw.keep.add(load)
    lw.keep.add(op.result)
    return home


# Readers that take every block operand through ``lw.src`` (so a register address works): fused loops, slot
# stores, and the arithmetic of one-dimensional blocks (one strip-mined vector loop each).
_VIEW_READERS = (FusedElementwiseOp, SlotStoreOp)
_ARITH = ELEMENTWISE_BINARY_FLOAT + ELEMENTWISE_BINARY_INT


def _reads_in_place(op) -> bool:
    return isinstance(op, _VIEW_READERS) or isinstance(op, _ARITH) and len(op.results[0].type.shape) == 1


def view_for_if(lw: Lowering, op: IfOp, homes) -> None:
    """Before ``op``'s branch: when it is the pass's guarded read (then: a slot load, yielded) and every
    reader of its result takes operands by address, a register holding its home's address, which the slot
    branch points at the slot instead of copying it (the module docstring)."""
    if len(op.results) != 1 or not op.results[0].type.is_block() or len(op.then_block.ops) != 2:
        return
    load, res = op.then_block.ops[0], op.results[0]
    if not isinstance(load, SlotLoadOp) or not all(_reads_in_place(u.op) for u in res.uses):
        return
    reg = lw.b.x("view")
    lw.b("li", reg, homes[0].offset)
    lw.homes.views[res] = reg


def _load(lw: Lowering, op: SlotLoadOp) -> None:
    elem = op.result.type.element_type
    src = Src(elem, addr=_slot_address(lw, op.buf, op.slot))
    home = _branch_home(lw, op)
    if home is None and op.result.uses and all(_reads_in_place(u.op) for u in op.result.uses):
        view = lw.b.x("view")
        lw.b("mv", view, src.addr, comment="read the slot where it is")
        lw.homes.views[op.result] = view
        return
    if home is None:
        home = lw.alloc(op.result)
    else:
        lw.bufs[op.result] = home
        view = lw.homes.views.get(op.parent.parent.parent.results[0])
        if view is not None:
            lw.b("mv", view, src.addr, comment="read the slot where it is")
            return
    lower_fill(lw.b, op.result.type.numel, src, Src(elem, addr=home.offset))


def _run(lw: Lowering, op, ptr, inbound: bool) -> None:
    """The one transfer of a slot fetch or flush, and a fetch's fill of its last slot's rest."""
    b = lw.b
    t = op.buf.type
    esize, tile = elem_bytes(t), t.numel // t.shape[0]
    local, count = _slot_address(lw, op.buf, op.slot), lw.get(op.count)
    nbytes = b.x("bytes")
    b("slli", nbytes, count, esize.bit_length() - 1)
    if inbound:
        skip = b.new_label("norun")
        b("beqz", nbytes, skip)
        b("mtia.dma.in", local, lw.get(ptr), nbytes, comment="mtia.slot_fetch: the row in one transfer")
        b.label(skip)
    else:   # issued even when empty: a counted slot_wait after it counts it
        b("mtia.dma.out", lw.get(ptr), local, nbytes, comment="mtia.slot_flush: the row in one transfer")
    if inbound and op.other is not None:   # elements [count, the last slot's end): other
        rest = b.x("rest")
        b("rem", rest, count, b.li(tile))
        b("sub", rest, b.li(tile), rest)
        b("rem", rest, rest, b.li(tile))
        start = b.x("tail")
        b("add", start, local, nbytes)
        elem = t.element_type
        lower_fill(b, rest, Src(elem, scalar=lw.get(op.other)), Src(elem, addr=start))


def _fetch(lw: Lowering, op: SlotFetchOp) -> None:
    _run(lw, op, op.src, True)


def _flush(lw: Lowering, op: SlotFlushOp) -> None:
    _run(lw, op, op.dst, False)


def _wait(lw: Lowering, op: SlotWaitOp) -> None:
    if op.behind:
        since = "the transfer issued since stays" if op.behind == 1 else f"the {op.behind} transfers issued since stay"
        lw.b("mtia.dma.wait", op.behind, comment=f"mtia.slot_wait: the rows fetched so far have landed ({since} in "
                                                  "flight)")
    else:
        lw.b("mtia.dma.wait", comment="mtia.slot_wait: the rows fetched so far have landed")


def _ptr_to_int(lw: Lowering, op: PtrToIntOp) -> None:
    lw.regs[op.result] = lw.get(op.src)


LOWER = {SlotStoreOp: _store, SlotLoadOp: _load, SlotFetchOp: _fetch, SlotFlushOp: _flush, SlotWaitOp: _wait, PtrToIntOp: _ptr_to_int}


def lower(lw: Lowering, op) -> None:
    LOWER[type(op)](lw, op)


def reads(op):
    """The block operands whose data the lowering reads: a slot store's value."""
    return [op.value] if isinstance(op, SlotStoreOp) else ()


__all__ = ["lower", "place_in_slot", "reads", "view_for_if"]
