"""The combine-region form of ``tt.reduce`` and ``tt.scan`` (``tl.reduce``, ``tl.associative_scan``).

Besides its built-in ``kind`` (``sum``, ``max``, ...), a reduction or a scan may carry its combiner
as a region, as Triton's IR does::

    %m, %i = "tt.reduce"(%vals, %idxs) {axis = 1} ({
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      ...
      "tt.reduce.return"(%c, %ci) : (f32, i32) -> ()
    }) : (f32[4x8], i32[4x8]) -> (f32[4], i32[4])

* The operands are ``n >= 1`` blocks of one shape (a tuple in the language); there is no ``kind``.
* The region has one block with ``2 n`` scalar arguments: the accumulated values ``a_1 .. a_n``
  (the left operand) then the next elements ``b_1 .. b_n``; it ends with ``tt.reduce.return`` (or
  ``tt.scan.return``) of ``n`` scalars of the same element types: the combined values.
* ``tt.reduce`` has ``n`` results, each operand's type without ``axis`` (scalars for 1-D operands);
  ``tt.scan`` has ``n`` results of the operands' types (inclusive scan, backwards if ``reverse``).

Elements are combined in order along the axis: ``acc = x[0]``, then ``acc = f(acc, x[r])`` for
``r = 1, 2, ...`` (for a backward scan, from the last element down).  The combiner must be
associative for the result to match Triton's, which may combine in a tree.
"""
from __future__ import annotations

from typing import List, Sequence

from mtiacc.ir.core import AnyType, Block, Operation, Region, Terminator, Value, var_operand
from mtiacc.ir.types import Type, block_of


class ReduceReturnOp(Operation):
    """Ends the combine region of ``tt.reduce``: the combined values."""

    name = "tt.reduce.return"
    values = var_operand(AnyType)
    traits = frozenset({Terminator})

    @classmethod
    def get(cls, values: Sequence[Value], loc=None):
        return cls(list(values), [], loc=loc, segments=[len(values)])

    def verify_(self):
        _check_parent(self, "tt.reduce")


class ScanReturnOp(Operation):
    """Ends the combine region of ``tt.scan``: the combined values."""

    name = "tt.scan.return"
    values = var_operand(AnyType)
    traits = frozenset({Terminator})

    @classmethod
    def get(cls, values: Sequence[Value], loc=None):
        return cls(list(values), [], loc=loc, segments=[len(values)])

    def verify_(self):
        _check_parent(self, "tt.scan")


RETURNS = {"tt.reduce": ReduceReturnOp, "tt.scan": ScanReturnOp}


def _check_parent(op: Operation, owner: str) -> None:
    parent = getattr(getattr(op.parent, "parent", None), "parent", None)
    if getattr(parent, "name", None) != owner or not parent.regions:
        op._fail(f"must end the combine region of a '{owner}'")


def reduced_shape(shape, axis: int):
    return tuple(d for i, d in enumerate(shape) if i != axis)


def combine_block(elems: Sequence[Type]) -> Block:
    """An empty combine block: arguments ``a_1 .. a_n, b_1 .. b_n``."""
    n = len(elems)
    names = [f"a{i}" for i in range(n)] + [f"b{i}" for i in range(n)]
    return Block(list(elems) * 2, names)


def build(cls, srcs: Sequence[Value], axis: int, reverse=None, loc=None) -> Operation:
    """A ``tt.reduce``/``tt.scan`` (``cls``) over ``srcs`` with an empty combine block to fill."""
    elems = [v.type.element_type for v in srcs]
    if cls.name == "tt.reduce":
        types = [block_of(e, reduced_shape(v.type.shape, axis)) for e, v in zip(elems, srcs)]
        attrs = {"axis": axis}
    else:
        types = [v.type for v in srcs]
        attrs = {"axis": axis, "reverse": bool(reverse)}
    return cls(list(srcs), types, attrs, loc=loc, regions=[Region([combine_block(elems)])])


def verify_combine_form(op: Operation) -> None:
    """The whole check of a ``tt.reduce``/``tt.scan`` with a combine region."""
    srcs: List[Value] = op.operands
    if len(op.regions) != 1:
        op._fail(f"expected one combine region, got {len(op.regions)}")
    if "kind" in op.attrs:
        op._fail("has both a built-in 'kind' and a combine region")
    op.verify_attributes(require=False)   # the declared ones only (this form has no 'kind')
    axis = op.attrs.get("axis")
    if not isinstance(axis, int) or isinstance(axis, bool):
        op._fail("missing attribute 'axis'")
    if not srcs:
        op._fail("needs at least one operand")
    shape = srcs[0].type.shape if srcs[0].type.is_block() else None
    for v in srcs:
        if not v.type.is_block() or v.type.shape != shape:
            op._fail("operands must be blocks of one shape, got "
                     + ", ".join(str(s.type) for s in srcs))
    if not 0 <= axis < len(shape):
        op._fail(f"axis {axis} is out of range for a block of rank {len(shape)}")
    elems = [v.type.element_type for v in srcs]
    if op.name == "tt.reduce":
        want = [block_of(e, reduced_shape(shape, axis)) for e in elems]
    else:
        want = [v.type for v in srcs]
        if not isinstance(op.attrs.get("reverse", False), bool):
            op._fail("attribute 'reverse' must be a bool")
    got = [r.type for r in op.results]
    if got != want:
        op._fail(f"results ({', '.join(map(str, got))}) must be ({', '.join(map(str, want))})")
    region = op.regions[0]
    if len(region.blocks) != 1:
        op._fail(f"combine region must have exactly one block, got {len(region.blocks)}")
    block = region.blocks[0]
    arg_types = [a.type for a in block.args]
    if arg_types != elems * 2:
        op._fail(f"combine block arguments ({', '.join(map(str, arg_types))}) must be "
                 f"({', '.join(map(str, elems * 2))})")
    term = block.terminator
    ret = RETURNS[op.name]
    if not isinstance(term, ret):
        op._fail(f"combine region must end with '{ret.name}'")
    ret_types = [v.type for v in term.values]
    if ret_types != elems:
        op._fail(f"'{ret.name}' passes ({', '.join(map(str, ret_types))}) but "
                 f"({', '.join(map(str, elems))}) is expected")
