"""The MTIA extensions' local buffers (``mtiacc/ir/mtia``): allocation, asynchronous copies, waits, reads.

* ``mtia.local_alloc``: one local-memory buffer for the whole kernel (the op is at the function's top
  level), never freed: a copy into it may be in flight anywhere after.
* ``mtia.async_copy``: the DMA of a ``tt.load`` of the same pointer, mask and ``other`` with the same access
  plan, by the very leaf that plan names (``memory/__init__.py``), landing in the slot instead of a new
  buffer, and without the wait isel would put before the next reader of local memory.  (A leaf that must
  fill masked-off elements with ``other`` waits for its own transfer, as it does for ``tt.load``.)
* ``mtia.wait``: ``mtia.dma.wait`` (the engine has one completion barrier: every transfer issued so far).
* ``mtia.local_load``: a vector copy of the slot into the result's own buffer.
"""
from __future__ import annotations

from mtiacc.codegen import memory
from mtiacc.codegen.context import Lowering
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
from mtiacc.ir.mtia import AsyncCopyOp, LocalAllocOp, LocalLoadOp, WaitOp


def _slot(lw: Lowering, buf_value, slot: int) -> Buffer:
    buf = lw.buffer(buf_value)
    t = buf_value.type
    nbytes = t.numel // t.shape[0] * elem_bytes(t)
    return Buffer(buf.offset + slot * nbytes, nbytes, buf.what, buf.loc)


def _alloc(lw: Lowering, op: LocalAllocOp) -> None:
    lw.alloc(op.buf)
    lw.keep.add(op.buf)


def _async_copy(lw: Lowering, op: AsyncCopyOp) -> None:
    load = O.LoadOp.get(op.ptr, op.mask, op.other, loc=op.loc, attrs={"access": op.access})
    try:
        lw.homes.placed[load.result] = _slot(lw, op.buf, op.slot)
        memory.lower_load(lw, load)   # its transfers are waited for by mtia.wait, not before the next reader
        lw.bufs.pop(load.result, None)
    finally:
        lw.homes.placed.pop(load.result, None)
        load.drop_operands()
    lw.regs[op.token] = lw.b.li(0, "token")


def _wait(lw: Lowering, op: WaitOp) -> None:
    lw.b("mtia.dma.wait", comment="mtia.wait: the copies issued so far have landed")


def _local_load(lw: Lowering, op: LocalLoadOp) -> None:
    elem = op.result.type.element_type
    src = _slot(lw, op.buf, op.slot)
    lower_fill(lw.b, op.result.type.numel, Src(elem, addr=src.offset), Src(elem, addr=lw.alloc(op.result).offset))


LOWER = {LocalAllocOp: _alloc, AsyncCopyOp: _async_copy, WaitOp: _wait, LocalLoadOp: _local_load}
OPS = tuple(LOWER)


def lower(lw: Lowering, op) -> None:
    LOWER[type(op)](lw, op)


def reads(op):
    """The block operands whose data the lowering reads: an async copy's mask or ``other``, as for a load."""
    return memory.needs_buffers(op) if isinstance(op, AsyncCopyOp) else ()


__all__ = ["OPS", "lower", "reads"]
