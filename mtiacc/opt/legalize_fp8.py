"""``legalize-fp8``: fp8 values become bytes for instruction selection (a legalization every compile runs).

The chip has no fp8 arithmetic, and Triton computes nothing in fp8 (the frontend rejects it), so fp8
values only move (loads, stores, ``tl.where``, shape ops, constants, bitcasts) or convert.  This pass
retypes every fp8 value as ``u8`` -- block arguments, op results, the function's signature, pointers to
fp8 as pointers to ``u8`` -- and every fp8 constant as its byte (``mtiacc/ir/fp8.py`` encodes it), so
instruction selection sees 1-byte integers.  A conversion with an fp8 end (``arith.extf`` from fp8,
``arith.truncf`` to fp8) keeps the format in its ``fp8`` attribute (``FloatCastOp``), which the verifier
checks and codegen reads to decode or encode the bytes (``mtiacc/codegen/arith/casts_fp8.py``)::

    %y = "arith.extf"(%x) : (tensor<64xf8E5M2>) -> tensor<64xf32>
    -->
    %y = "arith.extf"(%x) {fp8 = "f8E5M2"} : (tensor<64xu8>) -> tensor<64xf32>

A conversion from one fp8 format to another (the frontend never builds one: it goes through f32) is
split into two through f32, so that each conversion has one fp8 end.  A ``tt.dot`` with fp8 operands
first widens them (``arith.extf``, marked like any other) to the matrix engine's 16-bit input type that
holds every value of the format exactly (:func:`engine_type`: ``f16`` for all five formats), so the
product is the exact product of the fp8 values and the accumulator keeps its type::

    %c = "tt.dot"(%a, %b, %acc) : (tensor<32x32xf8E4M3FN>, tensor<32x32xf8E5M2>, tensor<32x32xf32>) -> ...
    -->
    %0 = "arith.extf"(%a) {fp8 = "f8E4M3FN"} : (tensor<32x32xu8>) -> tensor<32x32xf16>
    %1 = "arith.extf"(%b) {fp8 = "f8E5M2"} : (tensor<32x32xu8>) -> tensor<32x32xf16>
    %c = "tt.dot"(%0, %1, %acc) : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> ...

Ops that would compute on the bytes (arithmetic, comparisons, math, reductions, scans, printing) are
compile errors at their location.

It runs after every IR pass (the optimizations assume real float types), just before instruction selection.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import struct
from typing import List

from mtiacc.diagnostics import CompileError
from mtiacc.ir import fp8 as F8
from mtiacc.ir import ops as O
from mtiacc.ir.debug_ops import PrintOp
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import ReduceOp, ScanOp
from mtiacc.ir.types import (FP8_KINDS, BlockType, FloatType, FunctionType, PointerType, Type, bf16, f16, f32,
                              is_fp8, u8)
from mtiacc.opt.pass_manager import ModulePass, register_pass

_FP8_KINDS = frozenset(FP8_KINDS)
# Ops that would compute on the bytes: the frontend keeps fp8 out of arithmetic, these catch the rest
# (reductions, scans, printing) at the op's location.
_COMPUTING = (O.NegFOp, O.CmpFOp, O.MathFmaOp, O.MathPowFOp, O.MathUnaryOp, ReduceOp, ScanOp,
              PrintOp) + O.ELEMENTWISE_BINARY_FLOAT


def storage(t: Type) -> Type:
    """``t`` with fp8 elements (or pointees) as ``u8``."""
    if isinstance(t, BlockType):
        return BlockType(t.dims, storage(t.elem))
    if isinstance(t, PointerType):
        return PointerType(storage(t.pointee))
    if isinstance(t, FloatType) and t.is_fp8:
        return u8
    return t


def _has_fp8(t: Type) -> bool:
    """Whether :func:`storage` changes ``t`` (without building a type: most values have none)."""
    while True:
        if isinstance(t, BlockType):
            t = t.elem
        elif isinstance(t, PointerType):
            t = t.pointee
        else:
            return isinstance(t, FloatType) and t.kind in _FP8_KINDS


def _split_fp8_to_fp8(op) -> list:
    """``fp8 -> fp8`` becomes ``fp8 -> f32 -> fp8`` (decoding is exact: the one rounding stays); the new ops."""
    wide = O.ExtFOp.get(op.src, f32, loc=op.loc)
    narrow = O.TruncFOp.get(wide.result, op.result.type.element_type, loc=op.loc)
    for new in (wide, narrow):
        op.parent.insert_before(op, new)
    op.result.replace_all_uses_with(narrow.result)
    op.erase()
    return [wide, narrow]


@functools.lru_cache(maxsize=None)
def engine_type(kind: str) -> Type:
    """The matrix engine's input type for fp8 format ``kind``: ``f16`` if it holds every finite value of the
    format exactly (checked code by code), else ``bf16``.

    The engine takes f16, bf16 and int8.  f16 (5 exponent bits, 10 mantissa bits, subnormals down to
    2**-24, largest 65504) holds all five of Triton's fp8 formats: their smallest subnormals are 2**-9
    (e4m3fn), 2**-10 (e4m3fnuz), 2**-16 (e5m2) and 2**-17 (e4m3b15, e5m2fnuz), their largest values at
    most 57344.  A format with a wider exponent range would need bf16: f32's exponent range and 7
    mantissa bits hold every value of any 8-bit format with at most 7 mantissa bits."""
    for code in range(256):
        v = F8.decode(code, kind)
        if not math.isfinite(v):
            continue   # NaN and infinities exist in f16 too
        try:
            if struct.unpack("<e", struct.pack("<e", v))[0] != v:
                return bf16
        except OverflowError:
            return bf16
    return f16


def _widen_dot_operands(op: DotOp) -> list:
    """``tt.dot`` on fp8 operands: both widened (exactly) to one engine type first; the new ops."""
    kinds = [v.type.element_type.kind for v in op.operands[:2] if is_fp8(v.type)]
    wide = f16 if all(engine_type(k) == f16 for k in kinds) else bf16   # bf16 holds every fp8 value too
    new = []
    for i in (0, 1):
        v = op.operands[i]
        if is_fp8(v.type):
            ext = O.ExtFOp.get(v, wide, loc=op.loc)
            op.parent.insert_before(op, ext)
            _mark(ext)
            op.set_operand(i, ext.result)
            new.append(ext)
    return new


def _mark(op) -> None:
    """A conversion with one fp8 end: its ``fp8`` attribute names the end's format (before retyping)."""
    end = op.src.type if is_fp8(op.src.type) else op.result.type
    op.attrs["fp8"] = end.element_type.kind


def _any_fp8(ops) -> bool:
    """Whether a result or block argument of ``ops`` holds fp8 (every value is one or the other)."""
    for op in ops:
        for v in op.results:
            if _has_fp8(v.type):
                return True
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    if _has_fp8(a.type):
                        return True
    return False


def legalize_func(func: O.FuncOp) -> bool:
    """Legalize ``func`` in place; whether it had any fp8 value (else it is left as it was)."""
    walked = list(func.walk())
    if not _any_fp8(walked):   # most kernels: nothing to do, one look at each value
        return False
    ops: List = []
    for op in walked:   # first look at the original types, then retype
        if isinstance(op, O.FloatCastOp) and (is_fp8(op.src.type) or is_fp8(op.result.type)):
            if is_fp8(op.src.type) and is_fp8(op.result.type):
                new = _split_fp8_to_fp8(op)
                for c in new:
                    _mark(c)
                ops += new
                continue
            _mark(op)
        elif isinstance(op, DotOp) and (is_fp8(op.a.type) or is_fp8(op.b.type)):
            ops += _widen_dot_operands(op)
        elif isinstance(op, O.ConstantOp) and is_fp8(op.result.type):
            op.attrs["value"] = F8.encode(op.attrs["value"], op.result.type.element_type)
        elif isinstance(op, _COMPUTING) and any(is_fp8(v.type) for v in op.operands):
            t = next(v.type.element_type for v in op.operands if is_fp8(v.type))
            raise CompileError(f"`{op.name}` on {t} is not supported yet: convert to tl.float32 first",
                               loc=op.loc)
        ops.append(op)
    ft = func.function_type
    func.attrs["function_type"] = FunctionType(tuple(map(storage, ft.inputs)), tuple(map(storage, ft.outputs)))
    for op in ops:
        for v in op.results:
            if _has_fp8(v.type):
                v.type = storage(v.type)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    if _has_fp8(a.type):
                        a.type = storage(a.type)
    return True


@register_pass
@dataclasses.dataclass(frozen=True)
class LegalizeFp8(ModulePass):
    name = "legalize-fp8"

    def run(self, module: O.ModuleOp) -> bool:
        changed = False
        for f in module.funcs:
            changed |= legalize_func(f)
        return changed
