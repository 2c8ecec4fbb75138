"""Debugging ops: ``tt.print`` (``tl.device_print``) and ``tt.assert`` (``tl.device_assert``).

Both have side effects (no ``Pure`` trait), so dead-code elimination never removes them.
``tt.print`` prints ``prefix`` and its operands (scalars or blocks of one shape) once per element,
tagged with the program id; ``tt.assert`` stops the run when an element of ``condition`` is false.
"""
from __future__ import annotations

from typing import Sequence

from mtiacc.ir.core import AnyType, Operation, Value, attribute, operand, var_operand


class PrintOp(Operation):
    name = "tt.print"
    prefix = attribute(str)
    hex = attribute(bool)
    values = var_operand()

    @classmethod
    def get(cls, prefix: str, values: Sequence[Value], hex: bool = False, loc=None) -> "PrintOp":
        return cls(list(values), [], {"prefix": prefix, "hex": hex}, loc=loc, segments=[len(values)])

    def verify_(self):
        shapes = {v.type.shape for v in self.values if v.type.is_block()}
        if len(shapes) > 1:
            self._fail("printed blocks must have one shape")


class AssertOp(Operation):
    name = "tt.assert"
    message = attribute(str)
    condition = operand(AnyType)

    @classmethod
    def get(cls, condition: Value, message: str, loc=None) -> "AssertOp":
        return cls([condition], [], {"message": message}, loc=loc)

    def verify_(self):
        if not (self.condition.type.is_int() or self.condition.type.is_float()):
            self._fail(f"condition must be an integer or float, got {self.condition.type}")
