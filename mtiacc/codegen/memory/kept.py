"""Blocks kept in local memory between loops (``mtiacc/ir/mtia/kept.py``, the ``reuse-loads`` pass).

* ``mtia.slot_store %buf, %slot, %value``: a vector copy of the block into ``buf + slot * tile bytes``
  (the slot a register; isel waits for the DMA that filled ``%value`` first, as before any reader);
* ``mtia.slot_load %buf, %slot``: a vector copy of the slot into the result's own buffer;
* ``tt.ptr_to_int``: a pointer is its address in a register already.
"""
from __future__ import annotations

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir.mtia.kept import PtrToIntOp, SlotLoadOp, SlotStoreOp


def _slot_address(lw: Lowering, buf_value, slot_value):
    b = lw.b
    t = buf_value.type
    tile = t.numel // t.shape[0] * elem_bytes(t)
    addr = b.x("slot")
    b("mul", addr, lw.get(slot_value), b.li(tile))
    b("add", addr, addr, b.li(lw.buffer(buf_value).offset))
    return addr


def _store(lw: Lowering, op: SlotStoreOp) -> None:
    elem = op.value.type.element_type
    lower_fill(lw.b, op.value.type.numel, lw.src(op.value), Src(elem, addr=_slot_address(lw, op.buf, op.slot)))


def _load(lw: Lowering, op: SlotLoadOp) -> None:
    elem = op.result.type.element_type
    src = Src(elem, addr=_slot_address(lw, op.buf, op.slot))
    lower_fill(lw.b, op.result.type.numel, src, Src(elem, addr=lw.alloc(op.result).offset))


def _ptr_to_int(lw: Lowering, op: PtrToIntOp) -> None:
    lw.regs[id(op.result)] = lw.get(op.src)


LOWER = {SlotStoreOp: _store, SlotLoadOp: _load, PtrToIntOp: _ptr_to_int}


def lower(lw: Lowering, op) -> None:
    LOWER[type(op)](lw, op)


def reads(op):
    """The block operands whose data the lowering reads: a slot store's value."""
    return [op.value] if isinstance(op, SlotStoreOp) else ()


__all__ = ["lower", "reads"]
