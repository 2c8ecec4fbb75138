"""Block pointers: ``tl.make_block_ptr``, ``tl.advance``, and ``tl.load`` / ``tl.store`` through them
with ``boundary_check`` and ``padding_option``.

A block pointer is a frontend value (:class:`BlockPointer`), not an IR value: its base pointer, shape,
strides (any integer width) and offsets (32-bit) are its parts, each an IR scalar or a constant, and
its block shape and order are its structure.  A load or a store builds the ordinary pointer block and
boundary mask of the box (``boxes.py``), so the IR never holds a block pointer and the access plan
sees affine N-d tiles.  A loop carries only the offsets (``tl.advance`` in the body); a
``@triton.jit`` helper receives and returns every run-time part.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.memory import boxes
from mtiacc.frontend.language.semantic import Semantic, describe
from mtiacc.frontend.values import Aggregate, Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.types import PointerType


class BlockPointer(Aggregate):
    """``tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)``."""

    description = "a block pointer"

    def __init__(self, base: Value, shape, strides, offsets, block, order):
        self.base, self.shape, self.strides = base, tuple(shape), tuple(strides)
        self.offsets, self.block, self.order = tuple(offsets), tuple(block), tuple(order)
        n = len(self.block)
        self.carried = tuple(range(1 + 2 * n, 1 + 3 * n))

    @property
    def elem(self):
        return self.base.type.pointee

    def parts(self) -> tuple:
        return (self.base,) + self.shape + self.strides + self.offsets

    def with_parts(self, parts) -> "BlockPointer":
        n = len(self.block)
        parts = list(parts)
        return BlockPointer(parts[0], parts[1:1 + n], parts[1 + n:1 + 2 * n], parts[1 + 2 * n:], self.block,
                            self.order)

    def key(self) -> tuple:
        return ("block_ptr", str(self.base.type), self.block, self.order)

    def frontend_attr(self, name: str):
        if name == "dtype":    # Triton: pointer_type<block_type<elem>>; here its element_ty is the element
            return PointerType(self.elem)
        if name == "shape":
            return self.block
        raise CompileError(f"a block pointer has no attribute '{name}' here")

    # tl.load / tl.store (core.py hands block pointers here)
    def tl_load(self, sem: Semantic, mask, other, boundary_check, padding_option) -> Value:
        if mask is not None or other is not None:
            raise CompileError("`mask` and `other` cannot be given when loading through a block pointer; "
                               "use boundary_check and padding_option")
        axes = boxes.check_axes(boundary_check, len(self.block), "tl.load's boundary_check")
        pad = boxes.padding_value(padding_option, self.elem, "tl.load")
        return boxes.load_box(sem, self.base, self.shape, self.strides, self.offsets, self.block, axes, pad)

    def tl_store(self, sem: Semantic, value, mask, boundary_check) -> None:
        if mask is not None:
            raise CompileError("`mask` cannot be given when storing through a block pointer; use boundary_check")
        axes = boxes.check_axes(boundary_check, len(self.block), "tl.store's boundary_check")
        boxes.store_box(sem, self.base, self.shape, self.strides, self.offsets, self.block, axes, value)


def _base(base) -> Value:
    if isinstance(base, BlockPointer):
        raise CompileError("tl.make_block_ptr's base must be a plain pointer, got a block pointer")
    if not (isinstance(base, Value) and base.type.is_ptr() and not base.type.is_block()):
        raise CompileError(f"tl.make_block_ptr's base must be a scalar pointer, got {describe(base)}")
    return base


def make_block_ptr(sem: Semantic, base, shape, strides, offsets, block_shape, order):
    """A block pointer to the ``block_shape`` box at ``offsets`` of the tensor at ``base``."""
    base = _base(base)
    block = boxes.const_shape(block_shape, "tl.make_block_ptr's block_shape")
    n = len(block)
    shape = [boxes.scalar_int(x, "a block pointer's shape", True) for x in boxes.as_list(shape, "shape")]
    strides = [boxes.scalar_int(x, "a block pointer's stride", True) for x in boxes.as_list(strides, "strides")]
    offsets = [boxes.scalar_int(x, "a block pointer's offset", False) for x in boxes.as_list(offsets, "offsets")]
    order = boxes.as_list(order, "order")
    if any(isinstance(o, bool) or not isinstance(o, int) for o in order) or sorted(order) != list(range(len(order))):
        raise CompileError(f"tl.make_block_ptr's order must be a permutation of (0, ..., {len(order) - 1}), "
                           f"got {tuple(order)}")
    lengths = {"shape": len(shape), "strides": len(strides), "offsets": len(offsets), "order": len(order)}
    for what, k in lengths.items():
        if k != n:
            raise CompileError(f"tl.make_block_ptr: block_shape has {n} dimensions but {what} has {k}; "
                               "shape, strides, offsets, block_shape and order must have the same length")
    return BlockPointer(base, shape, strides, offsets, block, order)


def advance(sem: Semantic, base, offsets):
    """The block pointer ``base`` moved by ``offsets`` (elements along each axis)."""
    if not isinstance(base, BlockPointer):
        raise CompileError(f"tl.advance needs a block pointer (tl.make_block_ptr), got {describe(base)}")
    deltas = [boxes.scalar_int(x, "tl.advance's offset", False) for x in boxes.as_list(offsets, "offsets")]
    if len(deltas) != len(base.block):
        raise CompileError(f"tl.advance: the block pointer has {len(base.block)} dimensions but "
                           f"{len(deltas)} offsets were given")
    moved = [sem.binary("add", o, d) for o, d in zip(base.offsets, deltas)]
    return BlockPointer(base.base, base.shape, base.strides, moved, base.block, base.order)


LANGUAGE: Dict[str, object] = {
    "make_block_ptr": Builtin("tl.make_block_ptr", make_block_ptr),
    "advance": Builtin("tl.advance", advance),
}
METHODS: Dict[str, object] = {}
