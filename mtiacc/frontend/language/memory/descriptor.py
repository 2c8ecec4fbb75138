"""Tensor descriptors: ``tl.make_tensor_descriptor``, ``desc.load`` / ``desc.store`` (and
``tl.load_tensor_descriptor`` / ``tl.store_tensor_descriptor``), ``desc.shape`` ..., and
``isinstance(x, tl.tensor_descriptor)`` (a compile-time bool).

A descriptor (:class:`TensorDescriptor`) is a frontend value like a block pointer: its base pointer,
shape (i32) and strides are its parts, its block shape and padding its structure.  ``desc.load(offsets)``
reads the box at ``offsets`` with every axis checked (out-of-bounds elements, negative or at least the
shape, read as zero, or NaN with ``padding_option="nan"``), and ``desc.store`` writes only the elements
inside; both through ``boxes.py``'s pointer block and range-box mask.  ``desc.atomic_add`` (``min``,
``max``, ``and``, ``or``, ``xor``) ``(offsets, value)`` is ``tl.atomic_*`` (:mod:`.rmw`'s rules and ops, the
default ``sem`` and ``scope``) on that pointer block under that mask, so elements outside the tensor
are never touched; as in Triton it returns nothing.  Triton's rules are checked where
Triton checks them: 1 to 5 dimensions, as many strides and block dimensions as shape dimensions, a
last stride of constexpr 1, at least 16 bytes in the last block dimension, powers of two.

A kernel parameter may be a descriptor made by the host (``tensordesc<fp16[64, 64]>`` in the signature):
``host_descriptor`` builds it from the parameter's slots (see docs/architecture.md "Kernel ABI").
"""
from __future__ import annotations

from typing import Dict, Sequence

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.memory import boxes, rmw
from mtiacc.frontend.language.semantic import Semantic, describe
from mtiacc.frontend.language.types import TypeClass
from mtiacc.frontend.values import Aggregate, BoundMethod, Builtin
from mtiacc.ir.atomic_ops import DEFAULT_SCOPE, DEFAULT_SEM
from mtiacc.ir.core import Value
from mtiacc.ir.types import BlockType

MAX_RANK = 5
ATOMICS = ("atomic_add", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor")


class TensorDescriptor(Aggregate):
    """``tl.make_tensor_descriptor(base, shape, strides, block_shape)``."""

    description = "a tensor descriptor"
    carried = ()

    def __init__(self, base: Value, shape, strides, block, padding="zero"):
        self.base, self.shape, self.strides = base, tuple(shape), tuple(strides)
        self.block, self.padding = tuple(block), padding

    @property
    def elem(self):
        return self.base.type.pointee

    def parts(self) -> tuple:
        return (self.base,) + self.shape + self.strides

    def with_parts(self, parts) -> "TensorDescriptor":
        n = len(self.block)
        parts = list(parts)
        return TensorDescriptor(parts[0], parts[1:1 + n], parts[1 + n:], self.block, self.padding)

    def key(self) -> tuple:
        return ("tensor_descriptor", str(self.base.type), self.block, self.padding)

    def frontend_attr(self, name: str):
        if name == "shape":
            return self.shape
        if name == "strides":
            return self.strides
        if name == "block_shape":
            return self.block
        if name == "dtype":
            return self.elem
        if name == "block_type":
            return BlockType(self.block, self.elem)
        if name in _METHODS:
            return BoundMethod(name, self, _METHODS[name])
        if name in ("gather", "scatter"):
            raise CompileError(f"`desc.{name}` is not supported yet")
        raise CompileError(f"a tensor descriptor has no attribute '{name}'")

    def tl_load(self, sem, mask, other, boundary_check, padding_option):
        raise CompileError("tl.load cannot read through a tensor descriptor; use desc.load(offsets)")

    def tl_store(self, sem, value, mask, boundary_check):
        raise CompileError("tl.store cannot write through a tensor descriptor; use desc.store(offsets, value)")


def _offsets(desc: TensorDescriptor, offsets, what: str) -> list:
    offs = [boxes.scalar_int(x, f"{what}'s offset", False) for x in boxes.as_list(offsets, "offsets")]
    if len(offs) != len(desc.block):
        raise CompileError(f"{what}: the descriptor has {len(desc.block)} dimensions but {len(offs)} offsets "
                           "were given")
    return offs


def _need_desc(desc, what: str) -> TensorDescriptor:
    if not isinstance(desc, TensorDescriptor):
        raise CompileError(f"{what} needs a tensor descriptor, got {describe(desc)}")
    return desc


def desc_load(sem: Semantic, desc, offsets, cache_modifier="", eviction_policy=""):
    """``desc.load(offsets)``: the block at ``offsets``; elements outside the tensor read as zero."""
    desc = _need_desc(desc, "desc.load")
    offs = _offsets(desc, offsets, "desc.load")
    pad = boxes.padding_value(desc.padding, desc.elem, "desc.load")
    axes = range(len(desc.block))
    return boxes.load_box(sem, desc.base, desc.shape, desc.strides, offs, desc.block, axes, pad)


def desc_store(sem: Semantic, desc, offsets, value, store_reduce=""):
    """``desc.store(offsets, value)``: elements outside the tensor are not written."""
    desc = _need_desc(desc, "desc.store")
    if store_reduce:
        raise CompileError("desc.store(store_reduce=...) is not supported yet")
    offs = _offsets(desc, offsets, "desc.store")
    _block_value(desc, value, "desc.store")
    boxes.store_box(sem, desc.base, desc.shape, desc.strides, offs, desc.block, range(len(desc.block)),
                    sem.cast(value, desc.elem))
    return None


def _block_value(desc: TensorDescriptor, value, what: str) -> None:
    if not (isinstance(value, Value) and value.type.is_block()):
        raise CompileError(f"{what} needs a block of shape {list(desc.block)}, got {describe(value)}")


def _desc_atomic(op: str):
    """``desc.atomic_<op>(offsets, value)``: ``tl.atomic_<op>`` on the box's pointer block, masked by its
    bounds (elements outside the tensor are never touched); like Triton's, it returns nothing."""
    what = f"desc.atomic_{op}"

    def fn(sem: Semantic, desc, offsets, value):
        desc = _need_desc(desc, what)
        rmw.check_type(op, desc.elem)
        offs = _offsets(desc, offsets, what)
        _block_value(desc, value, what)
        if tuple(value.type.shape) != desc.block:
            raise CompileError(f"{what}: the value has shape {list(value.type.shape)} but the block is "
                               f"{list(desc.block)}")
        axes = range(len(desc.block))
        ptr = boxes.pointer_block(sem, desc.base, desc.strides, offs, desc.block)
        mask = boxes.boundary_mask(sem, desc.shape, offs, desc.block, axes)
        rmw.emit(sem, op, ptr, sem.cast(value, desc.elem), mask, DEFAULT_SEM, DEFAULT_SCOPE)
        return None
    fn.__name__ = f"desc_atomic_{op}"
    return fn


def load_tensor_descriptor(sem: Semantic, desc, offsets):
    """``tl.load_tensor_descriptor(desc, offsets)``: ``desc.load(offsets)``."""
    return desc_load(sem, desc, offsets)


def store_tensor_descriptor(sem: Semantic, desc, offsets, value):
    """``tl.store_tensor_descriptor(desc, offsets, value)``: ``desc.store(offsets, value)``."""
    return desc_store(sem, desc, offsets, value)


def check_descriptor(base, shape: Sequence, strides: Sequence, block: Sequence[int], what: str) -> None:
    """Triton's rules for a descriptor (compile errors at the call)."""
    n = len(shape)
    if not 1 <= n <= MAX_RANK:
        raise CompileError(f"{what}: a descriptor has 1 to {MAX_RANK} dimensions, got {n}")
    if len(strides) != n:
        raise CompileError(f"{what}: expected {n} strides, got {len(strides)}")
    if len(block) != n:
        raise CompileError(f"{what}: expected a block_shape of {n} dimensions, got {len(block)}")
    nbytes = block[-1] * base.type.pointee.bytes
    if nbytes < 16:
        raise CompileError(f"{what}: the last block dimension must hold at least 16 bytes, got {block[-1]} x "
                           f"{base.type.pointee.bytes} = {nbytes}")


def make_tensor_descriptor(sem: Semantic, base, shape, strides, block_shape, padding_option="zero"):
    """A descriptor of the tensor of ``shape`` and ``strides`` (elements) at ``base``, loaded and stored
    in blocks of ``block_shape``."""
    what = "tl.make_tensor_descriptor"
    if not (isinstance(base, Value) and base.type.is_ptr() and not base.type.is_block()):
        raise CompileError(f"{what}'s base must be a scalar pointer, got {describe(base)}")
    shape = boxes.as_list(shape, "shape")
    strides = boxes.as_list(strides, "strides")
    block = boxes.const_shape(block_shape, f"{what}'s block_shape")
    check_descriptor(base, shape, strides, block, what)
    last = strides[-1]
    if isinstance(last, bool) or last != 1 or isinstance(last, Value):
        raise CompileError(f"{what}: the last stride must be the constexpr 1, got {describe(last)}")
    shape = [boxes.scalar_int(x, "a descriptor's shape", False) for x in shape]
    strides = [boxes.scalar_int(x, "a descriptor's stride", True) for x in strides]
    boxes.padding_value(padding_option, base.type.pointee, what)
    return TensorDescriptor(base, shape, strides, block, padding_option or "zero")


def host_descriptor(base: Value, shape: Sequence[Value], strides: Sequence[Value], block: Sequence[int]):
    """A descriptor kernel parameter: its slots as parts; the last stride is 1 (the host checks it)."""
    return TensorDescriptor(base, shape, list(strides[:-1]) + [1], block)


def _no_ctor(sem, *args, **kwargs):
    raise CompileError("tl.tensor_descriptor cannot be called; use tl.make_tensor_descriptor")


_METHODS = {"load": desc_load, "store": desc_store, **{name: _desc_atomic(name[len("atomic_"):]) for name in ATOMICS}}

LANGUAGE: Dict[str, object] = {
    "make_tensor_descriptor": Builtin("tl.make_tensor_descriptor", make_tensor_descriptor),
    "load_tensor_descriptor": Builtin("tl.load_tensor_descriptor", load_tensor_descriptor),
    "store_tensor_descriptor": Builtin("tl.store_tensor_descriptor", store_tensor_descriptor),
    "tensor_descriptor": TypeClass("tl.tensor_descriptor", _no_ctor, lambda x: isinstance(x, TensorDescriptor)),
}
METHODS: Dict[str, object] = {}
