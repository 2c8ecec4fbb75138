"""Local buffers and asynchronous copies: ``mtia.local_buffer``, ``mtia.async_copy``, ``mtia.wait``,
``mtia.load`` (``docs/language.md``, "MTIA extensions").

A local buffer, one of its slots and a copy's token are frontend values (:class:`Aggregate`): the buffer's
part is the ``mtia.local_alloc`` value, a slot adds a constant index, a token's part is the i32 the copy
returns (a loop carries it, so ``tok = mtia.async_copy(...)`` in a loop body is the next iteration's token).
The ops are :mod:`mtiacc.ir.mtia`'s; codegen moves a copy with the DMA leaf of its access plan.
"""
from __future__ import annotations

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.core import _const_int, _dtype, _shape
from mtiacc.frontend.language.semantic import Semantic, describe, is_ptr
from mtiacc.frontend.values import Aggregate, BoundMethod
from mtiacc.ir.mtia import AsyncCopyOp, LocalAllocOp, LocalLoadOp, WaitOp
from mtiacc.ir.types import BlockType


class LocalBuffer(Aggregate):
    """``mtia.local_buffer(shape, dtype, num)``: ``num`` slots of ``shape`` elements in local memory."""

    description = "a local buffer"

    def __init__(self, value):
        self.value = value

    @property
    def num(self) -> int:
        return self.value.type.shape[0]

    @property
    def slot_type(self) -> BlockType:
        t = self.value.type
        return BlockType(tuple(t.shape[1:]), t.element_type)

    def parts(self) -> tuple:
        return (self.value,)

    def with_parts(self, parts) -> "LocalBuffer":
        return LocalBuffer(parts[0])

    def key(self) -> tuple:
        return ("mtia.local_buffer", str(self.value.type))

    def frontend_attr(self, name: str):
        if name == "shape":
            return tuple(self.slot_type.shape)
        if name == "dtype":
            return self.slot_type.element_type
        if name == "num":
            return self.num
        if name in ("index", "load"):
            return BoundMethod(name, self, {"index": index, "load": load}[name])
        raise CompileError(f"a local buffer has no attribute '{name}' (it has index, load, shape, dtype, num)")

    def tl_load(self, sem, mask, other, boundary_check, padding_option):
        return load(sem, self)

    def tl_store(self, sem, value, mask, boundary_check):
        raise CompileError("tl.store cannot write a local buffer; copy into it with mtia.async_copy")


class LocalSlot(LocalBuffer):
    """``buf.index(i)``: slot ``i`` of a local buffer (``i`` a compile-time integer)."""

    description = "a slot of a local buffer"

    def __init__(self, value, slot: int):
        super().__init__(value)
        self.slot = slot

    def with_parts(self, parts) -> "LocalSlot":
        return LocalSlot(parts[0], self.slot)

    def key(self) -> tuple:
        return ("mtia.local_slot", str(self.value.type), self.slot)

    def frontend_attr(self, name: str):
        if name == "index":
            raise CompileError("a slot has no slots: index the buffer (buf.index(i))")
        return super().frontend_attr(name)


class Token(Aggregate):
    """What ``mtia.async_copy`` returns: ``mtia.wait(token)`` or ``token.wait()``."""

    description = "a copy's token"
    carried = (0,)

    def __init__(self, value):
        self.value = value

    def parts(self) -> tuple:
        return (self.value,)

    def with_parts(self, parts) -> "Token":
        return Token(parts[0])

    def key(self) -> tuple:
        return ("mtia.token",)

    def frontend_attr(self, name: str):
        if name == "wait":
            return BoundMethod(name, self, wait)
        raise CompileError(f"a copy's token has no attribute '{name}' (it has wait)")


def _top_level(sem: Semantic) -> bool:
    region = sem.builder.block.parent
    return region is None or region.parent is None or region.parent.name == "tt.func"


def local_buffer(sem: Semantic, shape, dtype, num=1):
    """``num`` slots (default 1) of a ``shape`` block of ``dtype`` in the program's local memory."""
    dims = _shape(shape)
    elem = _dtype(dtype)
    n = _const_int(num, "num")
    if n < 1:
        raise CompileError(f"a local buffer needs at least one slot, got num={n}")
    if not _top_level(sem):
        raise CompileError("mtia.local_buffer() must be called at the kernel's top level, outside loops and "
                           "branches (the buffer keeps one place in local memory for the whole kernel)")
    return LocalBuffer(sem.emit(LocalAllocOp.get(dims, elem, n)))


def _slot(buf, what: str) -> LocalSlot:
    if isinstance(buf, LocalSlot):
        return buf
    if isinstance(buf, LocalBuffer):
        if buf.num != 1:
            raise CompileError(f"{what}: the buffer has {buf.num} slots; name one with buf.index(i)")
        return LocalSlot(buf.value, 0)
    raise CompileError(f"{what} needs a local buffer (mtia.local_buffer) or one of its slots, got {describe(buf)}")


def index(sem: Semantic, buf, i):
    """``buf.index(i)``: slot ``i`` (a compile-time integer, ``0 <= i < num``)."""
    if not isinstance(buf, LocalBuffer) or isinstance(buf, LocalSlot):
        raise CompileError(f"index() needs a local buffer, got {describe(buf)}")
    if not isinstance(i, int) or isinstance(i, bool):
        raise CompileError(f"a slot index must be a compile-time integer (a constexpr, or a tl.static_range "
                           f"variable), got {describe(i)}")
    if not 0 <= i < buf.num:
        raise CompileError(f"slot {i} is out of range: the buffer has {buf.num} slots")
    return LocalSlot(buf.value, i)


def async_copy(sem: Semantic, dst, src, mask=None, other=None):
    """Start copying the block at pointers ``src`` into ``dst`` (a local buffer or a slot); a token.

    ``mask`` skips elements (they keep the slot's earlier contents, or take ``other``)."""
    if is_ptr(dst) and isinstance(src, LocalBuffer):
        raise CompileError("mtia.async_copy from a local buffer to global memory is not supported yet; "
                           "store the block with tl.store (which is asynchronous already)")
    slot = _slot(dst, "mtia.async_copy")
    if not is_ptr(src) or not src.type.is_block():
        raise CompileError(f"mtia.async_copy's source must be a block of pointers, got {describe(src)}")
    want = slot.slot_type
    got = src.type.with_element(src.type.element_type.pointee)
    if got != want:
        raise CompileError(f"mtia.async_copy: the pointers point to {got}, the slot holds {want}")
    mask_v = sem._mask(mask, src)
    other_v = None
    if other is not None:
        if mask is None:
            raise CompileError("`other` cannot be provided without `mask`")
        other_v = sem._fit_to_pointer(other, src, want.element_type, "`other`")
    return Token(sem.emit(AsyncCopyOp.get(slot.value, slot.slot, src, mask_v, other_v)))


def wait(sem: Semantic, token):
    """Wait until the copy that returned ``token`` has landed in its buffer."""
    if not isinstance(token, Token):
        raise CompileError(f"mtia.wait needs the token of mtia.async_copy, got {describe(token)}")
    sem.emit(WaitOp.get(token.value))
    return None


def load(sem: Semantic, buf):
    """The contents of a local buffer (of one slot) as a block; wait for the copy into it first."""
    slot = _slot(buf, "mtia.load")
    return sem.emit(LocalLoadOp.get(slot.value, slot.slot))


FUNCTIONS = (local_buffer, async_copy, wait, load)
