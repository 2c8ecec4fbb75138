"""The matrix engine's commands as machine code, and what codegen tracks about the engine (``lw.engine``).

* Configuration registers keep their values: :func:`config` writes one only when the value it is known to hold
  differs (``lw.engine.cfg``; control flow joins reset or restore what is known: ``loop_top`` / ``loop_bottom``).
* Commands run asynchronously: after one is issued the engine is ``busy``, and :func:`drain` (``mtia.dpe.wait``)
  is due before the core or the vector unit reads what ``acc.st`` wrote or writes what a command reads.  The
  buffers commands read are ``held``: isel defers freeing them to the next drain (or the end of the loop body),
  so that a later block is not placed where the engine still reads (a DMA there would wait for the engine).
* Accumulator rows: a first-fit allocator over the target's rows (resident accumulators keep theirs across a
  loop; a dot takes what is free).
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from mtiacc.codegen.context import EngineState, Lowering
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.diagnostics import CompileError
from mtiacc.ir.core import Operation
from mtiacc.ir.types import FloatType, IntType, Type

# configuration registers (docs/matrix-engine.md)
TYPE, W_STRIDE, X_STRIDE, ACC_STRIDE, N, W_TRANS, OUT_TYPE = range(7)
CFG_NAMES = ("type", "w_stride", "x_stride", "acc_stride", "n", "w_trans", "out_type")
OUT_CODES = {"f16": 1, "bf16": 2}   # out_type: what acc.st writes (0: the fp32 / int32 accumulators)
TILE = 32   # the MAC arrays are 32 x 32: weight tiles of at most 32 rows (K) and 32 columns (N)

Addr = Union[int, VReg]


def type_code(t: Type) -> int:
    """The engine's input type (cfg 0) for operand elements ``t``."""
    if isinstance(t, FloatType) and t.kind in ("f16", "bf16"):
        return 0 if t.kind == "f16" else 1
    if isinstance(t, IntType) and t.width == 8:
        return 2 if t.signed else 3
    raise CompileError(f"internal: the matrix engine has no input type {t}")


def config(lw: Lowering, reg: int, value: int) -> None:
    eng = lw.engine
    if eng.cfg.get(reg) == value:
        return
    lw.b("mtia.dpe.cfg", lw.b.li(value), reg, comment=f"{CFG_NAMES[reg]} = {value}")
    eng.cfg[reg] = value


def reg_of(b: MBuilder, a: Addr, offset: int = 0) -> VReg:
    """A register holding address ``a + offset``."""
    if isinstance(a, int):
        return b.li(a + offset)
    if offset == 0:
        return a
    r = b.x("addr")
    if -2048 <= offset < 2048:
        b("addi", r, a, offset)
    else:
        b("add", r, a, b.li(offset))
    return r


def _rows(b: MBuilder, rows: Addr, off: int = 0) -> VReg:
    return reg_of(b, rows, off)


def ldw(lw: Lowering, src: Addr, k: int, off: int = 0) -> None:
    lw.b("mtia.dpe.ldw", reg_of(lw.b, src, off), lw.b.li(k))
    lw.engine.busy = True


def mm(lw: Lowering, rows: Addr, src: Addr, m: int, off: int = 0, rows_off: int = 0) -> None:
    lw.b("mtia.dpe.mm", _rows(lw.b, rows, rows_off), reg_of(lw.b, src, off), lw.b.li(m))
    lw.engine.busy = True


def zero(lw: Lowering, rows: Addr, count: int, rows_off: int = 0) -> None:
    lw.b("mtia.dpe.zero", _rows(lw.b, rows, rows_off), lw.b.li(count))
    lw.engine.busy = True


def acc_load(lw: Lowering, rows: Addr, src: Addr, count: int, off: int = 0, rows_off: int = 0) -> None:
    lw.b("mtia.dpe.acc.ld", _rows(lw.b, rows, rows_off), reg_of(lw.b, src, off), lw.b.li(count))
    lw.engine.busy = True


def acc_store(lw: Lowering, dst: Addr, rows: Addr, count: int, off: int = 0, rows_off: int = 0) -> None:
    lw.b("mtia.dpe.acc.st", reg_of(lw.b, dst, off), _rows(lw.b, rows, rows_off), lw.b.li(count))
    lw.engine.busy = True


def hold(lw: Lowering, *bufs: Buffer) -> None:
    """Engine commands read (or ``acc.st`` writes) these buffers until the next drain."""
    for buf in bufs:
        if buf not in lw.engine.held:
            lw.engine.held.append(buf)


def drain(lw: Lowering, why: str = "engine results complete before the core or vector unit uses the memory") -> None:
    """``mtia.dpe.wait`` if commands may be running; then the buffers they held can be reused."""
    eng = lw.engine
    if eng.busy:
        lw.b("mtia.dpe.wait", comment=why)
        eng.busy = False
    release_held(lw)


def release_held(lw: Lowering) -> None:
    eng = lw.engine
    for buf in eng.deferred:
        lw.lmem.free(buf)
    eng.deferred.clear()
    eng.held.clear()


# --------------------------------------------------------------------------- accumulator rows

def alloc_rows(eng: EngineState, count: int) -> Optional[int]:
    """The first of ``count`` free accumulator rows, or None."""
    cursor = 0
    for base, n in sorted(eng.taken):
        if base - cursor >= count:
            break
        cursor = max(cursor, base + n)
    if cursor + count > eng.rows:
        return None
    eng.taken.append((cursor, count))
    return cursor


def free_rows(eng: EngineState, base: int) -> None:
    eng.taken[:] = [t for t in eng.taken if t[0] != base]


def largest_free(eng: EngineState) -> Tuple[int, int]:
    """The largest run of free rows: (first, count)."""
    best, cursor = (0, 0), 0
    for base, n in sorted(eng.taken) + [(eng.rows, 0)]:
        if base - cursor > best[1]:
            best = (cursor, base - cursor)
        cursor = max(cursor, base + n)
    return best


# --------------------------------------------------------------------------- control flow

def contains_dot(op: Operation) -> bool:
    """Whether ``op``'s regions give the engine commands: dots, and transposes (the MLU is behind its queue)."""
    return any(o.name in ("tt.dot", "tt.trans") for o in op.walk())


def loop_top(lw: Lowering, op: Operation) -> Optional[dict]:
    """Before a loop body: a later iteration may find the engine busy (commands of the previous one); the
    configuration known here is what the body's end restores (returned for :func:`loop_bottom`)."""
    if not contains_dot(op):
        return None
    lw.engine.busy = True
    return dict(lw.engine.cfg)


def loop_bottom(lw: Lowering, top: Optional[dict]) -> None:
    """At the end of a loop body: restore the configuration the top assumed; buffers held by this iteration's
    commands may be reused (the next iteration runs the same code; later code waits first: busy stays set)."""
    if top is None:
        return
    for reg, value in sorted(top.items()):
        if lw.engine.cfg.get(reg) != value:
            lw.b("mtia.dpe.cfg", lw.b.li(value), reg, comment=f"{CFG_NAMES[reg]} = {value}, as the loop's top assumes")
    lw.engine.cfg = dict(top)
    release_held(lw)


def forget(lw: Lowering, op: Operation) -> None:
    """Around an ``scf.if`` / ``scf.while`` with dots: nothing is known about the configuration at its joins."""
    if contains_dot(op):
        lw.engine.cfg.clear()
        lw.engine.busy = True


__all__ = ["type_code", "config", "ldw", "mm", "zero", "acc_load", "acc_store", "hold", "drain", "release_held",
           "alloc_rows", "free_rows", "largest_free", "loop_top", "loop_bottom", "forget", "contains_dot",
           "TYPE", "W_STRIDE", "X_STRIDE", "ACC_STRIDE", "N", "W_TRANS", "OUT_TYPE", "OUT_CODES", "TILE", "reg_of"]
