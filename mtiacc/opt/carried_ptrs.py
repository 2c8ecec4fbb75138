"""``carry-pointer-offsets``: loop-carried pointer blocks become loop-carried integer offsets (a
legalization codegen needs, run at every level).

The idiom of matmul and Inductor kernels::

    ptrs = base + offs
    for k in range(...):
        x = tl.load(ptrs, mask=...)
        ptrs += BLOCK_K * stride

carries a block of pointers through ``scf.for``.  Codegen keeps pointer blocks as *structure*
(a scalar base plus an affine offset, analysed from the ops that built them), not as data, so a
carried pointer block is rewritten into a carried offset ``c`` from the loop's init ``P0``:

* inside the body the pointer block is ``P0 + c`` (an ``tt.addptr`` at the top of the body);
* the yield, which must be ``P + d1 + d2 ..`` (a chain of ``tt.addptr`` starting at the carried
  value), yields ``c + d1 + d2 ..`` instead;
* after the loop, uses of the result see ``P0 + c_final``.

When every increment ``d`` is uniform (a splat of a scalar, or a splat constant), ``c`` is a
scalar register and loads and stores through ``P0 + splat(c)`` stay structured (one DMA per row),
else ``c`` is an integer block with the pointer block's shape.  ``scf.while`` gets the same
rewrite when its before block passes the pointer block on unchanged (as the frontend builds it)
and its after block yields it advanced by an addptr chain.  An ``scf.if`` whose branches yield
pointer blocks into different tensors alike (``X + offs`` / ``Z + offs + 1``) yields the scalar
base instead (``_rewrite_if_bases``).  Loops whose carried pointer block is
yielded any other way are left alone: codegen carries the block as data (64-bit addresses in local
memory) and its loads and stores take the gather/scatter path.

A load through pointers to i1 reads their bytes through pointers to i8 (the frontend's ``tt.bitcast``, Triton's
rule): once the loops carry offsets, that bitcast is moved to the scalar base (``_sink_byte_view``), so the
byte pointers are structure too.

Every compile runs this pass, after ``inline`` and before the optimizations (``REQUIRED_PREFIX`` in
``mtiacc/opt/pipelines.py``).
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.pointers import is_byte_view
from mtiacc.ir import scf
from mtiacc.ir.core import OpResult, Pure, Value
from mtiacc.ir.types import block_of
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _increments(block, arg: Value, y: Value) -> Optional[List[Value]]:
    """The offsets ``d1, d2 ..`` with ``y == arg + d1 + d2 ..`` (addptr ops in ``block``), or None."""
    out: List[Value] = []
    v = y
    while v is not arg:
        if not (isinstance(v, OpResult) and isinstance(v.op, O.AddPtrOp) and v.op.parent is block):
            return None
        out.append(v.op.offset)
        v = v.op.ptr
    return out[::-1]


def _uniform_scalar(d: Value, before, loc) -> Optional[Value]:
    """The scalar every element of ``d`` equals (a new constant op before ``before`` if needed;
    with ``before`` None only whether there is one: ``d`` itself), or None."""
    if not isinstance(d, OpResult):
        return None
    op = d.op
    if isinstance(op, O.SplatOp):
        return op.src
    if isinstance(op, O.BroadcastOp):
        return _uniform_scalar(op.src, before, loc)
    if isinstance(op, O.ConstantOp) and d.type.is_block():
        if before is None:
            return d
        c = O.ConstantOp.get(op.value, d.type.element_type, loc=loc)
        before.parent.insert_before(before, c)
        return c.result
    return None


def _insert_after(op, new) -> None:
    block = op.parent
    block.ops.insert(block.ops.index(op) + 1, new)
    new.parent = block


def _rebuild(init: Value, c: Value, uniform: bool, loc, place) -> Value:
    """``init + c`` as a pointer block (``c`` splatted when scalar); ``place(op)`` inserts each op."""
    off = c
    if uniform:
        sp = O.SplatOp.get(c, init.type.shape, loc=loc)
        place(sp)
        off = sp.result
    p = O.AddPtrOp.get(init, off, loc=loc)
    place(p)
    return p.result


def _carry_offset(owner, init: Value, set_init, term, k: int, deltas, blocks, results,
                  passing=None) -> bool:
    """The shared rewrite of ``scf.for`` and ``scf.while``: the loop carries ``c`` (from 0) instead
    of ``init + c``.  ``term`` yields ``P + deltas`` at index ``k``; ``blocks`` are ``(block, arg)``
    pairs whose ``arg`` becomes ``c``, its uses ``init + c`` rebuilt at the block's top; the
    ``results`` become ``c`` too, their uses after ``owner`` see ``init + c``; the use ``passing``
    (op, operand index) forwards the argument as it is (``scf.condition``) and stays ``c``."""
    if not deltas or len({d.type.element_type for d in deltas}) != 1:
        return False
    etype, shape, loc = deltas[0].type.element_type, init.type.shape, term.loc
    uniform = all(_uniform_scalar(d, None, loc) is not None for d in deltas)
    ctype = etype if uniform else block_of(etype, shape)
    steps = [_uniform_scalar(d, term, loc) for d in deltas] if uniform else deltas
    uses = [(blk, arg, [u for u in arg.uses if (u.op, u.index) != passing]) for blk, arg in blocks]
    for _, arg in blocks:
        arg.type = ctype
    # c_next = c + d1 + d2 .. before the yield
    acc: Value = blocks[-1][1]  # the argument of the block ``term`` ends
    for s in steps:
        add = O.AddIOp.get(acc, s, loc=loc)
        term.parent.insert_before(term, add)
        acc = add.result
    term.set_operand(k, acc)
    zero = O.ConstantOp.get(0, ctype, loc=owner.loc)
    owner.parent.insert_before(owner, zero)
    set_init(zero.result)
    for blk, arg, arg_uses in uses:
        if not arg_uses:
            continue
        first = blk.ops[0]
        p_in = _rebuild(init, arg, uniform, owner.loc, lambda o, blk=blk, first=first: blk.insert_before(first, o))
        for u in arg_uses:
            u.op.set_operand(u.index, p_in)
    for res in results:
        out_uses = list(res.uses)
        res.type = ctype
        if out_uses:
            anchor = [owner]

            def place_after(o):
                _insert_after(anchor[0], o)
                anchor[0] = o
            p_out = _rebuild(init, res, uniform, owner.loc, place_after)
            for u in out_uses:
                u.op.set_operand(u.index, p_out)
    return True


def _rewrite_one(loop: scf.ForOp, k: int) -> bool:
    arg = loop.iter_args[k]
    term = loop.block.terminator
    if term.values[k] is arg:
        return False  # carried unchanged: nothing to rewrite; codegen carries it as data
    deltas = _increments(loop.block, arg, term.values[k])
    return _carry_offset(loop, loop.inits[k], lambda z: loop.set_operand(3 + k, z), term, k, deltas,
                         [(loop.block, arg)], [loop.results[k]])


def _rewrite_while(loop: scf.WhileOp, k: int) -> bool:
    """``scf.while`` whose before block passes its pointer block argument ``k`` on unchanged (as the
    frontend builds it) and whose after block yields it advanced by an addptr chain."""
    before, after = loop.before_block, loop.after_block
    cond, term = before.terminator, after.terminator
    b_arg, a_arg = before.args[k], after.args[k]
    if [i for i, v in enumerate(cond.args) if v is b_arg] != [k] or term.values[k] is a_arg:
        return False
    deltas = _increments(after, a_arg, term.values[k])
    return _carry_offset(loop, loop.inits[k], lambda z: loop.set_operand(k, z), term, k, deltas,
                         [(before, b_arg), (after, a_arg)], [loop.results[k]], passing=(cond, 1 + k))


def _chain(block, y: Value):
    """``(base, [d1, d2 ..])`` with ``y == base + d1 + d2 ..`` through addptr ops of ``block``."""
    out: List[Value] = []
    while isinstance(y, OpResult) and isinstance(y.op, O.AddPtrOp) and y.op.parent is block:
        out.append(y.op.offset)
        y = y.op.ptr
    return y, out[::-1]


def _rewrite_if(op: scf.IfOp, k: int) -> bool:
    """An ``scf.if`` whose branches yield ``P + offsets`` of one pointer block ``P`` defined outside
    yields the offsets instead; its result becomes ``P + offset``."""
    res = op.results[k]
    branches = [(b, b.terminator) for b in (op.then_block, op.else_block)]
    chains = [_chain(b, t.values[k]) for b, t in branches]
    base = chains[0][0]
    if any(c[0] is not base for c in chains) or isinstance(base, OpResult) and base.op.parent in (
            op.then_block, op.else_block):
        return False
    deltas = [d for _, ds in chains for d in ds]
    if not deltas or len({d.type.element_type for d in deltas}) != 1:
        return False
    etype, shape = deltas[0].type.element_type, res.type.shape
    uniform = all(_uniform_scalar(d, None, None) is not None for d in deltas)
    ctype = etype if uniform else block_of(etype, shape)
    uses = list(res.uses)
    for (block, term), (_, ds) in zip(branches, chains):
        steps = [_uniform_scalar(d, term, term.loc) for d in ds] if uniform else ds
        if not steps:
            zero = O.ConstantOp.get(0, ctype, loc=term.loc)
            block.insert_before(term, zero)
            steps = [zero.result]
        acc = steps[0]
        for s in steps[1:]:
            add = O.AddIOp.get(acc, s, loc=term.loc)
            block.insert_before(term, add)
            acc = add.result
        term.set_operand(k, acc)
    res.type = ctype
    off: Value = res
    ops = []
    if uniform:
        ops.append(O.SplatOp.get(res, shape, loc=op.loc))
        off = ops[-1].result
    ops.append(O.AddPtrOp.get(base, off, loc=op.loc))
    anchor = op
    for new in ops:
        _insert_after(anchor, new)
        anchor = new
    for u in uses:
        u.op.set_operand(u.index, ops[-1].result)
    return True


def _skeleton(y: Value):
    """``(root, uniform, steps, shape)`` with ``y == splat(root, shape) + uniform offsets`` passed
    through ``steps`` (``("add", offset)`` / ``("bcast", shape)`` from the splat up), or None."""
    uniform, steps = [], []
    while isinstance(y, OpResult):
        op = y.op
        if isinstance(op, O.SplatOp):
            return op.src, uniform, steps[::-1], y.type.shape
        if isinstance(op, O.AddPtrOp):
            if _uniform_scalar(op.offset, None, None) is not None:
                uniform.append(op.offset)
            else:
                steps.append(("add", op.offset))
        elif isinstance(op, O.BroadcastOp):
            steps.append(("bcast", y.type.shape))
        else:
            return None
        y = op.ptr if isinstance(op, O.AddPtrOp) else op.src
    return None


def _same(a: Value, b: Value, branches) -> bool:
    """``a`` and ``b`` compute the same values: one value, or pure ops alike over values that are."""
    if a is b:
        return True
    if not (isinstance(a, OpResult) and isinstance(b, OpResult)):
        return False
    x, y = a.op, b.op
    return (type(x) is type(y) and Pure in x.traits and not x.regions and a.index == b.index
            and x.parent in branches and y.parent in branches and x.attrs == y.attrs
            and [r.type for r in x.results] == [r.type for r in y.results]
            and len(x.operands) == len(y.operands)
            and all(_same(u, v, branches) for u, v in zip(x.operands, y.operands)))


def _rewrite_if_bases(op: scf.IfOp, k: int) -> bool:
    """An ``scf.if`` whose branches yield ``splat(base) + offsets`` with the same non-uniform
    offsets computed alike (``X + offs`` or ``Y + offs + 1``) yields the scalar ``base`` plus the
    uniform offsets; after the ``if`` the block is rebuilt from it with the then branch's offsets
    (cloned out of the branch), so loads and stores through it keep their structure."""
    branches = (op.then_block, op.else_block)
    skels = [_skeleton(b.terminator.values[k]) for b in branches]
    if None in skels or len(skels[0][2]) != len(skels[1][2]):
        return False
    for (ka, va), (kb, vb) in zip(skels[0][2], skels[1][2]):
        if ka != kb or (ka == "bcast" and va != vb) or (ka == "add" and not _same(va, vb, branches)):
            return False
    res = op.results[k]
    uses = list(res.uses)
    for block, (root, uniform, _, _) in zip(branches, skels):
        term = block.terminator
        q = root
        for d in uniform:
            add = O.AddPtrOp.get(q, _uniform_scalar(d, term, term.loc), loc=term.loc)
            block.insert_before(term, add)
            q = add.result
        term.set_operand(k, q)
    root, _, steps, shape = skels[0]
    res.type = root.type
    anchor = [op]

    def place(new):
        _insert_after(anchor[0], new)
        anchor[0] = new
        return new.result

    cloned = {}

    def clone(v: Value) -> Value:
        if not (isinstance(v, OpResult) and v.op.parent is op.then_block):
            return v
        if id(v) not in cloned:
            new = type(v.op)([clone(u) for u in v.op.operands], [r.type for r in v.op.results],
                             dict(v.op.attrs), loc=v.op.loc, segments=v.op.segments)
            place(new)
            for old, r in zip(v.op.results, new.results):
                cloned[id(old)] = r
        return cloned[id(v)]

    p = place(O.SplatOp.get(res, shape, loc=op.loc))
    for kind, x in steps:
        if kind == "add":
            p = place(O.AddPtrOp.get(p, clone(x), loc=op.loc))
        else:
            p = place(O.BroadcastOp.get(p, x, loc=op.loc))
    for u in uses:
        u.op.set_operand(u.index, p)
    return True


def carry_pointer_offsets(module) -> bool:
    """Rewrite every ``scf.for``, ``scf.while`` and ``scf.if`` that carries a pointer block (see the
    module docstring); whether anything was rewritten."""
    # inner loops first: an inner loop's rewritten result is ``init + c``, an addptr chain the
    # outer loop's yield can then be rewritten through
    changed = False
    for op in reversed(list(module.walk())):
        if isinstance(op, scf.IfOp):
            for k, r in enumerate(op.results):
                if r.type.is_block() and r.type.is_ptr():
                    changed |= bool(_rewrite_if(op, k) or _rewrite_if_bases(op, k))
        if isinstance(op, scf.ForOp):
            for k, a in enumerate(op.iter_args):
                if a.type.is_block() and a.type.is_ptr():
                    changed |= _rewrite_one(op, k)
        if isinstance(op, scf.WhileOp):
            for k, a in enumerate(op.before_block.args):
                if a.type.is_block() and a.type.is_ptr():
                    changed |= _rewrite_while(op, k)
    for op in list(module.walk()):
        if is_byte_view(op) and op.result.type.is_block():
            changed |= _sink_byte_view(op)
    return changed


def _sink_byte_view(op: O.BitcastOp) -> bool:
    """A byte view of a pointer block to i1 (the frontend's load of ``*i1``: ``tt.bitcast`` to ``*i8``) moved to
    the scalar base: ``bitcast(addptr(splat(P), o))`` is ``addptr(splat(bitcast(P)), o)``, the same addresses in
    elements of the same byte, so the block stays structure (a base and offsets) as codegen needs.  Through
    ``tt.addptr``, ``tt.splat`` and ``tt.broadcast``; a block built otherwise keeps its bitcast."""
    def rebuild(v: Value, depth: int) -> Optional[Value]:
        if not v.type.is_block():
            new = O.BitcastOp.get(v, op.result.type.element_type, loc=op.loc)
        elif depth > 32 or not isinstance(v, OpResult):
            return None
        elif isinstance(v.op, O.AddPtrOp):
            base = rebuild(v.op.ptr, depth + 1)
            new = None if base is None else O.AddPtrOp.get(base, v.op.offset, loc=v.op.loc)
        elif isinstance(v.op, (O.SplatOp, O.BroadcastOp)):
            src = rebuild(v.op.src, depth + 1)
            new = None if src is None else type(v.op).get(src, v.type.shape, loc=v.op.loc)
        else:
            return None
        if new is None:
            return None
        op.parent.insert_before(op, new)
        return new.result

    p = rebuild(op.src, 0)
    if p is None:
        return False
    op.result.replace_all_uses_with(p)
    op.erase()
    return True


@register_pass
@dataclasses.dataclass(frozen=True)
class CarryPointerOffsets(ModulePass):
    name = "carry-pointer-offsets"

    def run(self, module: O.ModuleOp) -> bool:
        return carry_pointer_offsets(module)
