"""The local-memory plan of a kernel: where every block lives in a PE's local memory, from one liveness-based
allocation over the function, sized from the machine.

Codegen gives each block value it materializes a buffer when the value is defined and frees it after its last
reader, first fit in 64-byte units, between the kernel's argument area and the stack at the top of local
memory (``codegen/vector/lmem.py``, ``codegen/context.py``).  The plan makes the same allocation ahead of
codegen, on the IR as the passes leave it, so that a pass asks what fits instead of guessing:

* the **capacity** is the machine's local memory less its stack and the argument area
  (``target.lmem_bytes - target.stack_bytes - base``);
* a **block** is a block-typed value of a function, loop or branch body (its pipeline buffers, kept tiles and
  reused buffers included: they are blocks the passes made); a splat or a constant block is no buffer (codegen
  broadcasts a register), nor is a loop's accumulator the matrix engine keeps across the loop (the dots of
  :func:`mtiacc.opt.dots.accumulators.chain`, while their rows fit the engine's);
* a block is **live** from its definition to its last reader, an op codegen lowers that reads its buffer (isel's
  ``readers``): not an op whose block results no op reads as data (an offset, a pointer or a mask a load or a
  store moves by its structure), a load only for what its access plan reads; a fused op reads what its loop
  reads (``ir/analysis/fused_inputs.py``: not the prefix masks and ranges it computes, a column broadcast along
  its rows as the column); a reader inside a loop that the block was defined outside of keeps it to the end of
  that loop (every iteration reads it); a loop's carried blocks live through the loop; a stored block lives to
  the kernel's end (its DMA may still read it: codegen never frees it);
* an ``expand_dims`` or a ``reshape`` of a block, and a broadcast to the same shape, is a view of its source's
  buffer; ``keep-invariant``'s guarded read (an ``scf.if`` yielding a slot load or a DRAM load) writes the
  ``if``'s one buffer;
* a value a loop's body only yields is made in the carried block's buffer when codegen does so (a prefetch load
  that no later op of the body reads the carried block after; an elementwise op or an engine dot that every
  reader of the carried block comes before): one buffer;
* the ``arith.truncf`` the engine's accumulator store does (``read_back``) is the accumulators' buffer (an
  alias); a loop over tiles whose output tile is stored under the next trip (the loop's ``store_under_next``,
  which :func:`plan_stores_under` decides once the passes are done) gives that tile a buffer of its own, sized as
  the tile, from the loop's start (after the loop's carried blocks) to the kernel's end;
* an op's **scratch**: the bf16 parts codegen splits the fp32 operands of an engine dot into, and the 16-bit
  copies ``legalize-fp8`` widens an engine dot's fp8 operands to, live at that op; when split parts do not
  fit, codegen frees the first operand once split if the dot is its last reader (and writes a loop's
  accumulator in place: the carried block's one buffer), and so does the plan;
* a load's or a store's **scratch**: a ``split-tiles`` tile moved by columns goes through a transposed copy; a
  ``runs`` load reads its indices through a window (the largest of its sizes that fits beside the live blocks,
  none when neither does, as codegen takes it); a reduction's or a scan's result nothing reads is a temporary
  while it runs (allocated with the used ones, in the order of the results); a splat or a constant block that a reduction, a scan, a sort, a gather or a histogram reads by
  address is filled into a buffer at the first of them, which codegen keeps to the kernel's end;
* when a block does not fit, an elementwise op writes its result over an operand of the same shape and element
  size that it reads last (codegen's ``Lowering.result_addr_in_place``), and so does the plan.

A pass asks :meth:`LocalMemoryPlan.free_in` (the bytes left while a loop runs, its own candidate blocks left
out) or :meth:`LocalMemoryPlan.free` (the bytes left at the kernel's peak), and takes no more than its
:meth:`LocalMemoryPlan.share` of the machine's local memory: the passes that keep blocks or fetch them ahead
share it (tiles fetched ahead a half, rows reused by later loops a third, invariants kept for a slot a sixth),
so that a kernel that fits compiles as it did when those shares were written into the passes.  :func:`annotate` writes the plan on
the function (``--emit=ir``): ``lmem_capacity``, ``lmem_peak``, ``lmem_stack`` and ``lmem_blocks``, one
``"name offset size"`` entry per block.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.analysis import fused_inputs
from mtiacc.ir.analysis.k_loops import tile_stored_under_next
from mtiacc.ir.analysis.scalar_blocks import scalar_root
from mtiacc.ir.core import Block, BlockArgument, Operation, OpResult, Value
from mtiacc.ir.dot_ops import DotOp, read_back_source, split_parts
from mtiacc.ir.fused import FusedElementwiseOp
from mtiacc.ir.scf import ForOp, IfOp, WhileOp, YieldOp
from mtiacc.ir.types import FloatType, IntType, PointerType
from mtiacc.target import Target

ALIGN = 64          # codegen's buffer unit (codegen/vector/lmem.py)
_CONTROL = (ForOp, IfOp, WhileOp, O.FuncOp)   # ops whose bodies hold blocks (other regions compute elements)


def block_bytes(t) -> int:
    """Bytes of a block of type ``t`` in local memory, as codegen stores it (i1 as one byte, pointers 8)."""
    e = t.element_type
    width = 64 if isinstance(e, PointerType) else max(getattr(e, "width", 8), 8)
    return t.numel * width // 8


def _aligned(n: int) -> int:
    return (max(n, 1) + ALIGN - 1) // ALIGN * ALIGN


@dataclasses.dataclass
class Block_:
    """One planned block: its value, where it lives and while which ops run (pre-order positions)."""

    value: Value
    nbytes: int
    first: int
    last: int
    offset: int = -1
    what: str = ""
    rank: int = 0       # among the blocks of one position, codegen allocates the lower rank first

    @property
    def size(self) -> int:
        return _aligned(self.nbytes)


@dataclasses.dataclass
class LocalMemoryPlan:
    capacity: int              # bytes for blocks
    base: int                  # the first byte for blocks (after the argument area)
    stack: int
    blocks: List[Block_]
    ends: Dict[int, Tuple[int, int]]   # id(op) -> (its position, the last position nested in it)
    scratch: Dict[int, int]            # position -> bytes an op needs besides its operands and results
    # position -> the operands an op may free or write over when its blocks do not fit (the docstring's rules)
    dying: Dict[int, List[Value]] = dataclasses.field(default_factory=dict)
    peak: int = 0
    lmem_bytes: int = 0                # the machine's local memory, stack included
    # id(value) of the loops' carried accumulators (and their dots' results) the matrix engine keeps: no buffer
    resident: frozenset = frozenset()

    def share(self, parts: int, free: Optional[int] = None) -> int:
        """What a pass that keeps or fetches ahead may take: its share of the machine's local memory (one of
        ``parts``: pipeline buffers 2, reused rows 3, kept invariants 6, as the passes share it), no more than
        the plan leaves free (``free``, or at the kernel's peak)."""
        return max(0, min(self.lmem_bytes // parts, self.free() if free is None else free))

    def live_at(self, pos: int, exclude: Iterable[Value] = ()) -> int:
        ex = {id(v) for v in exclude}
        live = [b for b in self.blocks if b.first <= pos <= b.last and id(b.value) not in ex]
        total = sum(b.size for b in live) + self.scratch.get(pos, 0)
        for dead in self.dying.get(pos, ()):
            if total <= self.capacity:
                break
            total -= sum(b.size for b in live if b.value is dead and b.last == pos)
        return total

    def free_in(self, op: Operation, exclude: Iterable[Value] = ()) -> int:
        """The bytes no block uses at any point while ``op`` (a loop) runs, ``exclude``'s blocks left out."""
        ex = list(exclude)
        lo, hi = self.ends[id(op)]
        return self.capacity - max(self.live_at(p, ex) for p in range(lo, hi + 1))

    def free(self) -> int:
        """The bytes no block uses at the kernel's peak."""
        return self.capacity - self.peak

    def overflow(self) -> Optional[Tuple[int, List[Block_]]]:
        """(the position, the blocks live there) where the blocks do not fit, or None."""
        for p in sorted({b.first for b in self.blocks} | set(self.scratch)):
            if self.live_at(p) > self.capacity:
                return p, [b for b in self.blocks if b.first <= p <= b.last]
        return None


def _resident(func: O.FuncOp, rows: int) -> Tuple[set, set]:
    """The values the matrix engine holds (loops' accumulator chains), by id, as ``dot-accumulators`` decides
    (:func:`~mtiacc.opt.dots.accumulators.engine_chains`); and the results of the dots of the other chains, which
    codegen writes into the loop's one accumulator buffer (the carried block's)."""
    from mtiacc.opt.dots.accumulators import engine_chains
    out, shared = set(), set()
    for loop, i, dots, engine in engine_chains(func.entry, rows):
        if engine:
            out.add(id(loop.iter_args[i]))
            out.update(id(d.result) for d in dots)
        else:
            shared.update(id(d.result) for d in dots)
    return out, shared


def _materialized(v: Value, memo: Dict[int, bool]) -> bool:
    """Whether codegen gives block ``v`` a buffer: a block of numbers some op reads as data.  Pointer blocks,
    splats and constants are none, nor are index blocks read only to form addresses and masks (the access
    plan moves a load or a store from their structure)."""
    if not (v.type.is_block() and isinstance(v.type.element_type, (FloatType, IntType, PointerType))):
        return False
    if isinstance(v, OpResult) and isinstance(v.op, (O.SplatOp, O.ConstantOp)):
        return False
    return _data(v, memo)


def _data(v: Value, memo: Dict[int, bool]) -> bool:
    """Whether a use of ``v``, or of a value made from it by integer or comparison ops, reads it as data."""
    if id(v) in memo:
        return memo[id(v)]
    memo[id(v)] = False
    out = False
    for u in _readers(v):
        if isinstance(u, (O.LoadOp, O.StoreOp)) and _access_reads(u, v):
            out = True
            break
        if isinstance(u, O.LoadOp) and v is not u.other or isinstance(u, O.StoreOp) and v is not u.value:
            continue
        if isinstance(u, FusedElementwiseOp):
            if any(x is v for x in fused_inputs.reads(u)):
                out = True
                break
            continue                                      # a mask or a range it computes, a column it reads
        if isinstance(u, O.AddPtrOp):
            if any(_data(r, memo) for r in u.results):   # the addresses of a gather, read as data
                out = True
                break
            continue
        if u.regions or not u.results or not all(r.type.is_block() and isinstance(
                r.type.element_type, (IntType, PointerType)) for r in u.results):
            out = True
            break
        if any(_data(r, memo) for r in u.results):
            out = True
            break
    memo[id(v)] = out
    return out


def _access_reads(op: Operation, v: Value) -> bool:
    """Whether the way ``access-plan`` chose to move load or store ``op`` (its ``access``) reads block ``v``, its
    pointer or mask, from local memory (codegen's ``memory.needs_buffers``): a gather's or a scatter's addresses and
    mask; a mask that is not a prefix of a contiguous access, nor a box of a tiled one."""
    from mtiacc.ir.analysis.affine import prefix_count
    from mtiacc.ir.analysis.affine_nd import range_box
    kind = op.attrs.get("access")
    mask = op.mask if v is op.mask else None
    if kind in ("gather", "scatter", "scalar"):
        return v is op.ptr or mask is not None and not (isinstance(v, OpResult) and isinstance(
            v.op, (O.SplatOp, O.ConstantOp)))
    if kind in ("contiguous", "elements"):
        return mask is not None and prefix_count(mask) is None
    if kind == "tiles":
        return mask is not None and range_box(mask) is None
    return False


def _readers(v: Value) -> List[Operation]:
    """The ops that may read block ``v``: its users, and the fused ops that read it a scalar a row where a user
    broadcasts it along their rows (``fused_inputs.row_source``: the broadcast block is never built)."""
    out = []
    for use in v.uses:
        u = use.op
        out.append(u)
        if isinstance(u, O.BroadcastOp):
            out.extend(w.op for w in u.result.uses if isinstance(w.op, FusedElementwiseOp)
                       and fused_inputs.row_source(u.result, w.op.results[0].type.shape) is v)
    return out


def _reads(u: Operation, v: Value, memo: Dict[int, bool]) -> bool:
    """Whether codegen reads block ``v`` from its buffer when it lowers ``u`` (isel's ``readers``), so that ``u``
    keeps it alive: an op whose block results no op reads as data is not lowered and reads nothing (an offset, a
    pointer or a mask a load or a store moves by its structure); a block load reads what its access plan reads
    (``memory.needs_buffers``: a gather's addresses, a general mask) and a computed ``other``, a scalar load
    nothing; a store its value and what its access plan reads."""
    if isinstance(u, O.LoadOp):
        if not u.result.type.is_block() or not (u.volatile or _materialized(u.result, memo)):
            return False
        return _access_reads(u, v) or v is u.other and not (
            isinstance(v, OpResult) and isinstance(v.op, (O.SplatOp, O.ConstantOp)))
    if isinstance(u, O.StoreOp):
        return v is u.value or _access_reads(u, v)
    if isinstance(u, FusedElementwiseOp):
        return any(x is v for x in fused_inputs.reads(u)) and any(_materialized(r, memo) for r in u.results)
    if isinstance(u, _CONTROL) or u.regions or not u.results:
        return True
    return not all(r.type.is_block() for r in u.results) or any(_materialized(r, memo) for r in u.results)


def _scratch(op: Operation) -> int:
    """The bf16 high and low parts codegen makes of an engine dot's fp32 operands; the 16-bit copies
    ``legalize-fp8`` (after the plan) widens an engine dot's fp8 operands to (``arith.extf`` blocks the dot
    reads, two bytes an element: :func:`mtiacc.opt.legalize_fp8.engine_type`)."""
    if not (isinstance(op, DotOp) and op.on_engine()):
        return 0
    return _split(op) + sum(2 * v.type.numel for v in (op.a, op.b)
                            if isinstance(v.type.element_type, FloatType) and v.type.element_type.is_fp8)


def _access_scratch(op: Operation) -> int:
    """The scratch a load or store needs while it moves: a ``split-tiles`` tile moved by columns goes through a
    transposed copy of the tile (``codegen/memory/split_tiles.py``)."""
    from mtiacc.ir.analysis.split_axes import by_columns, pointer_axes
    if not isinstance(op, (O.LoadOp, O.StoreOp)) or op.attrs.get("access") != "split-tiles":
        return 0
    p = pointer_axes(op.ptr)
    t = op.result.type if isinstance(op, O.LoadOp) else op.value.type
    if p is None or len(t.shape) != 2 or not by_columns([s.normalized() for s in p[1]], t.shape):
        return 0
    return _aligned(block_bytes(t))


def _window(op: Operation) -> List[int]:
    """The sizes, largest first, of the window a ``runs`` load reads its indices through
    (:func:`~mtiacc.ir.analysis.split_index.window_elements`): codegen takes the first that fits beside the live
    blocks (``codegen/memory/runs.py``), none when neither does."""
    from mtiacc.ir.analysis.split_index import split_pointer, window_elements
    if not isinstance(op, O.LoadOp) or op.attrs.get("access") != "runs" or not op.result.type.is_block():
        return []
    p = split_pointer(op.ptr)
    t = op.result.type
    if p is None:
        return []
    n, esize = t.numel, block_bytes(t) // t.numel
    cap = window_elements(p[1].normalized(), n, esize)
    if cap is None:
        return []
    return [_aligned(cap * esize)] + ([_aligned(n * esize)] if cap > n else [])


def _split(op: DotOp) -> int:
    """The bf16 parts of an engine dot's fp32 operands (two or three 2-byte parts an element)."""
    parts = split_parts(op.input_precision)
    return sum(parts * _aligned(2 * v.type.numel) for v in (op.a, op.b)
               if isinstance(v.type.element_type, FloatType) and v.type.element_type.width == 32)


def _elementwise(op: Operation) -> bool:
    """An op codegen lowers as one loop over elements, writing element i after reading it (a fused loop included)."""
    return (len(op.results) == 1 and op.results[0].type.is_block() and not isinstance(op, _CONTROL + (DotOp,))
            and (not op.regions or isinstance(op, FusedElementwiseOp)))


def plan_function(func: O.FuncOp, target: Target, ahead: bool = False) -> LocalMemoryPlan:
    """The plan of ``func`` on ``target`` (the module docstring's rules).  With ``ahead``, a store ``access-plan``
    has not yet decided is planned as it will move (:func:`_access`): a pass of the ladder that runs early asks so
    (a loop's stored block takes two buffers); the passes that fetch ahead do not, as a loop they pipeline does
    not double its stored block."""
    base = (target.args_base + 8 * len(func.args) + ALIGN - 1) // ALIGN * ALIGN
    capacity = target.lmem_bytes - target.stack_bytes - base
    resident, shared = _resident(func, target.dpe_accumulator_rows)
    memo: Dict[int, bool] = {}
    pos: Dict[int, int] = {}
    ends: Dict[int, Tuple[int, int]] = {}
    loops: Dict[int, Tuple[Operation, ...]] = {}   # id(op) -> the loops around it, outermost first
    scratch: Dict[int, int] = {}
    dying: Dict[int, List[Value]] = {}
    windows: Dict[int, List[int]] = {}   # position -> the sizes a load's window may take, largest first
    defs: List[Tuple[Value, int, Tuple[Operation, ...]]] = []
    stores: List[Tuple[O.StoreOp, int]] = []
    dots: List[Tuple[DotOp, Block]] = []
    temps: List[Tuple[Value, int]] = []

    def number(block: Block, around: Tuple[Operation, ...]) -> None:
        for op in block.ops:
            p = len(pos)
            pos[id(op)] = p
            loops[id(op)] = around
            if isinstance(op, O.LoadOp) and not op.result.type.is_block():
                scratch[p] = ALIGN                # the slot a scalar's DMA lands in (codegen/memory/gather.py)
            elif isinstance(op, O.StoreOp):
                stores.append((op, p))
            elif isinstance(op, DotOp) and op.on_engine():
                dots.append((op, block))
            if isinstance(op, _BY_ADDRESS[:2]) and op.results[0].type.is_block() and len(op.results) > 1:
                # a result of a reduction or scan of several operands that nothing reads: a temporary while it runs,
                # allocated in the order of the results (codegen's reduce_region)
                temps.extend((r, p) for r in op.results if not _materialized(r, memo))
            if _access_scratch(op):
                scratch[p] = _access_scratch(op)
            elif _window(op):
                windows[p] = _window(op)
            if _scratch(op):
                scratch[p] = _scratch(op)
                dying[p] = [op.a] if _split(op) else []
            elif _elementwise(op):
                dying[p] = [x for x in op.operands if x.type.is_block() and x.type.shape == op.results[0].type.shape
                            and block_bytes(x.type) == block_bytes(op.results[0].type)][:1]
            if not isinstance(op, _CONTROL):
                defs.extend((r, p, around) for r in op.results)
            else:
                inner = around + (op,) if isinstance(op, (ForOp, WhileOp)) else around
                for r in op.regions:
                    for b in r.blocks:
                        defs.extend((a, p, inner) for a in b.args)
                        number(b, inner)
                defs.extend((r, p, around) for r in op.results)   # codegen gives them their home before the op
            if not isinstance(op, _CONTROL):
                # Element-wise bodies (a fused loop's, a reduce or scan's combine function, the loops and
                # branches inside them) compute scalars: no buffers.  Every op in them runs while ``op`` does,
                # at its position, and their reads of the blocks around count there.
                for o in op.walk():
                    pos.setdefault(id(o), p)
                    loops.setdefault(id(o), around)
                    ends.setdefault(id(o), (p, p))
            ends[id(op)] = (p, len(pos) - 1)

    number(func.entry, ())
    group = _carried_groups(func, resident)
    blocks: Dict[int, Block_] = {}
    for v, p, around in defs:
        if id(v) in resident or id(v) in shared or not _materialized(v, memo):
            continue
        handed = _handed_on(v, resident)    # no buffer: codegen marks its place with one unit
        last = p
        owner = v.block.parent.parent if isinstance(v, BlockArgument) and v.block.parent else None
        if isinstance(owner, (ForOp, WhileOp)):
            last = ends[id(owner)][1]
        for u in _readers(v):
            upos = pos.get(id(u))
            if upos is None or not _reads(u, v, memo):
                continue
            if isinstance(u, O.StoreOp) and u.value is v:
                last = len(pos) - 1               # a DMA may read it still: codegen never frees a stored block
                break
            outer = next((lp for lp in loops.get(id(u), ()) if lp not in around), None)
            if outer is None and isinstance(u, (ForOp, WhileOp)):
                outer = u                         # an init: codegen frees it once the loop is lowered
            last = max(last, ends[id(outer)][1] if outer is not None else upos)
        what = f"`{v.name_hint}`" if v.name_hint else f"a block of {v.type}"
        key = _buffer_key(v, group)
        b = blocks.get(key)
        if b is None:
            blocks[key] = Block_(v, 1 if handed else block_bytes(v.type), p, last, what=what, rank=_result_rank(v))
        else:                                   # one buffer through a loop: its init, carried block and result
            b.first, b.last = min(b.first, p), max(b.last, last)
            b.nbytes = max(b.nbytes, block_bytes(v.type))
    for r, p in temps:
        blocks[id(r)] = Block_(r, r.type.numel * max(block_bytes(r.type) // r.type.numel, 4), p, p,
                               what="an unused reduction result", rank=_result_rank(r))
    end = len(pos) - 1
    for st, p in stores:    # what a DMA stores from and codegen never frees: a scalar's slot, a splat filled
        v = st.value
        if not v.type.is_block():
            blocks[id(st)] = Block_(v, 8, p, end, what="a stored scalar's slot")
        elif id(v) not in blocks and id(v) not in resident and not _materialized(v, memo) \
                and isinstance(v.type.element_type, (FloatType, IntType)):
            blocks[id(st)] = Block_(v, block_bytes(v.type), p, end, what=f"the stored {v.type} filled at its store")
    for op in func.walk():    # a broadcast scalar such an op reads by address: filled into a buffer never freed
        if isinstance(op, _BY_ADDRESS) and id(op) in pos:
            for v in op.operands:
                if v.type.is_block() and scalar_root(v) is not None and id(v) not in blocks:
                    blocks[id(v)] = Block_(v, block_bytes(v.type), pos[id(op)], end,
                                           what=f"`{v.name_hint}`" if v.name_hint else f"a filled {v.type}")
    for dot, block in dots:   # the engine reads them until the next drain, or the end of the loop body
        ops = block.ops
        nxt = next((o for o in ops[ops.index(dot) + 1:] if _disturbs_engine(o, memo)), None)
        held = pos[id(nxt)] - 1 if nxt is not None else ends[id(ops[-1])][1]
        for v in (_through_trans(dot.a), _through_trans(dot.b), dot.acc, dot.result):
            b = blocks.get(_buffer_key(v, group))
            if b is not None:
                b.last = max(b.last, held)
    for loop in func.walk():
        v = _double_buffered(loop, ahead) if isinstance(loop, ForOp) else None
        b = blocks.get(_buffer_key(v, group)) if v is not None else None
        if b is not None:   # two buffers from the loop on, never freed: a store may read one
            b.nbytes, b.first, b.last = 2 * _aligned(b.nbytes), ends[id(loop)][0], end
    for loop in func.walk():
        v = tile_stored_under_next(loop) if isinstance(loop, ForOp) and loop.store_under_next else None
        b = blocks.get(_buffer_key(v, group)) if v is not None else None
        if b is not None:   # a buffer of its own from the loop on, after the loop's carried blocks; never freed
            b.first, b.last, b.rank, b.nbytes = ends[id(loop)][0], end, 1, block_bytes(v.type)
    plan = LocalMemoryPlan(capacity, base, target.stack_bytes, list(blocks.values()), ends, scratch,
                           dying={p: v for p, v in dying.items()}, lmem_bytes=target.lmem_bytes,
                           resident=frozenset(resident))
    for p, sizes in windows.items():   # the largest that fits beside the blocks live there, as codegen takes it
        live = plan.live_at(p)
        scratch[p] = scratch.get(p, 0) + next((n for n in sizes if live + n <= capacity), 0)
    _assign(plan)
    return plan


def _result_rank(v: Value) -> int:
    """Among the blocks made at one position, the order codegen allocates them in: a reduction's or a scan's
    results (used or not) in the order of the results."""
    if isinstance(v, OpResult) and isinstance(v.op, _BY_ADDRESS[:2]) and len(v.op.results) > 1:
        return v.index
    return 0


def _by_address() -> tuple:
    from mtiacc.ir.permute_ops import GatherOp, HistogramOp, SortOp
    from mtiacc.ir.shape_ops import ReduceOp, ScanOp
    return (ReduceOp, ScanOp, SortOp, GatherOp, HistogramOp)


# ops that read their block operands at an address (codegen's ``tensor.axes.source_addr``): a splat or a constant
# block (behind shape ops) is filled into a buffer of its own at the first of them, which codegen never frees
_BY_ADDRESS = _by_address()


def _buffer_key(v: Value, group: Dict[int, int]) -> int:
    """The key of ``v``'s buffer among the plan's blocks: its carried group's (:func:`_carried_groups`); for the
    ``arith.truncf`` the engine's accumulator store does (``read_back``), the accumulators' buffer, which it
    aliases (codegen's ``ndblocks.is_alias``)."""
    while isinstance(v, OpResult) and (read_back_source(v.op) is not None or _view(v.op)):
        v = v.op.operands[0]
    return group.get(id(v), id(v))


def _view(op: Operation) -> bool:
    """A shape op whose result codegen makes a view of its source's buffer (``ndblocks.is_alias``): an
    ``expand_dims`` or a ``reshape`` of a block, a broadcast to the same shape; not of a splat or a constant,
    which is filled into a buffer of its own."""
    from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp
    if isinstance(op, (ExpandDimsOp, ReshapeOp)):
        ok = op.result.type.is_block() and op.src.type.is_block()
    else:
        ok = isinstance(op, O.BroadcastOp) and op.src.type.shape == op.result.type.shape
    return ok and scalar_root(op.result) is None


_BINARY = (O.AddIOp, O.SubIOp, O.MulIOp, O.MulHiUIOp, O.DivSIOp, O.DivUIOp, O.RemSIOp, O.RemUIOp, O.AndIOp,
           O.OrIOp, O.XOrIOp, O.ShLIOp, O.ShRSIOp, O.ShRUIOp, O.MaxSIOp, O.MinSIOp, O.MaxUIOp, O.MinUIOp, O.AddFOp,
           O.SubFOp, O.MulFOp, O.DivFOp, O.MaxNumFOp, O.MinNumFOp)


def _double_buffered(loop: ForOp, ahead: bool = False) -> Optional[Value]:
    """The block a loop's one store writes that codegen gives two buffers (``control._double_buffer``: iteration k
    computes into one while the store of iteration k - 1 reads the other): the loop is no ``pipeline-loads``
    loop, its store is a contiguous one directly in its body, of a block only stored, which a fused or a binary
    elementwise op of the body computes (``control.deferred_store``); with ``ahead``, also an op that
    ``fuse-elementwise`` will make part of a fused one."""
    if loop.attrs.get("pipeline"):
        return None
    stores = [o for o in loop.walk() if isinstance(o, O.StoreOp)]
    if len(stores) != 1:
        return None
    s = stores[0]
    v = s.value
    if s.parent is not loop.block or (_access(s) if ahead else s.attrs.get("access")) != "contiguous" \
            or not v.type.is_block() \
            or v.type.is_bool() or not isinstance(v, OpResult) or v.op.parent is not loop.block or len(v.uses) != 1:
        return None
    if isinstance(v.op, FusedElementwiseOp) or type(v.op) in _BINARY:
        return v
    return v if ahead and _will_fuse(loop, v.op) else None


def _will_fuse(loop: ForOp, op: Operation) -> bool:
    """Whether ``fuse-elementwise`` (after the ladder's early passes) makes ``op`` of ``loop``'s body part of a fused
    op: a layer norm's ``math.fma`` of ``(x - mean) * rstd``, the weight and the bias, stored in each trip."""
    from mtiacc.opt.fuse_elementwise import fused_ops, structural_values
    func = loop
    while func is not None and not isinstance(func, O.FuncOp):
        block = func.parent
        func = block.parent.parent if block is not None and block.parent is not None else None
    return func is not None and id(op) in fused_ops(loop.block, structural_values(func))


def _access(op: Operation) -> str:
    """How load or store ``op`` moves: its ``access`` once ``access-plan`` has run, else what that pass will decide
    (:func:`mtiacc.ir.analysis.access_plan.plan`), so that a pass before it plans the buffers codegen will give."""
    kind = op.attrs.get("access")
    if kind is not None:
        return kind
    from mtiacc.ir.analysis.access_plan import plan
    from mtiacc.ir.analysis.axis_info import analyze
    func = op
    while func is not None and not isinstance(func, O.FuncOp):
        block = func.parent
        func = block.parent.parent if block is not None and block.parent is not None else None
    return plan(op, lambda: analyze(func))


def _handed_on(v: Value, resident: set) -> bool:
    """Whether ``v`` is a loop's result that the engine keeps and that only starts the same accumulation in the
    next loop of its block (``pipeline-dots``' remainder loop): its rows go on as they are, codegen gives it no
    buffer but one unit of local memory that marks its place (``codegen/control.py``)."""
    if not (isinstance(v, OpResult) and isinstance(v.op, ForOp) and id(v.op.iter_args[v.index]) in resident):
        return False
    if len(v.uses) != 1 or not isinstance(v.uses[0].op, ForOp):
        return False
    nxt = v.uses[0].op
    j = v.uses[0].index - 3                 # the init's index among the carried values (lower, upper, step first)
    return (nxt.parent is v.op.parent and 0 <= j < len(nxt.iter_args) and id(nxt.iter_args[j]) in resident
            and nxt.iter_args[j].type == v.type)


def _carried_groups(func: O.FuncOp, resident: set) -> Dict[int, int]:
    """id(value) -> id of the first value of its buffer: a loop's carried block takes its init's buffer when the
    init is a loaded block, loaded in the loop's block, the loop is the only reader of and the engine does not keep it (codegen's
    ``control._adopted``: another init is copied into a home of the loop's, or loaded into the engine, and
    lives to the loop's end), and its result is the carried block's buffer."""
    parent: Dict[int, int] = {}

    def find(k: int) -> int:
        while parent.get(k, k) != k:
            k = parent[k]
        return k

    for op in func.walk():
        if isinstance(op, ForOp):
            inits = op.operands[len(op.operands) - len(op.iter_args):]
            yields = op.block.terminator.operands
            for init, arg, res, y in zip(inits, op.iter_args, op.results, yields):
                root = find(id(arg))
                if (len(init.uses) == 1 and isinstance(init, OpResult) and isinstance(init.op, O.LoadOp)
                        and init.op.parent is op.parent or _adopts_carried(op, init)) and id(arg) not in resident:
                    root = find(id(init))
                    parent[id(arg)] = root
                parent[id(res)] = root
                if id(arg) not in resident and _into_carried(op, arg, y):
                    parent[id(y)] = root
        elif isinstance(op, IfOp):
            for branch in _guarded_read(op):      # written straight into the if's result (one buffer)
                parent[id(branch)] = find(id(op.results[0]))
    return {k: find(k) for k in parent}


def _guarded_read(op: IfOp) -> List[Value]:
    """The values of ``keep-invariant``'s guarded read (``scf.if``: then a slot load, else the load from DRAM,
    each yielded and read by nothing else), which codegen writes straight into the ``if``'s result
    (``memory/kept.py``'s ``_branch_home``); none for another ``if``."""
    from mtiacc.ir.mtia.kept import SlotLoadOp
    if len(op.results) != 1 or not op.results[0].type.is_block() or not op.else_region.blocks:
        return []
    then, other = op.then_block, op.else_block
    ys = list(then.terminator.operands) if isinstance(then.terminator, YieldOp) else []
    if len(ys) != 1 or not (isinstance(ys[0], OpResult) and isinstance(ys[0].op, SlotLoadOp)) \
            or ys[0].op.parent is not then or len(ys[0].uses) != 1:
        return []
    out = [ys[0]]
    ys = list(other.terminator.operands) if isinstance(other.terminator, YieldOp) else []
    if len(ys) == 1 and isinstance(ys[0], OpResult) and isinstance(ys[0].op, O.LoadOp) and len(ys[0].uses) == 1 \
            and ys[0].op.parent is other:
        out.append(ys[0])
    return out


def _through_trans(v: Value) -> Value:
    """The block the engine reads for dot operand ``v``: a ``tt.trans``'s source (read transposed, or in panels)."""
    from mtiacc.ir.shape_ops import TransOp
    return v.op.src if isinstance(v, OpResult) and isinstance(v.op, TransOp) else v


_DMA_ONLY = ("contiguous", "elements", "runs", "split-tiles", "tiles")


def _disturbs_engine(op: Operation, memo: Dict[int, bool]) -> bool:
    """Whether codegen waits for the matrix engine before ``op`` (isel's ``disturbs_engine``), freeing the blocks its
    commands read: ``op`` reads or writes local memory with the core or the vector unit.  Not: dots, block loads and
    stores that only move blocks by DMA, scalar arithmetic, ops whose blocks are no buffers (addresses, masks a
    DMA does not read); a loop or a branch when an op in it does."""
    from mtiacc.ir.dot_ops import read_back_source
    if isinstance(op, DotOp):
        return False
    if isinstance(op, _CONTROL):
        return any(_disturbs_engine(o, memo) for r in op.regions for b in r.blocks for o in b.ops)
    if isinstance(op, O.LoadOp):
        return not op.result.type.is_block() or any(_access_reads(op, v) for v in (op.ptr, op.mask) if v is not None)
    if isinstance(op, O.StoreOp):
        return op.attrs.get("access") not in _DMA_ONLY or (op.mask is not None and _access_reads(op, op.mask))
    if not op.results or read_back_source(op) is not None:
        return not op.results and not isinstance(op, (YieldOp, O.ReturnOp))
    return any(r.type.is_block() and _materialized(r, memo) for r in op.results)


def drains_engine(op: Operation) -> bool:
    """Whether codegen waits for the matrix engine at ``op`` (freeing the blocks its commands held): an op that
    reads or writes local memory with the core or the vector unit, or a dot whose fp32 operands the vector unit
    splits into bf16 parts first, or exact products on the vector unit."""
    return _disturbs_engine(op, {}) or isinstance(op, DotOp) and (not op.on_engine() or _split(op) > 0)


def _adopts_carried(loop: ForOp, init: Value) -> bool:
    """Whether K loop ``loop`` takes its init as its carried block's buffer because the slot loop around it carries
    it for ``loop`` only (the first tiles, fetched a program ahead: codegen's ``resident.adopts_carried``)."""
    if not (isinstance(init, BlockArgument) and init.type.is_block() and len(init.uses) == 1):
        return False
    owner = init.block.parent.parent if init.block.parent is not None else None
    return (isinstance(owner, ForOp) and bool(owner.attrs.get("pipeline")) and bool(owner.attrs.get("persistent"))
            and bool(loop.pipeline_stages) and init.block is loop.parent and init.index > 0)


def _into_carried(loop: ForOp, arg: BlockArgument, y: Value) -> bool:
    """Whether codegen computes ``y``, the value yielded to carried block ``arg``, straight into ``arg``'s buffer,
    so that the yield copies nothing: ``y`` is made in the loop's body and only yielded, once; a prefetch load
    when no op after it reads ``arg`` (codegen's ``select/table._carried_home``), an elementwise op or an engine
    dot of ``arg``'s type when every reader of ``arg`` is that op or one before it in the body
    (``context.carried_home``)."""
    body = loop.block
    if not (isinstance(y, OpResult) and y.op.parent is body and len(y.uses) == 1 and y.uses[0].op is body.terminator):
        return False
    op = y.op
    at = body.ops.index(op)
    if isinstance(op, O.LoadOp):
        if not op.attrs.get("prefetch"):
            return False
        return not any(v is arg for later in body.ops[at + 1:-1] for nested in later.walk() for v in nested.operands)
    dot = isinstance(op, DotOp) and op.on_engine() and not (
        isinstance(arg.type.element_type, FloatType) and arg.type.element_type.kind == "f16")
    if not (dot or _elementwise(op)) or arg.type != y.type:
        return False
    return all(u.op.parent is body and body.ops.index(u.op) <= at for u in arg.uses)


def _assign(plan: LocalMemoryPlan) -> None:
    """First fit in definition order, freeing after the last reader: codegen's allocator, ahead of time."""
    live: List[Block_] = []
    high = 0
    for b in sorted(plan.blocks, key=lambda b: (b.first, b.rank)):
        live = [x for x in live if x.last >= b.first]
        cursor = _first_fit(live, b.size)
        if cursor + b.size > plan.capacity:       # written over an operand it reads last (codegen does so too)
            for d in plan.dying.get(b.first, ()):
                x = next((x for x in live if x.value is d and x.last == b.first), None)
                if x is not None:
                    live.remove(x)
                    cursor = _first_fit(live, b.size)
                    break
        b.offset = cursor
        live.append(b)
        high = max(high, cursor + b.size + plan.scratch.get(b.first, 0))
    for p, n in plan.scratch.items():
        high = max(high, plan.live_at(p))
    plan.peak = high


def _first_fit(live: List[Block_], size: int) -> int:
    cursor = 0
    for x in sorted(live, key=lambda x: x.offset):
        if x.offset - cursor >= size:
            break
        cursor = max(cursor, x.offset + x.size)
    return cursor


def plan_stores_under(func: O.FuncOp, target: Target) -> LocalMemoryPlan:
    """Decide which loops over tiles leave their output tile's store in flight under the next trip (the loop's
    ``store_under_next``; the shape: :func:`~mtiacc.ir.analysis.k_loops.tile_stored_under_next`), and return the
    plan with them.  The tile then takes a buffer of its own from the loop's start to the kernel's end (so the
    K loop's accumulator store of the next trip waits for the store of this one, not every store of the trip),
    where it is otherwise a block from the accumulator store on; it is chosen when the K loop's accumulators are
    kept in the engine (their store writes the tile's buffer: not rows handed on to a next loop) and the plan
    with the tile's buffer from the loop's start still fits.  Run once, after the passes, before codegen reads
    the decision."""
    plan = plan_function(func, target)
    if plan.peak > plan.capacity:
        return plan
    resident, _ = _resident(func, target.dpe_accumulator_rows)
    for loop in [op for op in func.walk() if isinstance(op, ForOp) and not op.store_under_next]:
        v = tile_stored_under_next(loop)
        if v is None:
            continue
        r = v if isinstance(v.op, ForOp) else v.op.operands[0]   # the K loop's result, or the read-back's source
        if id(r.op.iter_args[r.index]) not in resident or _handed_on(r, resident):
            continue
        loop.attrs["store_under_next"] = True
        tried = plan_function(func, target)
        if tried.peak <= tried.capacity:
            plan = tried
        else:
            del loop.attrs["store_under_next"]
    return plan


class BlockOverSram(CompileError):
    """A block larger than the whole SRAM: no step of the local-memory ladder can stream it."""


def check_sram(plan: LocalMemoryPlan, target: Target) -> None:
    """The one size that is an error: a planned block larger than the whole SRAM (the machine's
    ``memory.sram.bytes``), which no chunking through local memory or spill to SRAM could hold."""
    sram = target.machine["memory.sram.bytes"] if target.machine is not None else None
    for b in sorted(plan.blocks, key=lambda b: b.first):
        if sram and b.nbytes > sram:
            v = b.value
            loc = v.op.loc if isinstance(v, OpResult) else getattr(v.block.parent.parent, "loc", None)
            what = f"{b.what} ({v.type})" if v.name_hint else b.what
            raise BlockOverSram(f"{what} takes {b.nbytes} bytes: more than the whole SRAM ({sram} bytes) and a "
                                f"PE's local memory ({target.lmem_bytes} bytes), so no chunk of it can be streamed "
                                "or spilled; reduce the block sizes (BLOCK constexprs)", loc)


def kernel_of(module: O.ModuleOp) -> Optional[O.FuncOp]:
    funcs = [op for op in module.body.block.ops if isinstance(op, O.FuncOp)]
    return funcs[-1] if funcs else None


def annotate(func: O.FuncOp, plan: LocalMemoryPlan) -> None:
    """The plan on the function, for ``--emit=ir`` and FileCheck."""
    func.attrs["lmem_capacity"] = plan.capacity
    func.attrs["lmem_stack"] = plan.stack
    func.attrs["lmem_peak"] = plan.peak
    func.attrs["lmem_blocks"] = [f"{b.value.name_hint or '_'} {b.offset} {b.nbytes}"
                                 for b in sorted(plan.blocks, key=lambda b: (b.first, b.offset))]


__all__: Sequence[str] = ("LocalMemoryPlan", "plan_function", "plan_stores_under", "annotate", "block_bytes", "kernel_of", "check_sram",
                          "drains_engine",
                          "BlockOverSram")
