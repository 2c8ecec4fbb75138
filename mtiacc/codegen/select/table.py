"""Instruction selection as a table: which lowering each IR op gets.

One row per pattern, tried in order; the first row that matches an op lowers it.  A row says:

* ``match``: the op classes it covers (or a predicate on the op, for a distinction the class does not
  make, e.g. a reduction with a combine region);
* ``result``: whether the row is for an op whose first result is a scalar, a block, or either;
* ``lower_when``: ``ALWAYS`` (the op has an effect, or its scalar is cheap), ``USED`` (only when some
  op reads a result as data: a pointer block a DMA understands structurally is never built) or
  ``USED_OR_SCALAR``;
* ``reads``: the block operands whose *data* the lowering reads from local memory (the buffers that
  must exist, and live, until the op), counted under ``reads_when`` (the same values as above);
* ``lower``: the leaf that emits the machine code (each lives in a module of its own responsibility:
  ``memory/``, ``tensor/``, ``arith/``, ``mathlib/``, ``vector/``, ``matrix/``, ``control.py``).

The memory rows dispatch on the load/store's ``access`` plan (an IR attribute; ``codegen/memory``).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence, Tuple, Union

from mtiacc.codegen import memory
from mtiacc.codegen.arith import casts
from mtiacc.codegen.arith.scalar import lower_scalar
from mtiacc.codegen.memory import atomics, kept, local_buffers
from mtiacc.codegen.memory.common import PREFETCH_WAIT
from mtiacc.codegen.machine.mir import DmaTag, MInstr, WaitRequest
from mtiacc.ir.mtia import LocalLoadOp
from mtiacc.ir.mtia.kept import PtrToIntOp, SlotFetchOp, SlotFlushOp, SlotLoadOp, SlotStoreOp, SlotWaitOp
from mtiacc.codegen.context import SCALAR_BACKED, Lowering
from mtiacc.codegen import mathlib
from mtiacc.codegen import control
from mtiacc.codegen import matrix
from mtiacc.codegen.select import debug, waits
from mtiacc.codegen.tensor import fused, join_split, ndblocks, reduce, reduce_region, scan, sort
from mtiacc.codegen.vector import blocks
from mtiacc.codegen.vector.vloop import Src
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.scf import ForOp, YieldOp
from mtiacc.ir.shape_ops import ReduceOp, ScanOp

ALWAYS, USED, USED_OR_SCALAR = "always", "used", "used-or-scalar"


def all_operands(op: Operation) -> Sequence[Value]:
    return op.operands


def nothing(op: Operation) -> Sequence[Value]:
    return ()


@dataclasses.dataclass(frozen=True)
class Pattern:
    match: Union[Tuple[type, ...], Callable[[Operation], bool]]
    lower: Callable[[Lowering, Operation], None]
    result: str = "any"              # "any", "scalar", "block": the kind of the op's first result
    lower_when: str = ALWAYS
    reads: Callable[[Operation], Sequence[Value]] = all_operands
    reads_when: str = USED

    def matches(self, op: Operation) -> bool:
        if isinstance(self.match, tuple):
            if not isinstance(op, self.match):
                return False
        elif not self.match(op):
            return False
        if self.result == "any":
            return True
        is_block = bool(op.results) and op.results[0].type.is_block()
        return is_block == (self.result == "block") and bool(op.results)


# --------------------------------------------------------------------------- small leaves

def _skip(lw: Lowering, op: Operation) -> None:
    """No code: ``tt.return`` (the epilogue is the hub's), splats and constants (read as scalars)."""


def _store(lw: Lowering, op: O.StoreOp) -> None:
    waits.after_atomic(lw, op)
    loop = control.deferred_loop(op)
    if loop is not None:   # in a loop of control.deferred_store: the store before this one completes first
        waits.wait_for_stores(lw, "the store before completes (it ran under the compute since)",
                              lambda t: t.deferred is loop)
    begin = len(lw.b.fn.items)
    memory.lower_store(lw, op)
    waits.tag_transfers(lw, begin, dram_write=True, store=op)
    if loop is not None:
        waits.tag_transfers(lw, begin, deferred=loop)
    for v in memory.needs_buffers(op):
        if v is op.value:  # the stored buffer is read by a DMA that may still be in flight
            lw.keep.update(ndblocks.alias_chain(v))
    if op.value.type.is_block() and op.value in lw.keep and op.value not in lw.homes.views:
        waits.tag_transfers(lw, begin, own=True)   # may stay in flight with the prefetches after it (insert-waits)


def _local_buffers(lw: Lowering, op: Operation) -> None:
    waits.after_store(lw, op)     # an mtia.async_copy of bytes a store in flight may write
    waits.after_atomic(lw, op)
    local_buffers.lower(lw, op)


def _atomic(lw: Lowering, op: Operation) -> None:
    waits.after_store(lw, op)     # an atomic without release over bytes a store in flight may write
    atomics.lower(lw, op)


def _slot_flush(lw: Lowering, op: SlotFlushOp) -> None:
    begin = len(lw.b.fn.items)
    kept.lower(lw, op)
    waits.tag_transfers(lw, begin, dram_write=True, store=op)


def _volatile_fence(lw: Lowering, op: O.LoadOp) -> None:
    """A volatile load is ordered after every earlier memory access of the program, and the simulator schedules a
    program with fences by simulated time, so a spin on a volatile flag lets the program that sets it run."""
    if op.volatile:
        lw.b("fence", comment="volatile load")


def _scalar_load(lw: Lowering, op: O.LoadOp) -> None:
    _volatile_fence(lw, op)
    waits.after_store(lw, op)
    waits.after_atomic(lw, op)
    lw.regs[op.result] = memory.lower_scalar_load(lw, op)


def _scalar_math(lw: Lowering, op: Operation) -> None:
    lw.regs[op.result] = mathlib.lower_math_scalar(lw.b, op, lw.get, lw.se)


def _scalar(lw: Lowering, op: Operation) -> None:
    lw.regs[op.result] = lower_scalar(lw.b, op, lw.get)


def _check_rank(op: Operation) -> None:
    if len(op.result.type.shape) > 5:
        raise CompileError(f"blocks of rank {len(op.result.type.shape)} are not supported yet")


def _block_load(lw: Lowering, op: O.LoadOp) -> None:
    _check_rank(op)
    _volatile_fence(lw, op)
    waits.after_store(lw, op)
    waits.after_atomic(lw, op)
    counted = op.prefetch and waits.countable(op)
    begin = len(lw.b.fn.items)
    owed = None
    if op.prefetch and not counted:
        # one completion barrier: the tiles in flight (needed next) are waited for before this one issues, after
        # its address arithmetic when its lowering can place the wait there (memory.lower_load), or before the
        # counted prefetches issued right before it (insert-waits decides)
        owed = WaitRequest("prefetch")
        waits.request(lw, owed, PREFETCH_WAIT, op.loc)
    home = _carried_home(lw, op) if op.prefetch else None
    if home is not None:   # straight into the carried block it becomes: no copy at the yield
        lw.homes.placed[op.result] = home
        lw.keep.add(op.result)
    if op.guard is not None:   # a prefetch past the loop's end moves nothing
        skip, scope = lw.b.new_label("noprefetch"), lw.homes.scope
        lw.b("beqz", lw.get(op.guard), skip)
        lw.homes.scope = scope + (op,)   # constants set up inside are not reused after it
        memory.lower_load(lw, op, owed)
        lw.homes.scope = scope
        # skipped, a counted prefetch leaves the count of transfers in flight unknown: wait for all of them; an
        # uncounted one whose lowering waits before its transfers (in place of its request's wait) skips those
        # waits, which insert-waits counts on to complete the tiles in flight (so their readers after it ask for
        # none): the path that skips it waits instead, one of those waits (kept and dropped with them)
        inner = owed is not None and any(isinstance(it, MInstr) and it.is_dma_wait and it.dma is not None
                                         and it.dma.part_of is owed for it in lw.b.fn.items[begin:])
        if counted or inner:
            done = lw.b.new_label("prefetched")
            jump = lw.b("j", done)
            lw.b.label(skip)
            wait = lw.b("mtia.dma.wait", comment="no prefetch: every transfer completes")
            if inner:
                jump.dma, wait.dma = DmaTag(part_of=owed), DmaTag(part_of=owed)
            lw.b.label(done)
        else:
            lw.b.label(skip)
    else:
        memory.lower_load(lw, op, owed)
    if op.prefetch:   # a later tile: only its readers wait for it (isel.py), and the yield that copies it; its
        # transfers, counted, issue on every path (insert-waits drops their zero-byte skips)
        waits.mark_prefetch(lw, op, begin, counted)


def _carried_home(lw: Lowering, op: O.LoadOp):
    """The home of the loop-carried block a prefetch load becomes (its only use: a ``scf.for`` yield), when
    nothing after it in the body reads that block any more; else None."""
    uses = op.result.uses
    if len(uses) != 1 or not isinstance(uses[0].op, YieldOp) or uses[0].op.parent is not op.parent:
        return None
    loop = op.parent.parent.parent if op.parent.parent is not None else None
    if not isinstance(loop, ForOp):
        return None
    arg = loop.iter_args[uses[0].index]
    body = op.parent.ops
    for later in body[body.index(op) + 1:-1]:
        if any(v is arg for nested in later.walk() for v in nested.operands):
            return None
    if sum(v is op.result for v in uses[0].op.operands) != 1:
        return None
    return lw.bufs.get(arg)


def _is_volatile_load(op: Operation) -> bool:
    return isinstance(op, O.LoadOp) and bool(op.volatile)


def _volatile_block_load(lw: Lowering, op: O.LoadOp) -> None:
    """A volatile block load reads memory even when nothing reads its result (then its buffer goes at once)."""
    _block_load(lw, op)
    if op.result not in lw.demanded:
        lw.b("mtia.dma.wait", comment="a volatile load nothing reads")
        lw.lmem.free(lw.bufs.pop(op.result))


def _pointer_block(lw: Lowering, op: O.AddPtrOp) -> None:
    """A pointer block a gather/scatter reads as data (64-bit addresses)."""
    _check_rank(op)
    memory.lower_addptr(lw, op)


def _make_range(lw: Lowering, op: O.MakeRangeOp) -> None:
    _check_rank(op)
    res = op.result
    blocks.lower_make_range(lw.b, op.start, res.type.numel, Src(res.type, addr=lw.alloc(res).offset))


def _same_shape_broadcast(op: Operation) -> bool:
    return isinstance(op, O.BroadcastOp) and op.src.type.shape == op.result.type.shape


def _alias(lw: Lowering, op: O.BroadcastOp) -> None:
    _check_rank(op)
    lw.bufs[op.result] = lw.buffer(op.src)


def _vector_loop(emit) -> Callable[[Lowering, Operation], None]:
    """An elementwise op as one strip-mined vector loop over its operands' buffers or scalars."""
    def lower(lw: Lowering, op: Operation) -> None:
        _check_rank(op)
        srcs = [lw.src(v) for v in op.operands]
        home = control.carried_home(lw, op, op.result)
        addr = home.offset if home is not None else lw.result_addr_in_place(op, op.result)
        emit(lw.b, op, srcs, Src(op.result.type.element_type, addr=addr))
    return lower


def _math_loop(lw: Lowering, op: Operation) -> None:
    """A math op as one strip-mined loop: the library's expansion, or its SE instruction (``lw.se``)."""
    _vector_loop(lambda b, o, srcs, dst: mathlib.lower_math(b, o, srcs, dst, lw.se))(lw, op)


def _no_results(op: Operation) -> bool:
    return not op.results


def _unsupported(lw: Lowering, op: Operation) -> None:
    raise CompileError(f"'{op.name}' is not supported by codegen yet")


# --------------------------------------------------------------------------- the table

PATTERNS = (
    Pattern((O.ReturnOp,), _skip, reads=nothing),
    Pattern(control.REGION_OPS, control.lower, reads=control.carried_reads, reads_when=ALWAYS),
    Pattern(control.TERMINATORS, _skip, reads=control.carried_reads, reads_when=ALWAYS),
    Pattern((FusedElementwiseOp,), fused.lower, reads=fused.reads),
    Pattern((O.StoreOp,), _store, reads=memory.needs_buffers, reads_when=ALWAYS),
    Pattern(debug.DEBUG_OPS, debug.lower, reads_when=ALWAYS),
    Pattern(atomics.OPS, _atomic, reads=atomics.reads, reads_when=ALWAYS),
    Pattern((LocalLoadOp,), local_buffers.lower, lower_when=USED, reads=local_buffers.reads),
    Pattern(local_buffers.OPS, _local_buffers, reads=local_buffers.reads, reads_when=ALWAYS),
    Pattern((SlotLoadOp,), kept.lower, lower_when=USED, reads=kept.reads),
    Pattern((SlotStoreOp,), kept.lower, reads=kept.reads, reads_when=ALWAYS),
    Pattern((SlotFetchOp, SlotWaitOp), kept.lower, reads=nothing, reads_when=ALWAYS),
    Pattern((SlotFlushOp,), _slot_flush, reads=nothing, reads_when=ALWAYS),
    Pattern((PtrToIntOp,), kept.lower, lower_when=USED_OR_SCALAR, reads=nothing),
    Pattern(reduce_region.is_combine, reduce_region.lower_combine, lower_when=USED_OR_SCALAR,
            reads_when=USED_OR_SCALAR),
    Pattern(_no_results, _unsupported, reads=nothing),
    Pattern((DotOp,), matrix.lower, lower_when=USED, reads=matrix.reads),
    Pattern(join_split.JOIN_SPLIT_OPS, join_split.lower, lower_when=USED),
    Pattern(sort.SORT_OPS, sort.lower, lower_when=USED),
    Pattern((ReduceOp,), reduce.lower_reduce, lower_when=USED_OR_SCALAR, reads_when=USED_OR_SCALAR),
    Pattern((ScanOp,), scan.lower_scan, lower_when=USED_OR_SCALAR, reads_when=USED_OR_SCALAR),
    Pattern(ndblocks.handles, ndblocks.lower, lower_when=USED_OR_SCALAR, reads_when=USED_OR_SCALAR),
    # scalars: registers
    Pattern((O.LoadOp,), _scalar_load, result="scalar", reads=nothing),
    Pattern(mathlib.is_math, _scalar_math, result="scalar"),
    Pattern((Operation,), _scalar, result="scalar"),
    # blocks: local-memory buffers, built only when something reads them as data
    Pattern(SCALAR_BACKED, _skip, result="block", lower_when=USED),
    Pattern(_is_volatile_load, _volatile_block_load, result="block", reads=memory.needs_buffers, reads_when=ALWAYS),
    Pattern((O.LoadOp,), _block_load, result="block", lower_when=USED, reads=memory.needs_buffers),
    Pattern((O.AddPtrOp,), _pointer_block, result="block", lower_when=USED),
    Pattern((O.MakeRangeOp,), _make_range, result="block", lower_when=USED),
    Pattern(_same_shape_broadcast, _alias, result="block", lower_when=USED),
    Pattern(ndblocks.is_alias, _alias, result="block", lower_when=USED),   # a truncf the engine's acc.st did
    Pattern(mathlib.is_math, _math_loop, result="block", lower_when=USED),
    Pattern((O.CastOp,), _vector_loop(casts.lower_cast), result="block", lower_when=USED),
    Pattern((Operation,), _vector_loop(blocks.lower_elementwise), result="block", lower_when=USED),
)


def pattern_for(op: Operation) -> Pattern:
    for p in PATTERNS:
        if p.matches(op):
            return p
    raise CompileError(f"internal: no instruction-selection pattern for '{op.name}'")


def applies(when: str, op: Operation, demanded) -> bool:
    """Whether a row's ``lower_when`` / ``reads_when`` holds for ``op``."""
    if when == ALWAYS:
        return True
    if when == USED_OR_SCALAR and not (op.results and op.results[0].type.is_block()):
        return True
    return any(r in demanded for r in op.results)


__all__ = ["PATTERNS", "Pattern", "pattern_for", "applies", "ALWAYS", "USED", "USED_OR_SCALAR"]
