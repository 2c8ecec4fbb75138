"""The ops of the IR, each declared once as a class (``tt.*`` for Triton, ``arith.*`` for arithmetic).

Each op has a ``get(...)`` constructor taking values and Python attributes; the generic
``__init__(operands, result_types, attrs, loc, regions, segments)`` serves the parser.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

from mtiacc.ir.core import (AnyType, BlockLike, BoolLike, Commutative, ConstantLike, Elementwise,
                            FloatLike, IntLike, NumLike, Operation, PtrLike, Pure, Region,
                            SameOperandsAndResultType, ScalarBool, ScalarInt, Terminator, Value, attribute,
                            opt_operand, operand, region, result, var_operand)
from mtiacc.ir import folding as F
from mtiacc.ir.analysis.access_kinds import access_error
from mtiacc.ir.types import (FP8_KINDS, BlockType, FloatType, FunctionType, Type, block_of,
                             bool_like, i32, u8)


def _shape_of(v: Value):
    return v.type.shape


def const_value(v: Value):
    """The Python value of ``v`` when an ``arith.constant`` defines it (a block constant's element), else None."""
    op = getattr(v, "op", None)
    return op.value if isinstance(op, ConstantOp) else None


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
    sym_name = attribute(str, doc="the function's name")
    function_type = attribute(FunctionType, doc="its argument and result types")
    arg_names = attribute(list, optional=True, default=(), of=str,
                          doc="the Python parameter names, one per argument (printing, the kernel ABI)")
    sym_visibility = attribute(str, optional=True,
                               doc='"private": a helper the frontend lowered, which `inline` inlines and removes')
    # the local-memory plan (mtiacc/opt/memory/plan.py), written before instruction selection: the bytes for
    # blocks, the stack above them, the planned peak, and one "name offset bytes" entry per block
    lmem_capacity = attribute(int, optional=True, doc="the local-memory plan: the bytes for blocks")
    lmem_stack = attribute(int, optional=True, doc="the local-memory plan: the stack's bytes, above the blocks")
    lmem_peak = attribute(int, optional=True, doc="the local-memory plan: the most bytes of blocks live at once")
    lmem_blocks = attribute(list, optional=True, of=str,
                            doc='the local-memory plan: "name offset bytes", one entry per block')
    lmem_backoff = attribute(int, optional=True,
                             doc="the local-memory plan's back-off: the passes ran again planning for this many "
                                 "bytes less local memory (mtiacc/opt/memory/backoff.py)")
    may_alias = attribute(list, optional=True, of=str,
                          doc='pointer parameters a launch passes memory they share, one "X Y" entry per group: '
                              'apart from each other for no pass (ir/analysis/pointers.py may_share)')
    body = region()

    def verify_(self):
        names = list(self.arg_names)
        for g in self.attrs.get("may_alias", ()):
            group = g.split()
            unknown = [n for n in group if n not in names]
            if len(group) < 2 or unknown or len(set(group)) != len(group):
                self._fail(f'may_alias entry "{g}" must name two or more distinct parameters'
                           + (f" (no parameter {', '.join(unknown)})" if unknown else ""))

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
    value = attribute((int, float, bool), doc="the constant (every element's, for a block)")
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
        e = t.element_type
        if t.is_bool() and not isinstance(self.value, bool):
            self._fail(f"an i1 constant must be true or false, got {self.value!r}")
        if t.is_int() and not t.is_bool() and not F.fits_int(self.value, e, allow_wrap=False):
            self._fail(f"value {self.value} is out of range for {e}")
        if t.is_ptr():
            self._fail("pointer constants are not supported")


class GetProgramIdOp(Operation):
    name = "tt.get_program_id"
    axis = attribute(int, doc="the launch grid's axis: 0, 1 or 2")
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
    start = attribute(int, doc="the first element")
    end = attribute(int, doc="one past the last element")
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

    def fold(self):
        return const_value(self.src)  # a splat of a constant is a block constant


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

    def fold(self):
        return const_value(self.src)


# --------------------------------------------------------------------------- arithmetic

class BinaryOp(Operation):
    lhs = operand(NumLike)
    rhs = operand(NumLike)
    result = result(NumLike)
    traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})
    # (a, b, element type) -> folded value or None; a and b are canonical constants of that type.
    _fold_fn = None

    @classmethod
    def get(cls, lhs: Value, rhs: Value, loc=None):
        return cls([lhs, rhs], [lhs.type], loc=loc)

    def fold(self):
        a, b = const_value(self.lhs), const_value(self.rhs)
        if a is None or b is None or self._fold_fn is None:
            return None
        t = self.result.type.element_type
        r = type(self)._fold_fn(a, b, t)
        return None if r is None else F.normalize(r, t)


def _binary(cls_name: str, op_name: str, constraint, commutative=False, fold=None) -> type:
    """Declare an elementwise binary op class whose operands satisfy `constraint`."""
    traits = {Pure, Elementwise, SameOperandsAndResultType} | ({Commutative} if commutative else set())
    body = {"name": op_name, "lhs": operand(constraint), "rhs": operand(constraint),
            "result": result(constraint), "traits": frozenset(traits), "__module__": __name__,
            "_fold_fn": staticmethod(fold) if fold else None}
    return type(cls_name, (BinaryOp,), body)


def _s(fn):
    """An integer fold on the operands read as signed."""
    return lambda a, b, t: fn(F.as_signed(a, t), F.as_signed(b, t), t)


def _u(fn):
    """An integer fold on the operands read as unsigned."""
    return lambda a, b, t: fn(F.as_unsigned(a, t), F.as_unsigned(b, t), t)


def _shift(fn):
    return lambda a, b, t: fn(a, F.as_unsigned(b, t), t) if F.as_unsigned(b, t) < t.width else None


def _divsi(a, b, t):
    if b == -1 and a == -(1 << (t.width - 1)):
        return None  # overflows: undefined
    return F.c_div(a, b)


def _f(np_fn: str):
    """A float fold computed in the type's own precision (numpy's ufunc ``np_fn``)."""
    return lambda a, b, t: F.float_binary(np_fn, a, b, t)


AddIOp = _binary("AddIOp", "arith.addi", IntLike, True, _u(lambda a, b, t: a + b))
SubIOp = _binary("SubIOp", "arith.subi", IntLike, False, _u(lambda a, b, t: a - b))
MulIOp = _binary("MulIOp", "arith.muli", IntLike, True, _u(lambda a, b, t: a * b))
# the high half of the unsigned double-width product (tl.umulhi, Philox): one vmulhu, no widening
MulHiUIOp = _binary("MulHiUIOp", "tt.mulhiui", IntLike, True, _u(lambda a, b, t: (a * b) >> t.width))
DivSIOp = _binary("DivSIOp", "arith.divsi", IntLike, False, _s(_divsi))
DivUIOp = _binary("DivUIOp", "arith.divui", IntLike, False, _u(lambda a, b, t: a // b if b else None))
RemSIOp = _binary("RemSIOp", "arith.remsi", IntLike, False, _s(lambda a, b, t: F.c_rem(a, b)))
RemUIOp = _binary("RemUIOp", "arith.remui", IntLike, False, _u(lambda a, b, t: a % b if b else None))
AndIOp = _binary("AndIOp", "arith.andi", IntLike, True, _u(lambda a, b, t: a & b))
OrIOp = _binary("OrIOp", "arith.ori", IntLike, True, _u(lambda a, b, t: a | b))
XOrIOp = _binary("XOrIOp", "arith.xori", IntLike, True, _u(lambda a, b, t: a ^ b))
ShLIOp = _binary("ShLIOp", "arith.shli", IntLike, False, _shift(lambda a, b, t: F.as_unsigned(a, t) << b))
ShRSIOp = _binary("ShRSIOp", "arith.shrsi", IntLike, False, _shift(lambda a, b, t: F.as_signed(a, t) >> b))
ShRUIOp = _binary("ShRUIOp", "arith.shrui", IntLike, False, _shift(lambda a, b, t: F.as_unsigned(a, t) >> b))
MaxSIOp = _binary("MaxSIOp", "arith.maxsi", IntLike, True, _s(lambda a, b, t: max(a, b)))
MinSIOp = _binary("MinSIOp", "arith.minsi", IntLike, True, _s(lambda a, b, t: min(a, b)))
MaxUIOp = _binary("MaxUIOp", "arith.maxui", IntLike, True, _u(lambda a, b, t: max(a, b)))
MinUIOp = _binary("MinUIOp", "arith.minui", IntLike, True, _u(lambda a, b, t: min(a, b)))
AddFOp = _binary("AddFOp", "arith.addf", FloatLike, True, _f("add"))
SubFOp = _binary("SubFOp", "arith.subf", FloatLike, False, _f("subtract"))
MulFOp = _binary("MulFOp", "arith.mulf", FloatLike, True, _f("multiply"))
DivFOp = _binary("DivFOp", "arith.divf", FloatLike, False, _f("divide"))
RemFOp = _binary("RemFOp", "arith.remf", FloatLike, False, _f("fmod"))
MaxNumFOp = _binary("MaxNumFOp", "arith.maxnumf", FloatLike, True, _f("fmax"))
MinNumFOp = _binary("MinNumFOp", "arith.minnumf", FloatLike, True, _f("fmin"))


class NegFOp(Operation):
    name = "arith.negf"
    operand_ = operand(FloatLike)
    result = result(FloatLike)
    traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})

    @classmethod
    def get(cls, x: Value, loc=None):
        return cls([x], [x.type], loc=loc)

    def fold(self):
        a = const_value(self.operand_)
        return None if a is None else -a


_COMPARE = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
            "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}
INT_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FLOAT_PREDICATES = ("oeq", "one", "olt", "ole", "ogt", "oge", "ueq", "une", "ult", "ule", "ugt", "uge")


class CmpIOp(Operation):
    name = "arith.cmpi"
    predicate = attribute(str, doc="the comparison: eq, ne, slt, sle, sgt, sge, ult, ule, ugt or uge")
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

    def fold(self):
        t, p = self.lhs.type.element_type, self.predicate
        if self.lhs is self.rhs:  # x == x, x <= x, ... are true; x != x, x < x, ... false
            return p in ("eq", "sle", "sge", "ule", "uge")
        a, b = const_value(self.lhs), const_value(self.rhs)
        if a is None or b is None:
            return self._fold_ranges(p)
        if p in ("eq", "ne"):
            return (F.as_unsigned(a, t) == F.as_unsigned(b, t)) == (p == "eq")
        conv = F.as_signed if p[0] == "s" else F.as_unsigned
        return _COMPARE[p[1:]](conv(a, t), conv(b, t))

    def _fold_ranges(self, p: str):
        """Decide a signed comparison from the operands' value ranges (constants, ``tt.make_range``)."""
        if p[0] != "s":
            return None
        ra, rb = _value_range(self.lhs), _value_range(self.rhs)
        if ra is None or rb is None:
            return None
        (alo, ahi), (blo, bhi) = ra, rb
        cmp = _COMPARE[p[1:]]
        if cmp(ahi, blo) and cmp(alo, bhi) and cmp(alo, blo) and cmp(ahi, bhi):
            return True
        if not (cmp(ahi, blo) or cmp(alo, bhi) or cmp(alo, blo) or cmp(ahi, bhi)):
            return False
        return None


def _value_range(v: Value):
    """``(lowest, highest)`` signed value of every element of ``v``, when cheaply known."""
    c = const_value(v)
    if c is not None:
        c = F.as_signed(c, v.type.element_type)
        return c, c
    op = getattr(v, "op", None)
    if isinstance(op, MakeRangeOp):
        return op.start, op.end - 1
    if isinstance(op, (SplatOp, BroadcastOp)) or op is not None and op.name in _SAME_ELEMENTS:
        return _value_range(op.operands[0])
    if isinstance(op, AddIOp):   # Inductor's r0_offset + r0_base, the offset a constant once unrolled
        ra, rb = _value_range(op.lhs), _value_range(op.rhs)
        if ra is None or rb is None:
            return None
        lo, hi = ra[0] + rb[0], ra[1] + rb[1]
        e = v.type.element_type
        return (lo, hi) if e.signed and -(1 << (e.width - 1)) <= lo and hi < (1 << (e.width - 1)) else None
    return None


AFTER_ATOMIC = ("it may access bytes an earlier atomic whose sem has no acquire updates (why; `access-plan`): a "
                "fence precedes it")
# Shape ops (mtiacc/ir/shape_ops.py) whose elements are their operand's: the same value range.
_SAME_ELEMENTS = ("tt.expand_dims", "tt.reshape", "tt.trans")


class CmpFOp(CmpIOp):
    name = "arith.cmpf"
    predicate = attribute(str, doc="the comparison: oeq, one, olt, ole, ogt, oge (ordered: false on a NaN) or "
                                   "ueq, une, ult, ule, ugt, uge (unordered: true on a NaN)")
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)

    def fold(self):
        a, b = const_value(self.lhs), const_value(self.rhs)
        if a is None or b is None:
            return None
        if math.isnan(a) or math.isnan(b):  # ordered predicates are false, unordered true
            return self.predicate[0] == "u"
        p = self.predicate[1:]
        return {"eq": a == b, "ne": a != b}.get(p) if p in ("eq", "ne") else _COMPARE[p](a, b)

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

    def fold(self):
        if self.true_value is self.false_value:
            return self.true_value
        c = const_value(self.cond)
        if c is None:
            return None
        chosen = self.true_value if c else self.false_value
        return chosen if chosen.type == self.result.type else None


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


    # (value, source element type, result element type) -> folded value or None
    _fold_fn = None

    def fold(self):
        a = const_value(self.src)
        if a is None or self._fold_fn is None:
            return None
        src, dst = self.src.type.element_type, self.result.type.element_type
        r = type(self)._fold_fn(a, src, dst)
        return None if r is None else F.normalize(r, dst)


def _cast(cls_name: str, op_name: str, fold, base: type = CastOp) -> type:
    return type(cls_name, (base,), {"name": op_name, "__module__": __name__,
                                    "_fold_fn": staticmethod(fold)})


class FloatCastOp(CastOp):
    """``arith.extf`` and ``arith.truncf``: float to float.

    After the ``legalize-fp8`` pass fp8 values are bytes (``u8``), and a conversion with an fp8 end says
    which format its bytes hold in ``fp8`` (one of ``FP8_KINDS``): ``arith.extf`` decodes ``u8`` to a
    wider float, ``arith.truncf`` encodes a float into ``u8``.  Without ``fp8`` both ends are floats.
    """

    fp8 = attribute(str, optional=True, doc="the fp8 format the u8 end holds (`legalize-fp8`)")

    def fp8_ends(self) -> Optional[Tuple[Type, Type]]:
        """(source, result) element types with the fp8 end as its format, or None without ``fp8``."""
        if self.fp8 is None:
            return None
        src, dst = self.src.type.element_type, self.result.type.element_type
        f8 = FloatType(self.fp8)
        return (f8, dst) if self.name == "arith.extf" else (src, f8)

    def verify_(self):
        super().verify_()
        src, dst = self.src.type.element_type, self.result.type.element_type
        if self.fp8 is None:
            if not (isinstance(src, FloatType) and isinstance(dst, FloatType)):
                self._fail(f"converts floats, got {src} to {dst} (a u8 end needs the fp8 attribute)")
            return
        if self.fp8 not in FP8_KINDS:
            self._fail(f"fp8 = \"{self.fp8}\" is not an fp8 format (expected one of {', '.join(FP8_KINDS)})")
        decode = self.name == "arith.extf"
        byte, other = (src, dst) if decode else (dst, src)
        if byte != u8:
            self._fail(f"with fp8 = \"{self.fp8}\" the {'source' if decode else 'result'} holds its bytes and "
                       f"must be u8, got {byte}")
        if not isinstance(other, FloatType) or other.is_fp8:
            self._fail(f"with fp8 = \"{self.fp8}\" the {'result' if decode else 'source'} must be f16, bf16, "
                       f"f32 or f64, got {other}")

    def fold(self):
        return None if self.fp8 is not None else super().fold()   # a constant byte is no float value


ExtSIOp = _cast("ExtSIOp", "arith.extsi", lambda a, s, d: F.as_signed(a, s))
ExtUIOp = _cast("ExtUIOp", "arith.extui", lambda a, s, d: F.as_unsigned(a, s))
TruncIOp = _cast("TruncIOp", "arith.trunci", lambda a, s, d: int(a))
SIToFPOp = _cast("SIToFPOp", "arith.sitofp", lambda a, s, d: float(F.as_signed(a, s)))
UIToFPOp = _cast("UIToFPOp", "arith.uitofp", lambda a, s, d: float(F.as_unsigned(a, s)))
FPToSIOp = _cast("FPToSIOp", "arith.fptosi", lambda a, s, d: F.float_to_int(a, d))
FPToUIOp = _cast("FPToUIOp", "arith.fptoui", lambda a, s, d: F.float_to_int(a, d))
ExtFOp = _cast("ExtFOp", "arith.extf", lambda a, s, d: a, FloatCastOp)
TruncFOp = _cast("TruncFOp", "arith.truncf", lambda a, s, d: a, FloatCastOp)
BitcastOp = _cast("BitcastOp", "tt.bitcast", F.bitcast)


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
    """``tl.load``: masked-off elements take ``other`` (undefined when absent).  ``access``: how it moves
    from DRAM (a kind of ``mtiacc/ir/analysis/access_kinds.py``), written by the ``access-plan`` pass.
    ``volatile`` (``tl.load(..., volatile=True)``): the load reads memory each time it runs, even when its
    result is unused (no load is ever merged, hoisted or removed, since ``tt.load`` is not ``Pure``; the
    attribute makes codegen emit an unused block load too).  ``prefetch`` (``pipeline-loads``): the load
    fetches the next iteration's tile of a loop, and only the loop's yield reads it.  ``guard`` (an i1 scalar,
    ``pipeline-loads``'s prefetches past a loop's end): the load moves nothing when it is false, and its result
    is then undefined (nothing reads it).  ``after_store`` (``access-plan``): the load may read DRAM bytes an
    earlier store of the program writes (``mtiacc/ir/analysis/dram_order.py``), so it waits for the stores in
    flight before it issues.  ``after_atomic`` (``access-plan``): it may read bytes an earlier atomic of the program
    whose ``sem`` has no acquire updates, which may not be performed yet (the machine orders no DMA transfer behind
    an atomic), so a ``fence`` precedes it."""

    name = "tt.load"
    ptr = operand(PtrLike)
    mask = opt_operand(BoolLike)
    other = opt_operand(AnyType)
    guard = opt_operand(ScalarBool)
    result = result(AnyType)
    access = attribute(str, optional=True, doc="how it moves from DRAM, a kind of the access plan (`access-plan`)")
    volatile = attribute(bool, optional=True, default=False,
                         doc="tl.load(..., volatile=True): it reads memory each time, its result used or not")
    prefetch = attribute(bool, optional=True, default=False,
                         doc="it fetches the next iteration's tile (`pipeline-loads`, `pipeline-dots`)")
    after_store = attribute(str, optional=True,
                            doc="it may read bytes an earlier store writes (why; `access-plan`): it waits for the "
                                "stores in flight first")
    after_atomic = attribute(str, optional=True, doc=AFTER_ATOMIC)

    @classmethod
    def get(cls, ptr: Value, mask: Optional[Value] = None, other: Optional[Value] = None, loc=None,
            attrs=None):
        elem = ptr.type.element_type.pointee
        ops = [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        segments = [1, int(mask is not None), int(other is not None)]
        return cls(ops, [ptr.type.with_element(elem)], attrs or {}, loc=loc, segments=segments)

    def set_guard(self, cond: Value) -> None:
        """Make the load move nothing unless ``cond`` (an i1 scalar) holds."""
        if self.guard is not None:
            raise ValueError("tt.load already has a guard")
        self.segments = (self.segments + [0, 0, 0])[:3] + [1]
        self._append_operand(cond)

    def verify_(self):
        if self.result.type != self.ptr.type.with_element(self.ptr.type.element_type.pointee):
            self._fail("result must be the pointee type with the pointer's shape")
        for what in ("mask", "other"):
            v = getattr(self, what)
            if v is not None and v.type.shape != self.ptr.type.shape:
                self._fail(f"{what} must have the pointer's shape")
        if self.other is not None and self.other.type != self.result.type:
            self._fail("other must have the result type")
        why = access_error(self)
        if why is not None:
            self._fail(why)


class StoreOp(Operation):
    """``tl.store``; ``access``: how it moves to DRAM, as for ``LoadOp``.  ``row_bands`` (``dot-accumulators``):
    the stored block is a resident dot's accumulators, which the engine writes back in that many bands of rows
    (each band's column groups in turn); the store moves band by band, each transfer issued as soon as the engine
    has written its band (a ``tiles`` store of a 2-D block).  ``after_atomic``: it may write bytes an earlier
    atomic updates, as on ``tt.load``."""

    name = "tt.store"
    ptr = operand(PtrLike)
    value = operand(AnyType)
    mask = opt_operand(BoolLike)
    access = attribute(str, optional=True, doc="how it moves to DRAM, a kind of the access plan (`access-plan`)")
    row_bands = attribute(int, optional=True,
                          doc="a resident dot's accumulators, stored in this many bands of rows (`dot-accumulators`)")
    after_atomic = attribute(str, optional=True, doc=AFTER_ATOMIC)

    @classmethod
    def get(cls, ptr: Value, value: Value, mask: Optional[Value] = None, loc=None, attrs=None):
        ops = [ptr, value] + ([mask] if mask is not None else [])
        return cls(ops, [], attrs or {}, loc=loc, segments=[1, 1, int(mask is not None)])

    def verify_(self):
        if self.value.type != self.ptr.type.with_element(self.ptr.type.element_type.pointee):
            self._fail(f"value type {self.value.type} does not match pointer type {self.ptr.type}")
        if self.mask is not None and self.mask.type.shape != self.ptr.type.shape:
            self._fail("mask must have the pointer's shape")
        if self.row_bands is not None and (self.row_bands < 1 or len(self.value.type.shape) != 2
                                           or self.value.type.shape[0] % self.row_bands):
            self._fail(f"row_bands = {self.row_bands} must divide the rows of a 2-D block")
        why = access_error(self)
        if why is not None:
            self._fail(why)


ELEMENTWISE_BINARY_INT = (AddIOp, SubIOp, MulIOp, DivSIOp, DivUIOp, RemSIOp, RemUIOp, AndIOp, OrIOp,
                          XOrIOp, ShLIOp, ShRSIOp, ShRUIOp, MaxSIOp, MinSIOp, MaxUIOp, MinUIOp)
ELEMENTWISE_BINARY_FLOAT = (AddFOp, SubFOp, MulFOp, DivFOp, RemFOp, MaxNumFOp, MinNumFOp)


# --------------------------------------------------------------------------- math (tl.exp, libdevice.*)
# Element-wise math functions, one class each (``math.exp``, ...), declared compactly.  Constant
# operands fold with numpy in the type's precision; codegen expands them (mtiacc/codegen/mathlib/).

class MathUnaryOp(Operation):
    """``approx``: the function may be computed approximately (MLIR's ``afn`` fast-math flag), to the bound
    codegen/mathlib/se.py's ``APPROX_ULPS`` states (2 ULP for exp, exp2): as Triton's GPU backends compute
    ``tl.exp`` (an approximate hardware exp2), and within the 2 ULP CUDA states for libdevice's ``expf``; codegen
    then may use the SIMD engine's table (codegen/mathlib/se.py says where its accuracy allows)."""
    x = operand(FloatLike)
    result = result(FloatLike)
    approx = attribute(bool, optional=True, default=False,
                       doc="it may be computed to APPROX_ULPS (tl.exp as Triton's GPU backends, libdevice.exp)")
    traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})
    _np_fn = None

    @classmethod
    def get(cls, x: Value, loc=None, approx: bool = False):
        return cls([x], [x.type], {"approx": True} if approx else {}, loc=loc)

    def fold(self):
        a = const_value(self.x)
        if a is None or type(self)._np_fn is None:
            return None
        t = self.result.type.element_type
        np = F.numpy()
        fn = type(self)._np_fn
        with np.errstate(all="ignore"):
            r = (getattr(np, fn) if isinstance(fn, str) else fn)(np.float64(a))
        return F.round_float(float(r), t)


def _math_unary(fn_name: str, np_fn) -> type:
    """``np_fn``: the name of numpy's ufunc, or a function of a float64, or None (not folded)."""
    cls_name = "Math" + "".join(p.capitalize() for p in fn_name.split("_")) + "Op"
    return type(cls_name, (MathUnaryOp,), {"name": f"math.{fn_name}", "__module__": __name__,
                                           "_np_fn": staticmethod(np_fn)})


def _erf(x):
    return math.erf(x) if not math.isnan(x) else x


MATH_UNARY = {name: _math_unary(name, fn) for name, fn in (
    ("exp", "exp"), ("exp2", "exp2"), ("log", "log"), ("log2", "log2"), ("sqrt", "sqrt"),
    ("rsqrt", lambda x: 1.0 / F.numpy().sqrt(x)), ("sin", "sin"), ("cos", "cos"), ("absf", "abs"),
    ("floor", "floor"), ("ceil", "ceil"), ("erf", _erf), ("tanh", "tanh"), ("log1p", "log1p"),
    ("expm1", "expm1"), ("trunc", "trunc"), ("rint", "rint"),
    ("tan", "tan"), ("atan", "arctan"), ("asin", "arcsin"), ("acos", "arccos"), ("sinh", "sinh"),
    ("cosh", "cosh"), ("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh"),
    ("log10", "log10"), ("cbrt", "cbrt"), ("erfc", lambda x: math.erfc(x) if not math.isnan(x) else x),
    ("erfinv", None), ("lgamma", lambda x: math.lgamma(x) if math.isfinite(x) and not (x <= 0 and x == int(x))
                            else (x if math.isnan(x) else math.inf)))}


class MathPowFOp(BinaryOp):
    name = "math.powf"
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    result = result(FloatLike)
    _fold_fn = staticmethod(lambda a, b, t: F.float_binary("power", a, b, t))


class MathAtan2Op(BinaryOp):
    """``atan2(y, x)`` (lhs y, rhs x)."""

    name = "math.atan2"
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    result = result(FloatLike)
    _fold_fn = staticmethod(lambda a, b, t: F.float_binary("arctan2", a, b, t))


class MathHypotOp(BinaryOp):
    name = "math.hypot"
    lhs = operand(FloatLike)
    rhs = operand(FloatLike)
    result = result(FloatLike)
    _fold_fn = staticmethod(lambda a, b, t: F.float_binary("hypot", a, b, t))


class MathFmaOp(Operation):
    """``a * b + c`` with one rounding."""

    name = "math.fma"
    a = operand(FloatLike)
    b = operand(FloatLike)
    c = operand(FloatLike)
    result = result(FloatLike)
    traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})

    @classmethod
    def get(cls, a: Value, b: Value, c: Value, loc=None):
        return cls([a, b, c], [a.type], loc=loc)


# ---------------------------------------------------------------------------------------------------------------
# Debugging: ``tt.print`` (``tl.device_print``) and ``tt.assert`` (``tl.device_assert``). Both have side effects
# (no ``Pure`` trait), so dead-code elimination never removes them. ``tt.print`` prints ``prefix`` and its operands
# (scalars or blocks of one shape) once per element, tagged with the program id; ``tt.assert`` stops the run when
# an element of ``condition`` is false.
# ---------------------------------------------------------------------------------------------------------------
class PrintOp(Operation):
    name = "tt.print"
    prefix = attribute(str, doc="the text printed before the values")
    hex = attribute(bool, doc="the values printed in hexadecimal")
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
    message = attribute(str, doc="the text printed when an element of the condition is false")
    condition = operand(AnyType)

    @classmethod
    def get(cls, condition: Value, message: str, loc=None) -> "AssertOp":
        return cls([condition], [], {"message": message}, loc=loc)

    def verify_(self):
        if not (self.condition.type.is_int() or self.condition.type.is_float()):
            self._fail(f"condition must be an integer or float, got {self.condition.type}")
