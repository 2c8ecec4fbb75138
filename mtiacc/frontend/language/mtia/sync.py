"""Programs that cooperate: ``mtia.barrier`` and ``mtia.atomic_add(..., scope=)`` (``docs/language.md``).

``mtia.barrier(counter)`` is built from atomics on a counter in global memory that starts at 0 (or any
multiple of the number of programs taking part, ``P``): each program adds 1 and gets its arrival number
``a``; the barrier's generation is ``a // P``, and the program waits until the counter reaches
``(a // P + 1) * P``, polling it with an atomic add of 0 (which writes nothing, so the simulator's watchdog
sees a barrier that can never complete as a deadlock).  The counter is never reset: barrier ``g`` of a
kernel is passed when it reaches ``(g + 1) * P``, so one counter serves every barrier of the kernel.

``mtia.atomic_add``'s ``scope`` is the memory whose atomic unit performs the add: ``"dram"`` (the default,
``tl.atomic_add``), ``"sram"`` (the pointer's buffer, a pointer parameter, is placed in the on-chip SRAM: the
op records it, ``{memory = "sram", buffer = NAME}``, the binary's metadata lists it under ``place`` and the
simulator puts it there unless ``--place`` says otherwise).  ``"local"`` is refused: local memory belongs
to one PE, hence to one program, and a kernel has no pointers into it.
"""
from __future__ import annotations

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.memory import atomics
from mtiacc.frontend.language.semantic import Semantic, describe, is_ptr
from mtiacc.ir import ops as O
from mtiacc.ir.core import BlockArgument, OpResult, Value
from mtiacc.ir.scf import ConditionOp, WhileOp, YieldOp
from mtiacc.ir.types import IntType

SCOPES = ("dram", "sram", "local")


def _programs(sem: Semantic, num_programs):
    if num_programs is None:
        total = None
        for axis in range(3):
            n = sem.emit(O.GetNumProgramsOp.get(axis))
            total = n if total is None else sem.binary("mul", total, n)
        return total
    if isinstance(num_programs, bool) or not isinstance(num_programs, (int, Value)) or \
            isinstance(num_programs, Value) and (num_programs.type.is_block() or not num_programs.type.is_int()):
        raise CompileError(f"num_programs must be an integer scalar, got {describe(num_programs)}")
    if isinstance(num_programs, int) and num_programs < 1:
        raise CompileError(f"num_programs must be at least 1, got {num_programs}")
    return num_programs


def barrier(s: Semantic, counter, num_programs=None):
    """Wait until ``num_programs`` programs (default: every program of the launch) have reached a barrier
    on ``counter``, a pointer to an int32 in global memory that starts at 0."""
    if not is_ptr(counter) or counter.type.is_block():
        raise CompileError(f"mtia.barrier needs a scalar pointer to an int32 counter, got {describe(counter)}")
    elem = counter.type.element_type.pointee
    if not (isinstance(elem, IntType) and elem.width == 32):
        raise CompileError(f"mtia.barrier's counter must be an int32, got {elem}")
    total = _programs(s, num_programs)
    arrival = atomics.atomic_add(s, counter, 1, sem="acq_rel")
    generation = s.binary("floordiv", arrival, total)
    target = s.binary("mul", s.binary("add", generation, 1), total)
    loop = WhileOp.get([], [])
    s.emit(loop)
    outer = s.builder.block
    try:
        s.builder.block = loop.before_block
        seen = atomics.atomic_add(s, counter, 0, sem="acquire")
        s.emit(ConditionOp.get(s.compare("lt", seen, target), []))
        s.builder.block = loop.after_block
        s.emit(YieldOp.get([]))
    finally:
        s.builder.block = outer
    return None


def pointer_parameter(ptr: Value):
    """The pointer parameter ``ptr`` is computed from (through ``+`` offsets, splats, broadcasts), or None."""
    while isinstance(ptr, OpResult):
        op = ptr.op
        if isinstance(op, O.AddPtrOp):
            ptr = op.ptr
        elif isinstance(op, (O.SplatOp, O.BroadcastOp)):
            ptr = op.src
        else:
            return None
    if isinstance(ptr, BlockArgument) and ptr.block.parent is not None and \
            ptr.block.parent.parent is not None and ptr.block.parent.parent.name == "tt.func":
        return ptr
    return None


def atomic_add(s: Semantic, pointer, val, mask=None, sem=None, scope="dram"):
    """``tl.atomic_add`` performed by the atomic unit of ``scope``'s memory: ``"dram"`` or ``"sram"``."""
    if scope not in SCOPES:
        raise CompileError(f"mtia.atomic_add's scope must be one of {', '.join(map(repr, SCOPES))}, got "
                           f"{describe(scope)}")
    if scope == "local":
        raise CompileError("scope='local' is not available: local memory belongs to one program, which needs no "
                           "atomics there, and a kernel has no pointers into it (use 'sram' or 'dram')")
    param = None
    if scope == "sram":
        param = pointer_parameter(pointer) if is_ptr(pointer) else None
        if param is None:
            raise CompileError("scope='sram' needs a pointer computed from a pointer parameter (the buffer the "
                               "simulator places in SRAM)")
    old = atomics.atomic_add(s, pointer, val, mask, sem)
    op = old.op
    op.attrs["memory"] = scope
    if param is not None:
        op.attrs["buffer"] = param.name_hint
    return old


FUNCTIONS = (barrier, atomic_add)
