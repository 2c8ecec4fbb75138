"""Triton's typing rules, and the IR they build.

This layer knows nothing about Python syntax: it receives frontend values and emits ops
through a :class:`~mtiacc.ir.core.Builder` (whose location the visitor keeps current).  The
builtins that must lower user code (a combine function) reach the visitor through
``Semantic.lowering`` (:class:`~mtiacc.frontend.context.LoweringContext`).

A frontend value is either an IR :class:`Value` (known at run time) or a Python
``bool``/``int``/``float`` (a *constexpr*: a literal, a ``tl.constexpr`` parameter, or any
combination of those).  Constexprs are folded here with Python's own operators, exactly as
Triton folds them (so ``-7 // 2 == -4`` between constexprs), and become IR constants only
when they meet a run-time value.

Type rules (Triton's, see its "Triton Semantics" page):

* Literal types: ``bool`` -> i1; ``int`` -> the first of i32, u32, i64, u64 that holds it (Triton's
  order); ``float`` -> f32 (f64 beyond f32's range).
* Two run-time operands meet in a common type: the higher *kind* wins
  (bool < integer < floating point); within a kind the wider type wins; f16 with bf16 gives
  f16, bf16 with a bool or an integer gives f32; same-width signed with unsigned gives unsigned.
* A constexpr operand of the same or a lower kind than the run-time operand takes the
  run-time operand's type (``x_f16 * 2.0`` stays f16, ``x_u8 + 1`` stays u8).  A constexpr
  of a higher kind makes both operands its literal type (``x_i32 * 0.5`` is f32).
* ``/`` between integers converts both to f32, and so do ``/`` and ``%`` whose common type is
  f16 or bf16 (Triton: PTX has no half-precision division; ``x_f16 / 3`` is f32); ``//`` and ``%`` on integers truncate toward
  zero like C (``arith.divsi``/``arith.remsi``; unsigned types use ``divui``/``remui``);
  ``//`` on floats is rejected, ``%`` on floats is ``arith.remf`` (C ``fmod``).
* Comparisons give i1; signed integers use ``s*`` predicates, unsigned and i1 ``u*``,
  floats the ordered ``o*`` predicates except ``!=`` which is ``une``.
* Shapes: a scalar meeting a block is splatted (``tt.splat``); blocks align their trailing
  dimensions (a lower rank gains leading 1s, ``tt.expand_dims``) and dimensions of size 1
  stretch (``tt.broadcast``).
* ``ptr + int`` and ``int + ptr`` are ``tt.addptr``; ``ptr - int`` adds the negated offset.
* fp8 (Triton's rules, then what its GPU backends can lower): with f64/f32/f16 the other type
  wins, with bf16 both become f32, two different fp8 formats meet in f16; ``/`` and ``%`` with an
  fp8 operand compute in f32.  An fp8 operand with an integer is an error (as in Triton), and so is
  arithmetic, a comparison or negation computed *in* an fp8 type (Triton's frontend types it, its
  backends cannot lower it); ``tl.where``, ``tl.minimum``/``tl.maximum`` (exact, through f32),
  loads, stores and conversions to and from floating-point types work.
"""
from __future__ import annotations

import math
import operator
from typing import Callable, Dict, Optional, Sequence, Tuple, Union

from mtiacc.diagnostics import CompileError, warn
from mtiacc.frontend.context import LoweringContext
from mtiacc.ir import ops, scf
from mtiacc.ir.shape_ops import ReduceOp, ReshapeOp
from mtiacc.ir.core import Builder, Value
from mtiacc.ir.folding import fits_int, normalize_int
from mtiacc.ir.types import (PointerType, Type, bf16, f16, f32, f64, f8e5, i1, i8, i32, i64, is_fp8, triton_type_name,
                             u8, u32, u64)

Const = (bool, int, float)
FValue = Union[Value, bool, int, float]
F32_MAX = 3.4028234663852886e38


# the smallest magnitude a float type rounds to infinity (its largest finite value plus half an ulp), and that value
_OVERFLOW = {f16: (2 - 2.0 ** -11) * 2.0 ** 15, bf16: (2 - 2.0 ** -8) * 2.0 ** 127, f32: (2 - 2.0 ** -24) * 2.0 ** 127}
_LARGEST = {f16: (2 - 2.0 ** -10) * 2.0 ** 15, bf16: (2 - 2.0 ** -7) * 2.0 ** 127, f32: (2 - 2.0 ** -23) * 2.0 ** 127}


def is_const(x) -> bool:
    return isinstance(x, Const)


def literal_type(x) -> Type:
    """The IR type a Python constant takes when it becomes a run-time value on its own."""
    if isinstance(x, bool):
        return i1
    if isinstance(x, int):
        for t in (i32, u32, i64, u64):
            if fits_int(x, t, allow_wrap=False):
                return t
        raise CompileError(f"integer constant {x} does not fit in 64 bits")
    if isinstance(x, float):
        return f64 if math.isfinite(x) and abs(x) > F32_MAX else f32
    raise CompileError(f"{describe(x)} is not a number")


def describe(x) -> str:
    """A short description of a frontend value for messages."""
    if isinstance(x, Value):
        return f"a value of type {x.type}"
    if isinstance(x, Const):
        return f"the constant {x!r}"
    if isinstance(x, Type):
        return f"the type {x}"
    return getattr(x, "description", type(x).__name__)


def _kind(t: Type) -> int:
    return 2 if t.is_float() else 0 if t.is_bool() else 1


def _const_kind(x) -> int:
    return 0 if isinstance(x, bool) else 1 if isinstance(x, int) else 2


def promote_types(a: Type, b: Type) -> Type:
    """The common scalar type of two run-time operands' element types."""
    if a == b:
        return a
    ka, kb = _kind(a), _kind(b)
    if (is_fp8(a) and kb != 2) or (is_fp8(b) and ka != 2):
        raise CompileError(f"cannot combine {a} and {b}: Triton rejects fp8 with integers "
                           "(convert one of them with .to(...))")
    if ka != kb:
        wins = a if ka > kb else b
        return f32 if wins == bf16 else wins     # Triton: bf16 meets only bf16 in bf16, anything else in f32
    if ka == 2:   # Triton's order: f64, f32, f16; bf16 with an fp8 is f32; two fp8 formats are f16
        for t in (f64, f32, f16):
            if t in (a, b):
                return t
        return f32 if bf16 in (a, b) else f16
    if a.width != b.width:
        return a if a.width > b.width else b
    return b if a.signed else a  # same width, one unsigned: unsigned wins


def _elem(x: FValue) -> Type:
    return x.type.element_type


def is_ptr(x) -> bool:
    return isinstance(x, Value) and x.type.is_ptr()


# Python operators for constexpr folding, and the ops for run-time values:
# name -> (symbol, python function, signed-int op, unsigned-int op, float op)
_BINARY: Dict[str, Tuple[str, Callable, Optional[type], Optional[type], Optional[type]]] = {
    "add": ("+", operator.add, ops.AddIOp, ops.AddIOp, ops.AddFOp),
    "sub": ("-", operator.sub, ops.SubIOp, ops.SubIOp, ops.SubFOp),
    "mul": ("*", operator.mul, ops.MulIOp, ops.MulIOp, ops.MulFOp),
    "truediv": ("/", operator.truediv, None, None, ops.DivFOp),
    "floordiv": ("//", operator.floordiv, ops.DivSIOp, ops.DivUIOp, None),
    "mod": ("%", operator.mod, ops.RemSIOp, ops.RemUIOp, ops.RemFOp),
    "and": ("&", operator.and_, ops.AndIOp, ops.AndIOp, None),
    "or": ("|", operator.or_, ops.OrIOp, ops.OrIOp, None),
    "xor": ("^", operator.xor, ops.XOrIOp, ops.XOrIOp, None),
    "lshift": ("<<", operator.lshift, ops.ShLIOp, ops.ShLIOp, None),
    "rshift": (">>", operator.rshift, ops.ShRSIOp, ops.ShRUIOp, None),
    "minimum": ("minimum", min, ops.MinSIOp, ops.MinUIOp, ops.MinNumFOp),
    "maximum": ("maximum", max, ops.MaxSIOp, ops.MaxUIOp, ops.MaxNumFOp),
    # the high 32 bits of the 64-bit unsigned product, whatever the operands' signedness (tl.umulhi)
    "mulhi": ("umulhi", lambda a, b: ((a & 0xFFFFFFFF) * (b & 0xFFFFFFFF)) >> 32, ops.MulHiUIOp, ops.MulHiUIOp, None),
}

# name -> (symbol, python function, signed predicate, unsigned predicate, float predicate)
_COMPARE = {
    "lt": ("<", operator.lt, "slt", "ult", "olt"),
    "le": ("<=", operator.le, "sle", "ule", "ole"),
    "gt": (">", operator.gt, "sgt", "ugt", "ogt"),
    "ge": (">=", operator.ge, "sge", "uge", "oge"),
    "eq": ("==", operator.eq, "eq", "eq", "oeq"),
    "ne": ("!=", operator.ne, "ne", "ne", "une"),
}


class Semantic:
    """Builds typed IR for Triton operations on frontend values."""

    def __init__(self, builder: Builder, lowering: Optional[LoweringContext] = None):
        self.builder = builder
        # the visitor lowering the function, for builtins that call @triton.jit functions (tl.reduce's
        # combine_fn); None when the typing rules are used on their own
        self.lowering = lowering

    def emit(self, op) -> Value:
        self.builder.insert(op)
        return op.result if op.results else None

    # ------------------------------------------------------------------ values and casts

    def constant(self, x, elem: Type) -> Value:
        """A scalar IR constant of type ``elem`` holding the Python value ``x``."""
        if elem.is_ptr():
            raise CompileError(f"cannot use {describe(x)} as a pointer")
        if elem.is_float():
            value = float(x)
            self._check_range(x, value, elem)
            if is_fp8(elem):
                from mtiacc.ir import fp8
                value = fp8.round_to(value, elem)
        elif elem.is_bool():
            value = bool(x)
        else:
            value = int(x)
            if not fits_int(value, elem):
                raise CompileError(f"constant {value} does not fit in {elem}")
            value = normalize_int(value, elem)
        return self.emit(ops.ConstantOp.get(value, elem))

    def _check_range(self, x, value: float, elem: Type) -> None:
        """Warn of a finite constant that becomes infinite in ``elem`` (``1e39`` in an fp32 expression)."""
        limit = _OVERFLOW.get(elem)
        if limit is not None and math.isfinite(value) and abs(value) >= limit:
            warn(f"the constant {x!r} is outside the range of {triton_type_name(elem)} (largest finite value "
                 f"{_LARGEST[elem]:.6g}): "
                 f"it becomes {'-' if value < 0 else ''}inf", self.builder.loc,
                 notes=["write it as float('inf') if that is meant, or compute in a wider type (.to(tl.float64))"])

    def materialize(self, x: FValue) -> Value:
        """A run-time value for ``x`` (a constexpr takes its literal type)."""
        return x if isinstance(x, Value) else self.constant(x, literal_type(x))

    def to_type(self, x: FValue, elem: Type) -> Value:
        """``x`` converted to element type ``elem`` (shape kept)."""
        return self.cast(x, elem) if isinstance(x, Value) else self.constant(x, elem)

    def cast(self, v: Value, dst: Type, bitcast: bool = False) -> Value:
        """``v.to(dst)``: Triton's conversions between scalar types, element-wise."""
        src = v.type.element_type
        if src == dst:
            return v
        if bitcast:
            sw = 64 if src.is_ptr() else src.width
            dw = 64 if dst.is_ptr() else dst.width
            if sw != dw:
                raise CompileError(f"cannot bitcast {src} to {dst}: they have different widths")
            return self.emit(ops.BitcastOp.get(v, dst))
        if src.is_ptr() or dst.is_ptr():
            if src.is_ptr() and dst.is_ptr():
                return self.emit(ops.BitcastOp.get(v, dst))
            if src.is_ptr() and dst.is_int() and not dst.is_bool() and dst.width == 64:    # Triton's ptr_to_int
                return self.emit(ops.BitcastOp.get(v, dst))
            if src.is_ptr() and dst.is_bool():              # Triton: the address != 0
                return self.compare("ne", self.cast(v, i64), 0)
            if src.is_int() and dst.is_ptr():               # Triton's int_to_ptr: the address, zero-extended
                if src.width < 64:
                    v = self.emit(ops.ExtUIOp.get(v, i64))
                return self.emit(ops.BitcastOp.get(v, dst))
            raise CompileError(f"casting between pointers and numbers ({src} to {dst}) is not supported")
        if is_fp8(src) or is_fp8(dst):
            return self._cast_fp8(v, src, dst)
        if dst.is_bool():  # Triton: x.to(int1) is x != 0
            return self.compare("ne", v, 0)
        if src.is_int() and dst.is_int():
            if dst.width > src.width:
                signed = src.signed and not src.is_bool()
                return self.emit((ops.ExtSIOp if signed else ops.ExtUIOp).get(v, dst))
            if dst.width < src.width:
                return self.emit(ops.TruncIOp.get(v, dst))
            return self.emit(ops.BitcastOp.get(v, dst))  # same width, other signedness
        if src.is_int():
            signed = src.signed and not src.is_bool()
            return self.emit((ops.SIToFPOp if signed else ops.UIToFPOp).get(v, dst))
        if dst.is_int():
            return self.emit((ops.FPToSIOp if dst.signed else ops.FPToUIOp).get(v, dst))
        if dst.width > src.width:
            return self.emit(ops.ExtFOp.get(v, dst))
        if dst.width < src.width:
            return self.emit(ops.TruncFOp.get(v, dst))
        wide = self.emit(ops.ExtFOp.get(v, f32))  # f16 <-> bf16 goes through f32
        return self.emit(ops.TruncFOp.get(wide, dst))

    def _cast_fp8(self, v: Value, src: Type, dst: Type) -> Value:
        """Conversions with an fp8 end: only to and from floating-point types, as in Triton."""
        if not (src.is_float() and dst.is_float()):
            raise CompileError(f"cannot convert {src} to {dst}: Triton converts fp8 only to and from "
                               "floating-point types (go through tl.float32)")
        b15 = [t for t in (src, dst) if t.kind == "f8E4M3B15"]
        if b15 and (src if dst in b15 else dst) not in (f16, f32):
            raise CompileError(f"cannot convert {src} to {dst}: float8e4b15 converts only to and from "
                               "float16 and float32 (Triton's NVIDIA software conversion)")
        if src.width == dst.width:   # fp8 -> fp8: decode exactly, then one rounding
            return self.cast(self.cast(v, f32), dst)
        return self.emit((ops.ExtFOp if dst.width > src.width else ops.TruncFOp).get(v, dst))

    @staticmethod
    def _no_fp8_arith(ty: Type, what: str) -> None:
        if is_fp8(ty):
            raise CompileError(f"{what} on {ty} is not supported: Triton's backends cannot compute in fp8; "
                               "convert with .to(tl.float16) or .to(tl.float32) first")

    # ------------------------------------------------------------------ shapes

    @staticmethod
    def broadcast_shapes(sa: Sequence[int], sb: Sequence[int]) -> Tuple[int, ...]:
        sa, sb = tuple(sa), tuple(sb)
        if not sa or sa == sb:
            return sb
        if not sb:
            return sa
        if len(sa) != len(sb):  # Triton aligns the trailing dimensions: pad the shorter with 1s
            rank = max(len(sa), len(sb))
            sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
        out = []
        for a, b in zip(sa, sb):
            if a != b and 1 not in (a, b):
                raise CompileError(f"incompatible shapes {list(sa)} and {list(sb)}")
            out.append(b if a == 1 else a)
        return tuple(out)

    def broadcast_to(self, v: Value, shape: Sequence[int]) -> Value:
        shape = tuple(shape)
        if v.type.shape == shape:
            return v
        if not v.type.is_block():
            return self.emit(ops.SplatOp.get(v, shape))
        if len(v.type.shape) > len(shape) or self.broadcast_shapes(v.type.shape, shape) != shape:
            raise CompileError(f"cannot broadcast a block of shape {list(v.type.shape)} to {list(shape)}")
        from mtiacc.ir.shape_ops import ExpandDimsOp
        while len(v.type.shape) < len(shape):  # a lower rank gains leading dimensions of size 1
            v = self.emit(ExpandDimsOp.get(v, 0))
        if v.type.shape == shape:
            return v
        return self.emit(ops.BroadcastOp.get(v, shape))

    def broadcast(self, *values: Value) -> Tuple[Value, ...]:
        shape: Tuple[int, ...] = ()
        for v in values:
            shape = self.broadcast_shapes(shape, v.type.shape)
        return tuple(self.broadcast_to(v, shape) for v in values)

    # ------------------------------------------------------------------ typing

    def common_type(self, a: FValue, b: FValue) -> Type:
        """The element type both operands of an arithmetic operation convert to."""
        if is_const(a) and is_const(b):
            return promote_types(literal_type(a), literal_type(b))
        if is_const(a):
            a, b = b, a
        if is_const(b):
            ta = _elem(a)
            return ta if _const_kind(b) <= _kind(ta) else literal_type(b)
        return promote_types(_elem(a), _elem(b))

    def check_literals(self, a: FValue, b: FValue) -> None:
        """Triton's check of a Python integer meeting a run-time integer in a kernel's ``+``, ``<``,
        ``tl.where``, ...: it must fit the computation type itself (no wrapping: ``x_i32 * 3000000000`` is
        an error), and no negative literal meets an unsigned type.  (Internal expansions may use bit
        patterns such as ``bits & 0x80000000`` on i32: they call :meth:`binary` directly.)"""
        if is_const(a) == is_const(b) or is_ptr(a) or is_ptr(b):
            return
        for x in (a, b):   # Triton types the literal first: beyond 64 bits it is not representable
            if isinstance(x, int) and not isinstance(x, bool):
                literal_type(x)
        ty = self.common_type(a, b)
        if not ty.is_int() or ty.is_bool():
            return
        for x in (a, b):
            if isinstance(x, bool) or not isinstance(x, int):
                continue
            if x < 0 and not ty.signed:
                raise CompileError(f"cannot combine the negative constant {x} with an unsigned {ty} value; "
                                   "convert one of them explicitly")
            if not fits_int(x, ty, allow_wrap=False):
                raise CompileError(f"constant {x} is out of range for {ty}")

    def _check_operand(self, x: FValue, symbol: str) -> None:
        if isinstance(x, Value) or is_const(x):
            return
        raise CompileError(f"unsupported operand for `{symbol}`: {describe(x)}")

    # ------------------------------------------------------------------ operations

    def binary(self, name: str, a: FValue, b: FValue) -> FValue:
        symbol, pyfn, sop, uop, fop = _BINARY[name]
        self._check_operand(a, symbol)
        self._check_operand(b, symbol)
        if is_const(a) and is_const(b):
            try:
                return pyfn(a, b)
            except ZeroDivisionError:
                raise CompileError("division by zero in a constant expression") from None
            except (ValueError, OverflowError, TypeError) as e:
                raise CompileError(f"cannot compute {a!r} {symbol} {b!r}: {e}") from None
        if is_ptr(a) or is_ptr(b):
            if name in ("add", "sub"):
                return self._pointer_arith(name, a, b)
            raise CompileError(f"`{symbol}` is not defined for pointers")
        ty = self.common_type(a, b)
        if name == "truediv" and ty.is_int():
            ty = f32
        if name in ("truediv", "mod") and (ty in (f16, bf16) or is_fp8(ty)):
            ty = f32   # Triton: / and % with a float operand narrower than f32 compute in f32
        if is_fp8(ty) and name in ("minimum", "maximum"):   # exact through f32
            wide = self.binary(name, self.cast(a, f32) if isinstance(a, Value) else a,
                               self.cast(b, f32) if isinstance(b, Value) else b)
            return self.cast(wide, ty)
        self._no_fp8_arith(ty, f"`{symbol}`")
        signed = ty.is_int() and ty.signed and not ty.is_bool()
        if name == "rshift" and ty.is_int() and not ty.is_bool():
            # Triton: arithmetic or logical by the signedness of the tensor operand as written (the left one,
            # else the right), not of the common type: int8 >> uint8 shifts in uint8 but arithmetically
            t = (a if isinstance(a, Value) else b).type.element_type
            signed = t.is_int() and t.signed and not t.is_bool()
        cls = fop if ty.is_float() else (sop if signed else uop)
        if cls is None:
            need = "floating-point" if name == "truediv" else "integer"
            raise CompileError(f"`{symbol}` needs {need} operands, got {ty}")
        a, b = self.broadcast(self.to_type(a, ty), self.to_type(b, ty))
        if ty.is_bool() and name in ("floordiv", "mod", "lshift", "rshift"):
            return self._bool_divide_or_shift(name, a, b)
        if name == "mod" and ty.is_float():  # C fmod, expanded to exact integer arithmetic
            return self.fmod(a, b)
        if ty == bf16:  # bf16 arithmetic: compute in f32 and round back (as Triton's backends do)
            wide = self.emit(cls.get(self.cast(a, f32), self.cast(b, f32)))
            return self.cast(wide, bf16)
        return self.emit(cls.get(a, b))

    def fmod(self, a: Value, b: Value) -> Value:
        """``a % b`` on floats of one type (C ``fmod``: exact, the sign of ``a``), as integer ops on f32 bits.

        With ``|a| = ma * 2**(ea - 150)`` and ``|b| = mb * 2**(eb - 150)`` (24-bit significands, subnormals
        with exponent 1), ``|a| % |b| = (ma * 2**(ea - eb) mod mb) * 2**(eb - 150)``; the power of two is
        applied 39 bits at a time in u64 (8 steps cover every exponent difference)."""
        ty = a.type.element_type
        if any(v.type.element_type == f64 for v in (a, b)):
            return self._fmod64(self.cast(a, f64), self.cast(b, f64))
        x = self.cast(a, f32)
        xb = self.cast(x, u32, bitcast=True)
        ax = self.binary("and", xb, 0x7FFFFFFF)
        ay = self.binary("and", self.cast(self.cast(b, f32), u32, bitcast=True), 0x7FFFFFFF)

        def parts(bits):
            e = self.binary("rshift", bits, 23)
            m = self.binary("and", bits, 0x7FFFFF)
            m = self.where(self.compare("ne", e, 0), self.binary("or", m, 0x800000), m)
            return self.cast(self.binary("maximum", e, 1), i32), self.cast(m, u64)

        ex, mx = parts(ax)
        ey, my = parts(ay)
        my = self.binary("maximum", my, 1)           # b == 0 gives NaN below; no division by zero
        d = self.binary("sub", ex, ey)
        r = mx
        for _ in range(8):
            k = self.binary("minimum", self.binary("maximum", d, 0), 39)
            r = self.binary("mod", self.binary("lshift", r, self.cast(k, u64)), my)
            d = self.binary("sub", d, k)
        scale = self.cast(self.binary("lshift", self.cast(ey, u32), 23), f32, bitcast=True)
        mag = self.binary("mul", self.binary("mul", self.cast(r, f32), 2.0 ** -23), scale)
        sign = self.binary("and", xb, 0x80000000)
        res = self.cast(self.binary("or", self.cast(mag, u32, bitcast=True), sign), f32, bitcast=True)
        res = self.where(self.compare("lt", ax, ay), x, res)
        bad = self.binary("or", self.binary("or", self.compare("eq", ay, 0), self.compare("ge", ax, 0x7F800000)),
                          self.compare("gt", ay, 0x7F800000))
        return self.cast(self.where(bad, float("nan"), res), ty)

    def _fmod64(self, x: Value, y: Value) -> Value:
        """float64 ``x % y`` (C ``fmod``), as :meth:`fmod` does f32 but with 53-bit significands: the power of two
        is applied 11 bits at a time (``r << 11`` stays in u64), in an ``scf.for`` whose trip count is the block's
        largest exponent difference / 11 (up to 186 for subnormal ``y``)."""
        xb = self.cast(x, u64, bitcast=True)
        ax = self.binary("and", xb, 0x7FFFFFFFFFFFFFFF)
        ay = self.binary("and", self.cast(y, u64, bitcast=True), 0x7FFFFFFFFFFFFFFF)

        def parts(bits):
            e = self.binary("rshift", bits, 52)
            m = self.binary("and", bits, (1 << 52) - 1)
            m = self.where(self.compare("ne", e, 0), self.binary("or", m, 1 << 52), m)
            return self.cast(self.binary("maximum", e, 1), i32), m

        ex, mx = parts(ax)
        ey, my = parts(ay)
        my = self.binary("maximum", my, 1)           # y == 0 gives NaN below; no division by zero
        d = self.binary("sub", ex, ey)
        r = self.binary("mod", mx, my)
        dmax = d
        if d.type.is_block():
            flat = self.emit(ReshapeOp.get(d, (d.type.numel,))) if len(d.type.shape) > 1 else d
            dmax = self.emit(ReduceOp.get(flat, 0, "max"))
        trips = self.binary("floordiv", self.binary("add", self.binary("maximum", dmax, 0), 10), 11)
        loop = scf.ForOp.get(self.constant(0, i32), trips, self.constant(1, i32), [r, d], arg_names=["_", "r", "d"])
        saved = self.builder.block
        self.builder.block = loop.block
        try:
            _, rr, dd = loop.block.args
            k = self.binary("minimum", self.binary("maximum", dd, 0), 11)
            rr = self.binary("mod", self.binary("lshift", rr, self.cast(k, u64)), my)
            self.builder.insert(scf.YieldOp.get([rr, self.binary("sub", dd, k)]))
        finally:
            self.builder.block = saved
        self.builder.insert(loop)
        r = loop.results[0]
        scale = self.cast(self.binary("lshift", self.cast(ey, u64), 52), f64, bitcast=True)   # 2**(ey - 1023)
        mag = self.binary("mul", self.binary("mul", self.cast(r, f64), 2.0 ** -52), scale)   # exact: r < 2**53
        sign = self.binary("and", xb, 0x8000000000000000)
        res = self.cast(self.binary("or", self.cast(mag, u64, bitcast=True), sign), f64, bitcast=True)
        res = self.where(self.compare("lt", ax, ay), x, res)
        bad = self.binary("or", self.binary("or", self.compare("eq", ay, 0), self.compare("ge", ax, 0x7FF0000000000000)),
                          self.compare("gt", ay, 0x7FF0000000000000))
        return self.where(bad, float("nan"), res)

    def _bool_divide_or_shift(self, name: str, a: Value, b: Value) -> Value:
        """``//``, ``%``, ``<<``, ``>>`` on int1 at one bit, as Triton computes them (dividing by 0 is
        undefined): ``a // b == a & b``, ``a % b == 0``, a shift by 1 clears the bit: ``a & ~b``."""
        if name == "floordiv":
            return self.emit(ops.AndIOp.get(a, b))
        if name == "mod":
            return self.broadcast_to(self.constant(False, a.type.element_type), a.type.shape)
        not_b = self.emit(ops.XOrIOp.get(b, self.broadcast_to(self.constant(True, b.type.element_type),
                                                               b.type.shape)))
        return self.emit(ops.AndIOp.get(a, not_b))

    def _pointer_arith(self, name: str, a: FValue, b: FValue) -> Value:
        if is_ptr(a) and is_ptr(b):
            raise CompileError(f"cannot {'add' if name == 'add' else 'subtract'} two pointers")
        if not is_ptr(a):
            if name == "sub":
                raise CompileError("cannot subtract a pointer from a number")
            a, b = b, a
        offset = b if isinstance(b, Value) else self.materialize(b)
        if not offset.type.is_int():
            raise CompileError(f"pointer offsets must be integers, got {offset.type.element_type}")
        if name == "sub":
            offset = self.unary("neg", offset)
        ptr, offset = self.broadcast(a, offset)
        return self.emit(ops.AddPtrOp.get(ptr, offset))

    def compare(self, name: str, a: FValue, b: FValue) -> FValue:
        symbol, pyfn, spred, upred, fpred = _COMPARE[name]
        self._check_operand(a, symbol)
        self._check_operand(b, symbol)
        if is_const(a) and is_const(b):
            return pyfn(a, b)
        if is_ptr(a) or is_ptr(b):
            raise CompileError(f"comparing pointers with `{symbol}` is not supported yet")
        ty = self.common_type(a, b)
        self._no_fp8_arith(ty, f"`{symbol}`")
        a, b = self.broadcast(self.to_type(a, ty), self.to_type(b, ty))
        if ty == bf16:  # exact in f32
            a, b = self.cast(a, f32), self.cast(b, f32)
        if ty.is_float():
            return self.emit(ops.CmpFOp.get(fpred, a, b))
        pred = spred if ty.signed and not ty.is_bool() else upred
        return self.emit(ops.CmpIOp.get(pred, a, b))

    def unary(self, name: str, x: FValue) -> FValue:
        symbol = {"neg": "-", "pos": "+", "invert": "~", "not": "not"}[name]
        self._check_operand(x, symbol)
        if is_const(x):
            if name == "not":
                return not x
            if name == "invert" and isinstance(x, float):
                raise CompileError("`~` needs an integer operand, got a float constant")
            return {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert}[name](x)
        t = x.type.element_type
        if t.is_ptr():
            raise CompileError(f"`{symbol}` is not defined for pointers")
        if name == "pos":
            return x
        if name == "not":
            raise CompileError("`not` on a run-time value is not supported yet (use `x == 0`)")
        if name == "neg":
            self._no_fp8_arith(t, "`-`")
            if t == bf16:
                return self.cast(self.emit(ops.NegFOp.get(self.cast(x, f32))), bf16)
            if t.is_float():
                return self.emit(ops.NegFOp.get(x))
            return self.binary("sub", self.constant(0, t), x)   # Triton: 0 of x's type, so -x keeps it
        if t.is_float():
            raise CompileError(f"`~` needs an integer operand, got {t}")
        all_ones = True if t.is_bool() else normalize_int(-1, t)
        return self.binary("xor", x, self.broadcast_to(self.constant(all_ones, t), x.type.shape))

    def where(self, cond: FValue, x: FValue, y: FValue) -> FValue:
        for v in (cond, x, y):
            self._check_operand(v, "tl.where")
        if is_const(cond) and is_const(x) and is_const(y):
            return x if cond else y
        cond = self.to_type(cond, i1)
        ty = self.common_type(x, y)
        cond, x, y = self.broadcast(cond, self.to_type(x, ty), self.to_type(y, ty))
        return self.emit(ops.SelectOp.get(cond, x, y))

    # ------------------------------------------------------------------ memory

    def _pointer(self, ptr: FValue, what: str) -> Value:
        if not is_ptr(ptr):
            raise CompileError(f"{what} needs a pointer or a block of pointers, got {describe(ptr)}")
        return ptr

    def _fit_to_pointer(self, x: FValue, ptr: Value, elem: Type, what: str) -> Value:
        """``x`` as ``elem`` with the pointer's shape (a block ``x`` needs a block pointer)."""
        v = self.to_type(x, elem)
        if v.type.is_block() and not ptr.type.is_block():
            raise CompileError(f"{what} cannot be a block when the pointer is a scalar")
        return self.broadcast_to(v, ptr.type.shape)

    def _mask(self, mask: Optional[FValue], ptr: Value) -> Optional[Value]:
        if mask is None:
            return None
        if isinstance(mask, Value) and not mask.type.is_bool():
            raise CompileError(f"the mask must be a boolean (i1) value, got {mask.type}")
        if is_const(mask) and not isinstance(mask, bool):
            raise CompileError(f"the mask must be a boolean, got {describe(mask)}")
        return self._fit_to_pointer(mask, ptr, i1, "the mask")

    def load(self, ptr: FValue, mask: Optional[FValue] = None, other: Optional[FValue] = None,
             volatile: bool = False) -> Value:
        ptr = self._pointer(ptr, "tl.load")
        elem = ptr.type.element_type.pointee
        mask_v = self._mask(mask, ptr)
        other_v = None
        if other is not None:
            if mask is None:
                raise CompileError("`other` cannot be provided without `mask`")
            other_v = self._fit_to_pointer(other, ptr, elem, "`other`")
        attrs = {"volatile": True} if volatile else None
        if elem.is_bool():
            return self._load_bool(ptr, mask_v, other_v, attrs)
        return self.emit(ops.LoadOp.get(ptr, mask_v, other_v, attrs=attrs))

    def _load_bool(self, ptr: Value, mask: Optional[Value], other: Optional[Value], attrs) -> Value:
        """A load through a pointer to i1, as Triton does it: the bytes through a pointer to i8, each compared
        with zero, so a byte other than 0 or 1 (a bool view of bytes) reads as true.  ``carry-pointer-offsets``
        moves the ``tt.bitcast`` to the scalar base."""
        ptr8 = self.emit(ops.BitcastOp.get(ptr, PointerType(i8)))
        other8 = self.emit(ops.ExtUIOp.get(other, i8)) if other is not None else None
        return self.compare("ne", self.emit(ops.LoadOp.get(ptr8, mask, other8, attrs=attrs)), 0)

    def store(self, ptr: FValue, value: FValue, mask: Optional[FValue] = None) -> None:
        ptr = self._pointer(ptr, "tl.store")
        self._check_operand(value, "tl.store")
        elem = ptr.type.element_type.pointee
        value_v = self._fit_to_pointer(value, ptr, elem, "the stored value")
        mask_v = self._mask(mask, ptr)
        self.emit(ops.StoreOp.get(ptr, value_v, mask_v))

# ----------------------------------------------------------------------------------------------------
# ``x.to(dtype, fp_downcast_rounding=...)``: Triton's explicit rounding of float narrowing.
# 
# ``"rtne"`` is the default rounding, so it is an ordinary conversion.  ``"rtz"`` (round toward zero) is,
# among the conversions mtiacc supports, what Triton's NVIDIA backend does from float32 to float8e5 (its
# only fp8 conversion accepting it): float32 -> float16 toward zero (``cvt.rz.f16.f32``: finite values
# beyond f16 become 65504, NaN the canonical 0x7FFF), then the f16 pattern's top byte.  On the f32 bits
# that is a truncation to the e5 grid: finite values at or beyond 57344 give 0x7B (57344), infinities stay
# infinite (0x7C/0xFC), NaN is 0x7F, and values below the smallest subnormal are signed zeros.  It is built
# here from integer operations on the bits (no new IR op).  Other ``"rtz"`` conversions are errors.

def rounding_cast(sem: Semantic, v, dst: Type, mode) -> object:
    """``v.to(dst, fp_downcast_rounding=mode)`` (``v`` a run-time value)."""
    if mode not in ("rtne", "rtz"):
        raise CompileError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {mode!r}")
    src = v.type.element_type
    if not (src.is_float() and dst.is_float() and dst.width < src.width):
        raise CompileError(f"fp_downcast_rounding applies only to narrowing float conversions, "
                           f"not {src} to {dst} (as in Triton)")
    if mode == "rtne":
        return sem.cast(v, dst)
    if dst == f8e5 and src == f32:
        return _f32_to_e5_rtz(sem, v)
    if is_fp8(dst):
        raise CompileError(f"fp_downcast_rounding='rtz' from {src} to {dst} is not supported: Triton's backends "
                           "accept it for fp8 only from float32 to float8e5")
    raise CompileError(f"fp_downcast_rounding='rtz' from {src} to {dst} is not supported yet")


def _f32_to_e5_rtz(sem: Semantic, v):
    bits = sem.cast(v, u32, bitcast=True)
    a = sem.binary("and", bits, 0x7FFFFFFF)
    normal = sem.binary("sub", sem.binary("rshift", a, 21), (127 - 15) << 2)      # rebias, drop 21 bits
    scaled = sem.binary("mul", sem.cast(a, f32, bitcast=True), 65536.0)           # subnormals: |x| / 2**-16
    code = sem.where(sem.compare("lt", a, 0x38800000), sem.cast(scaled, u32), normal)
    code = sem.binary("minimum", code, 0x7B)                                       # finite overflow: 57344
    code = sem.where(sem.compare("eq", a, 0x7F800000), 0x7C, code)                 # infinities stay
    code = sem.binary("or", code, sem.binary("and", sem.binary("rshift", bits, 24), 0x80))
    code = sem.where(sem.compare("gt", a, 0x7F800000), 0x7F, code)                 # NaN (no sign)
    return sem.cast(sem.cast(code, u8), f8e5, bitcast=True)
