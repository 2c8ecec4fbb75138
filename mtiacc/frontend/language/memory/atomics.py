"""Atomics: ``tl.atomic_add``, ``atomic_max``, ``atomic_min``, ``atomic_and``, ``atomic_or``, ``atomic_xor``,
``atomic_xchg`` and ``atomic_cas`` (also as methods of a pointer: ``ptr.atomic_add(1)``), with Triton's
signatures and typing rules:

* ``pointer`` is a pointer or a block of pointers; ``val`` (and ``mask``, and ``cmp`` for ``atomic_cas``)
  are broadcast to its shape and ``val`` converted to its element type (a block with a scalar pointer is
  an error);
* element types: ``atomic_add`` takes i32, u32, i64, u64, f16, bf16, f32, f64; ``atomic_max``/``min``
  i32, u32, i64, u64 (unsigned types compare unsigned), f32, f64; ``atomic_and``/``or``/``xor`` the four
  integer types; ``atomic_xchg`` the integers and f32, f64; ``atomic_cas`` any type of 16, 32 or 64 bits.
  Others are errors at the call, in the words of Triton's ("atomic_max does not support fp16");
* a float ``atomic_max`` / ``atomic_min`` is Triton's expansion into two integer atomics on the bit
  patterns: a signed max (min) where ``val`` has its sign bit clear, an unsigned min (max) where it is
  set, the result taken from the one that ran.  It orders floats as IEEE does, with -0.0 below +0.0
  and NaN as its bit pattern says;
* ``sem``: ``"acquire"``, ``"release"``, ``"acq_rel"`` (the default) or ``"relaxed"``; ``scope``:
  ``"gpu"`` (the default), ``"cta"`` or ``"sys"``.  Both must be constexpr strings.

The result is the old values, the pointee type with the pointer's shape.  Each call is one
``tt.atomic_rmw`` / ``tt.atomic_cas`` (:mod:`mtiacc.ir.atomic_ops`, two for a float max/min).
"""
from __future__ import annotations

from typing import Dict, Optional

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic, describe, is_ptr
from mtiacc.frontend.values import Builtin
from mtiacc.ir.atomic_ops import DEFAULT_SCOPE, DEFAULT_SEM, SCOPES, SEMS, AtomicCASOp, AtomicRMWOp, element_width
from mtiacc.ir.core import Value
from mtiacc.ir.types import FloatType, IntType, PointerType, Type, i32, i64, triton_type_name, u32, u64


def _type_name(t: Type) -> str:
    try:
        return triton_type_name(t)
    except KeyError:
        return str(t)


def _option(value, allowed, default: str, what: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise CompileError(f"{what} must be a constexpr string, got {describe(value)}")
    if value not in allowed:
        raise CompileError(f"{what} {value!r} not supported (expected one of {', '.join(map(repr, allowed))})")
    return value


def _sem_scope(sem, scope):
    return _option(sem, SEMS, DEFAULT_SEM, "memory semantic"), _option(scope, SCOPES, DEFAULT_SCOPE, "memory scope")


def _pointer(s: Semantic, pointer, name: str) -> Value:
    if not is_ptr(pointer):
        raise CompileError(f"tl.{name} needs a pointer or a block of pointers, got {describe(pointer)}")
    return pointer


def _check_rmw_type(op: str, elem: Type) -> None:
    """Triton's ``atom_red_typechecking_impl``, and what its backends reject later (float and/or/xor)."""
    name = _type_name(elem)
    if isinstance(elem, FloatType) and elem.kind in ("f16", "bf16") and op != "add":
        raise CompileError(f"atomic_{op} does not support {name}")
    if element_width(elem) < 16 or isinstance(elem, IntType) and elem.width < 32:
        raise CompileError(f"atomic_{op} does not support {name}")
    if isinstance(elem, FloatType) and op in ("and", "or", "xor"):
        raise CompileError(f"atomic_{op} does not support {name}: it applies to integers")


def _operands(s: Semantic, pointer, val, mask, name: str):
    ptr = _pointer(s, pointer, name)
    elem = ptr.type.element_type.pointee
    _check_rmw_type(name[len("atomic_"):], elem)
    s._check_operand(val, f"tl.{name}")
    val_v = s._fit_to_pointer(val, ptr, elem, "the value")
    return ptr, elem, val_v, s._mask(mask, ptr)


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


def _minmax(s: Semantic, name: str, pointer, val, mask, sem, scope) -> Value:
    ptr, elem, val_v, mask_v = _operands(s, pointer, val, mask, name)
    sem, scope = _sem_scope(sem, scope)
    kind = name[len("atomic_"):]
    if isinstance(elem, IntType):
        return _rmw(s, kind if elem.signed else "u" + kind, ptr, val_v, mask_v, sem, scope)
    if elem.kind not in ("f32", "f64"):
        raise CompileError(f"{name} not supported for dtype {_type_name(elem)}")
    other = "umin" if kind == "max" else "umax"
    return _float_minmax(s, kind, other, ptr, elem, val_v, mask_v, sem, scope)


# --------------------------------------------------------------------------- the builtins

def atomic_add(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
    """Atomically add ``val`` at ``pointer`` (where ``mask``); the old values."""
    ptr, elem, val_v, mask_v = _operands(s, pointer, val, mask, "atomic_add")
    sem, scope = _sem_scope(sem, scope)
    return _rmw(s, "fadd" if elem.is_float() else "add", ptr, val_v, mask_v, sem, scope)


def atomic_max(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
    """Atomically keep the larger of the element and ``val``; the old values."""
    return _minmax(s, "atomic_max", pointer, val, mask, sem, scope)


def atomic_min(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
    """Atomically keep the smaller of the element and ``val``; the old values."""
    return _minmax(s, "atomic_min", pointer, val, mask, sem, scope)


def _bitwise(name: str):
    def fn(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
        ptr, _, val_v, mask_v = _operands(s, pointer, val, mask, f"atomic_{name}")
        sem, scope = _sem_scope(sem, scope)
        return _rmw(s, name, ptr, val_v, mask_v, sem, scope)
    fn.__name__ = f"atomic_{name}"
    fn.__doc__ = f"Atomically {name} ``val`` into the element at ``pointer``; the old values."
    return fn


atomic_and, atomic_or, atomic_xor = _bitwise("and"), _bitwise("or"), _bitwise("xor")


def atomic_xchg(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
    """Atomically replace the element at ``pointer`` by ``val``; the old values."""
    ptr, _, val_v, mask_v = _operands(s, pointer, val, mask, "atomic_xchg")
    sem, scope = _sem_scope(sem, scope)
    return _rmw(s, "xchg", ptr, val_v, mask_v, sem, scope)


def atomic_cas(s: Semantic, pointer, cmp, val, sem=None, scope=None):
    """Atomically: where the element equals ``cmp`` it becomes ``val``; the old values."""
    ptr = _pointer(s, pointer, "atomic_cas")
    elem = ptr.type.element_type.pointee
    if element_width(elem) not in (16, 32, 64) or isinstance(elem, FloatType) and elem.is_fp8:
        raise CompileError(f"atomic_cas only supports elements with width {{16, 32, 64}}, got {_type_name(elem)}")
    for v in (cmp, val):
        s._check_operand(v, "tl.atomic_cas")
    cmp_v = s._fit_to_pointer(cmp, ptr, elem, "the compared value")
    val_v = s._fit_to_pointer(val, ptr, elem, "the value")
    sem, scope = _sem_scope(sem, scope)
    return s.emit(AtomicCASOp.get(ptr, cmp_v, val_v, sem, scope))


_FUNCTIONS = (atomic_add, atomic_max, atomic_min, atomic_and, atomic_or, atomic_xor, atomic_xchg, atomic_cas)

LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"tl.{f.__name__}", f) for f in _FUNCTIONS}
METHODS: Dict[str, object] = {f.__name__: f for f in _FUNCTIONS}
