"""Ops on the shape of blocks, reductions and scans (``tt.expand_dims``, ``tt.reshape``, ``tt.trans``,
``tt.reduce``, ``tt.scan``).

Blocks are row-major.  ``tt.expand_dims`` and ``tt.reshape`` keep the element order, so codegen can
alias their source; ``tt.trans`` permutes the dimensions (``order[i]`` is the source dimension that
becomes result dimension ``i``) and moves data.

``tt.reduce`` combines the elements along ``axis`` with a built-in combiner ``kind``:

* ``sum``, ``max``, ``min``, ``xor_sum``: the result has the input's element type;
* ``argmax``, ``argmin``: the result is the i32 index along ``axis`` of the first (smallest-index)
  maximum / minimum; ``argmax_last``, ``argmin_last``: of the last (largest-index) one
  (``tie_break_left=False``).

The result has the input's shape without ``axis`` (a scalar when the input is 1-D; ``keep_dims`` is
an ``tt.expand_dims`` after it, as in Triton).  ``tt.scan`` is the inclusive scan (``sum``, ``prod``)
along ``axis``, backwards when ``reverse``; it keeps the shape.

Both may instead carry a combine region and several operands (``tl.reduce``/``tl.associative_scan``
with a ``@triton.jit`` combine function): see :mod:`mtiacc.ir.combine`.
"""
from __future__ import annotations

from typing import Sequence

from mtiacc.ir.core import AnyType, BlockLike, Operation, Pure, Value, attribute, operand, result
from mtiacc.ir.ops import const_value
from mtiacc.ir.types import block_of, i32

REDUCE_KINDS = ("sum", "max", "min", "xor_sum", "argmax", "argmin", "argmax_last", "argmin_last")
SCAN_KINDS = ("sum", "prod")


def _check_axis(op: Operation, axis: int, rank: int) -> None:
    if not 0 <= axis < rank:
        op._fail(f"axis {axis} is out of range for a block of rank {rank}")


class ExpandDimsOp(Operation):
    """A new dimension of size 1 at ``axis`` (no data moves)."""

    name = "tt.expand_dims"
    axis = attribute(int, doc="where the new dimension goes")
    src = operand(AnyType)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, axis: int, loc=None):
        shape = list(src.type.shape)
        shape.insert(axis, 1)
        return cls([src], [block_of(src.type.element_type, tuple(shape))], {"axis": axis}, loc=loc)

    def verify_(self):
        s = list(self.src.type.shape)
        _check_axis(self, self.axis, len(s) + 1)
        s.insert(self.axis, 1)
        if tuple(s) != self.result.type.shape or self.result.type.element_type != self.src.type.element_type:
            self._fail(f"cannot expand {self.src.type} at axis {self.axis} to {self.result.type}")

    def fold(self):
        return const_value(self.src)


class ReshapeOp(Operation):
    """The same elements in row-major order with another shape (``tl.reshape``, ``tl.view``)."""

    name = "tt.reshape"
    src = operand(BlockLike)
    result = result(AnyType)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, shape: Sequence[int], loc=None):
        return cls([src], [block_of(src.type.element_type, tuple(shape))], loc=loc)

    def verify_(self):
        n = 1
        for d in self.result.type.shape:
            n *= d
        if n != self.src.type.numel or self.result.type.element_type != self.src.type.element_type:
            self._fail(f"cannot reshape {self.src.type} to {self.result.type}")

    def fold(self):
        return const_value(self.src) if self.result.type.is_block() else None


class TransOp(Operation):
    """Permuted dimensions: result dimension ``i`` is source dimension ``order[i]``."""

    name = "tt.trans"
    order = attribute(list, of=int, doc="the source dimension each result dimension is")
    src = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, order: Sequence[int], loc=None):
        shape = tuple(src.type.shape[d] for d in order)
        return cls([src], [block_of(src.type.element_type, shape)], {"order": list(order)}, loc=loc)

    def verify_(self):
        s = self.src.type.shape
        if sorted(self.order) != list(range(len(s))):
            self._fail(f"order {self.order} is not a permutation of the {len(s)} dimensions")
        if tuple(s[d] for d in self.order) != self.result.type.shape:
            self._fail(f"result {self.result.type} is not {self.src.type} permuted by {self.order}")

    def fold(self):
        return const_value(self.src)


def reduced_type(src_type, axis: int, kind: str):
    shape = tuple(d for i, d in enumerate(src_type.shape) if i != axis)
    elem = i32 if kind.startswith("arg") else src_type.element_type
    return block_of(elem, shape)


class ReduceOp(Operation):
    """``tl.sum``/``max``/``min``/``xor_sum``/``argmax``/``argmin`` along ``axis``."""

    name = "tt.reduce"
    axis = attribute(int, doc="the dimension reduced")
    kind = attribute(str, doc="the reduction: sum, max, min, xor_sum, argmax, argmin, argmax_last or "
                              "argmin_last; absent with a combine region")
    src = operand(BlockLike)
    result = result(AnyType)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, axis: int, kind: str, loc=None):
        return cls([src], [reduced_type(src.type, axis, kind)], {"axis": axis, "kind": kind}, loc=loc)

    def verify(self):
        if self.regions:  # tl.reduce with a combine function (mtiacc/ir/combine.py)
            return combine.verify_combine_form(self)
        return super().verify()

    def verify_(self):
        if self.kind not in REDUCE_KINDS:
            self._fail(f"unknown reduction '{self.kind}' (expected one of {', '.join(REDUCE_KINDS)})")
        _check_axis(self, self.axis, len(self.src.type.shape))
        if self.result.type != reduced_type(self.src.type, self.axis, self.kind):
            self._fail(f"result must be {reduced_type(self.src.type, self.axis, self.kind)}")
        if self.kind == "xor_sum" and not self.src.type.is_int():
            self._fail("xor_sum needs integer elements")


class ScanOp(Operation):
    """``tl.cumsum`` / ``tl.cumprod``: the inclusive scan along ``axis`` (backwards if ``reverse``)."""

    name = "tt.scan"
    axis = attribute(int, doc="the dimension scanned")
    kind = attribute(str, doc="the scan: sum or prod; absent with a combine region")
    reverse = attribute(bool, optional=True, default=False, doc="from the last element to the first")
    src = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, axis: int, kind: str, reverse: bool = False, loc=None):
        return cls([src], [src.type], {"axis": axis, "kind": kind, "reverse": bool(reverse)}, loc=loc)

    def verify(self):
        if self.regions:  # tl.associative_scan (mtiacc/ir/combine.py)
            return combine.verify_combine_form(self)
        return super().verify()

    def verify_(self):
        if self.kind not in SCAN_KINDS:
            self._fail(f"unknown scan '{self.kind}' (expected one of {', '.join(SCAN_KINDS)})")
        _check_axis(self, self.axis, len(self.src.type.shape))
        if self.result.type != self.src.type:
            self._fail("result must have the source type")


SHAPE_OPS = (ExpandDimsOp, ReshapeOp, TransOp, ReduceOp, ScanOp)

from mtiacc.ir import combine  # noqa: E402  (the combine-region form; registers tt.reduce.return, tt.scan.return)
