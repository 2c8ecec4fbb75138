"""``tl.sort``, ``tl.topk``, ``tl.gather`` and ``tl.histogram`` (merged into the LANGUAGE table by
:mod:`mtiacc.frontend.language`).  Semantics follow Triton 3.9 (checked against its interpreter):

* ``tl.sort(x, dim=None, descending=False)`` sorts along the last dimension (``dim=None`` means the
  last; another dimension is an error, as in Triton).  ``tl.topk(x, k, dim=None, descending=True)``
  gives the ``k`` largest (smallest when not descending) along the last dimension, in order; ``k``
  is a power of two at most that dimension.  Both are Triton's bitonic network, bit for bit (see
  :mod:`mtiacc.ir.permute_ops`): with NaN in a row the result is not a permutation of it.  A last
  dimension of 1 sorts to itself; ``k == 1`` is ``tl.max``/``tl.min`` with ``keep_dims``, as in Triton.
* ``tl.gather(src, index, axis)``: ``out`` has ``index``'s shape; along ``axis`` the coordinate is
  ``index``'s element.  ``index`` is an integer block of ``src``'s rank whose other dimensions equal
  ``src``'s.
* ``tl.histogram(input, num_bins, mask=None)``: i32 counts of the values ``0 .. num_bins - 1`` in a
  1-D block of 32-bit integers; values outside are not counted, nor elements whose mask is false.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import shapes
from mtiacc.frontend.language.semantic import Semantic, describe, is_const
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.permute_ops import GatherOp, HistogramOp, SortOp
from mtiacc.ir.types import FloatType, IntType


def _const_int(x, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise CompileError(f"{what} must be a constexpr integer, got {describe(x)}")
    return x


def _flag(x, what: str) -> bool:
    if isinstance(x, bool) or (isinstance(x, int) and x in (0, 1)):
        return bool(x)
    raise CompileError(f"{what} must be a constexpr bool, got {describe(x)}")


def _sortable(x, fn: str) -> Value:
    if not isinstance(x, Value) or not x.type.is_block():
        raise CompileError(f"{fn} needs a block, got {describe(x)}")
    e = x.type.element_type
    ok = (isinstance(e, IntType) and e.width > 1) or (isinstance(e, FloatType) and e.kind in ("f16", "f32"))
    if not ok:
        raise CompileError(f"{fn} of {e} elements is not supported yet")
    return x


def _last_dim(x: Value, dim, fn: str) -> int:
    rank = len(x.type.shape)
    if dim is None:
        return rank - 1
    d = _const_int(dim, f"{fn}'s dim")
    if not -rank <= d < rank:
        raise CompileError(f"{fn}: dim {d} is out of range for a block of rank {rank}")
    if d % rank != rank - 1:
        raise CompileError(f"{fn}: only the last dimension ({rank - 1}) can be sorted, got dim={d}")
    return rank - 1


def sort(sem: Semantic, x, dim=None, descending=False):
    """``x`` sorted along its last dimension (ascending unless ``descending``)."""
    x = _sortable(x, "tl.sort")
    _last_dim(x, dim, "tl.sort")
    desc = _flag(descending, "tl.sort's descending")
    n = x.type.shape[-1]
    if n == 1:
        return x
    return sem.emit(SortOp.get(x, n, desc))


def topk(sem: Semantic, x, k, dim=None, descending=True):
    """The ``k`` largest (smallest unless ``descending``) elements along the last dimension, in order."""
    x = _sortable(x, "tl.topk")
    d = _last_dim(x, dim, "tl.topk")
    k = _const_int(k, "tl.topk's k")
    desc = _flag(descending, "tl.topk's descending")
    n = x.type.shape[-1]
    if k <= 0 or k & (k - 1) or k > n:
        raise CompileError(f"tl.topk: k must be a power of two at most the dimension's size {n}, got {k}")
    if k == 1:  # Triton: a reduction with keep_dims
        pick = shapes.max if desc else shapes.min
        return pick(sem, x, d, keep_dims=True)
    return sem.emit(SortOp.get(x, k, desc))


def gather(sem: Semantic, src, index, axis):
    """``src`` re-indexed along ``axis``: ``out[.., i, ..] = src[.., index[.., i, ..], ..]``."""
    if not isinstance(src, Value) or not src.type.is_block():
        raise CompileError(f"tl.gather needs a block source, got {describe(src)}")
    if not isinstance(index, Value) or not index.type.is_block() or not index.type.is_int() \
            or index.type.is_bool():
        raise CompileError(f"tl.gather's index must be a block of integers, got {describe(index)}")
    if src.type.is_ptr():
        raise CompileError("tl.gather of pointers is not supported yet")
    s, i = src.type.shape, index.type.shape
    rank = len(s)
    if len(i) != rank:
        raise CompileError(f"tl.gather: the index (shape {list(i)}) must have the source's rank "
                           f"(shape {list(s)})")
    a = _const_int(axis, "tl.gather's axis")
    if not -rank <= a < rank:
        raise CompileError(f"tl.gather: axis {a} is out of range for a block of rank {rank}")
    a %= rank
    for d in range(rank):
        if d != a and i[d] != s[d]:
            raise CompileError(f"tl.gather: index dimension {d} is {i[d]} but the source's is {s[d]} "
                               f"(only the axis {a} may differ)")
    return sem.emit(GatherOp.get(src, index, a))


def histogram(sem: Semantic, input, num_bins, mask=None):
    """i32 counts of the values ``0 .. num_bins - 1`` in a 1-D block of 32-bit integers."""
    if not isinstance(input, Value) or not input.type.is_block():
        raise CompileError(f"tl.histogram needs a block, got {describe(input)}")
    t = input.type
    if len(t.shape) != 1:
        raise CompileError(f"tl.histogram needs a 1-D block, got shape {list(t.shape)}")
    e = t.element_type
    if not (isinstance(e, IntType) and e.width == 32):
        raise CompileError(f"tl.histogram needs 32-bit integers, got {e}")
    nb = _const_int(num_bins, "tl.histogram's num_bins")
    shapes.check_shape((nb,), "tl.histogram")
    m = None
    if mask is not None:
        m = sem.materialize(mask) if is_const(mask) else mask
        if not isinstance(m, Value) or not m.type.is_bool():
            raise CompileError(f"tl.histogram's mask must be a boolean block, got {describe(mask)}")
        m = sem.broadcast_to(m, t.shape)
    return sem.emit(HistogramOp.get(input, nb, m))


_FUNCTIONS = (sort, topk, gather, histogram)
LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"tl.{f.__name__}", f) for f in _FUNCTIONS}
METHODS = {f.__name__: f for f in (sort, gather, histogram)}
