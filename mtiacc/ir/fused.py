"""``tt.fused_elementwise``: a chain of elementwise block ops evaluated in one loop over the elements.

    %y, %z = "tt.fused_elementwise"(%x, %s) ({
    ^bb0(%a: f32, %b: f32):
      %0 = "arith.mulf"(%a, %b) : (f32, f32) -> f32
      %1 = "math.exp"(%0) : (f32) -> f32
      "tt.fused_yield"(%0, %1) : (f32, f32) -> ()
    }) : (tensor<1024xf32>, f32) -> (tensor<1024xf32>, tensor<1024xf32>)

* The operands are the chain's external inputs: blocks of the op's shape, or scalars (a splat's
  source), which every element sees.
* One region with one block: one argument per operand, of the operand's element type (a scalar
  operand's own type).  Its ops are the chain's ops on scalars, one element at a time; they may use
  only the block's arguments and values defined in the region (the region is isolated from above,
  so a pass never reaches a value outside it).  Only pure, elementwise, region-free ops may appear.
* ``tt.fused_yield`` ends the block with one scalar per result; result ``k`` is the block of the op's
  shape whose elements are the ``k``-th yielded values.

Built by the ``fuse-elementwise`` pass; codegen runs it as one strip-mined vector loop
(``mtiacc/codegen/tensor/fused.py``).
"""
from __future__ import annotations

from typing import List, Sequence

from mtiacc.ir.core import (AnyType, Block, Elementwise, IsolatedFromAbove, Operation, Pure, Region,
                            Terminator, Value, region, result, var_operand)
from mtiacc.ir import ops as O
from mtiacc.ir.types import Type

# the casts that change the element width yet run in a fused loop: a mask (i1) to a number, a merge of 0 and 1
# (or -1) under the mask
BOOL_CASTS = (O.ExtUIOp, O.ExtSIOp, O.UIToFPOp, O.SIToFPOp)


class FusedYieldOp(Operation):
    name = "tt.fused_yield"
    values = var_operand()
    traits = frozenset({Terminator})

    @classmethod
    def get(cls, values: Sequence[Value], loc=None) -> "FusedYieldOp":
        return cls(list(values), [], loc=loc, segments=[len(values)])

    def verify_(self):
        owner = getattr(getattr(self.parent, "parent", None), "parent", None)
        if not isinstance(owner, FusedElementwiseOp):
            self._fail("must end the region of a tt.fused_elementwise")


class FusedElementwiseOp(Operation):
    name = "tt.fused_elementwise"
    inputs = var_operand()
    results_ = result(AnyType, variadic=True)
    body = region()
    traits = frozenset({Pure, IsolatedFromAbove})

    @classmethod
    def get(cls, inputs: Sequence[Value], result_types: Sequence[Type], loc=None) -> "FusedElementwiseOp":
        """An op with an empty body block (arguments: the inputs' element types)."""
        block = Block([v.type.element_type if v.type.is_block() else v.type for v in inputs])
        return cls(list(inputs), list(result_types), loc=loc, regions=[Region([block])],
                   segments=[len(inputs)])

    @property
    def block(self) -> Block:
        return self.body.blocks[0]

    @property
    def shape(self):
        return self.results[0].type.shape if self.results else ()

    def inner_ops(self) -> List[Operation]:
        """The region's ops without the terminator."""
        return self.block.ops[:-1]

    def verify_(self):
        if not self.results:
            self._fail("must have at least one result")
        shape = self.shape
        for r in self.results:
            if not r.type.is_block() or r.type.shape != shape:
                self._fail(f"results must be blocks of one shape, got {r.type}")
        for v in self.inputs:
            if v.type.is_block() and v.type.shape != shape:
                self._fail(f"input of type {v.type} does not have the results' shape {list(shape)}")
        if len(self.body.blocks) != 1:
            self._fail(f"region must have exactly one block, got {len(self.body.blocks)}")
        b = self.block
        want = [v.type.element_type if v.type.is_block() else v.type for v in self.inputs]
        got = [a.type for a in b.args]
        if got != want:
            self._fail("block arguments (" + ", ".join(map(str, got)) + ") must be the inputs' element types ("
                       + ", ".join(map(str, want)) + ")")
        term = b.terminator
        if not isinstance(term, FusedYieldOp):
            self._fail("region must end with 'tt.fused_yield'")
        ytypes = [v.type for v in term.values]
        rtypes = [r.type.element_type for r in self.results]
        if ytypes != rtypes:
            self._fail("'tt.fused_yield' yields (" + ", ".join(map(str, ytypes)) + ") but the results' "
                       "element types are (" + ", ".join(map(str, rtypes)) + ")")
        inside = {id(a) for a in b.args}
        for op in b.ops:
            if op is not term and (Elementwise not in op.traits or Pure not in op.traits or op.regions) \
                    and not op.name == "arith.constant":
                self._fail(f"region may hold only pure elementwise ops, got '{op.name}'")
            for r in op.results:
                if r.type.is_block():
                    self._fail(f"region ops work on scalars, '{op.name}' gives {r.type}")
            for i, v in enumerate(op.operands):
                if id(v) not in inside:
                    self._fail(f"'{op.name}' operand #{i} is defined outside the region "
                               "(the region is isolated from above)")
            inside.update(id(r) for r in op.results)
