"""What ``tl.atomic_*`` on pointers (``atomics``) and ``desc.atomic_*`` on tensor descriptors
(``descriptor``) share: Triton's element-type rules for a read-modify-write and the
``tt.atomic_rmw`` ops it becomes.

:func:`emit` takes a pointer (or pointer block), the value already broadcast to its shape and
converted to its element type, and the mask (or None); it checks the element type and returns the
old values.  A float ``max`` / ``min`` is Triton's expansion into two integer atomics on the bit
patterns (see :mod:`.atomics`).
"""
from __future__ import annotations

from typing import Optional

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic
from mtiacc.ir.atomic_ops import AtomicRMWOp, element_width
from mtiacc.ir.core import Value
from mtiacc.ir.types import FloatType, IntType, PointerType, Type, i32, i64, triton_type_name, u32, u64

OPS = ("add", "max", "min", "and", "or", "xor", "xchg")


def type_name(t: Type) -> str:
    try:
        return triton_type_name(t)
    except KeyError:
        return str(t)


def check_type(op: str, elem: Type) -> None:
    """Triton's ``atom_red_typechecking_impl``, and what its backends reject later (float and/or/xor)."""
    name = type_name(elem)
    if isinstance(elem, FloatType) and elem.kind in ("f16", "bf16") and op != "add":
        raise CompileError(f"atomic_{op} does not support {name}")
    if element_width(elem) < 16 or isinstance(elem, IntType) and elem.width < 32:
        raise CompileError(f"atomic_{op} does not support {name}")
    if isinstance(elem, FloatType) and op in ("and", "or", "xor"):
        raise CompileError(f"atomic_{op} does not support {name}: it applies to integers")
    if isinstance(elem, FloatType) and op in ("max", "min") and elem.kind not in ("f32", "f64"):
        raise CompileError(f"atomic_{op} not supported for dtype {name}")


def _rmw(s: Semantic, kind: str, ptr: Value, val: Value, mask: Optional[Value], sem: str, scope: str) -> Value:
    return s.emit(AtomicRMWOp.get(kind, ptr, val, mask, sem, scope))


def _and_mask(s: Semantic, mask: Optional[Value], cond: Value) -> Value:
    return cond if mask is None else s.binary("and", mask, cond)


def _float_minmax(s: Semantic, signed_kind: str, unsigned_kind: str, ptr: Value, elem: Type, val: Value,
                  mask: Optional[Value], sem: str, scope: str) -> Value:
    """Triton's float max/min: ``signed_kind`` on the signed bits where ``val`` is not negative (sign bit
    clear), ``unsigned_kind`` on the unsigned bits where it is, the old value from the one that ran."""
    ity, uty = (i32, u32) if elem.width == 32 else (i64, u64)
    i_val = s.cast(val, ity, bitcast=True)
    u_val = s.cast(val, uty, bitcast=True)
    i_ptr = s.cast(ptr, PointerType(ity), bitcast=True)
    u_ptr = s.cast(ptr, PointerType(uty), bitcast=True)
    neg = s.compare("lt", i_val, s.broadcast_to(s.constant(0, ity), i_val.type.shape))
    pos = s.unary("invert", neg)
    pos_old = _rmw(s, signed_kind, i_ptr, i_val, _and_mask(s, mask, pos), sem, scope)
    neg_old = _rmw(s, unsigned_kind, u_ptr, u_val, _and_mask(s, mask, neg), sem, scope)
    old = s.where(pos, pos_old, s.cast(neg_old, ity, bitcast=True))
    return s.cast(old, elem, bitcast=True)


def emit(s: Semantic, op: str, ptr: Value, val: Value, mask: Optional[Value], sem: str, scope: str) -> Value:
    """Atomically apply ``op`` (one of :data:`OPS`) with ``val`` at ``ptr`` where ``mask``; the old values."""
    elem = ptr.type.element_type.pointee
    check_type(op, elem)
    if op == "add":
        return _rmw(s, "fadd" if elem.is_float() else "add", ptr, val, mask, sem, scope)
    if op in ("max", "min"):
        if isinstance(elem, IntType):
            return _rmw(s, op if elem.signed else "u" + op, ptr, val, mask, sem, scope)
        return _float_minmax(s, op, "umin" if op == "max" else "umax", ptr, elem, val, mask, sem, scope)
    return _rmw(s, op, ptr, val, mask, sem, scope)
