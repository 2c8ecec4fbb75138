"""Ops that reorder, move or count the elements of blocks in local memory without arithmetic.

**Sorting, gathering and counting** (``tt.sort``, ``tt.gather``, ``tt.histogram``).

``tt.sort`` is Triton's bitonic network along the last dimension (``tl.sort`` and ``tl.topk``).  With
``n`` the last dimension and ``k`` the attribute (``k == n`` for a sort), the result keeps the
input's shape with the last dimension ``k``.  The network is specified exactly, so that NaN and
signed zeros come out as Triton's do (its compare-and-swap is not a permutation when NaN is
involved):

* a compare-and-swap at distance ``d`` over the flat index ``p`` sets, with ``y`` the element at
  ``p ^ d`` and ``f`` the direction of ``p`` xor bit ``log2(d)`` of ``p``:
  ``new[p] = y if (x[p] > y) != f else x[p]``;
* stage ``s`` (1 .. log2(k)) runs distances ``2**(s-1) .. 1``; its direction is bit ``s`` of ``p``
  while ``s < log2(n)``, else ``descending``;
* for a top-k (``k < n``) each of the ``log2(n/k)`` further rounds replaces the pairs
  ``(p, p ^ k)`` (bit ``log2(k)`` of ``p`` clear) by their ``tl.maximum`` (``tl.minimum`` when
  ascending; NaN-ignoring), which halves the block, then merges with stage ``log2(k)``'s
  distances (direction: bit ``log2(k)`` of the new index, or ``descending`` in the last round).

``tt.gather`` is the block-local gather along ``axis``: ``out[..., i, ...] = src[..., index[..., i,
...], ...]`` with the index replacing the coordinate along ``axis``; ``index`` has the source's rank
and its dimensions other than ``axis``.  Codegen takes the index modulo the source's dimension
(dimensions are powers of two); Triton leaves an index out of range undefined.

``tt.histogram`` counts the elements of a 1-D i32/u32 block equal to ``0 .. num_bins - 1`` (where
``mask`` is true); other values are not counted.  The result is ``i32[num_bins]``.

**Joining, splitting, concatenating and flipping** (``tt.join``, ``tt.split``, ``tt.cat``, ``tt.flip``).

Blocks are row-major (as in :mod:`mtiacc.ir.shape_ops`).

* ``tt.join(a, b)``: two blocks of one type and shape ``S`` give the block ``S + (2,)`` whose
  ``[..., 0]`` is ``a`` and ``[..., 1]`` is ``b`` (``tl.join``, the inverse of ``tl.split``).
* ``tt.split(x) {index}``: ``x[..., index]`` of a block whose last dimension is 2; the result
  drops that dimension (it keeps at least one: rank-1 inputs are reshaped first).  Triton's
  ``tt.split`` has both halves as results; ours takes one, so each half is an ordinary
  single-result op (an unused half costs nothing).
* ``tt.cat(a, b) {dim}``: two blocks of one type and shape, concatenated along ``dim`` in order.
* ``tt.flip(x) {dim}``: the elements of ``x`` in reverse order along ``dim``.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir.core import BlockLike, BoolLike, IntLike, Operation, Pure, Value, attribute, operand, opt_operand, result
from mtiacc.ir.types import block_of, i32


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class SortOp(Operation):
    """``tl.sort`` (``k`` = the last dimension) and ``tl.topk``: Triton's bitonic network."""

    name = "tt.sort"
    k = attribute(int, doc="how many elements of the last dimension it keeps (tl.topk), all for tl.sort")
    descending = attribute(bool, doc="largest first")
    src = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, k: int, descending: bool, loc=None):
        shape = tuple(src.type.shape[:-1]) + (k,)
        return cls([src], [block_of(src.type.element_type, shape)], {"k": k, "descending": bool(descending)},
                   loc=loc)

    def verify_(self):
        s = self.src.type.shape
        if not _pow2(self.k) or self.k > s[-1]:
            self._fail(f"k = {self.k} must be a power of two at most the last dimension {s[-1]}")
        if self.src.type.is_ptr():
            self._fail("cannot sort pointers")
        if self.result.type != block_of(self.src.type.element_type, tuple(s[:-1]) + (self.k,)):
            self._fail(f"result must be {self.src.type} with last dimension {self.k}")


class GatherOp(Operation):
    """``tl.gather(src, index, axis)``: ``src`` re-indexed along ``axis`` by ``index``."""

    name = "tt.gather"
    axis = attribute(int, doc="the dimension the index re-indexes")
    src = operand(BlockLike)
    index = operand(IntLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, index: Value, axis: int, loc=None):
        return cls([src, index], [block_of(src.type.element_type, tuple(index.type.shape))], {"axis": axis},
                   loc=loc)

    def verify_(self):
        s, i = self.src.type.shape, self.index.type.shape
        if len(s) != len(i):
            self._fail(f"index {self.index.type} must have the rank of the source {self.src.type}")
        if not 0 <= self.axis < len(s):
            self._fail(f"axis {self.axis} is out of range for a block of rank {len(s)}")
        for d in range(len(s)):
            if d != self.axis and s[d] != i[d]:
                self._fail(f"index dimension {d} ({i[d]}) must match the source's ({s[d]})")
        if self.result.type != block_of(self.src.type.element_type, tuple(i)):
            self._fail(f"result must be {self.src.type.element_type} with the index's shape")


class HistogramOp(Operation):
    """``tl.histogram(input, num_bins, mask)``: counts of ``0 .. num_bins - 1`` as i32."""

    name = "tt.histogram"
    num_bins = attribute(int, doc="the counts' length: the values 0 .. num_bins - 1 are counted")
    src = operand(IntLike)
    mask = opt_operand(BoolLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, num_bins: int, mask: Optional[Value] = None, loc=None):
        ops = [src] + ([mask] if mask is not None else [])
        return cls(ops, [block_of(i32, (num_bins,))], {"num_bins": num_bins}, loc=loc,
                   segments=[1, int(mask is not None)])

    def verify_(self):
        t = self.src.type
        if len(t.shape) != 1 or t.element_type.width != 32:
            self._fail(f"input must be a 1-D block of 32-bit integers, got {t}")
        if self.mask is not None and self.mask.type.shape != t.shape:
            self._fail("mask must have the input's shape")
        if self.result.type != block_of(i32, (self.num_bins,)):
            self._fail(f"result must be i32[{self.num_bins}]")


SORT_OPS = (SortOp, GatherOp, HistogramOp)


def _same_operands(op: Operation) -> None:
    if op.lhs.type != op.rhs.type:
        op._fail(f"operands must have one type, got {op.lhs.type} and {op.rhs.type}")


def _check_dim(op: Operation, dim: int, rank: int) -> None:
    if not 0 <= dim < rank:
        op._fail(f"dim {dim} is out of range for a block of rank {rank}")


class JoinOp(Operation):
    """``a`` and ``b`` side by side in a new minor dimension of size 2."""

    name = "tt.join"
    lhs = operand(BlockLike)
    rhs = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, lhs: Value, rhs: Value, loc=None):
        shape = tuple(lhs.type.shape) + (2,)
        return cls([lhs, rhs], [block_of(lhs.type.element_type, shape)], loc=loc)

    def verify_(self):
        _same_operands(self)
        want = block_of(self.lhs.type.element_type, tuple(self.lhs.type.shape) + (2,))
        if self.result.type != want:
            self._fail(f"result must be {want}, got {self.result.type}")


class SplitOp(Operation):
    """``src[..., index]``: one half of a block whose last dimension is 2."""

    name = "tt.split"
    index = attribute(int, doc="which half: 0 or 1")
    src = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, index: int, loc=None):
        shape = tuple(src.type.shape[:-1])
        return cls([src], [block_of(src.type.element_type, shape)], {"index": index}, loc=loc)

    def verify_(self):
        shape = self.src.type.shape
        if len(shape) < 2 or shape[-1] != 2:
            self._fail(f"needs a block of rank 2 or more whose last dimension is 2, got {self.src.type}")
        if self.index not in (0, 1):
            self._fail(f"index must be 0 or 1, got {self.index}")
        want = block_of(self.src.type.element_type, tuple(shape[:-1]))
        if self.result.type != want:
            self._fail(f"result must be {want}, got {self.result.type}")


class CatOp(Operation):
    """``lhs`` then ``rhs`` along ``dim`` (both of one shape)."""

    name = "tt.cat"
    dim = attribute(int, doc="the dimension the operands are joined along")
    lhs = operand(BlockLike)
    rhs = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, lhs: Value, rhs: Value, dim: int, loc=None):
        shape = list(lhs.type.shape)
        shape[dim] *= 2
        return cls([lhs, rhs], [block_of(lhs.type.element_type, tuple(shape))], {"dim": dim}, loc=loc)

    def verify_(self):
        _same_operands(self)
        _check_dim(self, self.dim, len(self.lhs.type.shape))
        shape = list(self.lhs.type.shape)
        shape[self.dim] *= 2
        want = block_of(self.lhs.type.element_type, tuple(shape))
        if self.result.type != want:
            self._fail(f"result must be {want}, got {self.result.type}")


class FlipOp(Operation):
    """``src`` reversed along ``dim``."""

    name = "tt.flip"
    dim = attribute(int, doc="the dimension reversed")
    src = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, dim: int, loc=None):
        return cls([src], [src.type], {"dim": dim}, loc=loc)

    def verify_(self):
        _check_dim(self, self.dim, len(self.src.type.shape))
        if self.result.type != self.src.type:
            self._fail("result must have the source type")


JOIN_SPLIT_OPS = (JoinOp, SplitOp, CatOp, FlipOp)
