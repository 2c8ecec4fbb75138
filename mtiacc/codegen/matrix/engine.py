"""The matrix engine's commands as machine code, and what codegen tracks about the engine (``lw.engine``).

* Configuration registers keep their values: :func:`config` writes one only when the value it is known to hold
  differs (``lw.engine.cfg``; control flow joins reset or restore what is known: ``loop_top`` / ``loop_bottom``).
* Commands run asynchronously: after one is issued the engine is ``busy``, and :func:`drain` (``mtia.dpe.wait``)
  is due before the core or the vector unit reads what ``acc.st`` wrote or writes what a command reads.  The
  buffers commands read are ``held``: isel defers freeing them to the next drain (or the end of the loop body),
  so that a later block is not placed where the engine still reads (a DMA there would wait for the engine).
* Results one at a time: each op whose lowering gave the engine commands is a *group* (``lw.engine.groups``,
  :func:`record`); an op that reads only results of earlier groups waits with ``mtia.dpe.wait N`` (:func:`wait_for`),
  ``N`` the commands issued after them, so that later commands (a product issued early, ``issue-dots-early``)
  run on while the vector unit uses the earlier results.  Counted only where each of the ``N`` ran once.
* Accumulator rows: a first-fit allocator over the target's rows (resident accumulators keep theirs across a
  loop; a dot takes what is free).
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from mtiacc.codegen.context import EngineState, Lowering
from mtiacc.codegen.machine.mir import MBuilder, MInstr, VReg
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
    eng.groups.clear()
    release_held(lw)


MAX_KEPT = 255      # the most commands mtia.dpe.wait may leave running (the ISA's dpe_inflight operand)


def is_command(item) -> bool:
    return isinstance(item, MInstr) and (item.op.startswith("mtia.mlu.")
                                        or item.op.startswith("mtia.dpe.") and item.op != "mtia.dpe.wait")


def _straight(item) -> bool:
    """Whether ``item`` keeps the code straight (not a label, a branch or a jump).  Commands are counted from a
    group's first item while the code is straight; after that only code without commands may follow (loops of the
    vector unit), so each counted command ran once."""
    return isinstance(item, MInstr) and not item.op.startswith(("b", "j")) and item.op not in ("ret", "call", "tail")


def record(lw: Lowering, begin: int, values, bufs) -> None:
    """The op just lowered from item ``begin`` on: a group when it gave the engine commands; ``values`` are the
    values it reads and computes, ``bufs`` the buffers its commands may touch."""
    items = lw.b.fn.items
    if any(is_command(it) for it in items[begin:]):
        lw.engine.groups.append((begin, tuple(values), tuple(b for b in bufs if b is not None)))


def _overlap(a: Buffer, b: Buffer) -> bool:
    return a.offset < b.offset + b.nbytes and b.offset < a.offset + a.nbytes


def wait_for(lw: Lowering, reads, bufs=(), why: str = "the earlier products complete before the vector unit "
                                                      "reads them; later commands run on") -> None:
    """Before code that reads the values ``reads`` and touches the buffers ``bufs`` (and writes only new
    buffers besides): ``mtia.dpe.wait N``, ``N`` the commands issued after the last group that read or computed one
    of those values or touched one of those buffers, when each of the ``N`` ran once since (straight-line code);
    else the whole drain.  Buffers the running commands hold stay held."""
    eng = lw.engine
    if not eng.busy:
        return
    items = lw.b.fn.items
    bufs = [b for b in bufs if b is not None]
    later = 0
    for _, values, touched in reversed(eng.groups):
        if any(v in reads for v in values) or any(_overlap(a, b) for a in touched for b in bufs):
            break
        later += 1
    if later == 0:
        return drain(lw)
    first = eng.groups[len(eng.groups) - later][0]
    if later == len(eng.groups) and eng.waited == first:
        return                  # every command before these groups is known complete: a wait since said so
    kept, flow = 0, False
    for it in items[first:]:
        flow = flow or not _straight(it)
        if is_command(it):
            if flow:            # a command after a label or a branch: how many ran is not known here
                return drain(lw)
            kept += 1
    if kept > MAX_KEPT:
        return drain(lw)
    lw.b("mtia.dpe.wait", kept, comment=why)
    del eng.groups[:len(eng.groups) - later]
    eng.waited = first
    # what only the finished commands held may be reused
    running = [b for _, _, touched in eng.groups for b in touched]
    for buf in list(eng.deferred):
        if not any(_overlap(buf, r) for r in running):
            eng.deferred.remove(buf)
            lw.lmem.free(buf)
    eng.held[:] = [h for h in eng.held if any(_overlap(h, r) for r in running)]
    if eng.deferred:
        lw.lmem.reclaim = lambda: _reclaim(lw)


def _reclaim(lw: Lowering) -> bool:
    """When a new block does not fit while running commands still hold buffers (a counted wait above left them
    running): wait for every command here, so that those buffers may take it."""
    if not lw.engine.deferred:
        return False
    drain(lw, "the engine's commands complete: a new block needs the buffers they hold")
    return True


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
    lw.engine.groups.clear()
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
    lw.engine.groups.clear()
    release_held(lw)


def forget(lw: Lowering, op: Operation) -> None:
    """Around an ``scf.if`` / ``scf.while`` with dots: nothing is known about the configuration at its joins."""
    if contains_dot(op):
        lw.engine.cfg.clear()
        lw.engine.busy = True
        lw.engine.groups.clear()


__all__ = ["type_code", "config", "ldw", "mm", "zero", "acc_load", "acc_store", "hold", "drain", "record", "wait_for",
           "release_held",
           "alloc_rows", "free_rows", "largest_free", "loop_top", "loop_bottom", "forget", "contains_dot",
           "TYPE", "W_STRIDE", "X_STRIDE", "ACC_STRIDE", "N", "W_TRANS", "OUT_TYPE", "OUT_CODES", "TILE", "reg_of"]
