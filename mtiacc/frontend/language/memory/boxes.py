"""What block pointers and tensor descriptors share: an N-d box of a strided tensor as an ordinary
pointer block and its boundary mask, so that ``tl.load`` / ``tl.store`` and the access plan see
affine N-d tiles (the ``tiles`` kind: one 2-D DMA per slab).

A box of ``block_shape`` at ``offsets`` in a tensor of ``shape`` and ``strides`` (in elements) at
``base`` is the pointer block

    (base + sum_i off_i * stride_i) + sum_i arange(B_i) * stride_i      (broadcast over the axes)

where the scalar start is computed at the strides' width and the in-box offsets at i32 (a block
never spans 2**31 elements of one axis here).  The boundary mask of a checked axis is
``0 <= off_i + arange(B_i) < shape_i``, written as the range ``-off_i <= arange(B_i) < shape_i - off_i``
(a *range box*, which the ``tiles`` plan clips at run time instead of testing each element).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import shapes
from mtiacc.frontend.language.semantic import Semantic, describe, is_const
from mtiacc.ir import ops
from mtiacc.ir.core import Value
from mtiacc.ir.types import Type, i1, i32

INT32 = (-2 ** 31, 2 ** 31)


def as_list(x, what: str) -> list:
    """A tuple or list argument (``shape=[M, K]``); a single value is a list of one."""
    return list(x) if isinstance(x, (tuple, list)) else [x]


def scalar_int(x, what: str, wide: bool):
    """A shape, stride or offset: a constant int or an integer scalar.  ``wide`` (shapes, strides)
    allows 64-bit values; offsets must fit 32 bits, as in Triton."""
    if isinstance(x, bool) or not (isinstance(x, int) or isinstance(x, Value)):
        raise CompileError(f"{what} must be an integer, got {describe(x)}")
    if isinstance(x, int):
        lo, hi = (-2 ** 63, 2 ** 63) if wide else INT32
        if not lo <= x < hi:
            raise CompileError(f"{what} {x} does not fit in {64 if wide else 32} bits")
        return x
    if x.type.is_block() or not x.type.is_int() or x.type.is_bool():
        raise CompileError(f"{what} must be an integer scalar, got {describe(x)}")
    if not wide and x.type.element_type.width > 32:
        raise CompileError(f"{what} must be a 32-bit integer, got {x.type}; add `.to(tl.int32)` "
                           "(block pointers and descriptors take 32-bit offsets)")
    return x


def const_shape(block_shape, what: str) -> Tuple[int, ...]:
    """A block shape: constexpr powers of two, at most 2**20 elements."""
    dims = tuple(as_list(block_shape, what))
    numel = 1
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int):
            raise CompileError(f"{what} must be constexpr integers, got {describe(d)}")
        if d <= 0 or d & (d - 1):
            raise CompileError(f"{what} must be powers of two, got {d}")
        numel *= d
    if numel > 1 << 20:
        raise CompileError(f"{what} holds {numel} elements; a block may hold at most {1 << 20}")
    return dims


def _to_i32(sem: Semantic, x):
    return x if is_const(x) or x.type.element_type == i32 else sem.cast(x, i32)


def _axis_block(sem: Semantic, v: Value, axis: int, rank: int) -> Value:
    """A 1-D block along ``axis`` of an N-d box, with size-1 dimensions elsewhere."""
    others = [k for k in range(rank) if k != axis]
    return shapes.expand_dims(sem, v, others) if others else v


def pointer_block(sem: Semantic, base: Value, strides: Sequence, offsets: Sequence,
                  block: Sequence[int]) -> Value:
    """The pointer block of the box (see the module docstring)."""
    rank = len(block)
    start = 0
    for off, st in zip(offsets, strides):
        if not (is_const(off) and off == 0 or is_const(st) and st == 0):
            start = sem.binary("add", start, sem.binary("mul", off, st))
    ptr = base if is_const(start) and start == 0 else sem.binary("add", base, start)
    offs = None
    for axis, (st, n) in enumerate(zip(strides, block)):
        term = sem.binary("mul", sem.emit(ops.MakeRangeOp.get(0, n)), _to_i32(sem, st))
        term = _axis_block(sem, term, axis, rank)
        offs = term if offs is None else sem.binary("add", offs, term)
    return sem.broadcast_to(sem.binary("add", ptr, offs), tuple(block))


def boundary_mask(sem: Semantic, shape: Sequence, offsets: Sequence, block: Sequence[int],
                  axes: Sequence[int]) -> Optional[Value]:
    """``0 <= off_i + arange(B_i) < shape_i`` on each axis of ``axes``, as a range box; None when
    the constants show every element inside."""
    rank = len(block)
    mask = None
    for axis in axes:
        off, dim, n = offsets[axis], shape[axis], block[axis]
        hi = sem.binary("sub", dim, off)
        if isinstance(hi, Value) and hi.type.element_type.width > 32:
            # the count of rows in the box, clamped to [0, B] before it narrows to i32
            hi = sem.binary("maximum", sem.binary("minimum", hi, n), 0)
        hi = _to_i32(sem, hi)
        idx = sem.emit(ops.MakeRangeOp.get(0, n))
        conds = []
        if not (is_const(off) and off >= 0):
            conds.append(sem.compare("ge", idx, sem.unary("neg", off)))
        if not (is_const(hi) and hi >= n):
            conds.append(sem.compare("lt", idx, hi))
        for c in conds:
            if not isinstance(c, Value):
                if c:
                    continue
                c = sem.broadcast_to(sem.constant(False, i1), (n,))
            c = _axis_block(sem, c, axis, rank)
            mask = c if mask is None else sem.binary("and", mask, c)
    return None if mask is None else sem.broadcast_to(mask, tuple(block))


def check_axes(boundary_check, rank: int, what: str) -> List[int]:
    """``boundary_check``: distinct constexpr axes of the block, sorted."""
    if boundary_check is None:
        return []
    axes = as_list(boundary_check, what)
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < rank:
            raise CompileError(f"{what}: each axis must be a constexpr in [0, {rank}), got {describe(a)}")
    if len(set(axes)) != len(axes):
        raise CompileError(f"{what}: duplicate axis in {tuple(axes)}")
    return sorted(axes)


def padding_value(padding_option, elem: Type, what: str):
    """The value masked-off elements of a load take: 0, or NaN for ``"nan"`` (floats only)."""
    if padding_option in ("", None, "zero"):
        return 0
    if padding_option == "nan":
        if not elem.is_float():
            raise CompileError(f"{what}: padding_option=\"nan\" is not supported for integer blocks ({elem})")
        return float("nan")
    raise CompileError(f"{what}: padding_option must be \"\", \"zero\" or \"nan\", got {describe(padding_option)}")


def load_box(sem: Semantic, base: Value, shape, strides, offsets, block, axes, padding) -> Value:
    """Load the box; elements outside the checked axes' bounds read ``padding``."""
    ptr = pointer_block(sem, base, strides, offsets, block)
    mask = boundary_mask(sem, shape, offsets, block, axes)
    if mask is None:
        return sem.load(ptr)
    return sem.load(ptr, mask, padding)


def store_box(sem: Semantic, base: Value, shape, strides, offsets, block, axes, value) -> None:
    """Store ``value`` into the box; elements outside the checked axes' bounds are not written."""
    if isinstance(value, Value) and value.type.is_block() and tuple(value.type.shape) != tuple(block):
        raise CompileError(f"the stored value has shape {list(value.type.shape)} but the block is "
                           f"{list(block)}")
    ptr = pointer_block(sem, base, strides, offsets, block)
    mask = boundary_mask(sem, shape, offsets, block, axes)
    sem.store(ptr, value, mask)

