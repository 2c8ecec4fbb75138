"""Blocks kept in local memory between loops (the ``reuse-loads`` pass, ``mtiacc/opt/memory/reuse_loads.py``).

A load that two loops of a program repeat, tile for tile, is moved from DRAM once: the first loop copies
each tile it loads into a slot of an ``mtia.local_alloc`` buffer, the later loops read the slot back.
The slot is the loop's iteration number, a run-time value, so these ops take it as an operand (the ops
of ``mtiacc/ir/mtia/__init__.py`` name a constant slot):

* ``mtia.slot_store %buf, %slot, %value``: copies the block ``%value`` into slot ``%slot`` (i32) of
  ``%buf``.  Nothing is checked at run time: the pass proves or guards ``0 <= %slot < slots``.
* ``%x = mtia.slot_load %buf, %slot``: the slot's contents as a block (a copy).
* ``mtia.slot_fetch %buf, %slot, %src, %count[, %other]``: starts the DMA of ``%count`` elements (i32, >= 0)
  from the scalar pointer ``%src`` into ``%buf`` from the start of slot ``%slot`` on, across slots as one run
  of memory (``prefetch-rows``: a whole row of tiles in one transfer).  Not waited for.  With ``%other`` (a
  scalar), the rest of the last slot the run reaches is set to it at once (a masked load's ``other``).
* ``mtia.slot_flush %buf, %slot, %dst, %count``: starts the DMA of ``%count`` elements from ``%buf``, from
  the start of slot ``%slot`` on, to the scalar pointer ``%dst`` (a row stored in one transfer).  Not
  waited for: the slot is not written again before a later ``mtia.slot_wait``, or a fetch behind it in
  the DMA engine's queue.
* ``mtia.slot_wait {behind = N}``: waits for every fetch issued so far but the ``N`` transfers issued last (the
  machine's ``mtia.dma.wait N``; without ``behind``, every transfer): ``prefetch-rows`` issues the previous
  row's flush before waiting for this row, and the flush stays in flight.
* ``%a = tt.ptr_to_int %p``: a scalar pointer's address as an i64 (Triton's op of that name), for the
  run-time checks that a store between the loops does not write the tiles kept.

The slot ops are not ``Pure``: no pass moves or merges them across each other.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir.core import (AnyType, BlockLike, Operation, PtrLike, ScalarInt, Pure, Value, attribute, operand,
                            opt_operand, result)
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


class SlotFetchOp(Operation):
    """Start a DMA of a run of elements from DRAM into a local buffer, from a run-time slot on."""

    name = "mtia.slot_fetch"
    buf = operand(BlockLike)
    slot = operand(ScalarInt)
    src = operand(PtrLike)
    count = operand(ScalarInt)
    other = opt_operand(AnyType)

    @classmethod
    def get(cls, buf: Value, slot: Value, src: Value, count: Value, other: Optional[Value] = None, loc=None):
        extra = [other] if other is not None else []
        return cls([buf, slot, src, count] + extra, [], {}, loc=loc, segments=[1, 1, 1, 1, len(extra)])

    def verify_(self):
        _check_run(self, self.src, "source")
        if self.other is not None and self.other.type != self.buf.type.element_type:
            self._fail(f"other must be a {self.buf.type.element_type} scalar, got {self.other.type}")


class SlotFlushOp(Operation):
    """Start a DMA of a run of elements from a local buffer, from a run-time slot on, to DRAM."""

    name = "mtia.slot_flush"
    buf = operand(BlockLike)
    slot = operand(ScalarInt)
    dst = operand(PtrLike)
    count = operand(ScalarInt)

    @classmethod
    def get(cls, buf: Value, slot: Value, dst: Value, count: Value, loc=None):
        return cls([buf, slot, dst, count], [], {}, loc=loc)

    def verify_(self):
        _check_run(self, self.dst, "destination")


def _check_run(op: Operation, ptr: Value, what: str) -> None:
    _check_buffer(op)
    if ptr.type.is_block() or ptr.type.pointee != op.buf.type.element_type:
        op._fail(f"the {what} must be a scalar pointer to {op.buf.type.element_type}, got {ptr.type}")
    if op.count.type.is_block():
        op._fail("the count must be a scalar integer")


class SlotWaitOp(Operation):
    """Wait for the fetches issued so far; ``behind``: the transfers issued after them, left in flight."""

    name = "mtia.slot_wait"
    behind = attribute(int, optional=True, default=0,
                       doc="the transfers issued after the fetches waited for, left in flight")

    @classmethod
    def get(cls, behind: int = 0, loc=None):
        return cls([], [], {"behind": behind} if behind else {}, loc=loc)

    def verify_(self):
        if not isinstance(self.behind, int) or self.behind < 0:
            self._fail(f"behind must be a non-negative integer, got {self.behind!r}")


KEPT_OPS = (SlotStoreOp, SlotLoadOp, SlotFetchOp, SlotFlushOp, SlotWaitOp, PtrToIntOp)

__all__ = ["SlotStoreOp", "SlotLoadOp", "SlotFetchOp", "SlotFlushOp", "SlotWaitOp", "PtrToIntOp", "KEPT_OPS"]
