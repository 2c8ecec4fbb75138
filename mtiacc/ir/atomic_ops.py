"""Atomic memory operations and the memory barrier: ``tt.atomic_rmw``, ``tt.atomic_cas``, ``tt.barrier``.

``tt.atomic_rmw %ptr, %val[, %mask] {kind, sem, scope}`` reads the element at each active pointer, writes
``old <kind> val`` back indivisibly and returns the old values (the pointee type, with the pointer's shape).
``kind`` is one of Triton's read-modify-write operations:

* ``add`` (integers, wrapping), ``fadd`` (floats: f16, bf16, f32, f64, rounded to nearest even);
* ``and``, ``or``, ``xor`` (integers);
* ``max``, ``min`` (signed), ``umax``, ``umin`` (unsigned: the frontend picks them for unsigned element
  types, and for the two halves of a float max/min, done on the bit patterns as Triton does);
* ``xchg`` (any element of 16, 32 or 64 bits: the new value replaces the old one, as bits).

Integer kinds take 32- or 64-bit elements (the machine's ``amo<op>.w`` / ``.d``).  ``mask`` (i1, the
pointer's shape), when present, skips the elements where it is false: they are not read or written, and
their result is 0.

``tt.atomic_cas %ptr, %cmp, %val {sem, scope}``: where the element equals ``cmp`` (compared as bits), it
becomes ``val``; the result is the old element either way.  Elements of 16, 32 or 64 bits.

``sem`` is the memory ordering (Triton's names): ``relaxed``, ``acquire`` (later memory accesses of the
program wait for the atomic), ``release`` (the atomic waits for the program's earlier accesses, DMA
transfers included) or ``acq_rel`` (both; Triton's default).  ``scope`` (``gpu``, ``cta``, ``sys``) is
recorded and changes nothing on this machine: one program runs on a PE, and every atomic is performed
where its buffer lives, so every scope sees it.

None of these ops is ``Pure``: dead-code elimination, CSE, LICM and fusion leave them where they are and
never drop one whose result is unused (``scf.has_side_effects`` keeps a loop or ``if`` holding one).

``after_store`` (``access-plan``, on an atomic whose ``sem`` has no release: ``relaxed``, ``acquire``): it may
update DRAM bytes an earlier store of the program writes (``mtiacc/ir/analysis/dram_order.py``), and the machine
orders no atomic behind a DMA transfer, so it waits for the stores in flight first.  The loads and stores after an
atomic whose ``sem`` has no acquire carry ``after_atomic`` for the same reason (``tt.load``).

``tt.barrier`` (``tl.debug_barrier()``) waits until every memory access, DMA transfer and atomic the
program issued is complete (the machine's ``fence``).
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir.core import AnyType, BoolLike, Operation, PtrLike, Value, attribute, operand, opt_operand, result
from mtiacc.ir.types import FloatType, IntType, Type

AFTER_STORE = ("it may update bytes an earlier store writes, and its sem has no release (why; `access-plan`): it "
               "waits for the stores in flight first")
RMW_KINDS = ("add", "fadd", "and", "or", "xor", "max", "min", "umax", "umin", "xchg")
SEMS = ("relaxed", "acquire", "release", "acq_rel")
SCOPES = ("gpu", "cta", "sys")
DEFAULT_SEM, DEFAULT_SCOPE = "acq_rel", "gpu"


def element_width(t: Type) -> int:
    """Bits of a scalar element type (0 for what is neither an integer nor a float)."""
    return t.width if isinstance(t, (IntType, FloatType)) else 0


def rmw_accepts(kind: str, t: Type) -> bool:
    """Whether ``tt.atomic_rmw`` of ``kind`` applies to elements of type ``t``."""
    if kind == "fadd":
        return isinstance(t, FloatType) and t.kind in ("f16", "bf16", "f32", "f64")
    if kind == "xchg":
        return element_width(t) in (16, 32, 64) and not (isinstance(t, FloatType) and t.is_fp8)
    return isinstance(t, IntType) and t.width in (32, 64)


def _verify_memory(op: Operation, values) -> None:
    ptr = op.ptr
    elem = ptr.type.element_type.pointee
    if op.result.type != ptr.type.with_element(elem):
        op._fail(f"result must be {ptr.type.with_element(elem)} (the pointee type with the pointer's shape), "
                 f"got {op.result.type}")
    for what, v in values:
        if v is not None and v.type != op.result.type:
            op._fail(f"{what} must have the result type {op.result.type}, got {v.type}")
    if op.sem not in SEMS:
        op._fail(f"unknown sem '{op.sem}' (expected one of {', '.join(SEMS)})")
    if op.scope not in SCOPES:
        op._fail(f"unknown scope '{op.scope}' (expected one of {', '.join(SCOPES)})")


class AtomicRMWOp(Operation):
    """``tl.atomic_add`` / ``max`` / ``min`` / ``and`` / ``or`` / ``xor`` / ``xchg``: old values."""

    name = "tt.atomic_rmw"
    ptr = operand(PtrLike)
    val = operand(AnyType)
    mask = opt_operand(BoolLike)
    result = result(AnyType)
    kind = attribute(str, doc="the operation: add, fadd, max, umax, min, umin, and, or, xor or xchg")
    sem = attribute(str, doc="the memory ordering: acquire, release, acq_rel or relaxed")
    scope = attribute(str, doc="which programs it orders against: gpu, cta or sys")
    memory = attribute(str, optional=True,
                       doc='mtia.atomic_add(..., scope=...): the memory whose atomic unit performs it, "dram" or "sram"')
    buffer = attribute(str, optional=True,
                       doc='with memory = "sram": the pointer parameter whose buffer the simulator places in SRAM')
    after_store = attribute(str, optional=True, doc=AFTER_STORE)

    @classmethod
    def get(cls, kind: str, ptr: Value, val: Value, mask: Optional[Value] = None, sem: str = DEFAULT_SEM,
            scope: str = DEFAULT_SCOPE, loc=None):
        ops = [ptr, val] + ([mask] if mask is not None else [])
        return cls(ops, [val.type], {"kind": kind, "sem": sem, "scope": scope}, loc=loc,
                   segments=[1, 1, int(mask is not None)])

    def verify_(self):
        _verify_memory(self, (("val", self.val),))
        if self.mask is not None and self.mask.type.shape != self.ptr.type.shape:
            self._fail("mask must have the pointer's shape")
        if self.kind not in RMW_KINDS:
            self._fail(f"unknown kind '{self.kind}' (expected one of {', '.join(RMW_KINDS)})")
        elem = self.result.type.element_type
        if not rmw_accepts(self.kind, elem):
            self._fail(f"kind '{self.kind}' does not apply to {elem} elements")
        if self.memory not in (None, "dram", "sram"):
            self._fail(f"memory must be \"dram\" or \"sram\", got \"{self.memory}\"")
        if self.buffer is not None and self.memory != "sram":
            self._fail("a buffer is named only with memory = \"sram\"")


class AtomicCASOp(Operation):
    """``tl.atomic_cas``: where the element equals ``cmp`` it becomes ``val``; the old values."""

    name = "tt.atomic_cas"
    ptr = operand(PtrLike)
    cmp = operand(AnyType)
    val = operand(AnyType)
    result = result(AnyType)
    sem = attribute(str, doc="the memory ordering: acquire, release, acq_rel or relaxed")
    scope = attribute(str, doc="which programs it orders against: gpu, cta or sys")
    after_store = attribute(str, optional=True, doc=AFTER_STORE)

    @classmethod
    def get(cls, ptr: Value, cmp: Value, val: Value, sem: str = DEFAULT_SEM, scope: str = DEFAULT_SCOPE,
            loc=None):
        return cls([ptr, cmp, val], [val.type], {"sem": sem, "scope": scope}, loc=loc)

    def verify_(self):
        _verify_memory(self, (("cmp", self.cmp), ("val", self.val)))
        elem = self.result.type.element_type
        if element_width(elem) not in (16, 32, 64) or (isinstance(elem, FloatType) and elem.is_fp8):
            self._fail(f"compare-and-swap needs 16-, 32- or 64-bit elements, got {elem}")


class BarrierOp(Operation):
    """``tl.debug_barrier()``: every memory access the program issued completes before any later one."""

    name = "tt.barrier"

    @classmethod
    def get(cls, loc=None):
        return cls([], [], {}, loc=loc)


ATOMIC_OPS = (AtomicRMWOp, AtomicCASOp)
