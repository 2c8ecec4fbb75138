"""Atomics: ``tl.atomic_add``, ``atomic_max``, ``atomic_min``, ``atomic_and``, ``atomic_or``, ``atomic_xor``,
``atomic_xchg`` and ``atomic_cas`` (also as methods of a pointer: ``ptr.atomic_add(1)``), with Triton's
signatures and typing rules, and ``atomic_load``, ``atomic_store`` and ``atomic_poll`` (below):

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
``tt.atomic_rmw`` / ``tt.atomic_cas`` (:mod:`mtiacc.ir.atomic_ops`, two for a float max/min); the
type rules and the ops are :mod:`.rmw`'s, which tensor descriptors' atomics share.
"""
from __future__ import annotations

import math
from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.memory import rmw
from mtiacc.frontend.language.semantic import Semantic, describe, is_ptr
from mtiacc.frontend.values import Builtin
from mtiacc.ir.atomic_ops import DEFAULT_SCOPE, DEFAULT_SEM, SCOPES, SEMS, AtomicCASOp, BarrierOp, element_width
from mtiacc.ir.core import Value
from mtiacc.ir.scf import ConditionOp, WhileOp, YieldOp
from mtiacc.ir.shape_ops import ReduceOp, ReshapeOp
from mtiacc.ir.types import FloatType, IntType, i1, i32


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


def _rmw_builtin(op: str):
    """``tl.atomic_<op>(pointer, val, mask=None, sem=None, scope=None)``."""
    name = f"atomic_{op}"

    def fn(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
        ptr = _pointer(s, pointer, name)
        elem = ptr.type.element_type.pointee
        rmw.check_type(op, elem)
        s._check_operand(val, f"tl.{name}")
        val_v = s._fit_to_pointer(val, ptr, elem, "the value")
        mask_v = s._mask(mask, ptr)
        sem, scope = _sem_scope(sem, scope)
        return rmw.emit(s, op, ptr, val_v, mask_v, sem, scope)
    fn.__name__ = name
    fn.__doc__ = _DOCS[op]
    return fn


_DOCS = {
    "add": "Atomically add ``val`` at ``pointer`` (where ``mask``); the old values.",
    "max": "Atomically keep the larger of the element and ``val``; the old values.",
    "min": "Atomically keep the smaller of the element and ``val``; the old values.",
    "and": "Atomically and ``val`` into the element at ``pointer``; the old values.",
    "or": "Atomically or ``val`` into the element at ``pointer``; the old values.",
    "xor": "Atomically xor ``val`` into the element at ``pointer``; the old values.",
    "xchg": "Atomically replace the element at ``pointer`` by ``val``; the old values.",
}

# --------------------------------------------------------------------------- the builtins

atomic_add, atomic_max, atomic_min = _rmw_builtin("add"), _rmw_builtin("max"), _rmw_builtin("min")
atomic_and, atomic_or, atomic_xor = _rmw_builtin("and"), _rmw_builtin("or"), _rmw_builtin("xor")
atomic_xchg = _rmw_builtin("xchg")


def atomic_cas(s: Semantic, pointer, cmp, val, sem=None, scope=None):
    """Atomically: where the element equals ``cmp`` it becomes ``val``; the old values."""
    ptr = _pointer(s, pointer, "atomic_cas")
    elem = ptr.type.element_type.pointee
    if element_width(elem) not in (16, 32, 64) or isinstance(elem, FloatType) and elem.is_fp8:
        raise CompileError(f"atomic_cas only supports elements with width {{16, 32, 64}}, got {rmw.type_name(elem)}")
    for v in (cmp, val):
        s._check_operand(v, "tl.atomic_cas")
    cmp_v = s._fit_to_pointer(cmp, ptr, elem, "the compared value")
    val_v = s._fit_to_pointer(val, ptr, elem, "the value")
    sem, scope = _sem_scope(sem, scope)
    return s.emit(AtomicCASOp.get(ptr, cmp_v, val_v, sem, scope))


# --------------------------------------------------------------------------- loads, stores and polls
#
# An aligned element moves between a memory and local memory indivisibly (one DMA transfer), so an atomic load or
# store is a plain one kept in order by fences: a fence before it makes the program wait until every other
# program has caught up with it in simulated time (so it happens in time order with their atomics), and a
# fence after an acquiring load holds later accesses back until it is done.

def _load_store_type(elem, op: str) -> None:
    if not (isinstance(elem, (IntType, FloatType))):
        raise CompileError(f"atomic_{op} only supports integer and floating-point elements, got {rmw.type_name(elem)}")


def atomic_load(s: Semantic, pointer, mask=None, sem=None, scope=None):
    """Atomically load the elements at ``pointer`` (where ``mask``; elsewhere the result is unspecified)."""
    ptr = _pointer(s, pointer, "atomic_load")
    _load_store_type(ptr.type.element_type.pointee, "load")
    sem = _option(sem, ("acquire", "relaxed"), "acquire", "atomic_load semantic")
    _option(scope, SCOPES, DEFAULT_SCOPE, "memory scope")
    s.emit(BarrierOp.get())
    value = s.load(ptr, mask, volatile=True)
    if sem == "acquire":
        s.emit(BarrierOp.get())
    return value


def atomic_store(s: Semantic, pointer, val, mask=None, sem=None, scope=None):
    """Atomically store ``val`` at ``pointer`` where ``mask``."""
    ptr = _pointer(s, pointer, "atomic_store")
    _load_store_type(ptr.type.element_type.pointee, "store")
    _option(sem, ("release", "relaxed"), "release", "atomic_store semantic")
    _option(scope, SCOPES, DEFAULT_SCOPE, "memory scope")
    s.emit(BarrierOp.get())
    s.store(ptr, val, mask)
    return None


def atomic_poll(s: Semantic, pointer, expected_value, sem=None, scope=None, timeout_ns=None):
    """Wait until every element at ``pointer`` equals ``expected_value``; a block of true (no timeout here)."""
    ptr = _pointer(s, pointer, "atomic_poll")
    elem = ptr.type.element_type.pointee
    if not isinstance(elem, IntType) or elem.width not in (16, 32, 64):
        raise CompileError("atomic_poll only supports integer elements with width {16, 32, 64}")
    sem = _option(sem, ("acquire", "relaxed"), "acquire", "atomic_poll semantic")
    _option(scope, SCOPES, DEFAULT_SCOPE, "memory scope")
    if timeout_ns is not None:
        raise CompileError("atomic_poll(timeout_ns=...) is not supported: this chip has no global timer "
                           "(leave it out; a poll that never succeeds is reported as a deadlock)")
    s._check_operand(expected_value, "tl.atomic_poll")
    expected = s._fit_to_pointer(expected_value, ptr, elem, "the expected value")
    loop = WhileOp.get([], [])
    s.emit(loop)
    outer = s.builder.block
    try:
        s.builder.block = loop.before_block
        s.emit(BarrierOp.get())
        seen = s.load(ptr, volatile=True)
        differ = s.compare("ne", seen, expected)
        if differ.type.shape:
            flat = s.emit(ReshapeOp.get(differ, [math.prod(differ.type.shape)])) if len(differ.type.shape) > 1 \
                else differ
            differ = s.emit(ReduceOp.get(s.cast(flat, i32), 0, "max"))
            differ = s.compare("ne", differ, s.constant(0, i32))
        s.emit(ConditionOp.get(differ, []))
        s.builder.block = loop.after_block
        s.emit(YieldOp.get([]))
    finally:
        s.builder.block = outer
    if sem == "acquire":
        s.emit(BarrierOp.get())
    shape = ptr.type.shape
    true = s.constant(True, i1)
    return s.broadcast_to(true, shape) if shape else true


_FUNCTIONS = (atomic_add, atomic_max, atomic_min, atomic_and, atomic_or, atomic_xor, atomic_xchg, atomic_cas,
              atomic_load, atomic_store, atomic_poll)

LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"tl.{f.__name__}", f) for f in _FUNCTIONS}
METHODS: Dict[str, object] = {f.__name__: f for f in _FUNCTIONS}
