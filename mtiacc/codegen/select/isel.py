"""Instruction selection for one kernel: IR ops -> machine IR over virtual registers.

Scalars live in registers.  Block values live in local-memory buffers, allocated when defined
and reused after their last reader.  A block is only materialized when some op reads its data:
pointer blocks and prefix masks that a load or store understands structurally never are, and
splats and block constants feed vector loops as broadcast scalars.

Which lowering each op gets is the table in ``table.py``; this module is the driver: it finds
which blocks are read (and when each is read last), walks the ops in order, asks for a wait for DMA
transfers before each op that touches local memory (``waits.py``), and frees dead buffers.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Set

from mtiacc.codegen import mathlib, memory
from mtiacc.codegen.context import SCALAR_BACKED, Lowering
from mtiacc.codegen.machine.mir import Mem, WaitRequest
from mtiacc.codegen import control
from mtiacc.codegen.memory import atomics, kept
from mtiacc.codegen.matrix import engine, mlu, resident
from mtiacc.codegen.select import waits
from mtiacc.codegen.select.table import Pattern, applies, pattern_for
from mtiacc.codegen.tensor import ndblocks
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import Elementwise, Operation, OpResult, Value
from mtiacc.ir.dot_ops import DotOp, read_back_source
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.mtia import AsyncCopyOp, WaitOp
from mtiacc.ir.scf import ForOp
from mtiacc.ir.mtia.kept import SlotFetchOp, SlotFlushOp, SlotWaitOp
from mtiacc.ir.shape_ops import ReduceOp, ScanOp
from mtiacc.ir.types import FloatType, IntType
from mtiacc.target import Target

# store plans that only move the stored block by DMA (no core or vector access to it)
DMA_ONLY = ("contiguous", "elements", "runs", "split-tiles", "tiles")
REWRITE_WAIT = "the store of this block's last value completes before it is written"


# ops whose only local-memory accesses are reads of their operands' blocks and writes of new blocks (their
# results), with the elementwise ops and the views: before one, the engine's commands that compute none of those
# operands may run on (engine.wait_for)
READS_ITS_OPERANDS = (ReduceOp, FusedElementwiseOp)
VIEWS = ("tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.splat")


def operand_roots(op: Operation) -> Set[Value]:
    """The values ``op`` reads, through broadcasts and reshapes (which may share their source's buffer)."""
    out: Set[Value] = set()
    todo = list(op.operands)
    while todo:
        v = todo.pop()
        if v in out:
            continue
        out.add(v)
        if isinstance(v, OpResult) and v.op.name in VIEWS:
            todo.extend(v.op.operands)
    return out


def readers(lw: Lowering, ops: List[Operation], rows: Dict[Operation, Pattern]) -> Dict[Value, int]:
    """Which block values get materialized (``lw.demanded``), and the index of the last op reading each
    (``rows``: each op's pattern)."""
    last: Dict[Value, int] = {}
    demanded: Set[Value] = lw.demanded

    def need(v: Value, i: int):
        v, i = control.remap(lw, v, i)  # carried values, and uses inside loops
        if not v.type.is_block():
            return
        if isinstance(v, OpResult) and isinstance(v.op, SCALAR_BACKED):
            return
        demanded.add(v)
        last[v] = max(last.get(v, -1), i)

    for i in reversed(range(len(ops))):
        op = ops[i]
        row = rows[op]
        if not applies(row.reads_when, op, demanded):
            continue
        if ndblocks.is_alias(op) and op.results[0] in demanded:
            i = max(i, last.get(op.results[0], i))  # the source's buffer lives as long as the alias
        for v in row.reads(op):
            need(v, i)
    for op in ops:  # an alias and its source (a carried block: the loop's result) free their shared buffer together
        if ndblocks.is_alias(op) and op.results[0] in last:
            src, _ = control.remap(lw, op.src, lw.order.pos[op])
            if src in last:
                last[op.results[0]] = last[src]
    return last


class Selector:
    """Lowers one function: owns the last-reader table and drives the ops through the pattern table."""

    def __init__(self, func: O.FuncOp, target: Target, se: FrozenSet[str] = frozenset()):
        self.lw = Lowering(func, target, se)
        self.lw.emit = self.emit
        self.lw.release = self.release
        self.lw.release_dead = self.release_dead
        self.frees: Dict[int, List[Value]] = {}   # op position -> the blocks it reads last
        self.rows: Dict[Operation, Pattern] = {}  # op -> its row of the pattern table, found once

    def run(self) -> Lowering:
        lw, b = self.lw, self.lw.b
        ops = list(lw.func.entry.ops)
        flat = control.number(lw, lw.func.entry)  # regions in pre-order
        self.rows = {op: pattern_for(op) for op in flat}
        last_read = readers(lw, flat, self.rows)
        for key, i in last_read.items():
            self.frees.setdefault(i, []).append(key)
        b.loc = lw.func.loc
        self.load_args()
        for op in ops:
            self.emit(op)
        b.loc = ops[-1].loc if ops else lw.func.loc
        engine.drain(lw, "the matrix engine's commands complete")
        b("mtia.dma.wait", comment="stores complete before the program ends")
        if lw.debug.prints:
            b("mtia.flush", comment="printed lines, in program-id order")
        b("ret")
        return lw

    def emit(self, op: Operation) -> None:
        """Lower ``op`` (control.py calls this for the ops in regions), then free dead buffers."""
        lw = self.lw
        lw.b.loc = op.loc
        lw.homes.scope = lw.order.blocks.get(op, ())   # a constant set up in one branch is not the other's
        alone = self.leaves_local_memory_alone(op)
        reads = waits.prefetched_reads(op)
        loop = isinstance(op, control.LOOP_OPS)
        # insert-waits keeps the wait where a transfer it names may be in flight (before a loop always: a prefetch
        # group ends there, even where the loop needs no wait)
        if not alone or reads or loop:
            waits.request(lw, WaitRequest("op", touch=not alone, reads=reads, loop=loop,
                                          read_comment="the prefetched tiles complete before their data is read"),
                          "loads above complete before their data is read")
        # its buffer is what a store that may be in flight reads (insert-waits keeps the wait where one may be)
        loop = control.rewrites_deferred_store(op)
        if loop is not None:
            results = op.results
            waits.wait_for_stores(lw, REWRITE_WAIT, lambda t: t.deferred is loop and not t.alternates
                                  and any(t.block is r for r in results))
        elif control.computes_across_store(op):
            waits.wait_for_stores(lw, REWRITE_WAIT, lambda t: t.across)
        if lw.engine.busy and self.disturbs_engine(op):
            if self.writes_new_blocks_only(op):
                roots = operand_roots(op)
                engine.wait_for(lw, roots, [lw.bufs.get(v) for v in roots])
            else:
                engine.drain(lw)
        begin = len(lw.b.fn.items)
        held = list(lw.engine.held)
        row = self.rows[op]
        try:
            if applies(row.lower_when, op, lw.demanded):
                kept.place_in_slot(lw, op)
                row.lower(lw, op)
        except CompileError as e:
            if e.loc is None:
                e.loc = op.loc
            raise
        if not isinstance(op, control.REGION_OPS):
            moved = op.value if isinstance(op, O.StoreOp) else op.results[0] if op.results else None
            waits.tag_transfers(lw, begin, block=moved, kind=waits.kind_of(op))
            if isinstance(op, DotOp) or mlu.on_mlu(op):
                roots = operand_roots(op)
                engine.record(lw, begin, list(roots) + list(op.results),
                              [h for h in lw.engine.held if not any(h is x for x in held)]
                              + [lw.bufs.get(v) for v in list(roots) + list(op.results)])
            elif any(engine.is_command(it) for it in lw.b.fn.items[begin:]):
                lw.engine.groups.clear()     # commands of another op: what they touch is not known, waits drain
        self.release(op)

    def writes_new_blocks_only(self, op: Operation) -> bool:
        """Whether ``op`` reads its operands' blocks and writes only blocks allocated for its results (not a
        home placed beforehand, not a slot of a kept buffer): running engine commands read none of those."""
        if not (isinstance(op, READS_ITS_OPERANDS) or Elementwise in op.traits or op.name in VIEWS):
            return False
        return not any(r in self.lw.homes.placed or any(u.op.name == "mtia.slot_store" for u in r.uses)
                       for r in op.results)

    def leaves_local_memory_alone(self, op: Operation) -> bool:
        """True for ops that neither read local memory nor branch: block loads (their DMA transfers
        overlap) and plain scalar arithmetic; a DMA-in still in flight need not finish before them."""
        if isinstance(op, atomics.OPS):  # atomics and the barrier: memory accesses in program order
            return False
        if isinstance(op, O.LoadOp):  # unless it reads a buffer (a gather's pointers, a general mask)
            return op.result.type.is_block() and not memory.needs_buffers(op)
        if isinstance(op, AsyncCopyOp):  # likewise; mtia.wait waits itself
            return not memory.needs_buffers(op)
        if isinstance(op, (WaitOp, SlotWaitOp, SlotFetchOp, SlotFlushOp)):   # they wait themselves, or are waited for
            return True
        if isinstance(op, control.REGION_OPS):   # a dot loop whose first tiles may still move: its body waits
            return resident.first_tiles_in_flight(op) if isinstance(op, ForOp) else False
        if not op.results:
            return False
        if read_back_source(op) is not None:
            return True   # the arith.truncf the engine's accumulator store did: no code
        if all(r.type.is_block() and r not in self.lw.demanded for r in op.results):
            return True  # a block nothing reads as data (e.g. a pointer block a DMA uses): no code
        if isinstance(op, (ReduceOp, ScanOp)) or ndblocks.handles(op) or mathlib.is_math(op):
            return False
        return not op.results[0].type.is_block() or isinstance(op, SCALAR_BACKED)

    def disturbs_engine(self, op: Operation) -> bool:
        """Whether the matrix engine's running commands must complete before ``op``: it reads or writes local
        memory with the core or the vector unit.  Not: ops that leave local memory alone, DMA transfers (the
        command processor orders them after the engine's accesses to the same bytes), other engine commands
        (they run in order), region ops (their bodies' ops decide; carried copies wait in control.py)."""
        if isinstance(op, (DotOp,) + control.REGION_OPS) or self.leaves_local_memory_alone(op):
            return False
        if mlu.on_mlu(op):          # a transpose on the MLU: another command, in order behind the engine's
            return False
        if isinstance(op, O.StoreOp) and op.attrs.get("access") in DMA_ONLY:
            return any(v is not op.value for v in memory.needs_buffers(op))
        return True

    def release(self, op: Operation) -> None:
        """Free the buffers whose last reader is ``op`` (those running engine commands read: at the next
        ``mtia.dpe.wait`` or the end of the loop body, ``engine.py``)."""
        lw = self.lw
        for key in self.frees.get(lw.order.pos[op], ()):
            if key in lw.bufs and key not in lw.keep:
                buf = lw.bufs[key]
                if any(h is buf for h in lw.engine.held):
                    if not any(d is buf for d in lw.engine.deferred):
                        lw.engine.deferred.append(buf)
                else:
                    lw.lmem.free(buf)

    def release_dead(self, op: Operation, v: Value) -> bool:
        """Free block ``v`` while ``op`` is lowered, when ``op`` is its last reader and neither a kept block nor
        one the engine's running commands read: ``op`` has taken what it needs from it."""
        lw = self.lw
        frees = self.frees.get(lw.order.pos[op], [])
        buf = lw.bufs.get(v)
        if v not in frees or buf is None or v in lw.keep or any(h is buf for h in lw.engine.held):
            return False
        frees.remove(v)
        del lw.bufs[v]
        lw.lmem.free(buf)
        return True

    def load_args(self) -> None:
        lw, b = self.lw, self.lw.b
        for i, arg in enumerate(lw.func.args):
            if not arg.uses:
                continue
            t = arg.type
            slot = Mem("zero", lw.target.args_base + 8 * i)
            if isinstance(t, FloatType) and t.kind in ("f16", "bf16"):
                # the slot's low 16 bits, NaN-boxed in an f register as every half scalar is held
                bits = b.x()
                b("lhu", bits, slot, comment=f"parameter {arg.name_hint}")
                boxed = b.x()
                b("or", boxed, bits, b.li(-65536))
                r = b.f(arg.name_hint or "")
                b("fmv.w.x", r, boxed)
            elif isinstance(t, FloatType):
                if t.kind not in ("f32", "f64"):
                    raise CompileError(f"scalar parameters of type {t} are not supported yet")
                r = b.f(arg.name_hint or "")
                b("flw" if t.kind == "f32" else "fld", r, slot, comment=f"parameter {arg.name_hint}")
            else:
                r = b.x(arg.name_hint or "")
                wide = not (isinstance(t, IntType) and t.width <= 32)
                b("ld" if wide else "lw", r, slot, comment=f"parameter {arg.name_hint}")
            lw.regs[arg] = r


def select_instructions(func: O.FuncOp, target: Target, se: FrozenSet[str] = frozenset()) -> Lowering:
    """Lower ``func``; the math ops named in ``se`` run on the SIMD engine (``mathlib.se_ops``)."""
    return Selector(func, target, se).run()


__all__ = ["select_instructions", "readers", "Selector"]
