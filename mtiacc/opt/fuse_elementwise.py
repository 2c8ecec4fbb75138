"""``fuse-elementwise``: chains of elementwise block ops become one ``tt.fused_elementwise``.

Codegen runs each elementwise block op as its own strip-mined loop, through local memory: every
intermediate block is written out and read back.  A fused op runs the whole chain in one loop, so
intermediates stay in vector registers; only the values used outside the chain are stored.

Which ops fuse (*candidates*): pure ``Elementwise`` ops without regions whose result and operands
are blocks of one shape (``math.*``, arithmetic, compares, ``select``, and casts that keep the
element width; a width-changing cast ends a chain, since one loop runs every value at one vector
length, except a mask's cast to a number, a merge under the mask, and f32 <-> f16 (``half_cast``: the
f16 side at half the LMUL).  Pointer arithmetic does not fuse, and neither does any op computing a pointer offset or a
load/store mask, directly or through other ops: codegen reads those structurally (a contiguous
range becomes one DMA transfer, a prefix mask a shorter one) and never materializes them.

Grouping, in block order: a candidate joins the groups of the candidates that produce its operands
(merging them) when the result stays legal, else the largest producer group that stays legal, else
starts its own.  A group is legal when the fused op has a place: every input is defined before every
use of a group value by an op outside the group (nested ops count at their enclosing op).  The fused
op goes before the earliest such use, or at the group's last op (the ops are pure, so evaluating
them earlier changes nothing).
Groups of two or more ops become fused ops, and so does a lone op over ``[R, C]`` blocks reading a column broadcast
along the rows (``acc * alpha[:, None]``; ``C >= ROW_MIN``): codegen runs a fused loop a row at a time with the
column's element in a scalar register, never building the broadcast block.  Inputs are the values from outside the group (a splat's
scalar rather than the splat; a block constant becomes a scalar constant in the region), results
the group's values used outside it.  The pass runs in the nested blocks of ``scf`` ops too.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Set

from mtiacc.ir import ops as O
from mtiacc.ir.types import bf16, f16, f32
from mtiacc.ir.mtia import AsyncCopyOp
from mtiacc.ir.core import Block, Elementwise, IsolatedFromAbove, OpResult, Operation, Pure, Value
from mtiacc.ir.analysis.fused_inputs import ROW_MIN
from mtiacc.ir.fused import BOOL_CASTS, FusedElementwiseOp, FusedYieldOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _width(t) -> int:
    return t.element_type.width if hasattr(t.element_type, "width") else 0


def bool_to_number(op: Operation) -> bool:
    """A cast of a mask (i1) to a number: in a fused loop, a merge of 0 and 1 (or -1) under the mask."""
    return isinstance(op, BOOL_CASTS) and op.src.type.is_bool() and not op.result.type.is_bool() \
        and op.result.type.element_type != bf16


def half_cast(op: Operation) -> bool:
    """``arith.truncf`` f32 -> f16 or ``arith.extf`` f16 -> f32: a fused loop runs the f16 side at half the LMUL,
    at the same vector length (``vfncvt.f.f.w`` / ``vfwcvt.f.f.v``), so the cast need not end the chain."""
    pair = (op.src.type.element_type, op.result.type.element_type)
    return (isinstance(op, O.TruncFOp) and pair == (f32, f16)) or (isinstance(op, O.ExtFOp) and pair == (f16, f32))


def is_candidate(op: Operation) -> bool:
    if Elementwise not in op.traits or Pure not in op.traits or op.regions or len(op.results) != 1:
        return False
    if isinstance(op, O.AddPtrOp) or not op.result.type.is_block() or op.result.type.is_ptr():
        return False
    shape = op.result.type.shape
    if any(not v.type.is_block() or v.type.shape != shape or v.type.is_ptr() for v in op.operands):
        return False
    if isinstance(op, O.CastOp) and _width(op.src.type) != _width(op.result.type) and not bool_to_number(op) \
            and not half_cast(op):
        return False
    # RVV converts integers to IEEE halves only: a bf16 cast goes through f32, outside a fused loop
    if isinstance(op, O.CastOp) and bf16 in (op.src.type.element_type, op.result.type.element_type):
        return False
    return True


def structural_values(func: Operation) -> Set[int]:
    """Values a pointer offset or a load/store mask is computed from (codegen reads them as structure)."""
    work: List[Value] = []
    for op in func.walk():
        if isinstance(op, O.AddPtrOp):
            work.extend(op.operands)
        elif isinstance(op, (O.LoadOp, O.StoreOp, AsyncCopyOp)):
            work.extend(v for v in (op.ptr, op.mask) if v is not None)
    seen: Set[int] = set()
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, OpResult) and not v.op.regions:
            work.extend(v.op.operands)
    return seen


def _external(v: Value) -> Optional[Value]:
    """The fused op's operand for the external block ``v``: a splat's scalar; None for a block constant."""
    if isinstance(v, OpResult) and isinstance(v.op, O.ConstantOp):
        return None
    if isinstance(v, OpResult) and isinstance(v.op, O.SplatOp):
        return v.op.src
    return v


class _Grouper:
    """Grows groups of candidate ops in block order.  A group is legal while every input it reads from outside is
    defined before the first outside use of its results (then the fused op fits between them).  Each group keeps
    its *boundary*: the outside values it reads and the outside ops that use it, with their positions; a merge
    concatenates boundaries and drops what became internal, so checking a merge costs the boundary's size, not
    the group's (long chains of elementwise ops, as Philox builds, stay linear)."""

    def __init__(self, block: Block, structural: Set[int]):
        self.block = block
        self.pos = {id(op): i for i, op in enumerate(block.ops)}
        self.structural = structural
        self.group: Dict[int, List[Operation]] = {}   # id(member) -> its group (a shared list)
        self.bound: Dict[int, tuple] = {}             # id(group) -> (ids, inputs, uses): its boundary

    def _top(self, op: Operation) -> Optional[Operation]:
        """``op`` or the op of this block that encloses it."""
        while op is not None and op.parent is not self.block:
            region = getattr(op.parent, "parent", None)
            op = getattr(region, "parent", None)
        return op

    def _entries(self, m: Operation):
        """``m``'s inputs as ``(id of the operand's op, id of what the fused op would read's op, position of its
        definition)`` and its uses as ``(id of the user, position)``."""
        inputs, uses = [], []
        for v in m.operands:
            if not isinstance(v, OpResult):
                continue
            e = _external(v)  # what the fused op reads: a splat's scalar, no block constant
            if isinstance(e, OpResult):
                top = self._top(e.op)
                if top is not None:
                    inputs.append((id(v.op), id(e.op), self.pos[id(top)]))
        for u in m.result.uses:
            top = self._top(u.op)
            uses.append((id(u.op), self.pos[id(top)] if top is not None else -1))
        return inputs, uses

    def _merge(self, groups: List[List[Operation]], op: Optional[Operation]):
        """The boundary of the union of ``groups`` and ``op``, and its (latest input definition, earliest use)."""
        ids: Set[int] = set()
        inputs, uses = [], []
        for g in groups:
            gids, gin, guses = self.bound[id(g)]
            ids |= gids
            inputs += gin
            uses += guses
        if op is not None:
            ids.add(id(op))
            oin, ouses = self._entries(op)
            inputs += oin
            uses += ouses
        inputs = [e for e in inputs if e[0] not in ids and e[1] not in ids]
        uses = [e for e in uses if e[0] not in ids]
        last_def = max((e[2] for e in inputs), default=-1)
        first_use = min((e[1] for e in uses), default=len(self.block.ops))
        return (ids, inputs, uses), last_def, first_use

    def span(self, members: List[Operation]):
        """(position of the latest op defining an input, position of the earliest use outside) of a group."""
        _ids, inputs, uses = self.bound[id(members)]
        return (max((e[2] for e in inputs), default=-1),
                min((e[1] for e in uses), default=len(self.block.ops)))

    def anchor(self, members: List[Operation]) -> Operation:
        """The op the fused op goes before: the earliest outside use, or the group's last op."""
        _, first_use = self.span(members)
        return self.block.ops[min(first_use, max(self.pos[id(m)] for m in members))]

    def run(self) -> List[List[Operation]]:
        groups: List[List[Operation]] = []
        for i, op in enumerate(self.block.ops):
            if not is_candidate(op) or id(op.result) in self.structural:
                continue
            producers: List[List[Operation]] = []
            for v in op.operands:
                g = self.group.get(id(v.op)) if isinstance(v, OpResult) else None
                if g is not None and all(g is not p for p in producers):
                    producers.append(g)
            chosen, bound = None, None
            if producers:
                bound, last_def, first_use = self._merge(producers, op)
                if last_def < first_use:
                    chosen = [m for g in producers for m in g] + [op]
                    for g in producers:
                        groups.remove(g)
                else:
                    for g in sorted(producers, key=len, reverse=True):
                        bound, last_def, first_use = self._merge([g], op)
                        if last_def < first_use:
                            chosen = g + [op]
                            groups.remove(g)
                            break
            if chosen is None:
                chosen = [op]
                bound = self._merge([], op)[0]
            self.bound[id(chosen)] = bound
            groups.append(chosen)
            for m in chosen:
                self.group[id(m)] = chosen
        # (a group whose values nobody uses is dead code, left to dce)
        return [g for g in groups if (len(g) > 1 or reads_rows(g[0])) and self.span(g)[1] < len(self.block.ops)]


def fused_ops(block: Block, structural: Set[int]) -> Set[int]:
    """id of every op of ``block`` that this pass would fuse (its groups as :func:`fuse_block` forms them, the first
    one): a pass that runs earlier asks it to see the buffers the fused ops will make."""
    return {id(m) for g in _Grouper(block, structural).run() for m in g}




def reads_rows(op: Operation) -> bool:
    """Whether ``op`` (over ``[R, C]`` blocks, ``C >= ROW_MIN``) reads a ``tt.broadcast`` of an ``[R, 1]`` block."""
    shape = op.result.type.shape
    if len(shape) != 2 or shape[1] < ROW_MIN:
        return False
    return any(isinstance(v, OpResult) and isinstance(v.op, O.BroadcastOp)
               and list(v.op.src.type.shape) == [shape[0], 1] for v in op.operands)


def fuse_group(members: List[Operation], anchor: Operation) -> FusedElementwiseOp:
    """Replace ``members`` (in block order) by one fused op, placed just before ``anchor``."""
    ids = {id(m) for m in members}
    outs = [m.result for m in members if any(id(u.op) not in ids for u in m.result.uses)]
    inputs: List[Value] = []
    seen: Dict[int, int] = {}
    consts: Dict[int, Operation] = {}

    for m in members:
        for v in m.operands:
            if isinstance(v, OpResult) and id(v.op) in ids:
                continue
            x = _external(v)
            if x is not None and id(x) not in seen:
                seen[id(x)] = len(inputs)
                inputs.append(x)
    last = members[-1]
    fused = FusedElementwiseOp.get(inputs, [r.type for r in outs], loc=last.loc)
    anchor.parent.insert_before(anchor, fused)
    body = fused.block
    for a, x in zip(body.args, inputs):
        a.name_hint = x.name_hint
    inner: Dict[int, Value] = {}

    def scalar(v: Value) -> Value:
        if id(v) in inner:
            return inner[id(v)]
        x = _external(v)
        if x is None:  # a block constant: its scalar, once, in the region
            if id(v) not in consts:
                c = O.ConstantOp.get(v.op.value, v.type.element_type, loc=v.op.loc)
                body.insert_before(body.ops[0], c) if body.ops else body.append(c)
                consts[id(v)] = c
            return consts[id(v)].result
        return body.args[seen[id(x)]]

    for m in members:
        clone = type(m)([scalar(v) for v in m.operands], [m.result.type.element_type], dict(m.attrs),
                        loc=m.loc, segments=m.segments)
        clone.result.name_hint = m.result.name_hint
        body.append(clone)
        inner[id(m.result)] = clone.result
    body.append(FusedYieldOp.get([inner[id(r)] for r in outs], loc=last.loc))
    for r, new in zip(outs, fused.results):
        new.name_hint = r.name_hint
        r.replace_all_uses_with(new)
    for m in reversed(members):
        m.erase()
    return fused


def fuse_block(block: Block, structural: Set[int]) -> int:
    count = 0
    for op in list(block.ops):
        if IsolatedFromAbove in op.traits:
            continue
        for r in op.regions:
            for b in r.blocks:
                count += fuse_block(b, structural)
    while True:  # one group at a time: positions change with every fusion
        grouper = _Grouper(block, structural)
        groups = grouper.run()
        if not groups:
            return count
        fuse_group(groups[0], grouper.anchor(groups[0]))
        count += 1


@register_pass
@dataclasses.dataclass(frozen=True)
class FuseElementwise(ModulePass):
    name = "fuse-elementwise"

    def run(self, module: O.ModuleOp) -> bool:
        fused = 0
        for f in module.funcs:
            fused += fuse_block(f.entry, structural_values(f))
        return fused > 0
