"""The ops of the IR, each declared once as a class (``tt.*`` for Triton, ``arith.*`` for arithmetic).

Each op has a ``get(...)`` constructor taking values and Python attributes; the generic
``__init__(operands, result_types, attrs, loc, regions, segments)`` serves the parser.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir.core import (AnyType, BlockLike, BoolLike, Commutative, ConstantLike, Elementwise,
                            FloatLike, IntLike, NumLike, Operation, PtrLike, Pure, Region,
                            SameOperandsAndResultType, ScalarInt, Terminator, Value, attribute,
                            opt_operand, operand, region, result, var_operand)
from mtiacc.ir.types import (BlockType, FunctionType, PointerType, Type, block_of, bool_like, i32)


def _shape_of(v: Value):
    return v.type.shape


# --------------------------------------------------------------------------- module, function

class ModuleOp(Operation):
    name = "builtin.module"
    body = region()

    @classmethod
    def get(cls) -> "ModuleOp":
        from mtiacc.ir.core import Block
        return cls(regions=[Region([Block()])])

    @property
    def funcs(self):
        return [op for op in self.body.block.ops if isinstance(op, FuncOp)]


class FuncOp(Operation):
    """A kernel or helper. ``arg_names`` keeps the Python parameter names for printing and the ABI."""

    name = "tt.func"
    sym_name = attribute(str)
    function_type = attribute(FunctionType)
    arg_names = attribute(list, optional=True, default=())
    body = region()

    @classmethod
    def get(cls, name: str, arg_types, arg_names, result_types=(), loc=None) -> "FuncOp":
        from mtiacc.ir.core import Block
        block = Block(arg_types, arg_names)
        return cls(attrs={"sym_name": name, "function_type": FunctionType(tuple(arg_types), tuple(result_types)),
                          "arg_names": list(arg_names)}, loc=loc, regions=[Region([block])])

    @property
    def args(self):
        return self.body.block.args

    @property
    def entry(self):
        return self.body.block


class ReturnOp(Operation):
    name = "tt.return"
    values = var_operand()
    traits = frozenset({Terminator})

    @classmethod
    def get(cls, values=(), loc=None) -> "ReturnOp":
        return cls(list(values), [], loc=loc, segments=[len(values)])


# --------------------------------------------------------------------------- constants, ids, ranges

class ConstantOp(Operation):
    """A scalar constant, or a block with every element equal to ``value`` (a splat constant)."""

    name = "arith.constant"
    value = attribute((int, float, bool))
    result = result(AnyType)
    traits = frozenset({Pure, ConstantLike})

    @classmethod
    def get(cls, value, type: Type, loc=None) -> "ConstantOp":
        if type.is_float():
            value = float(value)
        elif type.is_bool():
            value = bool(value)
        else:
            value = int(value)
        return cls([], [type], {"value": value}, loc=loc)

    def verify_(self):
        t = self.result.type
        if t.is_float() != isinstance(self.value, float):
            self._fail(f"value {self.value!r} does not match type {t}")


class GetProgramIdOp(Operation):
    name = "tt.get_program_id"
    axis = attribute(int)
    result = result(ScalarInt)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, axis: int, loc=None):
        return cls([], [i32], {"axis": axis}, loc=loc)

    def verify_(self):
        if self.axis not in (0, 1, 2):
            self._fail(f"axis must be 0, 1 or 2, got {self.axis}")


class GetNumProgramsOp(GetProgramIdOp):
    name = "tt.get_num_programs"


class MakeRangeOp(Operation):
    """``tt.make_range``: the block ``[start, start+1, ..., end-1]`` of i32."""

    name = "tt.make_range"
    start = attribute(int)
    end = attribute(int)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, start: int, end: int, loc=None):
        return cls([], [BlockType((end - start,), i32)], {"start": start, "end": end}, loc=loc)

    def verify_(self):
        n = self.end - self.start
        if n <= 0 or n & (n - 1):
            self._fail(f"range length must be a power of two, got {n}")
        if self.result.type != BlockType((n,), i32):
            self._fail(f"result must be tensor<{n}xi32>")


class SplatOp(Operation):
    """A scalar copied into every element of a block."""

    name = "tt.splat"
    src = operand(AnyType)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, shape, loc=None):
        return cls([src], [block_of(src.type, shape)], loc=loc)

    def verify_(self):
        if self.src.type.is_block():
            self._fail("source must be a scalar")
        if self.result.type.element_type != self.src.type:
            self._fail("result element type must be the source type")


class BroadcastOp(Operation):
    """A block broadcast to a larger shape (dimensions of size 1 stretch)."""

    name = "tt.broadcast"
    src = operand(BlockLike)
    result = result(BlockLike)
    traits = frozenset({Pure})

    @classmethod
    def get(cls, src: Value, shape, loc=None):
        return cls([src], [block_of(src.type.element_type, shape)], loc=loc)

    def verify_(self):
        s, r = self.src.type.shape, self.result.type.shape
        if len(s) != len(r) or any(a != b and a != 1 for a, b in zip(s, r)):
            self._fail(f"cannot broadcast {self.src.type} to {self.result.type}")


# --------------------------------------------------------------------------- arithmetic

class BinaryOp(Operation):
    lhs = operand(NumLike)
    rhs = operand(NumLike)
    result = result(NumLike)
    traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})

    @classmethod
    def get(cls, lhs: Value, rhs: Value, loc=None):
        return cls([lhs, rhs], [lhs.type], loc=loc)


def _binary(cls_name: str, op_name: str, constraint, commutative=False) -> type:
    """Declare an elementwise binary op class whose operands satisfy `constraint`."""
    traits = {Pure, Elementwise, SameOperandsAndResultType} | ({Commutative} if commutative else set())
    body = {"name": op_name, "lhs": operand(constraint), "rhs": operand(constraint),
            "result": result(constraint), "traits": frozenset(traits), "__module__": __name__}
    return type(cls_name, (BinaryOp,), body)


AddIOp = _binary("AddIOp", "arith.addi", IntLike, True)
SubIOp = _binary("SubIOp", "arith.subi", IntLike)
MulIOp = _binary("MulIOp", "arith.muli", IntLike, True)
DivSIOp = _binary("DivSIOp", "arith.divsi", IntLike)
DivUIOp = _binary("DivUIOp", "arith.divui", IntLike)
RemSIOp = _binary("RemSIOp", "arith.remsi", IntLike)
RemUIOp = _binary("RemUIOp", "arith.remui", IntLike)
AndIOp = _binary("AndIOp", "arith.andi", IntLike, True)
OrIOp = _binary("OrIOp", "arith.ori", IntLike, True)
XOrIOp = _binary("XOrIOp", "arith.xori", IntLike, True)
ShLIOp = _binary("ShLIOp", "arith.shli", IntLike)
ShRSIOp = _binary("ShRSIOp", "arith.shrsi", IntLike)
ShRUIOp = _binary("ShRUIOp", "arith.shrui", IntLike)
MaxSIOp = _binary("MaxSIOp", "arith.maxsi", IntLike, True)
MinSIOp = _binary("MinSIOp", "arith.minsi", IntLike, True)
MaxUIOp = _binary("MaxUIOp", "arith.maxui", IntLike, True)
MinUIOp = _binary("MinUIOp", "arith.minui", IntLike, True)
AddFOp = _binary("AddFOp", "arith.addf", FloatLike, True)
SubFOp = _binary("SubFOp", "arith.subf", FloatLike)
MulFOp = _binary("MulFOp", "arith.mulf", FloatLike, True)
DivFOp = _binary("DivFOp", "arith.divf", FloatLike)
RemFOp = _binary("RemFOp", "arith.remf", FloatLike)
MaxNumFOp = _binary("MaxNumFOp", "arith.maxnumf", FloatLike, True)
MinNumFOp = _binary("MinNumFOp", "arith.minnumf", FloatLike, True)


class NegFOp(Operation):
    name = "arith.negf"
    operand_ = operand(FloatLike)
    result = result(FloatLike)
    traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})

    @classmethod
    def get(cls, x: Value, loc=None):
        return cls([x], [x.type], loc=loc)


INT_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FLOAT_PREDICATES = ("oeq", "one", "olt", "ole", "ogt", "oge", "ueq", "une", "ult", "ule", "ugt", "uge")


class CmpIOp(Operation):
    name = "arith.cmpi"
    predicate = attribute(str)
    lhs = operand(IntLike)
    rhs = operand(IntLike)
    result = result(BoolLike)
    traits = frozenset({Pure, Elementwise})

    @classmethod
    def get(cls, predicate: str, lhs: Value, rhs: Value, loc=None):
        return cls([lhs, rhs], [bool_like(lhs.type)], {"predicate": predicate}, loc=loc)

    def verify_(self):
        if self.predicate not in INT_PREDICATES:
            self._fail(f"unknown predicate '{self.predicate}'")
        if self.lhs.type != self.rhs.type:
            self._fail(f"operands must have one type, got {self.lhs.type} and {self.rhs.type}")
        if self.result.type != bool_like(self.lhs.type):
            self._fail("result must be i1 with the operands' shape")


class CmpFOp(CmpIOp):
    name = "arith.cmpf"
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)

    def verify_(self):
        if self.predicate not in FLOAT_PREDICATES:
            self._fail(f"unknown predicate '{self.predicate}'")
        if self.lhs.type != self.rhs.type:
            self._fail(f"operands must have one type, got {self.lhs.type} and {self.rhs.type}")


class SelectOp(Operation):
    """``cond ? true_value : false_value``, per element (``tl.where``)."""

    name = "arith.select"
    cond = operand(BoolLike)
    true_value = operand(AnyType)
    false_value = operand(AnyType)
    result = result(AnyType)
    traits = frozenset({Pure, Elementwise})

    @classmethod
    def get(cls, cond: Value, t: Value, f: Value, loc=None):
        return cls([cond, t, f], [t.type], loc=loc)

    def verify_(self):
        if not (self.true_value.type == self.false_value.type == self.result.type):
            self._fail("both values and the result must have one type")
        if self.cond.type.is_block() and self.cond.type.shape != self.result.type.shape:
            self._fail("condition shape must match the values' shape")


# --------------------------------------------------------------------------- casts

class CastOp(Operation):
    src = operand(AnyType)
    result = result(AnyType)
    traits = frozenset({Pure, Elementwise})

    @classmethod
    def get(cls, src: Value, to_elem: Type, loc=None):
        return cls([src], [src.type.with_element(to_elem)], loc=loc)

    def verify_(self):
        if self.src.type.shape != self.result.type.shape:
            self._fail("a cast keeps the shape")


class ExtSIOp(CastOp): name = "arith.extsi"
class ExtUIOp(CastOp): name = "arith.extui"
class TruncIOp(CastOp): name = "arith.trunci"
class SIToFPOp(CastOp): name = "arith.sitofp"
class UIToFPOp(CastOp): name = "arith.uitofp"
class FPToSIOp(CastOp): name = "arith.fptosi"
class FPToUIOp(CastOp): name = "arith.fptoui"
class ExtFOp(CastOp): name = "arith.extf"
class TruncFOp(CastOp): name = "arith.truncf"
class BitcastOp(CastOp): name = "tt.bitcast"


# --------------------------------------------------------------------------- memory

class AddPtrOp(Operation):
    """``ptr + offset`` in elements of the pointee type (scalar or block)."""

    name = "tt.addptr"
    ptr = operand(PtrLike)
    offset = operand(IntLike)
    result = result(PtrLike)
    traits = frozenset({Pure, Elementwise})

    @classmethod
    def get(cls, ptr: Value, offset: Value, loc=None):
        return cls([ptr, offset], [ptr.type], loc=loc)

    def verify_(self):
        if self.ptr.type.shape != self.offset.type.shape:
            self._fail("pointer and offset must have one shape")
        if self.result.type != self.ptr.type:
            self._fail("result must have the pointer's type")


class LoadOp(Operation):
    """``tl.load``: masked-off elements take ``other`` (undefined when absent)."""

    name = "tt.load"
    ptr = operand(PtrLike)
    mask = opt_operand(BoolLike)
    other = opt_operand(AnyType)
    result = result(AnyType)

    @classmethod
    def get(cls, ptr: Value, mask: Optional[Value] = None, other: Optional[Value] = None, loc=None,
            attrs=None):
        elem = ptr.type.element_type.pointee
        ops = [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        segments = [1, int(mask is not None), int(other is not None)]
        return cls(ops, [ptr.type.with_element(elem)], attrs or {}, loc=loc, segments=segments)

    def verify_(self):
        if self.result.type != self.ptr.type.with_element(self.ptr.type.element_type.pointee):
            self._fail("result must be the pointee type with the pointer's shape")
        for what in ("mask", "other"):
            v = getattr(self, what)
            if v is not None and v.type.shape != self.ptr.type.shape:
                self._fail(f"{what} must have the pointer's shape")
        if self.other is not None and self.other.type != self.result.type:
            self._fail("other must have the result type")


class StoreOp(Operation):
    name = "tt.store"
    ptr = operand(PtrLike)
    value = operand(AnyType)
    mask = opt_operand(BoolLike)

    @classmethod
    def get(cls, ptr: Value, value: Value, mask: Optional[Value] = None, loc=None, attrs=None):
        ops = [ptr, value] + ([mask] if mask is not None else [])
        return cls(ops, [], attrs or {}, loc=loc, segments=[1, 1, int(mask is not None)])

    def verify_(self):
        if self.value.type != self.ptr.type.with_element(self.ptr.type.element_type.pointee):
            self._fail(f"value type {self.value.type} does not match pointer type {self.ptr.type}")
        if self.mask is not None and self.mask.type.shape != self.ptr.type.shape:
            self._fail("mask must have the pointer's shape")


ELEMENTWISE_BINARY_INT = (AddIOp, SubIOp, MulIOp, DivSIOp, DivUIOp, RemSIOp, RemUIOp, AndIOp, OrIOp,
                          XOrIOp, ShLIOp, ShRSIOp, ShRUIOp, MaxSIOp, MinSIOp, MaxUIOp, MinUIOp)
ELEMENTWISE_BINARY_FLOAT = (AddFOp, SubFOp, MulFOp, DivFOp, RemFOp, MaxNumFOp, MinNumFOp)
