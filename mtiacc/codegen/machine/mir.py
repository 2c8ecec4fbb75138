"""Machine IR: assembly instructions over virtual registers, before register allocation.

Instruction selection appends `MInstr`s to an `MFunction` through `MBuilder`; register allocation
then replaces every `VReg` with a physical register name; `emit.py` prints GNU `as` text.
Vector registers are named physically (`v0`, `v8`, ...) by instruction selection: strip-mined loops
use fixed register groups.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable, FrozenSet, List, Optional, Sequence, Union

from mtiacc.diagnostics import SourceLocation
from mtiacc.target import instruction_info


class VReg:
    """A virtual scalar register: class 'x' (integer) or 'f' (float)."""

    __slots__ = ("id", "cls", "hint")

    def __init__(self, id: int, cls: str, hint: str = ""):
        self.id = id
        self.cls = cls
        self.hint = hint

    def __repr__(self) -> str:
        return f"%{self.cls}{self.id}"


@dataclasses.dataclass(frozen=True)
class Label:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclasses.dataclass(frozen=True)
class Mem:
    """``offset(base)`` for scalar loads and stores."""

    base: Union[VReg, str]
    offset: int = 0


@dataclasses.dataclass(frozen=True)
class VMem:
    """``(base)`` for vector loads and stores."""

    base: Union[VReg, str]


Operand = Union[VReg, str, int, Label, Mem, VMem]


@dataclasses.dataclass(eq=False)
class WaitRequest:
    """A wait instruction selection asks for (an ``mtia.dma.wait`` tagged with it); ``insert-waits`` keeps it only
    where a transfer it names may be in flight on some path, and gives it its count.  What it names, by ``kind``:

    * ``"op"``: before an op: with ``touch`` (the op reads or writes local memory), every plain inbound transfer
      (one not prefetched: its block is read next); and the prefetched blocks the op reads (``reads``).  Its
      count may leave the prefetch group insert-waits formed before it in flight.  ``loop``: the op is a loop
      (a group ends there: its code runs once per trip).
    * ``"copy"``: before a yield copies blocks: every plain inbound transfer and the prefetched blocks copied.
    * ``"branch"``: at the end of an ``scf.if`` branch: the plain inbound transfers issued since ``since`` (the
      mark on the branch instruction), so that the other branch does not wait for them.
    * ``"prefetch"``: before a prefetch whose transfers are not counted: every transfer in flight but the blocks
      prefetched since the last op that touches local memory (insert-waits records them in ``fresh``).  It moves
      before the prefetch group issued right before it, when there is one; else the waits tagged ``part_of`` it
      (before each of its transfers, its addresses computed) replace it, when its lowering placed such waits.
    """

    kind: str
    touch: bool = False
    reads: FrozenSet[object] = frozenset()
    loop: bool = False
    since: object = None
    read_comment: str = ""   # "op": its comment when only a prefetched block it reads keeps it
    # set by insert-waits: the blocks prefetched since the last op that touches local memory ("prefetch"), and
    # whether the wait moved before the prefetch group issued right before it
    fresh: FrozenSet[object] = frozenset()
    hoisted: bool = False


@dataclasses.dataclass(eq=False)
class DmaTag:
    """What instruction selection tells the ``insert-waits`` pass (``machine/insert_waits.py``) about one
    instruction: on a DMA transfer, what it moves; on an ``mtia.dma.wait``, what it may leave in flight; on the
    first instruction of a prefetch's code, that the prefetch begins there.

    * ``block``: the IR value whose local-memory home the transfer fills or reads (None: not known).
    * ``kind``: on an inbound transfer: ``"in"`` (plain: the next op that touches local memory waits for it),
      ``"prefetch"`` (a later tile: only the readers of ``block`` wait for it, and the op after its loop) or
      ``"async"`` (an ``mtia.async_copy`` / slot fetch: its own wait op waits for it).  None: plain.
    * ``first_of``: on the first instruction of a prefetch's code: the block it prefetches; ``counted``: its
      transfers issue a fixed number of times (one contiguous block), so insert-waits may group them.
    * ``group``: the prefetch group (counted prefetches issued together) the transfer belongs to, or that a wait
      may leave in flight, or that begins here (``opens``).  Insert-waits forms the groups.
    * ``own``: a store's transfer from a buffer of its own (kept: never freed, nor a view of another block).
    * ``across``: the store a pipelined loop leaves in flight across its back-edge (or its zero-byte stand-in
      before the loop); on a wait: that store may stay in flight too.
    * ``before``: on a wait: it goes right before the group's code (where the group would have waited).
    * ``deferred``: a store's transfer in a loop whose stores wait for each other (control.py ``deferred_store``):
      that loop.
    * ``under``: a store's transfer that stays in flight under the next trip of its loop (control.py
      ``store_under_next``): that loop.  Its buffer is its own; the op writing it again waits for it first.
      Requested waits while only such stores of the transfers out of local memory may be in flight become
      ``mtia.dma.wait.in`` (insert-waits).
    * ``alternates``: on such a store's transfer: the stored block alternates between two buffers (control.py
      ``_double_buffer``), so the op computing it again writes the other one.
    * ``dram_write``: a store's transfer out of local memory (``tt.store``, a slot flush): a load that may read the
      bytes it writes (``after_store``, written by ``access-plan``) waits for it first (``waits.after_store``);
      ``store``: that store op.
    * ``youngest``: on an ``only_if`` wait: its count leaves in flight the transfers issued after the last one its
      predicate names (the fewest issued since any of them, on any path), rather than none.
    * ``only_if``: on a wait: it stays only where a transfer whose tag satisfies this predicate may be in flight
      (the store of the block the next op writes, say); else it goes.
    * ``request``: on a wait: the :class:`WaitRequest` it is; ``part_of``: an instruction (or label) that exists
      only while that request's wait stays where its lowering placed it.
    * ``back_edge``: on a branch: the back-edge of an ``scf.for`` / ``scf.while`` (a prefetch group ends there);
      ``pipelined``: of a loop of ``pipeline-loads``, whose transfers in flight at the back-edge (the next tiles,
      the stores) the first op of the next trip that touches local memory waits for, and so does the first op
      after the loop.  ``mark``: on an ``scf.if``'s branch: a ``branch`` request's ``since``.
    """

    block: object = None
    kind: Optional[str] = None
    first_of: object = None
    counted: bool = False
    group: object = None
    opens: bool = False
    own: bool = False
    across: bool = False
    before: object = None
    deferred: object = None
    under: object = None
    alternates: bool = False
    dram_write: bool = False
    store: object = None
    youngest: bool = False
    only_if: Optional[Callable[["DmaTag"], bool]] = None
    request: Optional[WaitRequest] = None
    part_of: Optional[WaitRequest] = None
    back_edge: bool = False
    pipelined: bool = False
    mark: object = None


@dataclasses.dataclass
class MInstr:
    op: str
    args: List[Operand]
    loc: Optional[SourceLocation] = None
    comment: str = ""
    dma: Optional[DmaTag] = None    # instruction selection's facts for insert-waits (transfers, waits)

    @property
    def info(self):
        """The ISA table's row (None for a mnemonic the table does not know)."""
        return instruction_info(self.op, len(self.args))

    @property
    def is_transfer(self) -> bool:
        """A DMA transfer: the ISA table's effects say it issues DMA and reads or writes local memory."""
        row = self.info
        return row is not None and "dma" in row.effects and bool(row.effects & {"load", "store"})

    @property
    def is_dma_wait(self) -> bool:
        row = self.info
        return row is not None and row.sem_family == "dma_wait"

    @property
    def first_access(self) -> str:
        """What the instruction does with its first operand, from the ISA table's access column ("w" for a
        mnemonic the table does not know). Vector instructions name vector registers physically, so only a
        scalar first operand (vsetvli's rd, vmv.x.s's rd) can be a virtual-register def."""
        row = instruction_info(self.op, len(self.args))
        if row is None:
            return "w"
        return row.access[0] if row.access else ""

    @property
    def first_is_def(self) -> bool:
        return "w" in self.first_access

    def regs(self) -> List[VReg]:
        out = []
        for a in self.args:
            if isinstance(a, VReg):
                out.append(a)
            elif isinstance(a, (Mem, VMem)) and isinstance(a.base, VReg):
                out.append(a.base)
        return out

    def defs(self) -> List[VReg]:
        if self.args and isinstance(self.args[0], VReg) and self.first_is_def:
            return [self.args[0]]
        return []

    def uses(self) -> List[VReg]:
        skip = 0
        if self.args and isinstance(self.args[0], VReg):     # a def (``defs``) that it does not read first
            access = self.first_access
            skip = 1 if "w" in access and "r" not in access else 0
        out = []
        for a in self.args[skip:]:
            if isinstance(a, VReg):
                out.append(a)
            elif isinstance(a, (Mem, VMem)) and isinstance(a.base, VReg):
                out.append(a.base)
        return out

    @property
    def is_branch(self) -> bool:
        for a in self.args:
            if isinstance(a, Label):
                return True
        return False

    @property
    def target(self) -> Optional[Label]:
        for a in self.args:
            if isinstance(a, Label):
                return a
        return None

    @property
    def is_unconditional(self) -> bool:
        """A jump that does not link (``j``, ``jr``, ``ret``): control never falls through."""
        return _unconditional(self.op, len(self.args))


@functools.lru_cache(maxsize=None)
def _unconditional(op: str, nargs: int) -> bool:
    row = instruction_info(op, nargs)
    return row is not None and "jump" in row.effects and not row.links


@dataclasses.dataclass
class LabelDef:
    label: Label
    dma: Optional[DmaTag] = None    # ``part_of``: a label of code that exists only while a wait request stays


Item = Union[MInstr, LabelDef]


class MFunction:
    def __init__(self, name: str):
        self.name = name
        self.items: List[Item] = []
        self._next_vreg = 0
        self._next_label = 0
        self.frame_bytes = 0  # spill area, set by register allocation

    def new_vreg(self, cls: str = "x", hint: str = "") -> VReg:
        self._next_vreg += 1
        return VReg(self._next_vreg, cls, hint)

    def new_label(self, stem: str) -> Label:
        self._next_label += 1
        return Label(f".L{stem}{self._next_label}")


class MBuilder:
    """Appends instructions at the current source location."""

    def __init__(self, fn: MFunction):
        self.fn = fn
        self.loc: Optional[SourceLocation] = None

    def __call__(self, op: str, *args: Operand, comment: str = "") -> MInstr:
        ins = MInstr(op, list(args), self.loc, comment)
        self.fn.items.append(ins)
        return ins

    def label(self, label: Label) -> None:
        self.fn.items.append(LabelDef(label))

    def x(self, hint: str = "") -> VReg:
        return self.fn.new_vreg("x", hint)

    def f(self, hint: str = "") -> VReg:
        return self.fn.new_vreg("f", hint)

    def li(self, value: int, hint: str = "") -> VReg:
        r = self.x(hint)
        self("li", r, value)
        return r

    def new_label(self, stem: str) -> Label:
        return self.fn.new_label(stem)


def format_operand(a: Operand) -> str:
    if isinstance(a, Mem):
        return f"{a.offset}({a.base})"
    if isinstance(a, VMem):
        return f"({a.base})"
    return str(a)


def format_instr(ins: MInstr) -> str:
    return ins.op + (" " + ", ".join(format_operand(a) for a in ins.args) if ins.args else "")


def sequence_regs(items: Sequence[Item]) -> List[VReg]:
    seen, out = set(), []
    for it in items:
        if isinstance(it, MInstr):
            for r in it.regs():
                if r.id not in seen:
                    seen.add(r.id)
                    out.append(r)
    return out
