"""``persistent-programs``: each PE runs its share of the grid's programs in one loop, so that the next
program's tiles can be fetched while this one computes (prefetch across the programs of a PE).

A launch of more programs than PEs runs in waves: a PE takes program ``p``, then ``p + n_pes``, ...; each
program fetches its tiles, computes, stores, and only then does the next one start fetching.  For a kernel
whose work is one row or one slice per program (vector add, softmax) the DMA engine and the vector unit
take turns.  This pass turns the kernel body into a loop over the programs of one *slot*:

    lin = pid(0) + nprogs(0) * (pid(1) + nprogs(1) * pid(2))        # the first program of this slot
    for v = lin .. nprogs(0) * nprogs(1) * nprogs(2) step SLOTS {persistent = SLOTS}:
        pid(0), pid(1), pid(2) = v % nprogs(0), v / nprogs(0) % nprogs(1), v / (nprogs(0) * nprogs(1))
        ... the kernel body, reading these ids ...

and the binary's metadata says ``persistent: SLOTS``: ``mtiasim`` launches only the first ``SLOTS``
programs of the grid (fewer when the grid is smaller), each running the loop.  ``SLOTS`` is the target's PE
count (``slots``), so every PE runs one loop; on a machine with fewer PEs the slots run in waves, still
covering every program once.  ``pipeline-loads``, which runs next, then pipelines the loop like any other:
the next program's tiles are fetched while this program computes.  ``tl.num_programs`` still reads the
launch grid.

**When.**  Only where that pays: the body's loads would move (``pipeline-loads``'s rules, on the new loop),
or a loop of the body loads tiles that every program loads alike (``keep-invariant``'s rules: it runs next
and keeps them in local memory for the slot's later programs; layer norm's ``W`` and ``B``), or the body
keeps a row in local memory that ``prefetch-rows`` can fetch one program ahead, and nothing in the kernel tells programs apart in time: no atomics, barriers or MTIA copies
(the kernel author pipelines those by hand).  A kernel with dots is wrapped when the next program's first tiles
can be fetched during this program's last dot (:mod:`mtiacc.opt.dots.next_program`: its K loop of
``pipeline-dots`` carries its first tiles a trip ahead, and they fit in local memory); the slot loop then carries
those tiles and ``pipeline-loads`` leaves it alone (``{pipeline = 2}``).  Programs of a Triton launch
have no order among them, so running the programs of a slot one after another, and fetching the next
one's inputs early, is one of the orders a launch allows: the reads of program ``v + SLOTS`` move before
the stores of program ``v`` only through distinct pointer parameters, which ``pipeline-loads`` checks.
``mtia.local_alloc`` buffers stay outside the loop (allocated once, reused by every program of the slot).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.atomic_ops import AtomicCASOp, AtomicRMWOp, BarrierOp
from mtiacc.ir.core import Operation, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.mtia import MTIA_OPS, LocalAllocOp
from mtiacc.ir.types import i32
from mtiacc.opt.dots.next_program import fetch_next_program, qualifies
from mtiacc.opt.loops.pipeline_loads import free_for_loads, movable_loads
from mtiacc.opt.memory.keep_invariant import candidates
from mtiacc.opt.memory.plan import plan_function
from mtiacc.opt.memory.prefetch_rows import row_of
from mtiacc.opt.pass_manager import ModulePass, PassContext, register_pass

BLOCKERS = (AtomicRMWOp, AtomicCASOp, BarrierOp, *[c for c in MTIA_OPS if c is not LocalAllocOp])


def _kernel(module: O.ModuleOp) -> Optional[O.FuncOp]:
    funcs = [op for op in module.body.block.ops if isinstance(op, O.FuncOp)]
    return funcs[0] if len(funcs) == 1 else None


class _Wrapped:
    """The slot loop and the ops :func:`_wrap` put before it (to undo it)."""

    def __init__(self, entry, anchor: Operation):
        self.entry, self.anchor, self.added = entry, anchor, []
        self.loop: Optional[scf.ForOp] = None
        self.nprogs: List[Value] = []

    def emit(self, op: Operation) -> Value:
        self.entry.insert_before(self.anchor, op)
        self.added.append(op)
        return op.result


def _wrap(func: O.FuncOp, slots: int, dots: bool = False) -> Optional[_Wrapped]:
    """Move the body of ``func`` (but its ``mtia.local_alloc`` ops and its return) into the slot loop, or
    None when the kernel does not qualify (``dots``: whether it may have ``tt.dot`` ops)."""
    entry = func.entry
    ret = entry.terminator
    blockers = BLOCKERS if dots else BLOCKERS + (DotOp,)
    if not isinstance(ret, O.ReturnOp) or any(isinstance(op, blockers) for op in func.walk()):
        return None
    body = [op for op in entry.ops if op is not ret and not isinstance(op, LocalAllocOp)]
    if not any(isinstance(o, O.LoadOp) for op in body for o in op.walk()):
        return None
    w, loc = _Wrapped(entry, ret), func.loc
    pid = [w.emit(O.GetProgramIdOp.get(a, loc=loc)) for a in range(3)]
    n = w.nprogs = [w.emit(O.GetNumProgramsOp.get(a, loc=loc)) for a in range(3)]
    total = w.emit(O.MulIOp.get(w.emit(O.MulIOp.get(n[0], n[1], loc=loc)), n[2], loc=loc))
    yz = w.emit(O.AddIOp.get(pid[1], w.emit(O.MulIOp.get(n[1], pid[2], loc=loc)), loc=loc))
    first = w.emit(O.AddIOp.get(pid[0], w.emit(O.MulIOp.get(n[0], yz, loc=loc)), loc=loc))
    first.name_hint = "slot"
    step = w.emit(O.ConstantOp.get(slots, i32, loc=loc))
    w.loop = loop = scf.ForOp.get(first, total, step, loc=loc, arg_names=["program"])
    loop.attrs["persistent"] = slots
    entry.insert_before(ret, loop)
    for op in body:
        entry.ops.remove(op)
        loop.block.append(op)
    loop.block.append(scf.YieldOp.get([], loc=loc))
    return w


def _unwrap(w: _Wrapped) -> None:
    """Undo :func:`_wrap`: the body back in place, the slot computation gone."""
    loop = w.loop
    for op in list(loop.block.ops):
        loop.block.ops.remove(op)
        if isinstance(op, scf.YieldOp):
            op.drop_operands()
        else:
            w.entry.insert_before(loop, op)
    loop.erase()
    for op in reversed(w.added):
        op.erase()


def _emit(block, anchor: Operation, op: Operation) -> Value:
    block.insert_before(anchor, op)
    return op.result


def _program_ids(w: _Wrapped) -> None:
    """Every ``tt.get_program_id`` of the body reads the loop's program instead."""
    loop = w.loop
    ids = [op for op in loop.walk() if type(op) is O.GetProgramIdOp]
    if not ids:
        return
    first = loop.block.ops[0]
    loc, v = loop.loc, loop.induction_var
    num = w.nprogs.__getitem__

    axes: Dict[int, Value] = {}

    def axis_value(a: int) -> Value:
        if a not in axes:
            if a == 0:
                axes[0] = _emit(loop.block, first, O.RemSIOp.get(v, num(0), loc=loc))
            elif a == 1:
                q = _emit(loop.block, first, O.DivSIOp.get(v, num(0), loc=loc))
                axes[1] = _emit(loop.block, first, O.RemSIOp.get(q, num(1), loc=loc))
            else:
                nxy = _emit(loop.block, first, O.MulIOp.get(num(0), num(1), loc=loc))
                axes[2] = _emit(loop.block, first, O.DivSIOp.get(v, nxy, loc=loc))
            axes[a].name_hint = "pid" + "xyz"[a]
        return axes[a]

    values = [axis_value(op.axis) for op in ids]
    for op, value in zip(ids, values):
        op.result.replace_all_uses_with(value)
        op.erase()


def persist_dots(func: O.FuncOp, slots: int, ctx: PassContext) -> bool:
    """Wrap a kernel with dots in its slot loop when the next program's first tiles can be fetched during this
    program's last dot (:mod:`mtiacc.opt.dots.next_program`) and fit in local memory beside the rest."""
    if not qualifies(func, plan_function(func, ctx.target)):
        return False
    w = _wrap(func, slots, dots=True)
    if w is None:
        return False
    _program_ids(w)
    fetch_next_program(w.loop)
    return True


def persist(func: O.FuncOp, slots: int, lmem_bytes: int, ctx: PassContext) -> bool:
    """Wrap ``func`` in its slot loop when there is something to keep or fetch ahead (``lmem_bytes`` for the
    tiles fetched ahead; 0: what the local-memory plan leaves)."""
    if any(isinstance(op, DotOp) for op in func.walk()):
        return persist_dots(func, slots, ctx)
    w = _wrap(func, slots)
    if w is None:
        return False
    if not movable_loads(w.loop, lmem_bytes or free_for_loads(func, w.loop, ctx)) and not candidates(w.loop) and row_of(w.loop, hoist=True) is None:
        _unwrap(w)
        return False
    _program_ids(w)
    return True


@register_pass
@dataclasses.dataclass(frozen=True)
class PersistentPrograms(ModulePass):
    name = "persistent-programs"
    slots: int = 64            # the target's PE count (the driver sets it from the target YAML)
    stages: int = 2            # the kernel's num_stages: 1 turns prefetching (and so this pass) off
    lmem_bytes: int = 0        # as pipeline-loads: the tiles it may fetch ahead (0: what the plan leaves)
    needs_context = True

    def run(self, module: O.ModuleOp, ctx: PassContext) -> Optional[bool]:
        func = _kernel(module)
        if func is None or self.stages < 2 or not persist(func, self.slots, self.lmem_bytes, ctx):
            return False
        return None


__all__ = ["PersistentPrograms", "persist"]
