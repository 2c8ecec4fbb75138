"""Ops that reorder or count the elements of a block in local memory (``tt.sort``, ``tt.gather``,
``tt.histogram``).

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
    k = attribute(int)
    descending = attribute(bool)
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
    axis = attribute(int)
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
    num_bins = attribute(int)
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
