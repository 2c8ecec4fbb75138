"""``tl.join``, ``tl.split``, ``tl.interleave``, ``tl.cat``, ``tl.flip``, ``tl.swizzle2d``, ``tl.softmax``.

Same conventions as :mod:`mtiacc.frontend.language.shapes` (:mod:`mtiacc.frontend.language` merges
``LANGUAGE`` and ``METHODS`` from here).  Semantics follow Triton's language reference (3.9), checked against its
interpreter:

* ``join(a, b)`` broadcasts ``a`` and ``b`` to one shape (their element types must already agree)
  and adds a new minor dimension of size 2; two scalars give a block of shape ``(2,)``.
* ``split(a)`` needs a last dimension of 2 and gives the two halves; a block of shape ``(2,)`` gives
  two scalars.
* ``interleave(a, b)`` is ``join`` then a reshape doubling the last dimension.
* ``cat(input, other, can_reorder=False, dim=0)``: blocks of one shape and type concatenated along
  ``dim``.  ``can_reorder=True`` is Triton's legacy form, for 1-D blocks only; we keep the order
  either way.
* ``flip(x, dim=None)`` reverses ``dim`` (the last dimension when None).
* ``swizzle2d(i, j, size_i, size_j, size_g)`` is Triton's documented index arithmetic, built from
  the ordinary operators, so it works on scalars and on blocks.
* ``softmax(x, dim=None)`` normalizes along ``dim`` (0 when None -- not the last axis):
  ``exp(x - max) / sum``.  ``tl.max`` computes f16 in f32, so an f16 input gives f32, as in
  Triton.  ``keep_dims`` is ignored (Triton deprecated it), ``ieee_rounding`` too: our division is
  always IEEE-rounded.

``tt.join``, ``tt.split``, ``tt.cat`` and ``tt.flip`` are ops (:mod:`mtiacc.ir.permute_ops`); the
rest are compositions of existing ops.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import math as tl_math
from mtiacc.frontend.language import shapes
from mtiacc.frontend.language.semantic import Semantic, describe
from mtiacc.frontend.language.shapes import check_shape
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.permute_ops import CatOp, FlipOp, JoinOp, SplitOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReduceOp, ReshapeOp


def _value(x, fn: str) -> Value:
    if not isinstance(x, Value):
        raise CompileError(f"{fn} needs tensors, got {describe(x)}")
    return x


def _axis(dim, rank: int, fn: str) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise CompileError(f"{fn}'s dim must be a constexpr integer, got {describe(dim)}")
    if not -rank <= dim < rank:
        raise CompileError(f"{fn}: dim {dim} is out of range for a block of rank {rank}")
    return dim + rank if dim < 0 else dim


def _same_type(a: Value, b: Value, fn: str) -> None:
    ta, tb = a.type.element_type, b.type.element_type
    if ta != tb:
        raise CompileError(f"{fn} needs operands of one type, got {ta} and {tb}")


def join(sem: Semantic, a, b):
    """``a`` and ``b`` (broadcast to one shape) joined in a new minor dimension of size 2."""
    a, b = _value(a, "tl.join"), _value(b, "tl.join")
    _same_type(a, b, "tl.join")
    a, b = sem.broadcast(a, b)
    if not a.type.is_block():  # two scalars: a (1, 2) block, then (2,)
        a, b = sem.broadcast_to(a, (1,)), sem.broadcast_to(b, (1,))
        return sem.emit(ReshapeOp.get(sem.emit(JoinOp.get(a, b)), (2,)))
    check_shape(tuple(a.type.shape) + (2,), "tl.join")
    return sem.emit(JoinOp.get(a, b))


def split(sem: Semantic, a):
    """The two halves ``a[..., 0]`` and ``a[..., 1]`` of a block whose last dimension is 2."""
    x = _value(a, "tl.split")
    shape = list(x.type.shape)
    if not shape or shape[-1] != 2:
        got = f"shape {shape}" if shape else "a scalar"
        raise CompileError(f"tl.split needs a block whose last dimension is 2, got {got}")
    if len(shape) == 1:  # (2,) -> (1, 2) -> two (1,) blocks -> two scalars
        halves = [sem.emit(SplitOp.get(sem.emit(ExpandDimsOp.get(x, 0)), i)) for i in (0, 1)]
        return tuple(sem.emit(ReduceOp.get(h, 0, "sum")) for h in halves)
    return tuple(sem.emit(SplitOp.get(x, i)) for i in (0, 1))


def interleave(sem: Semantic, a, b):
    """The elements of ``a`` and ``b`` alternating along the last dimension (which doubles)."""
    a, b = _value(a, "tl.interleave"), _value(b, "tl.interleave")
    _same_type(a, b, "tl.interleave")
    a, b = sem.broadcast(a, b)
    shape = tuple(a.type.shape)
    if len(shape) <= 1:
        c = join(sem, a, b)
        return c if not shape else sem.emit(ReshapeOp.get(c, (2 * shape[0],)))
    # only the last dimension matters: join (rows, last) blocks, so a rank-3 input needs no rank 4
    rows = (a.type.numel // shape[-1], shape[-1])
    c = join(sem, *(sem.emit(ReshapeOp.get(v, rows)) for v in (a, b)))
    return sem.emit(ReshapeOp.get(c, shape[:-1] + (2 * shape[-1],)))


def cat(sem: Semantic, input, other, can_reorder=False, dim=0):
    """``input`` then ``other`` along ``dim`` (blocks of one shape and type); the order is kept."""
    a, b = _value(input, "tl.cat"), _value(other, "tl.cat")
    if not (a.type.is_block() and b.type.is_block()):
        raise CompileError("tl.cat needs two blocks")
    sa, sb = list(a.type.shape), list(b.type.shape)
    if can_reorder:
        if len(sa) != 1 or len(sb) != 1:
            raise CompileError(f"tl.cat(can_reorder=True) needs 1-D blocks, got shapes {sa} and {sb}")
        d = 0
    else:
        if len(sa) != len(sb):
            raise CompileError(f"tl.cat needs blocks of the same rank, got {len(sa)} and {len(sb)}")
        d = _axis(dim, len(sa), "tl.cat")
    if sa != sb:
        raise CompileError(f"tl.cat needs blocks of the same shape, got {sa} and {sb}")
    _same_type(a, b, "tl.cat")
    return sem.emit(CatOp.get(a, b, d))


def flip(sem: Semantic, x, dim=None):
    """``x`` reversed along ``dim`` (the last dimension when None)."""
    v = _value(x, "tl.flip")
    if not v.type.is_block():
        raise CompileError(f"tl.flip needs a block, got {describe(x)}")
    rank = len(v.type.shape)
    d = rank - 1 if dim is None else _axis(dim, rank, "tl.flip")
    if v.type.shape[d] == 1:
        return v
    return sem.emit(FlipOp.get(v, d))


def swizzle2d(sem: Semantic, i, j, size_i, size_j, size_g):
    """Row-major indices of a ``size_i x size_j`` matrix mapped to column-major order within each
    group of ``size_g`` rows (the last group may be shorter); returns ``(new_i, new_j)``."""
    bin_ = sem.binary
    ij = bin_("add", bin_("mul", i, size_j), j)
    size_gj = bin_("mul", size_g, size_j)
    off_i = bin_("mul", bin_("floordiv", ij, size_gj), size_g)
    rows = bin_("minimum", bin_("sub", size_i, off_i), size_g)
    ij = bin_("mod", ij, size_gj)
    return bin_("add", off_i, bin_("mod", ij, rows)), bin_("floordiv", ij, rows)


def softmax(sem: Semantic, x, dim=None, *, keep_dims=None, ieee_rounding=False):
    """``exp(x - max(x, dim)) / sum(exp(x - max(x, dim)), dim)``, along ``dim`` (0 when None)."""
    v = _value(x, "tl.softmax")
    if not v.type.is_block():
        raise CompileError(f"tl.softmax needs a block, got {describe(x)}")
    if not v.type.is_float():
        raise CompileError(f"tl.softmax needs floating-point elements, got {v.type.element_type}")
    d = _axis(0 if dim is None else dim, len(v.type.shape), "tl.softmax")
    z = sem.binary("sub", v, shapes.max(sem, v, d, keep_dims=True))
    num = tl_math.TL_MATH["exp"].impl(sem, z)
    return sem.binary("truediv", num, shapes.sum(sem, num, d, keep_dims=True))


# --------------------------------------------------------------------------- name tables

_FUNCTIONS = (join, split, interleave, cat, flip, swizzle2d, softmax)
LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"tl.{f.__name__}", f) for f in _FUNCTIONS}
METHODS = {f.__name__: f for f in (split, flip, softmax)}
