"""IR types: scalars (int, float), pointers, blocks (tensors).

Types are immutable and hashable; compare them with ``==``.  Text forms follow Triton's MLIR
dialect: ``i32``, ``u8``, ``f32``, ``bf16``, ``!tt.ptr<f32>``, ``tensor<256xf32>``.
"""
from __future__ import annotations

import dataclasses
from typing import Tuple


class Type:
    """Base class of every IR type."""

    @property
    def element_type(self) -> "Type":
        return self

    @property
    def shape(self) -> Tuple[int, ...]:
        return ()

    def is_block(self) -> bool:
        return False

    def is_int(self) -> bool:
        return isinstance(self.element_type, IntType)

    def is_float(self) -> bool:
        return isinstance(self.element_type, FloatType)

    def is_ptr(self) -> bool:
        return isinstance(self.element_type, PointerType)

    def is_bool(self) -> bool:
        e = self.element_type
        return isinstance(e, IntType) and e.width == 1

    def with_element(self, elem: "Type") -> "Type":
        """This type's shape with another element type."""
        return elem


@dataclasses.dataclass(frozen=True)
class IntType(Type):
    width: int
    signed: bool = True

    def __post_init__(self):
        if self.width not in (1, 8, 16, 32, 64):
            raise ValueError(f"unsupported integer width {self.width}")

    @property
    def bytes(self) -> int:
        return max(self.width // 8, 1)

    def __str__(self) -> str:
        if self.width == 1:
            return "i1"
        return f"{'i' if self.signed else 'u'}{self.width}"


# Triton's five 8-bit formats, spelled as MLIR spells them (f8E4M3B15 is Triton's own, MLIR has none).
FP8_KINDS = ("f8E4M3FN", "f8E5M2", "f8E4M3B15", "f8E4M3FNUZ", "f8E5M2FNUZ")
_FLOAT_WIDTHS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, **{k: 8 for k in FP8_KINDS}}


@dataclasses.dataclass(frozen=True)
class FloatType(Type):
    kind: str  # "f16", "bf16", "f32", "f64", or one of FP8_KINDS

    def __post_init__(self):
        if self.kind not in _FLOAT_WIDTHS:
            raise ValueError(f"unsupported float kind {self.kind}")

    @property
    def width(self) -> int:
        return _FLOAT_WIDTHS[self.kind]

    @property
    def is_fp8(self) -> bool:
        """One of Triton's 8-bit float formats (storage only: see mtiacc/ir/fp8.py)."""
        return self.width == 8

    @property
    def bytes(self) -> int:
        return self.width // 8

    def __str__(self) -> str:
        return self.kind


@dataclasses.dataclass(frozen=True)
class PointerType(Type):
    pointee: Type

    @property
    def bytes(self) -> int:
        return 8

    def __str__(self) -> str:
        return f"!tt.ptr<{self.pointee}>"


@dataclasses.dataclass(frozen=True)
class BlockType(Type):
    """A block (Triton tensor) of ``shape`` elements of a scalar type."""

    dims: Tuple[int, ...]
    elem: Type

    def __post_init__(self):
        if isinstance(self.elem, BlockType):
            raise ValueError("block of blocks")

    @property
    def element_type(self) -> Type:
        return self.elem

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.dims

    @property
    def numel(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    def is_block(self) -> bool:
        return True

    def with_element(self, elem: Type) -> Type:
        return BlockType(self.dims, elem)

    def __str__(self) -> str:
        return "tensor<" + "".join(f"{d}x" for d in self.dims) + f"{self.elem}>"


@dataclasses.dataclass(frozen=True)
class FunctionType(Type):
    inputs: Tuple[Type, ...]
    outputs: Tuple[Type, ...] = ()

    def __str__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        outs = ", ".join(map(str, self.outputs))
        return f"({ins}) -> ({outs})" if len(self.outputs) != 1 else f"({ins}) -> {outs}"


i1 = IntType(1)
i8, i16, i32, i64 = IntType(8), IntType(16), IntType(32), IntType(64)
u8, u16, u32, u64 = IntType(8, False), IntType(16, False), IntType(32, False), IntType(64, False)
f16, bf16, f32, f64 = FloatType("f16"), FloatType("bf16"), FloatType("f32"), FloatType("f64")
f8e4nv, f8e5, f8e4b15, f8e4b8, f8e5b16 = (FloatType(k) for k in FP8_KINDS)
FP8_TYPES = (f8e4nv, f8e5, f8e4b15, f8e4b8, f8e5b16)

SCALAR_TYPES = {str(t): t for t in (i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64) + FP8_TYPES}


def is_fp8(t: Type) -> bool:
    """Whether ``t``'s element type is one of the 8-bit float formats."""
    e = t.element_type
    return isinstance(e, FloatType) and e.is_fp8


def block_of(elem: Type, shape: Tuple[int, ...]) -> Type:
    """``elem`` itself for the scalar shape ``()``, else a block type."""
    return BlockType(tuple(shape), elem.element_type) if shape else elem.element_type


def bool_like(t: Type) -> Type:
    """The i1 type with ``t``'s shape (the result type of a comparison)."""
    return t.with_element(i1)


# Triton signature strings (``*fp32``, ``i32``) <-> IR types.
_TRITON_NAMES = {
    "i1": i1, "i8": i8, "i16": i16, "i32": i32, "i64": i64,
    "u8": u8, "u16": u16, "u32": u32, "u64": u64,
    "fp16": f16, "bf16": bf16, "fp32": f32, "fp64": f64,
    "fp8e4nv": f8e4nv, "fp8e5": f8e5, "fp8e4b15": f8e4b15, "fp8e4b8": f8e4b8, "fp8e5b16": f8e5b16,
}
_TRITON_BY_TYPE = {v: k for k, v in _TRITON_NAMES.items()}


def parse_triton_type(text: str) -> Type:
    """``*fp32`` -> ``!tt.ptr<f32>``, ``i32`` -> ``i32``. Raises ValueError on unknown names."""
    text = text.strip()
    if text.startswith("*"):
        return PointerType(parse_triton_type(text[1:]))
    if text in _TRITON_NAMES:
        return _TRITON_NAMES[text]
    raise ValueError(f"unknown type '{text}' (expected one of {', '.join(_TRITON_NAMES)}, "
                     f"or '*' followed by one for a pointer)")


def triton_type_name(t: Type) -> str:
    if isinstance(t, PointerType):
        return "*" + triton_type_name(t.pointee)
    return _TRITON_BY_TYPE[t]
