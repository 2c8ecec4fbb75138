"""The state instruction selection threads through every lowering, as small typed parts.

Every lowering function receives one :class:`Lowering` (by convention the parameter ``lw``).  It
is a fixed record (``__slots__``: no module adds fields to it) of parts that each own one kind of
state:

* :class:`Homes`: where each IR value lives: scalars in virtual registers, blocks in local-memory
  buffers; which blocks are read as data at all (``demanded``) and which buffers are never freed.
* :class:`Numbering`: the ops in pre-order through their regions, each op's enclosing region ops
  and each region op's last nested position (buffer lifetimes across loops; ``control.py``).
* :class:`DebugTable`: the ``tl.device_print`` / ``tl.device_assert`` entries (``meta["strings"]``).
* :class:`EngineState`: the matrix engine: configuration registers known, commands not waited for, buffers they
  read, accumulator rows taken (``codegen/matrix/engine.py``).

The hub (``select/isel.py``) builds it and supplies ``emit`` (lower one op: region bodies call it)
and ``release`` (free the buffers an op was the last reader of).

DMA waits are no state of the lowering: transfers carry tags and lowering asks for waits (``select/waits.py``);
the machine pass ``insert-waits`` decides which stay and counts them.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from mtiacc.codegen.arith.scalar import constant
from mtiacc.codegen.machine.mir import MBuilder, MFunction, VReg
from mtiacc.codegen.vector.lmem import Buffer, LocalMemory, LocalMemoryFull
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import Operation, OpResult, Value
from mtiacc.ir.scf import ForOp, YieldOp
from mtiacc.target import Target

# Block ops that are only ever seen through their scalar (never materialized by themselves).
SCALAR_BACKED = (O.SplatOp, O.ConstantOp)


@dataclasses.dataclass(eq=False)
class Homes:
    """Where each IR value lives, keyed by the value itself (a value hashes by identity)."""

    b: MBuilder
    lmem: LocalMemory
    regs: Dict[Value, VReg] = dataclasses.field(default_factory=dict)
    bufs: Dict[Value, Buffer] = dataclasses.field(default_factory=dict)
    demanded: Set[Value] = dataclasses.field(default_factory=set)  # blocks some op reads as data
    keep: Set[Value] = dataclasses.field(default_factory=set)      # buffers never freed (stored blocks)
    in_slot: Set[Operation] = dataclasses.field(default_factory=set)   # slot stores whose value is there (memory/kept.py)
    placed: Dict[Value, Buffer] = dataclasses.field(default_factory=dict)  # homes given in advance (a local slot)
    # blocks read where a register points (a kept slot or the home the DRAM load filled: ``memory/kept.py``)
    views: Dict[Value, VReg] = dataclasses.field(default_factory=dict)
    scope: tuple = ()   # the region ops around the op being lowered (isel sets it)
    const_scope: Dict[Value, tuple] = dataclasses.field(default_factory=dict)  # where a block constant's register was set
    fill_scope: Dict[Value, tuple] = dataclasses.field(default_factory=dict)   # where a splat's buffer was filled
    # a K loop's result -> [the buffer of its own a tile loop's store reads under the next trip, that loop, whether
    # the K loop took it as its result's home] (control.py ``store_under_next``)
    under: Dict[Value, list] = dataclasses.field(default_factory=dict)

    def set_here(self, where: Optional[tuple]) -> bool:
        """Whether something set in scope ``where`` (a block constant's register, a filled buffer) holds here:
        in that region or one nested in it (a region that may not run sets nothing for what follows it)."""
        return where is not None and self.scope[:len(where)] == where

    def get(self, v: Value) -> VReg:
        """The register of scalar ``v``."""
        r = self.regs.get(v)
        if r is None:
            raise CompileError(f"internal: scalar value of type {v.type} has no register")
        return r

    def buffer(self, v: Value) -> Buffer:
        buf = self.bufs.get(v)
        if buf is None:
            raise CompileError(f"internal: block value of type {v.type} was not materialized")
        return buf

    def src(self, v: Value) -> Src:
        """A vector-loop operand for block ``v``: its buffer, or its broadcast scalar."""
        elem = v.type.element_type
        if isinstance(v, OpResult) and isinstance(v.op, O.SplatOp):
            return Src(elem, scalar=self.get(v.op.src))
        if isinstance(v, OpResult) and isinstance(v.op, O.ConstantOp):
            # materialized at first use: valid later in that region (or nested in it) only
            if v not in self.regs or not self.set_here(self.const_scope.get(v)):
                self.regs[v] = constant(self.b, v.op.value, elem)
                self.const_scope[v] = self.scope
            return Src(elem, scalar=self.regs[v])
        if v in self.views:
            return Src(elem, addr=self.views[v])
        return Src(elem, addr=self.buffer(v).offset)

    def result_addr(self, v: Value):
        """Where an op writes block ``v``: the register of its view (a double-buffered stored block,
        control.py), else its buffer's offset (allocated here)."""
        return self.views[v] if v in self.views else self.alloc(v).offset

    def alloc(self, v: Value) -> Buffer:
        buf = self.placed.pop(v, None)
        if buf is None:
            nbytes = v.type.numel * elem_bytes(v.type)
            what = f"`{v.name_hint}` ({v.type})" if v.name_hint else f"a block of {v.type}"
            buf = self.lmem.alloc(nbytes, what, v.op.loc if isinstance(v, OpResult) else None)
        self.bufs[v] = buf
        return buf


@dataclasses.dataclass(eq=False)
class Numbering:
    """Ops in pre-order through their regions."""

    flat: List[Operation] = dataclasses.field(default_factory=list)
    pos: Dict[Operation, int] = dataclasses.field(default_factory=dict)      # op -> position
    anc: Dict[Operation, tuple] = dataclasses.field(default_factory=dict)    # op -> enclosing region ops
    blocks: Dict[Operation, tuple] = dataclasses.field(default_factory=dict)  # op -> enclosing blocks (scopes)
    ends: Dict[Operation, int] = dataclasses.field(default_factory=dict)     # region op -> last nested position


@dataclasses.dataclass(eq=False)
class EngineState:
    rows: int = 1024                                                  # the target's accumulator rows
    # configuration register -> known value (out_type, register 6, is 0 at the start of every wave)
    cfg: Dict[int, int] = dataclasses.field(default_factory=lambda: {6: 0})
    busy: bool = False             # commands issued and not waited for (mtia.dpe.wait)
    held: List[Buffer] = dataclasses.field(default_factory=list)      # buffers running commands read or write
    deferred: List[Buffer] = dataclasses.field(default_factory=list)  # held buffers whose last reader has run
    taken: List[Tuple[int, int]] = dataclasses.field(default_factory=list)  # accumulator rows in use
    resident: Dict[Value, int] = dataclasses.field(default_factory=dict)  # value -> its accumulators' first row
    # the engine commands of each op lowered since the last wait or join, in issue order: (index of its first
    # item in the function, the values it reads and computes, the buffers they touch); engine.wait_for counts
    groups: List[Tuple[int, Tuple[Value, ...], Tuple[Buffer, ...]]] = dataclasses.field(default_factory=list)
    waited: int = -1                # the first item of groups[0] when a wait left only the groups running


@dataclasses.dataclass(eq=False)
class DebugTable:
    strings: List[dict] = dataclasses.field(default_factory=list)  # meta["strings"] entries
    prints: bool = False  # the kernel prints: mtia.flush before it returns


def _unset(op: Operation) -> None:
    raise CompileError("internal: the lowering context has no op emitter")


class Lowering:
    """What every lowering function receives: the function being lowered and the parts above."""

    __slots__ = ("func", "hazard_stores", "target", "se", "fn", "b", "homes", "order", "engine", "debug", "emit",
                 "release", "release_dead", "fused_reductions")

    def __init__(self, func: O.FuncOp, target: Target, se: FrozenSet[str] = frozenset()):
        self.func = func
        self.hazard_stores = None   # dram_order.hazard_stores(func), once a load after a store asks (waits.py)
        self.target = target
        self.se = se        # the math ops computed on the SIMD engine (codegen/mathlib/se.py decides)
        self.fn = MFunction(func.sym_name)
        self.b = MBuilder(self.fn)
        base = (target.args_base + 8 * len(func.args) + 63) // 64 * 64
        self.homes = Homes(self.b, LocalMemory(base, target.lmem_bytes - target.stack_bytes))
        self.order = Numbering()
        self.engine = EngineState(rows=target.dpe_accumulator_rows)
        self.debug = DebugTable()
        self.emit: Callable[[Operation], None] = _unset     # lower one op (the hub sets it)
        self.release: Callable[[Operation], None] = _unset  # free what an op was the last reader of
        # free block ``v`` now, inside the lowering of ``op``, when ``op`` is its last reader and nothing holds it;
        # returns whether it did (the hub sets it)
        self.release_dead: Callable[[Operation, Value], bool] = lambda op, v: False
        # tt.reduce ops whose result a fused loop computed beside its operand (tensor/fused.py): nothing to emit
        self.fused_reductions: Set[Operation] = set()

    # The value homes, at hand: ``lw.get(v)`` reads better than ``lw.homes.get(v)`` in every lowering.
    def get(self, v: Value) -> VReg:
        return self.homes.get(v)

    def buffer(self, v: Value) -> Buffer:
        return self.homes.buffer(v)

    def src(self, v: Value) -> Src:
        return self.homes.src(v)

    def alloc(self, v: Value) -> Buffer:
        return self.homes.alloc(v)

    def result_addr_in_place(self, op: Operation, v: Value):
        """Where elementwise ``op`` writes block ``v`` (``Homes.result_addr``); when no buffer fits, the buffer of
        an operand of the same shape and element size that ``op`` reads last: each element is read before it
        is written over."""
        try:
            return self.homes.result_addr(v)
        except LocalMemoryFull:
            for x in op.operands:
                if (len(op.results) == 1 and x.type.is_block() and x.type.shape == v.type.shape
                        and elem_bytes(x.type) == elem_bytes(v.type)
                        and x in self.bufs and x not in self.homes.views and self.release_dead(op, x)):
                    return self.homes.result_addr(v)
            raise

    @property
    def lmem(self) -> LocalMemory:
        return self.homes.lmem

    @property
    def regs(self) -> Dict[Value, VReg]:
        return self.homes.regs

    @property
    def bufs(self) -> Dict[Value, Buffer]:
        return self.homes.bufs

    @property
    def demanded(self) -> Set[Value]:
        return self.homes.demanded

    @property
    def keep(self) -> Set[Value]:
        return self.homes.keep


def carried_home(lw: Lowering, op, v: Value):
    """The home of a loop-carried block that ``v`` (a result of elementwise ``op``) can be computed into, so
    that the yield copies nothing: ``v``'s one use is the ``scf.for``'s yield, and every reader of the
    carried value is ``op`` or an op before it in the same block (each chunk is read before it is written)."""
    if len(v.uses) != 1 or op.parent is None:
        return None
    term = v.uses[0].op
    block = op.parent
    loop = block.parent.parent if block.parent is not None else None
    if not isinstance(term, YieldOp) or term is not block.terminator or not isinstance(loop, ForOp):
        return None
    i = [k for k, y in enumerate(term.values) if y is v]
    if len(i) != 1:
        return None
    arg = loop.iter_args[i[0]]
    home = lw.bufs.get(arg)
    if home is None or arg in lw.homes.views or arg.type != v.type:
        return None
    at = block.ops.index(op)
    if any(u.op.parent is not block or block.ops.index(u.op) > at for u in arg.uses):
        return None
    if any(lw.bufs.get(r) is home for u in arg.uses if u.op is not op for r in u.op.results):
        return None   # an earlier reader made an alias of the carried block (read later, maybe)
    lw.bufs[v] = home
    lw.keep.add(v)   # freed with the loop's result
    return home


__all__ = ["Lowering", "Homes", "Numbering", "EngineState", "DebugTable", "SCALAR_BACKED", "carried_home"]
