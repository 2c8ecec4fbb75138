"""Instruction selection for structured control flow: ``scf.for``, ``scf.if``, ``scf.while``.

Regions become labels and branches.  Carried values get one home for the whole op:

* scalars a virtual register: the loop's block argument, its result (and, for ``scf.if``, the
  result of either branch) are that register; a ``scf.yield`` moves the new values in (through
  temporaries, so that swapping two carried values works).  The linear-scan allocator sees the
  back edge (``regalloc.live_intervals``) and keeps them allocated across the loop.
* blocks a local-memory buffer, allocated before the op: a yield copies the new block into it
  with a vector copy loop, unless the block already lives there.

Buffer lifetimes (isel's "last reader"): ops are numbered in pre-order through the regions; a use
inside a loop of a block defined outside it counts as a use at the loop's end, so the buffer is
not reused while a later iteration may still read it.  Uses of a carried block argument count as
uses of the carried buffer, which lives at least until the op ends.

A loop whose body stores waits for its DMA transfers before the next iteration, so a buffer the
body writes is never overwritten while a transfer out of it is still in flight; but a loop over output tiles
(:func:`store_under_next`) leaves its tile's store in flight under the next tile, from a buffer of its own.  A block copied into a
home waits for the DMA transfers into local memory in flight first: a loop pipelined by
``pipeline-loads`` issues the next tiles while it computes on the current ones (their readers wait, the others
do not), the last ones straight into the carried blocks' homes (``select/table.py``); at the top of its body and
after it, those may still be in flight (``insert-waits`` sees them there: the loop's back-edge is tagged).

The matrix engine (``codegen/matrix``): a carried block kept in the engine's accumulators
(``resident.py``) has no copy at the yield; it is initialized before the loop and stored after it.
A loop body with dots may start with the engine busy (the previous iteration's commands) and ends
with the engine configuration its top assumed (``engine.loop_top`` / ``loop_bottom``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import List, Optional, Sequence

from mtiacc.codegen.context import Lowering, carried_home  # noqa: F401  (control.carried_home, its readers' name)
from mtiacc.codegen.machine.mir import DmaTag, MInstr, WaitRequest
from mtiacc.codegen.matrix import engine, resident
from mtiacc.codegen.memory import kept
from mtiacc.codegen.select import waits
from mtiacc.codegen.vector.blocks import VECTOR_BINARY, lower_fill
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import Block, BlockArgument, OpResult, Operation, Pure, Value
from mtiacc.ir.analysis.k_loops import tile_stored_under_next
from mtiacc.ir.dot_ops import read_back_source
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.mtia.kept import SlotFlushOp, SlotWaitOp
from mtiacc.ir.scf import ConditionOp, ForOp, IfOp, WhileOp, YieldOp

REGION_OPS = (ForOp, IfOp, WhileOp)
LOOP_OPS = (ForOp, WhileOp)
TERMINATORS = (YieldOp, ConditionOp)


# --------------------------------------------------------------------------- numbering

def number(lw: Lowering, entry: Block) -> List:
    """Number every op in pre-order (``lw.order.pos``), with its enclosing region ops (``.anc``) and
    each region op's last nested position (``.ends``).  Returns the ops in that order."""
    order = lw.order

    def walk(block: Block, anc: tuple, blocks: tuple):
        for op in block.ops:
            order.pos[op] = len(order.flat)
            order.anc[op] = anc
            order.blocks[op] = blocks
            order.flat.append(op)
            for r in op.regions:
                for b in r.blocks:
                    walk(b, anc + (op,), blocks + (b,))
            if op.regions:
                order.ends[op] = len(order.flat) - 1

    walk(entry, (), ())
    return order.flat


def _owner(v: BlockArgument):
    region = v.block.parent
    return region.parent if region is not None else None


def _def_scope(lw: Lowering, v: Value) -> tuple:
    if isinstance(v, OpResult):
        return lw.order.anc.get(v.op, ())
    if isinstance(v, BlockArgument):
        owner = _owner(v)
        if owner is not None and owner in lw.order.anc:
            return lw.order.anc[owner] + (owner,)
    return ()


def remap(lw: Lowering, v: Value, i: int):
    """The storage key of ``v`` as read at position ``i``, and how long that read keeps it alive."""
    if isinstance(v, BlockArgument):
        owner = _owner(v)
        if isinstance(owner, ForOp) and v.index > 0:
            v, i = owner.results[v.index - 1], max(i, lw.order.ends[owner])
        elif isinstance(owner, WhileOp):
            i = max(i, lw.order.ends[owner])
            if v.block is owner.after_block:
                v = owner.results[v.index]
    if 0 <= i < len(lw.order.flat):
        scope = _def_scope(lw, v)
        for loop in lw.order.anc[lw.order.flat[i]]:
            if isinstance(loop, (ForOp, WhileOp)) and loop not in scope:
                i = max(i, lw.order.ends[loop])
                break
    return v, i


def carried_reads(op) -> Sequence[Value]:
    """The values a control op reads (isel's readers()): a loop's inits, what a terminator passes on."""
    if isinstance(op, (ForOp, WhileOp)):
        return list(op.inits)
    if isinstance(op, YieldOp):
        return list(op.values)
    if isinstance(op, ConditionOp):
        return list(op.args)
    return ()


# --------------------------------------------------------------------------- carried values

def _home(lw: Lowering, t, what: str, loc):
    """A fresh home for a carried value: a register for a scalar, a buffer for a block."""
    if t.is_block():  # a pointer block (one carried_ptrs could not rewrite) as 64-bit addresses
        return lw.lmem.alloc(t.numel * elem_bytes(t), what, loc)
    return lw.b.f("carried") if t.is_float() else lw.b.x("carried")


def _bind_home(lw: Lowering, value: Value, home) -> None:
    if value.type.is_block():
        lw.bufs[value] = home
    else:
        lw.regs[value] = home


def _copy_block(lw: Lowering, v: Value, home) -> None:
    src = lw.src(v)
    if not src.is_scalar and src.addr == home.offset:
        return
    engine.wait_for(lw, {v}, [lw.bufs.get(v), home])
    lower_fill(lw.b, v.type.numel, src, Src(v.type.element_type, addr=home.offset))


def _copies(lw: Lowering, v: Value, home) -> bool:
    """Whether moving ``v`` into ``home`` copies a block out of local memory."""
    if not v.type.is_block():
        return False
    src = lw.src(v)
    return not src.is_scalar and src.addr != home.offset


def write(lw: Lowering, values: Sequence[Value], homes: Sequence) -> None:
    """Move ``values`` into ``homes`` as one parallel assignment (after the DMA transfers into local memory in
    flight, when a block is copied: one of them may be the block's)."""
    b = lw.b
    copied = [v for v, h in zip(values, homes) if _copies(lw, v, h)]
    if copied:
        waits.request(lw, WaitRequest("copy", reads=waits.prefetched(copied)),
                      "loaded blocks complete before they are copied")
    staged = []
    carried_addrs = {h.offset for h in homes if isinstance(h, Buffer)}
    for v, h in zip(values, homes):
        if v.type.is_block():
            src = lw.src(v)
            if not src.is_scalar and src.addr != h.offset and src.addr in carried_addrs:
                engine.drain(lw)
                tmp = lw.lmem.alloc(v.type.numel * elem_bytes(v.type), "a swapped carried block", None)
                lower_fill(b, v.type.numel, src, Src(v.type.element_type, addr=tmp.offset))
                staged.append((v, h, tmp))
                continue
            staged.append((v, h, None))
        else:
            r = lw.get(v)
            if r is h:
                continue
            t = b.f() if h.cls == "f" else b.x()
            b("fmv.d" if h.cls == "f" else "mv", t, r)  # fmv.d copies all 64 bits
            staged.append((v, h, t))
    for v, h, tmp in staged:
        if v.type.is_block():
            if tmp is None:
                _copy_block(lw, v, h)
            else:
                lower_fill(b, v.type.numel, Src(v.type.element_type, addr=tmp.offset),
                           Src(v.type.element_type, addr=h.offset))
                lw.lmem.free(tmp)
        else:
            b("fmv.d" if h.cls == "f" else "mv", h, tmp)


def _homes(lw: Lowering, values: Sequence[Value], loc, what: str) -> List:
    return [_home(lw, v.type, what, loc) for v in values]


def _stores_inside(op) -> bool:
    return any(isinstance(o, O.StoreOp) for o in op.walk())


def _waits_first(block: Block) -> bool:
    """Whether every path through ``block`` waits for the transfers issued before it (an ``mtia.slot_wait``,
    ``prefetch-rows``' top of the slot loop) before anything writes local memory: only scalar ops, and a slot flush
    (a transfer reading a slot), before it.  The wait then covers the previous iteration's stores."""
    for op in block.ops:
        if isinstance(op, SlotWaitOp):
            return True
        if isinstance(op, IfOp):
            return _waits_first(op.then_block) and _waits_first(op.else_block)
        if not (isinstance(op, SlotFlushOp) or (not op.regions and not any(r.type.is_block() for r in op.results)
                                                  and Pure in op.traits)):
            return False
    return False


def _emit_block(lw: Lowering, block: Block, homes: Sequence, kept=()) -> None:
    """Emit ``block``'s ops, then write what its terminator passes on (a yield's values, a condition's
    arguments) into ``homes`` (but the ``kept`` indices: accumulators the engine keeps)."""
    for op in block.ops[:-1]:
        lw.emit(op)
    term = block.terminator
    lw.b.loc = term.loc
    values = list(term.args if isinstance(term, ConditionOp) else term.values)
    pairs = [(v, h) for i, (v, h) in enumerate(zip(values, homes)) if i not in kept]
    write(lw, [v for v, _ in pairs], [h for _, h in pairs])
    _terminator_done(lw, term)


def _terminator_done(lw: Lowering, term) -> None:
    """Free what the terminator was the last reader of (it is not lowered by ``emit``)."""
    lw.release(term)


# --------------------------------------------------------------------------- the ops

def lower(lw: Lowering, op) -> None:
    if isinstance(op, ForOp):
        lower_for(lw, op)
    elif isinstance(op, IfOp):
        lower_if(lw, op)
    elif isinstance(op, WhileOp):
        lower_while(lw, op)
    else:
        raise CompileError(f"internal: '{op.name}' outside its region op")


@contextmanager
def counted_loop(lw: Lowering, op: ForOp, comment: str):
    """The frame of an ``scf.for`` around what the ``with`` body emits: the induction variable starts at
    ``lower`` (the loop is skipped unless it is below ``upper``), steps by ``step`` and loops while below."""
    b = lw.b
    iv = b.x("iv")
    b("mv", iv, lw.get(op.lower), comment=comment)
    lw.regs[op.induction_var] = iv
    top, done = b.new_label("for"), b.new_label("endfor")
    b("bge", iv, lw.get(op.upper), done)
    b.label(top)
    yield
    b("add" if op.lower.type.width == 64 else "addw", iv, iv, lw.get(op.step))
    b("blt", iv, lw.get(op.upper), top).dma = DmaTag(back_edge=True, pipelined=bool(op.pipeline))
    b.label(done)


def _adopted(lw: Lowering, op: ForOp, v: Value):
    """The buffer of init ``v`` when it can be the carried block's home (no copy): a loaded block only
    this loop reads (``pipeline-loads``' first tiles), loaded in the loop's own block (a load hoisted out of an
    enclosing loop is read again by that loop's next trip: the carried blocks must not write over it), or a block
    the loop around carries for this loop only (``resident.adopts_carried``)."""
    if resident.adopts_carried(op, v) and v in lw.bufs:
        return lw.bufs[v]
    if not (isinstance(v, OpResult) and isinstance(v.op, O.LoadOp) and len(v.uses) == 1
            and v.op.parent is op.parent and v in lw.bufs and v not in lw.keep):
        return None
    return lw.bufs[v]


def _handed_home(lw: Lowering, r: Value, loc):
    """A placeholder home for loop result ``r`` when it is a resident accumulator handed on to the next loop as
    it is (``resident.hands_rows``): nothing writes or reads it, so it takes no block's bytes (it used to take the
    accumulator's, 128 KiB for 256 x 128 fp32, while the loop and the next one ran)."""
    if not resident.hands_rows(r):
        return None
    return lw.lmem.alloc(1, "the accumulators a loop hands on to the next (never stored)", loc)


def _yielded_home(lw: Lowering, loop: ForOp, r: Value):
    """The home of the ``scf.if`` result that loop result ``r`` becomes, when ``r``'s one use is the yield of
    the branch the loop is in (the branch then copies nothing); ``r`` never frees it, the ``if``'s result does."""
    if not r.type.is_block() or len(r.uses) != 1:
        return None
    term, block = r.uses[0].op, loop.parent
    branch = block.parent.parent if block is not None and block.parent is not None else None
    if not isinstance(branch, IfOp) or not isinstance(term, YieldOp) or term is not block.terminator:
        return None
    i = [k for k, y in enumerate(term.values) if y is r]
    home = lw.bufs.get(branch.results[i[0]]) if len(i) == 1 else None
    if home is None or branch.results[i[0]] in lw.homes.views or branch.results[i[0]].type != r.type:
        return None
    lw.keep.add(r)
    return home


def deferred_store(op: ForOp):
    """The block the last store of ``op``'s body writes, when the loop's stores may be left in flight across
    the back-edge instead of waited for at its end: every store of the loop is a contiguous block store
    directly in its body (its transfer reads the stored block's buffer only) of a block an elementwise op of
    the body computes (a buffer of its own, which isel keeps: nothing else writes it).  Then each store waits
    for the one before it as it issues (that one had the compute between them to run under), and the op
    computing a block whose store may be in flight waits first (isel.py); one store is left in flight at the
    loop's end (its buffer is written by nothing after the loop).  Not in a loop of ``pipeline-loads``: there a
    wait before a store would also wait for the tiles prefetched for the next iteration."""
    if op.pipeline:   # a wait before a store would wait for the next tiles too (one completion barrier)
        return None
    stores = [o for o in op.walk() if isinstance(o, O.StoreOp)]
    if not stores:
        return None
    for s in stores:
        v = s.value
        if s.parent is not op.block or s.attrs.get("access") != "contiguous" or not v.type.is_block() \
                or not isinstance(v, OpResult) or v.op.parent is not op.block:
            return None
        if not (isinstance(v.op, FusedElementwiseOp) or type(v.op) in VECTOR_BINARY) or v.type.is_bool():
            return None   # (an op writing a buffer of its own, through Homes.result_addr: not an alias, a view)
    return stores[-1].value


def store_across_back_edge(op: ForOp) -> Optional[Value]:
    """The block stored last in a ``pipeline-loads`` loop whose body ends with that store, when its transfer may
    stay in flight across the back-edge: the next trip's first wait (for the tiles prefetched before the store)
    leaves it in flight too (insert-waits counts it; a zero-byte transfer before the loop stands in for
    it on the first trip), and the op computing the block again waits first unless a wait since the trip's start
    covered it (isel.py).  As in :func:`deferred_store`: a contiguous store of a block an elementwise op of the
    body computes into a buffer of its own."""
    if not op.pipeline or len(op.block.ops) < 2:
        return None
    s = op.block.ops[-2]
    if not isinstance(s, O.StoreOp) or s.attrs.get("access") != "contiguous":
        return None
    v = s.value
    if not v.type.is_block() or v.type.is_bool() or not isinstance(v, OpResult) or v.op.parent is not op.block:
        return None
    if not (isinstance(v.op, FusedElementwiseOp) or type(v.op) in VECTOR_BINARY):
        return None
    return v


def store_under_next(op: ForOp) -> Optional[Value]:
    """The output tile whose store a loop over tiles leaves in flight under the next trip (its loads and dot
    products), when the local-memory plan decided so (the loop's ``store_under_next``: the tile fits beside the
    plan's blocks, for the whole loop; the shape is :func:`~mtiacc.ir.analysis.k_loops.tile_stored_under_next`).
    The tile then gets a buffer of its own for the whole loop (:func:`lower_for`), which the K loop's accumulator
    store writes after waiting for the store of the trip before (``resident.end``); the waits between, for the
    loads, leave that store in flight (``mtia.dma.wait.in``, insert-waits)."""
    return tile_stored_under_next(op) if op.store_under_next else None


def _under_source(v: Value) -> Optional[Value]:
    """The K loop result whose accumulator store writes stored tile ``v`` (:func:`store_under_next`): the operand
    of the ``read_back`` truncf, or ``v`` itself when the tile is stored as the loop leaves it: fp32 / int32 as
    the engine holds it (a 4-byte output tile, as an int8 GEMM's int32 result), or an f16 accumulator, which
    ``resident.end`` narrows into the tile's buffer on the vector unit after the same wait."""
    if isinstance(v, OpResult) and isinstance(v.op, ForOp):
        return v
    if isinstance(v, OpResult) and read_back_source(v.op) is not None:
        return v.op.operands[0]
    return None


def _under_buffer(lw: Lowering, op: ForOp) -> Optional[Value]:
    """For a loop of :func:`store_under_next`: its stored tile's buffer of its own, allocated now (never freed: the
    last store may be in flight until the program's end), as the plan placed it; registered for the K loop
    (``Homes.under``).  Returns the stored tile, or None."""
    v = store_under_next(op)
    if v is None:
        return None
    nbytes = v.type.numel * elem_bytes(v.type)
    what = f"`{v.name_hint}` ({v.type}, stored under the next tile)" if v.name_hint else \
        f"a stored tile of {v.type} (stored under the next tile)"
    buf = lw.lmem.alloc(nbytes, what, op.loc)
    r = _under_source(v)
    lw.homes.under[r] = [buf, op, False]
    lw.keep.update((v, r))
    return v


def _under_home(lw: Lowering, r: Value):
    """The buffer of its own that loop result ``r`` takes as its home (:func:`_under_buffer`), or None."""
    entry = lw.homes.under.get(r)
    if entry is None:
        return None
    entry[2] = True
    return entry[0]


def _loops_around(op: Operation):
    """The ``scf.for`` ops around ``op``, innermost first."""
    block = op.parent
    while block is not None and block.parent is not None and block.parent.parent is not None:
        outer = block.parent.parent
        if isinstance(outer, ForOp):
            yield outer
        block = outer.parent


def _stored(op: Operation) -> bool:
    """Whether a result of ``op`` is the block a ``tt.store`` writes."""
    return any(isinstance(u.op, O.StoreOp) and u.op.value is r for r in op.results for u in r.uses)


def across_store(op: ForOp) -> Optional[Value]:
    """:func:`store_across_back_edge` of ``op``, unless a loop around it leaves a store in flight across its
    back-edge already (one such store at a time: the outer loop's)."""
    if any(store_across_back_edge(outer) is not None for outer in _loops_around(op)):
        return None
    return store_across_back_edge(op)


def computes_across_store(op: Operation) -> bool:
    """Whether ``op`` computes the block its loop's last store leaves in flight across the back-edge (then it
    waits first where that store may still be in flight: insert-waits decides)."""
    if not _stored(op):
        return False
    loop = next(_loops_around(op), None)
    v = across_store(loop) if loop is not None and op.parent is loop.block else None
    return v is not None and any(r is v for r in op.results)


def deferred_loop(op: Operation) -> Optional[ForOp]:
    """The loop around ``op`` whose stores wait for each other (:func:`deferred_store`), or None.  Its stores are
    all in its body, so no loop around it or in it is one too."""
    return next((loop for loop in _loops_around(op) if deferred_store(loop) is not None), None)


def rewrites_deferred_store(op: Operation) -> Optional[ForOp]:
    """The loop of :func:`deferred_loop` when ``op`` computes a block one of its stores writes (then it waits first
    where that store, of the trip before, may still be in flight: insert-waits decides), else None."""
    return deferred_loop(op) if _stored(op) else None


def _tag_across(items: List, v: Value) -> None:
    """In the body of a loop that leaves the store of ``v`` in flight across its back-edge: that store's
    transfers are tagged ``across``, and so are the waits before ops (those that may leave the body's prefetch
    group in flight may leave that store in flight too)."""
    for it in items:
        if not isinstance(it, MInstr) or it.dma is None:
            continue
        if it.is_transfer and it.dma.block is v:
            it.dma.across = True
        elif it.is_dma_wait and it.dma.request is not None and it.dma.request.kind == "op":
            it.dma.across = True   # (insert-waits keeps it only on the waits it counts)


def _double_buffer(lw: Lowering, op: ForOp, v: Value):
    """When the loop's one store writes ``v`` and nothing else reads it, two buffers that ``v`` alternates
    between (iteration k computes into one while the store of iteration k - 1 reads the other); ``v`` is read
    and written where a register points.  Returns (the register, the xor that flips it), or None."""
    stores = [o for o in op.walk() if isinstance(o, O.StoreOp)]
    if len(stores) != 1 or len(v.uses) != 1 or v in lw.homes.views:
        return None
    nbytes = v.type.numel * elem_bytes(v.type)
    what = f"`{v.name_hint}` ({v.type}, twice)" if v.name_hint else f"a stored block of {v.type} (twice)"
    first, second = (lw.lmem.alloc(nbytes, what, op.loc) for _ in range(2))   # never freed: a store may read one
    reg = lw.b.x("dbuf")
    lw.b("li", reg, first.offset)
    lw.homes.views[v] = reg
    return reg, first.offset ^ second.offset


def lower_for(lw: Lowering, op: ForOp) -> None:
    b = lw.b
    adopted = [None if resident.resident_dot(arg) is not None else _adopted(lw, op, v)
               for arg, v in zip(op.iter_args, op.inits)]
    homes = [a or _under_home(lw, r) or _yielded_home(lw, op, r) or _handed_home(lw, r, op.loc)
             or _home(lw, r.type, resident.describe(lw, arg), op.loc)
             for r, arg, a in zip(op.results, op.iter_args, adopted)]
    kept = resident.begin(lw, op)
    for i, r in enumerate(op.results):   # only the engine's store of the rows writes the tile's buffer
        entry = lw.homes.under.get(r)
        if entry is not None and entry[2] and (i not in kept or resident.hands_rows(r)):
            entry[2] = False
            homes[i] = _home(lw, r.type, resident.describe(lw, op.iter_args[i]), op.loc)
    pairs = [(v, h) for i, (v, h) in enumerate(zip(op.inits, homes)) if i not in kept]
    write(lw, [v for v, _ in pairs], [h for _, h in pairs])
    for v, a, res in zip(op.inits, adopted, op.results):
        if a is not None and resident.adopts_carried(op, v):
            lw.keep.add(res)   # the outer loop's home: freed with that loop's result
        elif a is not None:
            del lw.bufs[v]   # the home now: freed with the loop's result, not at the loop
    for arg, res, h in zip(op.iter_args, op.results, homes):
        _bind_home(lw, arg, h)
        _bind_home(lw, res, h)
    top = engine.loop_top(lw, op)
    last = deferred_store(op)
    swap = _double_buffer(lw, op, last) if last is not None else None
    across = across_store(op)
    under = _under_buffer(lw, op) if last is None and across is None else None
    if across is not None:
        b("mtia.dma.out", "zero", "zero", "zero", comment="no store yet: the first trip's stand-in for the store "
                                                          "a trip leaves in flight at its end")
        b.fn.items[-1].dma = DmaTag(across=True)
    with counted_loop(lw, op, "scf.for"):
        body = len(b.fn.items)
        _emit_block(lw, op.block, homes, kept)
        if across is not None:
            _tag_across(b.fn.items[body:], across)
        if swap is not None:   # the previous iteration's store reads the other buffer
            for it in b.fn.items[body:]:
                if isinstance(it, MInstr) and it.dma is not None and it.dma.deferred is op:
                    it.dma.alternates = True
        if swap is not None:
            b("xor", swap[0], swap[0], b.li(swap[1]), comment="the other buffer of the stored block")
        if under is not None and not lw.homes.under[_under_source(under)][2]:
            under = None     # the K loop did not take the buffer: the store waits as any other
        if under is not None:
            for it in b.fn.items[body:]:
                if isinstance(it, MInstr) and it.dma is not None and it.is_transfer and it.dma.block is under:
                    it.dma.under = op
        engine.loop_bottom(lw, top)
        # in a pipelined loop the first op of the next trip that touches local memory waits (the previous trip's
        # prefetches may still fill the carried blocks): for every transfer but the prefetches issued before it
        # (insert-waits), so for these stores too; the prefetches issued before that wait land after the stores
        # read their bytes (the DMA engine holds an inbound transfer over bytes an earlier outbound one reads)
        if _stores_inside(op) and last is None and under is None and not op.pipeline \
                and not _waits_first(op.block):
            b("mtia.dma.wait", comment="this iteration's stores complete before the next")
    resident.end(lw, op, homes, kept)


def lower_if(lw: Lowering, op: IfOp) -> None:
    b = lw.b
    engine.forget(lw, op)
    homes = _homes(lw, op.results, op.loc, "a block chosen by an `if`")
    for res, h in zip(op.results, homes):
        _bind_home(lw, res, h)
    kept.view_for_if(lw, op, homes)
    other, done = b.new_label("else"), b.new_label("endif")
    b("beqz", lw.get(op.cond), other, comment="scf.if").dma = DmaTag(mark=op)
    for block, last in ((op.then_block, False), (op.else_block, True)):
        _emit_block(lw, block, homes)
        # the loads this branch leaves in flight complete here, so that the other branch (a kept slot, say) does
        # not wait for them (insert-waits keeps the wait where one may be in flight)
        waits.request(lw, WaitRequest("branch", since=op), "this branch's loads complete before the branches join")
        if not last:
            b("j", done)
            b.label(other)
            engine.forget(lw, op)
    b.label(done)
    engine.forget(lw, op)


def lower_while(lw: Lowering, op: WhileOp) -> None:
    b = lw.b
    before = _homes(lw, op.inits, op.loc, "a loop-carried block")
    write(lw, list(op.inits), before)
    for arg, h in zip(op.before_block.args, before):
        _bind_home(lw, arg, h)
    after = _homes(lw, op.results, op.loc, "a loop result")
    for arg, res, h in zip(op.after_block.args, op.results, after):
        _bind_home(lw, arg, h)
        _bind_home(lw, res, h)
    top, done = b.new_label("while"), b.new_label("endwhile")
    engine.forget(lw, op)
    b.label(top)
    _emit_block(lw, op.before_block, after)
    b("beqz", lw.get(op.before_block.terminator.cond), done, comment="scf.while")
    _emit_block(lw, op.after_block, before)
    if _stores_inside(op):
        b("mtia.dma.wait", comment="this iteration's stores complete before the next")
    b("j", top).dma = DmaTag(back_edge=True)
    b.label(done)
    engine.forget(lw, op)


__all__ = ["number", "remap", "carried_reads", "carried_home", "deferred_store", "lower", "LOOP_OPS", "REGION_OPS",
           "TERMINATORS"]
