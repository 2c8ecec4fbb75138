"""The language's shape functions, reductions and scans (``tl.reshape``, ``tl.trans``, ``tl.sum``, ...).

Same conventions as :mod:`mtiacc.frontend.language` (which merges ``LANGUAGE`` and ``METHODS`` from
here): each builtin takes a :class:`Semantic` first and has Triton's signature.  Semantics follow
Triton's language reference:

* Axes may be negative (counted from the end).  ``axis=None`` reduces every dimension (the block is
  flattened first) and gives a scalar.  ``keep_dims`` keeps reduced dimensions with size 1.
* ``tl.sum``, ``tl.cumsum`` and ``tl.cumprod`` accumulate integers narrower than 32 bits in i32 (u32
  for unsigned ones and booleans); ``dtype=`` converts the input and is the accumulation type.
  ``tl.max``/``tl.min`` compute on at least 32 bits (f16 in f32, i8/i16 in i32), but with
  ``return_indices=True`` the value keeps the input's type.
* ``tl.max``/``tl.min`` on floats ignore NaN elements (a row of only NaN gives NaN), like
  ``tl.maximum``; ``tl.argmax``/``tl.argmin`` give the smallest index of the extreme non-NaN
  value (``tie_break_left=True``), or the largest with ``tie_break_left=False`` (Triton leaves the
  index of a tie unspecified then; its combine function keeps the right operand of a tie, so a
  left-to-right fold gives the last index).  A row of only NaN gives index 0 (the last index).
* Float sums and scans are computed in the element type (bf16 ones in f32, rounded to bf16 at the
  end); a sum may reassociate (see ``mtiacc/codegen/tensor/reduce.py`` for the order), a scan adds left to
  right.
"""
from __future__ import annotations

from typing import Dict, Sequence, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import combine
from mtiacc.frontend.language.semantic import Semantic, describe, is_const
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReduceOp, ReshapeOp, ScanOp, TransOp
from mtiacc.ir.types import IntType, Type, f32, i32, u32

MAX_RANK = 9


def _int(x, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise CompileError(f"{what} must be a constexpr integer, got {describe(x)}")
    return x


def _block(x, fn: str) -> Value:
    if not isinstance(x, Value) or not x.type.is_block():
        raise CompileError(f"{fn} needs a block, got {describe(x)}")
    return x


def _wrap_axis(axis, rank: int, fn: str) -> int:
    a = _int(axis, f"{fn}'s axis")
    if not -rank <= a < rank:
        raise CompileError(f"{fn}: axis {a} is out of range for a block of rank {rank}")
    return a + rank if a < 0 else a


def _dims(args: Sequence, fn: str) -> Tuple[int, ...]:
    """``f(x, 2, 3)`` and ``f(x, (2, 3))`` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(_int(a, f"{fn}'s dimensions") for a in args)


def check_shape(shape: Sequence[int], fn: str) -> Tuple[int, ...]:
    shape = tuple(shape)
    if len(shape) > MAX_RANK:
        raise CompileError(f"{fn}: blocks of rank {len(shape)} are not supported (at most {MAX_RANK})")
    for d in shape:
        if d <= 0 or d & (d - 1):
            raise CompileError(f"{fn}: block dimensions must be powers of two, got {list(shape)}")
    return shape


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# --------------------------------------------------------------------------- shapes

def expand_dims(sem: Semantic, input, axis):
    """``input`` with new dimensions of size 1 at ``axis`` (an int or a sequence of ints)."""
    if isinstance(input, (bool, int, float)):
        input = sem.materialize(input)        # a constant is a scalar, as in Triton
    if not isinstance(input, Value):
        raise CompileError(f"tl.expand_dims needs a value, got {describe(input)}")
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    rank = len(input.type.shape) + len(axes)
    wrapped = sorted(_wrap_axis(a, rank, "tl.expand_dims") for a in axes)
    if len(set(wrapped)) != len(wrapped):
        raise CompileError(f"tl.expand_dims: repeated axis in {list(axes)}")
    check_shape((1,) * rank, "tl.expand_dims")
    if not input.type.is_block():
        return sem.broadcast_to(input, (1,) * rank)         # a scalar: a splat, as in Triton
    v = input
    for a in wrapped:
        v = sem.emit(ExpandDimsOp.get(v, a))
    return v


def broadcast_to(sem: Semantic, input, *shape):
    """``input`` broadcast to ``shape`` (trailing dimensions aligned; size-1 dimensions stretch)."""
    shape = check_shape(_dims(shape, "tl.broadcast_to"), "tl.broadcast_to")
    if not isinstance(input, Value):
        if not is_const(input):
            raise CompileError(f"tl.broadcast_to needs a value, got {describe(input)}")
        input = sem.materialize(input)
    return sem.broadcast_to(input, shape)


def broadcast(sem: Semantic, input, other):
    """``input`` and ``other`` broadcast to their common shape."""
    a, b = (sem.materialize(x) if is_const(x) else x for x in (input, other))
    if not (isinstance(a, Value) and isinstance(b, Value)):
        raise CompileError("tl.broadcast needs two values")
    return sem.broadcast(a, b)


def reshape(sem: Semantic, input, *shape, can_reorder=False):
    """The elements of ``input`` in row-major order with the shape ``shape``."""
    x = _block(input, "tl.reshape")
    shape = check_shape(_dims(shape, "tl.reshape"), "tl.reshape")
    if _numel(shape) != x.type.numel:
        raise CompileError(f"tl.reshape: cannot reshape a block of shape {list(x.type.shape)} "
                           f"({x.type.numel} elements) to {list(shape)}")
    if shape == x.type.shape:
        return x
    return sem.emit(ReshapeOp.get(x, shape))


def view(sem: Semantic, input, *shape):
    """Like ``tl.reshape`` (this compiler keeps the element order)."""
    return reshape(sem, input, *shape)


def item(sem: Semantic, input):
    """The one element of a single-element block, as a scalar (``x.item()``)."""
    if not isinstance(input, Value) or not input.type.shape:
        return input                    # a scalar already (Triton's unsplat leaves it)
    if input.type.numel != 1:
        raise CompileError(f"item(): the block has {input.type.numel} elements (shape {list(input.type.shape)}); "
                           f"it must have exactly one")
    flat = reshape(sem, input, 1) if len(input.type.shape) > 1 else input
    return sem.emit(ReduceOp.get(flat, 0, "max"))     # the maximum of one element is that element


def ravel(sem: Semantic, x, can_reorder=False):
    """The block flattened to one dimension (row-major)."""
    x = _block(x, "tl.ravel")
    return reshape(sem, x, x.type.numel)


def permute(sem: Semantic, input, *dims):
    """Dimensions permuted: result dimension ``i`` is ``input``'s dimension ``dims[i]``."""
    x = _block(input, "tl.permute")
    rank = len(x.type.shape)
    order = [_wrap_axis(d, rank, "tl.permute") for d in _dims(dims, "tl.permute")]
    if sorted(order) != list(range(rank)):
        raise CompileError(f"tl.permute: {list(order)} is not a permutation of the {rank} dimensions")
    if order == list(range(rank)):
        return x
    return sem.emit(TransOp.get(x, order))


def trans(sem: Semantic, input, *dims):
    """Permuted dimensions; without ``dims``, the last two swapped (a batched 2-D transpose, as Triton's)."""
    x = _block(input, "tl.trans")
    if not _dims(dims, "tl.trans"):
        rank = len(x.type.shape)
        if rank < 2:
            raise CompileError(f"tl.trans without dims needs a block of 2 or more dimensions, "
                               f"got shape {list(x.type.shape)}")
        dims = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return permute(sem, x, *dims)


def zeros_like(sem: Semantic, input):
    """A block of zeros with ``input``'s shape and type."""
    if not isinstance(input, Value):
        raise CompileError(f"tl.zeros_like needs a value, got {describe(input)}")
    zero = sem.constant(0, input.type.element_type)
    return sem.broadcast_to(zero, input.type.shape) if input.type.is_block() else zero


# --------------------------------------------------------------------------- reductions

def _accumulate_type(t: Type, fn: str) -> Type:
    """The type ``tl.sum``/``tl.cumsum``/``tl.cumprod`` accumulate in: integers of fewer than 32 bits widen
    (unsigned ones and int1 to u32, as Triton's ``_pick_sum_dtype``)."""
    if isinstance(t, IntType) and t.width < 32:
        return u32 if not t.signed or t.is_bool() else i32
    return t


def _prepare(sem: Semantic, input, fn: str, dtype=None) -> Value:
    x = _block(input, fn)
    if dtype is not None:
        if not isinstance(dtype, Type) or dtype.is_block():
            raise CompileError(f"{fn}: dtype must be a data type such as tl.float32, got {describe(dtype)}")
        x = sem.cast(x, dtype)
    if x.type.is_ptr():
        raise CompileError(f"{fn} of pointers is not supported")
    return x


def _reduce(sem: Semantic, x: Value, axis, kind: str, keep_dims, fn: str):
    shape = x.type.shape
    if axis is None:
        flat = x if len(shape) == 1 else sem.emit(ReshapeOp.get(x, (x.type.numel,)))
        r = sem.emit(ReduceOp.get(flat, 0, kind))
        return sem.broadcast_to(r, (1,) * len(shape)) if keep_dims else r
    a = _wrap_axis(axis, len(shape), fn)
    r = sem.emit(ReduceOp.get(x, a, kind))
    if keep_dims:  # a scalar (from a 1-D block) becomes a block of one element
        r = sem.emit(ExpandDimsOp.get(r, a)) if r.type.is_block() else sem.broadcast_to(r, (1,))
    return r


def _via_f32(sem: Semantic, x: Value, compute):
    """``compute(x)``, for bf16 ``x`` computed in f32 and rounded back (the vector unit has no bf16)."""
    t = x.type.element_type
    if not (t.is_float() and t.kind == "bf16"):
        return compute(x)
    return sem.cast(compute(sem.cast(x, f32)), t)


def sum(sem: Semantic, input, axis=None, keep_dims=False, dtype=None):
    """The sum along ``axis`` (all axes when None)."""
    x = _prepare(sem, input, "tl.sum", dtype)
    if dtype is None:  # an explicit dtype is the accumulation type
        x = sem.cast(x, _accumulate_type(x.type.element_type, "tl.sum"))
    return _via_f32(sem, x, lambda v: _reduce(sem, v, axis, "sum", keep_dims, "tl.sum"))


def _minmax_input(sem: Semantic, input, fn: str) -> Value:
    x = _prepare(sem, input, fn)
    t = x.type.element_type
    if t.is_float() and t.width < 32:
        return sem.cast(x, f32)
    if t.is_int() and t.width < 32:
        return sem.cast(x, i32)
    return x


def _minmax(sem: Semantic, input, axis, return_indices, tie_break_left, keep_dims, which: str):
    fn = f"tl.{which}"
    x = _minmax_input(sem, input, fn)
    value = _reduce(sem, x, axis, which, keep_dims, fn)
    if return_indices:  # the value keeps the input's type (the widening above is exact)
        value = sem.cast(value, _prepare(sem, input, fn).type.element_type)
        return value, _reduce(sem, x, axis, _arg_kind(which, tie_break_left, fn), keep_dims, fn)
    return value


def max(sem: Semantic, input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False):
    """The maximum along ``axis`` (NaN elements are ignored), with its index if ``return_indices``."""
    return _minmax(sem, input, axis, return_indices, return_indices_tie_break_left, keep_dims, "max")


def min(sem: Semantic, input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False):
    """The minimum along ``axis`` (NaN elements are ignored), with its index if ``return_indices``."""
    return _minmax(sem, input, axis, return_indices, return_indices_tie_break_left, keep_dims, "min")


def _arg_kind(which: str, tie_break_left, fn: str) -> str:
    """``argmax`` (first index of the extreme) or ``argmax_last`` (``tie_break_left=False``)."""
    if not isinstance(tie_break_left, (bool, int)):
        raise CompileError(f"{fn}: the tie break must be a constexpr bool, got {describe(tie_break_left)}")
    return "arg" + which + ("" if tie_break_left else "_last")


def _arg(sem: Semantic, input, axis, tie_break_left, keep_dims, which: str):
    fn = f"tl.arg{which}"
    kind = _arg_kind(which, tie_break_left, fn)
    x = _minmax_input(sem, input, fn)
    return _reduce(sem, x, axis, kind, keep_dims, fn)


def argmax(sem: Semantic, input, axis, tie_break_left=True, keep_dims=False):
    """The i32 index of the first (``tie_break_left=False``: last) maximum along ``axis``."""
    return _arg(sem, input, axis, tie_break_left, keep_dims, "max")


def argmin(sem: Semantic, input, axis, tie_break_left=True, keep_dims=False):
    """The i32 index of the first (``tie_break_left=False``: last) minimum along ``axis``."""
    return _arg(sem, input, axis, tie_break_left, keep_dims, "min")


def xor_sum(sem: Semantic, input, axis=None, keep_dims=False):
    """The bitwise xor of the elements along ``axis`` (integers only)."""
    x = _prepare(sem, input, "tl.xor_sum")
    if not x.type.is_int():
        raise CompileError(f"tl.xor_sum needs integer elements, got {x.type.element_type}")
    return _reduce(sem, x, axis, "xor_sum", keep_dims, "tl.xor_sum")


def reduce(sem: Semantic, input, axis, combine_fn, keep_dims=False):
    """Combine the elements along ``axis`` with a ``@triton.jit`` function (see combine.py)."""
    return combine.reduce(sem, input, axis, combine_fn, keep_dims)


# --------------------------------------------------------------------------- scans

def _scan(sem: Semantic, x: Value, axis, reverse, kind: str, fn: str):
    a = _wrap_axis(axis, len(x.type.shape), fn)
    if not isinstance(reverse, bool):
        raise CompileError(f"{fn}: reverse must be a constexpr bool, got {describe(reverse)}")
    return sem.emit(ScanOp.get(x, a, kind, reverse))


def cumsum(sem: Semantic, input, axis=0, reverse=False, dtype=None):
    """The inclusive running sum along ``axis``."""
    x = _prepare(sem, input, "tl.cumsum", dtype)
    if dtype is None:
        x = sem.cast(x, _accumulate_type(x.type.element_type, "tl.cumsum"))
    return _via_f32(sem, x, lambda v: _scan(sem, v, axis, reverse, "sum", "tl.cumsum"))


def cumprod(sem: Semantic, input, axis=0, reverse=False, dtype=None):
    """The inclusive running product along ``axis``."""
    x = _prepare(sem, input, "tl.cumprod", dtype)
    if dtype is None:
        x = sem.cast(x, _accumulate_type(x.type.element_type, "tl.cumprod"))
    return _via_f32(sem, x, lambda v: _scan(sem, v, axis, reverse, "prod", "tl.cumprod"))


def associative_scan(sem: Semantic, input, axis, combine_fn, reverse=False):
    """The inclusive scan along ``axis`` with a ``@triton.jit`` function (see combine.py)."""
    return combine.associative_scan(sem, input, axis, combine_fn, reverse)


def map_elementwise(sem: Semantic, scalar_fn, *args, pack=1):
    """A ``@triton.jit`` scalar function applied to every element (see combine.py)."""
    return combine.map_elementwise(sem, scalar_fn, *args, pack=pack)


# --------------------------------------------------------------------------- indexing

def subscript(sem: Semantic, base, items: Sequence):
    """``x[:, None]``: each item is ``slice(None)`` (keep a dimension) or ``None`` (a new one of size 1); a
    scalar takes only ``None`` items (``s[None]`` has shape ``(1,)``).

    A tuple (``x.shape``) indexed by a constant gives its element.
    """
    if isinstance(base, tuple):
        if len(items) != 1 or not isinstance(items[0], int) or isinstance(items[0], bool):
            raise CompileError("a tuple can only be indexed by one constant integer")
        try:
            return base[items[0]]
        except IndexError:
            raise CompileError(f"index {items[0]} is out of range for a tuple of {len(base)}") from None
    if isinstance(base, Value) and not base.type.is_block() and items and all(i is None for i in items):
        return sem.broadcast_to(base, (1,) * len(items))     # a scalar's `s[None]`: a splat, as in Triton
    if not isinstance(base, Value) or not base.type.is_block():
        raise CompileError("indexing and slicing (`x[...]`) are not supported yet")
    shape = base.type.shape
    kept = [i for i in items if isinstance(i, slice)]
    if any(not (i is None or (isinstance(i, slice) and i == slice(None))) for i in items):
        raise CompileError("indexing a block with anything but `:` and `None` (as in `x[:, None]`) "
                           "is not supported yet")
    if len(kept) != len(shape):
        raise CompileError(f"a block of rank {len(shape)} needs {len(shape)} `:` in its index, got {len(kept)}")
    v = base
    for pos, item in enumerate(items):
        if item is None:
            v = sem.emit(ExpandDimsOp.get(v, pos))
    check_shape(v.type.shape, "indexing")
    return v


# --------------------------------------------------------------------------- name tables

_FUNCTIONS = (expand_dims, broadcast_to, broadcast, reshape, view, ravel, permute, trans, zeros_like,
              sum, max, min, argmax, argmin, xor_sum, reduce, cumsum, cumprod, associative_scan, map_elementwise)
LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"tl.{f.__name__}", f) for f in _FUNCTIONS}
METHODS = {f.__name__: f for f in (expand_dims, broadcast_to, reshape, view, ravel, item, permute, trans,
                                    sum, max, min, argmax, argmin, xor_sum, reduce, cumsum, cumprod,
                                    associative_scan)}
