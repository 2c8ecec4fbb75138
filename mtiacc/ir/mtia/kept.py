"""Blocks kept in local memory between loops (the ``reuse-loads`` pass, ``mtiacc/opt/memory/reuse_loads.py``).

A load that two loops of a program repeat, tile for tile, is moved from DRAM once: the first loop copies
each tile it loads into a slot of an ``mtia.local_alloc`` buffer, the later loops read the slot back.
The slot is the loop's iteration number, a run-time value, so these ops take it as an operand (the ops
of ``mtiacc/ir/mtia/__init__.py`` name a constant slot):

* ``mtia.slot_store %buf, %slot, %value``: copies the block ``%value`` into slot ``%slot`` (i32) of
  ``%buf``.  Nothing is checked at run time: the pass proves or guards ``0 <= %slot < slots``.
* ``%x = mtia.slot_load %buf, %slot``: the slot's contents as a block (a copy).
* ``%a = tt.ptr_to_int %p``: a scalar pointer's address as an i64 (Triton's op of that name), for the
  run-time checks that a store between the loops does not write the tiles kept.

The two slot ops are not ``Pure``: no pass moves or merges them across each other.
"""
from __future__ import annotations

from mtiacc.ir.core import BlockLike, Operation, PtrLike, ScalarInt, Pure, Value, operand, result
from mtiacc.ir.types import BlockType, i64


def _slot_type(buf: Value) -> BlockType:
    t = buf.type
    return BlockType(tuple(t.shape[1:]), t.element_type)


def _check_buffer(op: Operation) -> None:
    t = op.buf.type
    if not t.is_block() or len(t.shape) < 2:
        op._fail(f"the buffer must be a block of rank 2 or more (slots first), got {t}")
    if op.slot.type.is_block() or not op.slot.type.is_int() or op.slot.type.is_bool():
        op._fail(f"the slot must be a scalar integer, got {op.slot.type}")


class SlotStoreOp(Operation):
    """Copy a block into a run-time slot of a local buffer."""

    name = "mtia.slot_store"
    buf = operand(BlockLike)
    slot = operand(ScalarInt)
    value = operand(BlockLike)

    @classmethod
    def get(cls, buf: Value, slot: Value, value: Value, loc=None):
        return cls([buf, slot, value], [], {}, loc=loc)

    def verify_(self):
        _check_buffer(self)
        if self.value.type != _slot_type(self.buf):
            self._fail(f"the value {self.value.type} is not the buffer's slot ({_slot_type(self.buf)})")


class SlotLoadOp(Operation):
    """A run-time slot of a local buffer, as a block."""

    name = "mtia.slot_load"
    buf = operand(BlockLike)
    slot = operand(ScalarInt)
    result = result(BlockLike)

    @classmethod
    def get(cls, buf: Value, slot: Value, loc=None):
        return cls([buf, slot], [_slot_type(buf)], {}, loc=loc)

    def verify_(self):
        _check_buffer(self)
        if self.result.type != _slot_type(self.buf):
            self._fail(f"result must be {_slot_type(self.buf)}, the buffer's slot")


class PtrToIntOp(Operation):
    """A scalar pointer's byte address."""

    name = "tt.ptr_to_int"
    src = operand(PtrLike)
    result = result(ScalarInt)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, loc=None):
        return cls([src], [i64], {}, loc=loc)

    def verify_(self):
        if self.src.type.is_block():
            self._fail("the pointer must be a scalar")
        if self.result.type != i64:
            self._fail("result must be i64")


KEPT_OPS = (SlotStoreOp, SlotLoadOp, PtrToIntOp)

__all__ = ["SlotStoreOp", "SlotLoadOp", "PtrToIntOp", "KEPT_OPS"]
