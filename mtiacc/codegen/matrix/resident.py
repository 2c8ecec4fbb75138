"""Accumulators that stay in the engine across an ``scf.for`` (``tt.dot {accumulator = "engine"}``).

The pattern ``for ...: acc = tl.dot(a, b, acc)``: the loop carries a block whose only use in the body is a
resident dot's ``acc`` (a chain of them after ``pipeline-dots``), and yields the chain's last result.  Before the
loop the accumulator rows are taken and cleared (the init is a zero constant) or loaded from the init
(``acc.ld``); the body's dots only add products (``dot.py``); after the loop ``acc.st`` puts the rows into the
loop result's buffer (through an fp32 scratch block and the vector unit for an f16 accumulator; as f16 / bf16
when the chain's last dot has ``read_back``: the loop result's ``arith.truncf`` is then that buffer), and the
rows are free again.  When the loop result only starts the same accumulation in a later loop of the block (the
remainder loop of ``pipeline-dots``), the rows go to that loop as they are: no ``acc.st``, no ``acc.ld``.  ``control.py`` calls :func:`begin` and :func:`end` around the loop.

If the rows are not free (the engine's accumulators are all taken by outer loops), the dot keeps its
accumulator in local memory, as any other dot: the attribute is what the IR decided, the rows are codegen's.
"""
from __future__ import annotations

from typing import Dict, Optional

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.matrix import engine as E
from mtiacc.codegen.matrix.dot import acc_source, convert, is_zero, weight_source
from mtiacc.codegen.matrix.tiles import ACC_BYTES, Geometry, configure, counted, init_rows, out_bytes, store_rows
from mtiacc.codegen.machine.mir import DmaTag, MInstr
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir.core import BlockArgument, OpResult, Value
from mtiacc.ir.ops import LoadOp
from mtiacc.ir.dot_ops import DotOp, read_back_bands
from mtiacc.ir.scf import ForOp
from mtiacc.ir.types import FloatType


def resident_dot(arg: Value) -> Optional[DotOp]:
    """The resident dot whose accumulator is the loop's carried block ``arg``, if any."""
    if len(arg.uses) != 1:
        return None
    use = arg.uses[0]
    if isinstance(use.op, DotOp) and use.index == 2 and use.op.accumulator == "engine":
        return use.op
    return None


def _geometry(op: DotOp) -> Geometry:
    _, M, N, K = op.shape
    t = op.a.type.element_type
    esize, code = (2, 1) if isinstance(t, FloatType) and t.kind == "f32" else \
        (elem_bytes(op.a.type), E.type_code(t))
    return Geometry(M, N, K, esize, weight_source(op)[1], code)


def describe(lw: Lowering, arg: Value) -> str:
    """What a loop-carried block is, for messages about local memory."""
    name = f"`{arg.name_hint}` " if arg.name_hint else ""
    use = arg.uses[0] if len(arg.uses) == 1 else None
    if use is None or not (isinstance(use.op, DotOp) and use.index == 2 and use.op.on_engine()):
        return f"a loop-carried block {name}".rstrip()
    dot = use.op
    need = dot.shape[0] * _geometry(dot).rows
    if dot.accumulator == "engine":
        return f"the loop's tt.dot accumulator {name}(stored here after the loop; {need} engine rows during it)"
    return (f"the loop's tt.dot accumulator {name}(in local memory: it needs {need} of the engine's "
            f"{lw.engine.rows} accumulator rows)")


def begin(lw: Lowering, loop: ForOp) -> Dict[int, DotOp]:
    """Take and initialize the rows of each resident accumulator of ``loop``; the carried indices kept in the
    engine -> their first dot."""
    out: Dict[int, DotOp] = {}
    for i, (arg, init) in enumerate(zip(loop.iter_args, loop.inits)):
        dot = resident_dot(arg)
        if dot is None:
            continue
        g = _geometry(dot)
        batch = dot.shape[0]
        handed = lw.engine.resident.pop(init, None)   # the rows of the loop before, still in the engine
        if handed is not None:
            lw.engine.resident[arg] = handed
            out[i] = dot
            continue
        first = E.alloc_rows(lw.engine, batch * g.rows)
        if first is None:
            continue
        configure(lw, g)
        E.config(lw, E.N, g.groups[0][1])
        if is_zero(init):
            E.zero(lw, first, batch * g.rows)
        else:
            src = acc_source(lw, init, batch * g.acc_bytes, loop.loc)
            with counted(lw, batch, [(src, g.acc_bytes), (first, g.rows)]) as (s, rows):
                for j, (n0, w) in enumerate(g.groups):
                    init_rows(lw, g, s, rows, j * g.M, 0, g.M, n0, w)
        lw.engine.resident[arg] = first
        out[i] = dot
    return out


def adopts_carried(loop: ForOp, init: Value) -> bool:
    """Whether ``loop`` (a K loop of ``pipeline-dots``) takes its init ``init`` as it is, as its carried block's
    home: a block that the slot loop around it carries and only ``loop`` reads (the first tiles, fetched a program
    ahead: ``opt/dots/next_program.py``).  The buffer stays the outer loop's (``loop``'s result does not free it)."""
    if not (isinstance(init, BlockArgument) and init.type.is_block() and len(init.uses) == 1):
        return False
    region = init.block.parent
    owner = region.parent if region is not None else None
    return (isinstance(owner, ForOp) and bool(owner.pipeline) and bool(owner.persistent)
            and bool(loop.pipeline_stages) and init.block is loop.parent and init.index > 0)


def hands_rows(r: Value) -> bool:
    """Whether loop result ``r`` is a resident accumulator whose rows go on to the next loop as they are (the
    remainder loop of ``pipeline-dots``): no ``acc.st`` writes its home and nothing reads it."""
    if not (isinstance(r, OpResult) and isinstance(r.op, ForOp)):
        return False
    dot = resident_dot(r.op.iter_args[r.index])
    return dot is not None and _next_loop_takes(r.op, r.index, dot)


def _dot_slot(loop: ForOp) -> bool:
    """Whether slot loop ``loop`` runs GEMM programs (a loop of ``pipeline-dots`` in its body)."""
    return any(isinstance(op, ForOp) and op.pipeline_stages for op in loop.block.ops)


def first_tiles_in_flight(loop: ForOp) -> bool:
    """Whether ``loop`` may start while the DMA of its first tiles is in flight: a ``pipeline-dots`` loop
    whose first stage's tiles come a trip ahead (``pipeline``), each block it carries being such a tile (a load
    only the loop reads: it becomes the carried block's home, no copy) or an accumulator the engine keeps from
    a zero constant.  Its body waits at the top (``control.lower_for``), so the accumulators are cleared while
    the first tiles move instead of after them.  So may a slot loop of ``persistent-programs`` that carries
    the first tiles of its programs' K loop (``opt/dots/next_program.py``), each block it carries such a tile:
    the K loop's accumulators are cleared while the slot's first program's tiles move."""
    if not (loop.pipeline and (loop.pipeline_stages or loop.persistent and _dot_slot(loop))):
        return False
    for arg, init in zip(loop.iter_args, loop.inits):
        if not init.type.is_block():
            continue
        if loop.pipeline_stages and resident_dot(arg) is not None and is_zero(init):
            continue
        if isinstance(init, OpResult) and isinstance(init.op, LoadOp) and len(init.uses) == 1:
            continue
        if loop.pipeline_stages and adopts_carried(loop, init):
            continue
        return False
    return True


def _next_loop_takes(loop: ForOp, i: int, dot: DotOp) -> bool:
    """Whether loop result ``i`` only starts a resident accumulator of the same shape in a later loop of the same
    block (a pipelined loop's remainder loop): its rows then stay in the engine, neither stored nor reloaded."""
    r = loop.results[i]
    if len(r.uses) != 1 or not isinstance(r.uses[0].op, ForOp):
        return False
    nxt = r.uses[0].op
    if nxt.parent is not loop.parent or not any(v is r for v in nxt.inits):
        return False
    j = next(k for k, v in enumerate(nxt.inits) if v is r)
    other = resident_dot(nxt.iter_args[j])
    return other is not None and other.shape == dot.shape and _geometry(other) == _geometry(dot)


def _wait_for_store_under(lw: Lowering, home: Buffer) -> None:
    """When ``home`` is an output tile's buffer whose store of the trip before may still be in flight
    (``control.store_under_next``): a wait for it (insert-waits keeps it where that store may be in flight)."""
    entry = next((e for e in lw.homes.under.values() if e[0] is home and e[2]), None)
    if entry is None:
        return
    tiles = entry[1]
    lw.b.fn.items.append(MInstr("mtia.dma.wait", [], lw.b.loc, "the tile's store of the trip before completes "
                                "before the accumulators are stored over it", DmaTag(only_if=lambda t: t.under is tiles)))


def end(lw: Lowering, loop: ForOp, homes, kept: Dict[int, DotOp]) -> None:
    """Store each resident accumulator into its loop result's buffer and free its rows (or hand them to the
    loop that continues the accumulation)."""
    for i, dot in kept.items():
        g = _geometry(dot)
        batch = dot.shape[0]
        first = lw.engine.resident.pop(loop.iter_args[i])
        if _next_loop_takes(loop, i, dot):
            lw.engine.resident[loop.results[i]] = first
            continue
        home: Buffer = homes[i]
        t = dot.acc.type.element_type
        narrow = isinstance(t, FloatType) and t.kind == "f16"
        last = loop.block.terminator.operands[i]
        rb = last.op.read_back if isinstance(last.op, DotOp) else None   # acc.st writes f16 / bf16
        out = lw.lmem.alloc(batch * g.acc_bytes, "the fp32 accumulators of a loop's tt.dot", loop.loc) \
            if narrow else home
        _wait_for_store_under(lw, home)
        configure(lw, g)
        bands = read_back_bands(g.M, g.N)   # band by band (a banded store moves each as it lands)
        band = g.M // bands
        with counted(lw, batch, [(out.offset, g.M * g.N * out_bytes(rb)), (first, g.rows)]) as (o, rows):
            for m0 in range(0, g.M, band):
                for j, (n0, w) in enumerate(g.groups):
                    store_rows(lw, g, o, rows, j * g.M + m0, m0, band, n0, w, rb)
        E.free_rows(lw.engine, first)
        if narrow:
            E.drain(lw, "the accumulators are stored before they narrow to f16")
            convert(lw, batch * g.M * g.N, Src(FloatType("f32"), addr=out.offset), Src(t, addr=home.offset))
            lw.lmem.free(out)
        else:
            E.hold(lw, home)


__all__ = ["begin", "end", "resident_dot", "first_tiles_in_flight", "adopts_carried", "hands_rows", "ACC_BYTES"]
