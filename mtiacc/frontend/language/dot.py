"""``tl.dot`` (and ``a @ b``): the matrix product, typed as Triton 3 types it (``tl.dot_scaled`` is in ``dot_scaled``).

Same conventions as :mod:`mtiacc.frontend.language.shapes`.  The rules are those of Triton's
``tl.dot`` and its semantic layer, with this target's ``min_dot_size`` hook giving 16 x 16 x 16:

* ``input`` is ``[B...,] M x K`` and ``other`` ``[B...,] K x N``: both of the same rank, 2 or more (a
  batch of products, the same batch dimensions), the inner dimensions equal, and ``M``, ``N``, ``K`` at
  least 16.  Triton's newer ``tl.dot`` takes any rank; a rank above 3 is folded here into one batch
  dimension (``tt.reshape`` to ``B x M x K``, the 3-D product, ``tt.reshape`` back), so ``tt.dot`` stays
  2-D or 3-D.  (Block
  dimensions are powers of two everywhere already; Triton's ``tl.dot`` adds no check of its own.)
* Operand types: both ``f16``, both ``bf16``, both ``f32``, both ``f64``, both ``i8``, or any two fp8
  formats.  ``u8`` passes Triton's first check and then fails its "only int8 supported!"; so here.
  ``float8e4b15`` operands (and the other operand with them) are converted to ``f16`` first, as Triton
  does (it has no MLIR type for that format); other fp8 operands stay fp8 in the IR (``legalize-fp8``
  widens them for the engine).
* The result type: ``i32`` for ``i8``; ``f32`` for ``f32`` and ``bf16``; ``f64`` for ``f64``; ``out_dtype``
  (``f32`` by default, or ``f16``) for ``f16`` and fp8.  ``out_dtype=tl.bfloat16`` is an error.
* ``acc=None`` gives a block of zeros of the result type (``tt.splat`` of a constant); otherwise ``acc``
  must have the result's shape and ``out_dtype`` as its type (Triton's check, so ``i8`` operands with an
  ``i32`` accumulator need ``out_dtype=tl.int32``), and that must be the result type.
* ``input_precision`` is ``"ieee"``, ``"tf32"``, ``"tf32x3"``, ``"bf16x3"`` or ``"bf16x6"`` (any case, as Triton
  lowers it).
  ``allow_tf32`` (deprecated) gives ``"tf32"`` when true or None, ``"ieee"`` when false; only one of
  the two may be given.  The default is ``"tf32"`` (Triton's on GPUs with TF32; this compiler does not
  read ``TRITON_F32_DEFAULT``).  It matters for ``f32`` operands only: the op records it for those,
  always, and not for others (Triton ignores it for them).
* ``max_num_imprecise_acc`` is recorded when given (no effect here: the engine accumulates at full
  precision); with fp8 operands it must not exceed ``K``.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic, describe
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.dot_ops import ACCUMULATORS, INPUT_PRECISIONS, DotOp
from mtiacc.ir.shape_ops import ReshapeOp
from mtiacc.ir.types import Type, bf16, f8e4b15, f16, f32, f64, i8, i32, is_fp8, u8

MIN_DOT_SIZE = (16, 16, 16)   # M, N, K: this target's answer to Triton's ``min_dot_size`` hook
_PLAIN = (i8, u8, f16, bf16, f32, f64)   # the non-fp8 operand types Triton's first check lets through


def _operand(x, which: str) -> Value:
    if not isinstance(x, Value) or not x.type.is_block():
        raise CompileError(f"tl.dot's {which} must be a block of 2 or more dimensions, got {describe(x)}")
    return x


def _shape(v: Value) -> list:
    return list(v.type.shape)


def _precision(input_precision, allow_tf32) -> str:
    if input_precision is not None and allow_tf32 is not None:
        raise CompileError("tl.dot: only one of input_precision and allow_tf32 can be specified")
    if input_precision is None:
        return "tf32" if allow_tf32 or allow_tf32 is None else "ieee"
    if not isinstance(input_precision, str) or input_precision.lower() not in INPUT_PRECISIONS:
        got = repr(input_precision) if isinstance(input_precision, str) else describe(input_precision)
        raise CompileError(f"tl.dot: input_precision must be one of {', '.join(map(repr, INPUT_PRECISIONS))}, "
                           f"got {got}")
    return input_precision.lower()


def _check_types(a: Value, b: Value) -> None:
    ta, tb = a.type.element_type, b.type.element_type
    if is_fp8(ta) and is_fp8(tb):
        return   # any two fp8 formats
    for t, which in ((ta, "first"), (tb, "second")):
        if t not in _PLAIN:
            raise CompileError(f"tl.dot: unsupported {which} operand type {t} (expected f16, bf16, f32, f64, "
                               "i8 or two fp8 formats)")
    if ta != tb:
        raise CompileError(f"tl.dot: both operands must have the same type, got {ta} and {tb}")


def _check_shapes(a: Value, b: Value) -> None:
    sa, sb = _shape(a), _shape(b)
    if len(sa) != len(sb) or len(sa) < 2:
        raise CompileError(f"tl.dot: both operands must have the same rank, 2 or more, got shapes {sa} and {sb}")
    if sa[-1] != sb[-2]:
        raise CompileError(f"tl.dot: shapes {sa} and {sb} are not compatible for a matrix product (the last "
                           f"dimension of the first, {sa[-1]}, must equal the second-to-last of the second, {sb[-2]})")
    if sa[:-2] != sb[:-2]:
        raise CompileError(f"tl.dot: the batch dimensions differ: shapes {sa} and {sb}")
    m, n, k = MIN_DOT_SIZE
    if sa[-2] < m or sb[-1] < n or sa[-1] < k:
        raise CompileError(f"tl.dot: input shapes should have M >= {m}, N >= {n} and K >= {k}; got M={sa[-2]}, "
                           f"N={sb[-1]}, K={sa[-1]} (shapes {sa} and {sb})")


def _result_type(elem: Type, out_dtype: Type) -> Type:
    if elem.is_int():
        if elem != i8:
            raise CompileError(f"tl.dot: only i8 integer operands are supported, got {elem}")
        return i32
    if out_dtype == bf16:
        raise CompileError("tl.dot: out_dtype=bfloat16 is unsupported; use out_dtype=tl.float32 or tl.float16 "
                           "and convert the result with .to(tl.bfloat16)")
    if elem in (f32, bf16):
        return f32
    if elem == f64:
        return f64
    kind = "fp8" if is_fp8(elem) else str(elem)
    if str(out_dtype) not in ACCUMULATORS[kind]:
        raise CompileError(f"tl.dot: {elem} operands give out_dtype f32 or f16, got out_dtype {out_dtype}")
    return out_dtype


def dot(sem: Semantic, input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=f32):
    """``input @ other (+ acc)`` over the last two dimensions; see the module's docstring for the rules."""
    precision = _precision(input_precision, allow_tf32)
    a, b = _operand(input, "first operand"), _operand(other, "second operand")
    if not isinstance(out_dtype, Type) or out_dtype.is_block() or out_dtype.is_ptr():
        raise CompileError(f"tl.dot: out_dtype must be a data type such as tl.float32, got {describe(out_dtype)}")
    _check_types(a, b)
    if f8e4b15 in (a.type.element_type, b.type.element_type):
        a, b = sem.cast(a, f16), sem.cast(b, f16)   # as Triton: both to f16
    _check_shapes(a, b)
    elem = a.type.element_type
    ret = _result_type(elem, out_dtype)
    shape = tuple(_shape(a)[:-1]) + (_shape(b)[-1],)
    if acc is None:
        acc = sem.broadcast_to(sem.constant(0, ret), shape)
    else:
        if not isinstance(acc, Value) or not acc.type.is_block() or tuple(acc.type.shape) != shape:
            raise CompileError(f"tl.dot: acc must be a block of the result's shape {list(shape)}, got {describe(acc)}")
        got = acc.type.element_type
        if got != out_dtype:   # Triton's check; with i8 operands out_dtype must say int32
            hint = f"; pass out_dtype=tl.{_tl_name(got)}" if got == ret else ""
            raise CompileError(f"tl.dot: the accumulator's type {got} must be out_dtype ({out_dtype}){hint}")
        if got != ret:
            raise CompileError(f"tl.dot: {elem} operands accumulate in {ret}, got an accumulator of type {got}")
    if max_num_imprecise_acc is not None:
        if isinstance(max_num_imprecise_acc, bool) or not isinstance(max_num_imprecise_acc, int):
            raise CompileError(f"tl.dot: max_num_imprecise_acc must be a constexpr integer, got "
                               f"{describe(max_num_imprecise_acc)}")
        k = _shape(a)[-1]
        if is_fp8(elem) and max_num_imprecise_acc > k:
            raise CompileError(f"tl.dot: max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K ({k})")
    batch = shape[:-2]
    if len(batch) > 1:   # fold the batch dimensions into one: tt.dot is 2-D or 3-D
        nb = 1
        for d in batch:
            nb *= d
        a, b, acc = (sem.emit(ReshapeOp.get(v, (nb,) + tuple(_shape(v)[-2:]))) for v in (a, b, acc))
    out = sem.emit(DotOp.get(a, b, acc, input_precision=precision if elem == f32 else None,
                             max_num_imprecise_acc=max_num_imprecise_acc))
    return out if len(batch) <= 1 else sem.emit(ReshapeOp.get(out, shape))


def _tl_name(t: Type) -> str:
    names = {"i32": "int32", "u32": "uint32", "f16": "float16", "f32": "float32", "f64": "float64"}
    return names.get(str(t), str(t))


LANGUAGE: Dict[str, object] = {"dot": Builtin("tl.dot", dot)}
NOT_ON_THIS_TARGET: Dict[str, str] = {}
