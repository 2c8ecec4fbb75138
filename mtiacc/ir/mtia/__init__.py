"""The MTIA language extensions' ops (``triton.language.extra.mtia``, ``docs/language.md``).

Local buffers and asynchronous copies map onto the DMA engine with explicit waits:

* ``%buf = mtia.local_alloc : tensor<NxS...xT>``: a local-memory buffer of ``N`` slots (the leading axis),
  each the shape ``S...`` of the blocks copied into it.  Its value stands for the memory, not for data:
  the op is not ``Pure`` (two allocations are two buffers), it sits at the top level of the function (so
  codegen gives it one address for the whole kernel) and its memory is never reused.
* ``%tok = mtia.async_copy %buf, %ptr[, %mask[, %other]] {slot, access}``: starts copying the block at
  ``%ptr`` (DRAM) into slot ``slot`` of ``%buf``; the result is a token (i32).  ``access`` is the access
  plan's kind, as on ``tt.load`` (the same DMA leaves move it).  Masked-off elements take ``other``; without
  it they keep what the slot held.
* ``mtia.wait %tok``: waits for the copy (the machine's ``mtia.dma.wait``: every DMA transfer the program
  issued so far, so a token is waited for no later than it must be and possibly earlier).
* ``%x = mtia.local_load %buf {slot}``: the slot's contents as a block value (a copy in local memory,
  so a later copy into the slot never changes ``%x``).

None of these is ``Pure``: no pass removes, merges or moves them across each other.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir.analysis.access_kinds import access_error
from mtiacc.ir.core import (AnyType, BlockLike, BoolLike, Operation, PtrLike, ScalarInt, Value, attribute, operand,
                            opt_operand, result)
from mtiacc.ir.types import BlockType, i32


def _slot_type(buf: Value) -> BlockType:
    t = buf.type
    return BlockType(tuple(t.shape[1:]), t.element_type)


def _check_slot(op: Operation) -> None:
    t = op.buf.type
    if not t.is_block() or len(t.shape) < 2:
        op._fail(f"the buffer must be a block of rank 2 or more (slots first), got {t}")
    if not isinstance(op.slot, int) or isinstance(op.slot, bool) or not 0 <= op.slot < t.shape[0]:
        op._fail(f"slot {op.slot!r} is not one of the buffer's {t.shape[0]} slots")


class LocalAllocOp(Operation):
    """``mtia.local_buffer(shape, dtype, num)``: a buffer of ``num`` slots in local memory."""

    name = "mtia.local_alloc"
    buf = result(BlockLike)

    @classmethod
    def get(cls, shape, elem, num: int, loc=None):
        return cls([], [BlockType((num,) + tuple(shape), elem)], {}, loc=loc)

    def verify_(self):
        if len(self.buf.type.shape) < 2:
            self._fail(f"the buffer needs a slot axis and a block shape, got {self.buf.type}")
        parent = self.parent.parent.parent if self.parent is not None and self.parent.parent is not None else None
        if parent is not None and parent.name != "tt.func":
            self._fail("must be at the top level of the function (outside loops and branches)")


class AsyncCopyOp(Operation):
    """``mtia.async_copy(buf.index(slot), ptr, mask, other)``: a DMA into a slot, not waited for."""

    name = "mtia.async_copy"
    buf = operand(BlockLike)
    ptr = operand(PtrLike)
    mask = opt_operand(BoolLike)
    other = opt_operand(AnyType)
    token = result(ScalarInt)
    slot = attribute(int, doc="the buffer's slot it copies into")
    access = attribute(str, optional=True, doc="how it moves from DRAM, as on tt.load (`access-plan`)")
    after_store = attribute(str, optional=True, doc="it may read bytes an earlier store writes, as on tt.load "
                                                    "(`access-plan`)")
    after_atomic = attribute(str, optional=True, doc="it may read bytes an earlier atomic updates, as on tt.load "
                                                     "(`access-plan`)")

    @classmethod
    def get(cls, buf: Value, slot: int, ptr: Value, mask: Optional[Value] = None, other: Optional[Value] = None,
            loc=None):
        ops = [buf, ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        return cls(ops, [i32], {"slot": slot}, loc=loc, segments=[1, 1, int(mask is not None), int(other is not None)])

    @property
    def result(self) -> Value:
        return self.token

    def verify_(self):
        _check_slot(self)
        slot_t = _slot_type(self.buf)
        pt = self.ptr.type
        if not pt.is_block() or slot_t != pt.with_element(pt.element_type.pointee):
            self._fail(f"the pointer block {pt} does not match the buffer's slots ({slot_t})")
        for what in ("mask", "other"):
            v = getattr(self, what)
            if v is not None and v.type.shape != pt.shape:
                self._fail(f"{what} must have the pointer's shape")
        if self.other is not None and self.other.type != slot_t:
            self._fail(f"other must be {slot_t}")
        why = access_error(self)
        if why is not None:
            self._fail(why)


class WaitOp(Operation):
    """``mtia.wait(token)``: the copy that gave ``token`` has landed."""

    name = "mtia.wait"
    token = operand(ScalarInt)

    @classmethod
    def get(cls, token: Value, loc=None):
        return cls([token], [], {}, loc=loc)


class LocalLoadOp(Operation):
    """``mtia.load(buf.index(slot))``: the slot's contents as a block."""

    name = "mtia.local_load"
    buf = operand(BlockLike)
    result = result(BlockLike)
    slot = attribute(int, doc="the buffer's slot it reads")

    @classmethod
    def get(cls, buf: Value, slot: int, loc=None):
        return cls([buf], [_slot_type(buf)], {"slot": slot}, loc=loc)

    def verify_(self):
        _check_slot(self)
        if self.result.type != _slot_type(self.buf):
            self._fail(f"result must be {_slot_type(self.buf)}, the buffer's slot")


def sram_buffers(module: Operation) -> dict:
    """``{parameter: "sram"}`` for the buffers an ``mtia.atomic_add(..., scope="sram")`` performs atomics in
    (``tt.atomic_rmw {memory = "sram", buffer = NAME}``): the binary's metadata ``place``."""
    return {op.attrs["buffer"]: "sram" for op in module.walk()
            if op.attrs.get("memory") == "sram" and isinstance(op.attrs.get("buffer"), str)}


MTIA_OPS = (LocalAllocOp, AsyncCopyOp, WaitOp, LocalLoadOp)

from mtiacc.ir.mtia import kept  # noqa: E402,F401  (mtia.slot_store, mtia.slot_load, tt.ptr_to_int)

__all__ = ["sram_buffers", "LocalAllocOp", "AsyncCopyOp", "WaitOp", "LocalLoadOp", "MTIA_OPS"]
