"""Ops that move data between blocks without computing: ``tt.join``, ``tt.split``, ``tt.cat``,
``tt.flip``.

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

from mtiacc.ir.core import BlockLike, Operation, Pure, Value, attribute, operand, result
from mtiacc.ir.types import block_of


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
    index = attribute(int)
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
    dim = attribute(int)
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
    dim = attribute(int)
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
