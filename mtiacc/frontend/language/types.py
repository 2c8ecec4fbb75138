"""Triton's type classes and the attributes of types, for kernels that inspect types at compile time.

``tl.tensor``, ``tl.dtype``, ``tl.block_type``, ``tl.pointer_type`` and ``tl.tuple`` are
:class:`TypeClass` objects: they can be called where Triton lets kernels call them
(``tl.pointer_type(tl.float16)``, ``tl.block_type(tl.float32, [4])``, ``tl.tuple((a, b))``,
``tl.dtype("fp32")``), tested with ``isinstance`` and written as annotations.  As in Triton:

* every run-time value (scalar or block) is a ``tl.tensor``; constexprs are not;
* ``tl.dtype`` is the class of every type, ``tl.pointer_type`` and ``tl.block_type`` its subclasses
  (so ``isinstance(x.type, tl.dtype)`` holds for a block's type too);
* ``x.dtype`` is the element type (a pointer type for blocks of pointers), ``x.type`` the block
  type of a block, the scalar type of a scalar.

The attributes of a type (``x.dtype.is_floating()``, ``.primitive_bitwidth``, ``.element_ty``,
``.scalar``, ``x.type.shape``, ...) are Triton's.  The ``is_*`` predicates of element kinds test
the type itself, so they are false on block and pointer types (Triton's names those types
differently): ``x.type.is_floating()`` is false for a float block, ``x.dtype.is_floating()`` true.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Optional

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.core import DTYPES
from mtiacc.frontend.language.semantic import describe, is_const
from mtiacc.frontend.values import CONSTEXPR, Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.types import FloatType, FunctionType, IntType, PointerType, Type, block_of

# Triton's dtype names (``tl.float32.name == "fp32"``) by our IR's spelling.
_FLOAT_NAMES = {"f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64", "f8E4M3FN": "fp8e4nv",
                "f8E5M2": "fp8e5", "f8E4M3B15": "fp8e4b15", "f8E4M3FNUZ": "fp8e4b8", "f8E5M2FNUZ": "fp8e5b16"}
_MANTISSA = {"fp16": (10, 15), "bf16": (7, 127), "fp32": (23, 127), "fp64": (52, 1023), "fp8e4nv": (3, 7),
             "fp8e5": (2, 15), "fp8e4b15": (3, 15), "fp8e4b8": (3, 8), "fp8e5b16": (2, 16)}


@dataclasses.dataclass(frozen=True)
class TypeClass(Builtin):
    """A Triton class a kernel may call, test with ``isinstance`` or use as an annotation."""

    check: Optional[Callable] = None

    @property
    def description(self) -> str:
        return f"the class `{self.qualname}`"


@dataclasses.dataclass(frozen=True)
class ConstexprType:
    """Triton's ``constexpr_type``: the ``.type`` of a compile-time constant (a literal, a ``tl.constexpr``
    parameter or name), equal to another exactly when the values are equal (``(10).type == N.type`` for
    ``N = 10``); a tuple's ``.type`` is the tuple of its elements' types."""

    value: object

    @property
    def description(self) -> str:
        return f"constexpr_type[{self.value!r}]"


def constexpr_type_of(x):
    """``x.type`` of a constant ``x`` or a tuple of constants."""
    if isinstance(x, (tuple, list)):
        return tuple(constexpr_type_of(v) for v in x)
    return ConstexprType(x)


def _constexpr_type(sem, value):
    return ConstexprType(value)


def dtype_name(t: Type) -> Optional[str]:
    """Triton's name of a scalar type (``int32``, ``uint8``, ``fp16``); None for other types."""
    if isinstance(t, IntType):
        return "int1" if t.width == 1 else f"{'' if t.signed else 'u'}int{t.width}"
    if isinstance(t, FloatType):
        return _FLOAT_NAMES.get(t.kind)
    return None


def is_type_value(x) -> bool:
    return isinstance(x, Type) and not isinstance(x, FunctionType)


# --------------------------------------------------------------------------- the classes

def _tensor(sem, *args, **kwargs):
    raise CompileError("tl.tensor cannot be constructed in a kernel; values come from tl.* functions")


def _dtype(sem, name):
    """``tl.dtype("fp32")``: the scalar type of that Triton name."""
    for t in DTYPES.values():
        if dtype_name(t) == name:
            return t
    raise CompileError(f"tl.dtype: unknown type name {name!r}")


def _block_type(sem, element_ty, shape):
    """``tl.block_type(tl.float32, [4, 8])``: a block type (to compare with ``x.type``)."""
    if not is_type_value(element_ty) or element_ty.is_block():
        raise CompileError(f"tl.block_type needs a scalar type, got {describe(element_ty)}")
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else None
    if not dims or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
        raise CompileError(f"tl.block_type needs a non-empty shape of positive integers, got {describe(shape)}")
    return block_of(element_ty, dims)


def _tuple(sem, args=(), type=None):
    """``tl.tuple((a, b))``: the tuple itself (Triton 3's tuples are Python tuples here)."""
    if not isinstance(args, (tuple, list)):
        raise CompileError(f"tl.tuple needs a tuple, got {describe(args)}")
    return tuple(args)


def _pointer_type(sem, element_ty, address_space="global", const=False):
    """The type ``*element_ty`` (for parameter annotations and comparisons)."""
    if not is_type_value(element_ty) or element_ty.is_block():
        raise CompileError(f"expected a data type such as tl.float32, got {describe(element_ty)}")
    return PointerType(element_ty)


CLASSES: Dict[str, TypeClass] = {
    "tensor": TypeClass("tl.tensor", _tensor, lambda x: isinstance(x, Value)),
    "dtype": TypeClass("tl.dtype", _dtype, is_type_value),
    "block_type": TypeClass("tl.block_type", _block_type, lambda x: is_type_value(x) and x.is_block()),
    "pointer_type": TypeClass("tl.pointer_type", _pointer_type, lambda x: isinstance(x, PointerType)),
    "tuple": TypeClass("tl.tuple", _tuple, lambda x: isinstance(x, tuple)),
    "constexpr_type": TypeClass("tl.constexpr_type", _constexpr_type, lambda x: isinstance(x, ConstexprType)),
}


def isinstance_(sem, obj, classinfo):
    """``isinstance(x, tl.tensor)``, ``isinstance(t, tl.pointer_type)``, ``isinstance(N, tl.constexpr)``,
    ``isinstance(n, int)``, or a tuple of those: a compile-time bool."""
    if isinstance(classinfo, tuple):
        return any(isinstance_(sem, obj, c) for c in classinfo)
    if isinstance(classinfo, TypeClass):
        return bool(classinfo.check(obj))
    if classinfo is CONSTEXPR:  # constexpr arguments and literals: numbers, strings, None
        return is_const(obj) or obj is None or isinstance(obj, str)
    python = {"int": int, "float": float, "bool": bool}
    if isinstance(classinfo, Builtin) and classinfo.qualname in python:
        return is_const(obj) and isinstance(obj, python[classinfo.qualname])
    raise CompileError(f"isinstance() needs a class such as tl.tensor, tl.dtype or tl.constexpr, got "
                       f"{describe(classinfo)}")


# --------------------------------------------------------------------------- attributes of types

def _predicates(t: Type) -> Dict[str, bool]:
    name = dtype_name(t)
    ints = name is not None and "int" in name
    out = {
        "is_floating": name is not None and not ints,
        "is_standard_floating": name in ("fp16", "bf16", "fp32", "fp64"),
        "is_int": ints,
        "is_int_signed": ints and name.startswith("int") and name != "int1",
        "is_int_unsigned": ints and (name.startswith("uint") or name == "int1"),
        "is_bool": name == "int1",
        "is_fp8": name is not None and name.startswith("fp8"),
        "is_block": t.is_block(),
        "is_ptr": isinstance(t, PointerType),
        "is_const": False,
        "is_void": False,
    }
    for n in ("fp8e4nv", "fp8e4b8", "fp8e4b15", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64",
              "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        out[f"is_{n}"] = name == n
    return out


def _int_limit(t: Type, which: str):
    name = dtype_name(t)
    if name is None or "int" not in name:
        raise CompileError(f"get_int_{which}_value() needs an integer type, got {t}")
    w, signed = t.width, name.startswith("int") and name != "int1"
    if which == "max":
        return (1 << (w - 1)) - 1 if signed else (1 << w) - 1
    return -(1 << (w - 1)) if signed else 0


def _method(qualname: str, result) -> Builtin:
    def impl(sem):
        return result() if callable(result) else result
    return Builtin(qualname, impl)


def type_attr(t: Type, attr: str, spelled: str):
    """``t.attr`` for a type ``t`` (``x.dtype.is_floating``, ``x.type.shape``, ``p.dtype.element_ty``)."""
    preds = _predicates(t)
    if attr in preds:
        return _method(spelled, preds[attr])
    if attr in ("get_int_max_value", "get_int_min_value"):
        return _method(spelled, lambda: _int_limit(t, attr[8:11]))
    if attr == "with_element_ty":
        return Builtin(spelled, lambda sem, element_ty: t.with_element(element_ty))
    name = dtype_name(t)
    if attr == "scalar":
        return t.element_type if t.is_block() else t
    if attr == "name":
        if name is not None:
            return name
        return f"pointer<{dtype_name(t.pointee)}>" if isinstance(t, PointerType) else str(t)
    if t.is_block():
        if attr == "element_ty":
            return t.element_type
        if attr in ("shape", "get_block_shapes"):
            shape = tuple(t.shape)
            return shape if attr == "shape" else _method(spelled, shape)
        if attr == "numel":
            return t.numel
        if attr == "nbytes":
            return t.numel * t.element_type.bytes
    elif isinstance(t, PointerType):
        if attr == "element_ty":
            return t.pointee
        if attr == "address_space":
            return "global"
        if attr == "primitive_bitwidth":
            return 64
    elif name is not None:
        if attr == "primitive_bitwidth":
            return t.width
        if attr == "itemsize":
            return t.bytes
        if attr == "int_bitwidth" and isinstance(t, IntType):
            return t.width
        if attr in ("fp_mantissa_width", "exponent_bias") and name in _MANTISSA:
            return _MANTISSA[name][attr == "exponent_bias"]
    raise CompileError(f"`{spelled}`: the type {t} has no attribute '{attr}' here")
