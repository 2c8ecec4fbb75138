"""Codegen for ``tt.reduce`` / ``tt.scan`` with a combine region (``tl.reduce``, ``tl.associative_scan``).

Each operand block is viewed as ``(outer, R, inner)`` around the axis.  For every kept position
``(o, i)`` a scalar loop walks the axis: the accumulators ``acc_k = src_k[o, 0, i]`` live in
registers, and for ``r = 1 .. R - 1`` the region's ops are selected as scalar instructions
(``arith/scalar.py``, ``mathlib/``) with its arguments bound to ``acc_1 .. acc_n`` and the elements
``src_k[o, r, i]``; the values its terminator returns become the new accumulators.  A reduction
stores the accumulators into its results once per position (or keeps them in registers when the
results are scalars); a scan stores them after every step (walking from ``R - 1`` down when
``reverse``).  So the elements are combined strictly in order, left to right, like a sequential
loop; an associative combiner gives the same result as Triton's tree.

The region is scalar code (what a combine function becomes after inlining).  An ``scf.if`` in it
(an ``if`` / ``else``, an early ``return``, ``a if c else b`` on a run-time condition) becomes a
branch: each arm's ops are selected in turn and its yielded values moved into the ``if``'s result
registers.  Loops (``for``/``while`` on run-time values) carry their values in registers.

Every element type the scalar ops handle works: i1..i64 and u8..u64 in x registers (extended per
their type), f64, f32 and f16/bf16 in f registers (halves NaN-boxed, loaded and stored as their 16
bits; their arithmetic is done in f32 and rounded to the half after every op, by
``scalar_narrow.py``), and tuples mixing them.

When the operands are 32-bit and every region op has a vector form (arithmetic, comparisons,
selects, mask logic, constants), the same loops run VLEN/32 kept positions at a time instead
(``lower_combine_vector`` below); reductions to a scalar and the rest take the scalar loop.
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen.context import Lowering
from mtiacc.codegen import mathlib
from mtiacc.codegen.control import counted_loop
from mtiacc.codegen.machine.mir import MBuilder, Mem, VMem, VReg
from mtiacc.codegen.vector.nest import add_step, nest
from mtiacc.codegen.tensor.axes import scalar_load as load_element, scalar_store as store_element, source_addr, split_axis
from mtiacc.codegen.arith.scalar import constant, lower_scalar
from mtiacc.codegen.vector.blocks import FLOAT_COMPARE, INT_COMPARE, VECTOR_BINARY
from mtiacc.codegen.vector.vloop import elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.scf import ForOp, IfOp, WhileOp
from mtiacc.ir.shape_ops import ReduceOp, ScanOp
from mtiacc.ir.types import FloatType, IntType


def is_combine(op) -> bool:
    """A reduction or scan whose combiner is a region (not a built-in kind)."""
    return isinstance(op, (ReduceOp, ScanOp)) and bool(op.regions)


def _mv(b: MBuilder, elem, dst: VReg, src: VReg) -> None:
    b("fmv.d" if elem.is_float() else "mv", dst, src)  # all 64 bits of an f register (f64, boxed f32/halves)


def _half(elem) -> bool:
    return elem.is_float() and elem_bytes(elem) == 2


def scalar_load(b: MBuilder, elem, addr: VReg) -> VReg:
    """The element at ``addr`` in its register convention (a half: its 16 bits NaN-boxed)."""
    if elem.is_float() and elem_bytes(elem) == 8:
        r = b.f()
        b("fld", r, Mem(addr, 0))
        return r
    if not _half(elem):
        return load_element(b, elem, addr)
    bits, boxed, r = b.x(), b.x(), b.f()
    b("lhu", bits, Mem(addr, 0))
    b("or", boxed, bits, b.li(-65536))
    b("fmv.w.x", r, boxed)
    return r


def scalar_store(b: MBuilder, elem, value: VReg, addr: VReg) -> None:
    if elem.is_float() and elem_bytes(elem) == 8:
        return b("fsd", value, Mem(addr, 0))
    if not _half(elem):
        return store_element(b, elem, value, addr)
    bits = b.x()
    b("fmv.x.w", bits, value)
    b("sh", bits, Mem(addr, 0))


def _new(b: MBuilder, t, hint: str) -> VReg:
    return b.f(hint) if t.is_float() else b.x(hint)


def _select_ops(lw: Lowering, ops, loc) -> None:
    """Select the scalar ``ops`` of (a block nested in) the combine region, in order."""
    b: MBuilder = lw.b
    for inner in ops:
        b.loc = inner.loc or loc
        if isinstance(inner, (IfOp, ForOp, WhileOp)):
            if any(v.type.is_block() for v in list(inner.results) + list(inner.operands)):
                raise CompileError(f"a block carried by '{inner.name}' inside a combine function is not "
                                   f"supported yet", inner.loc)
            {IfOp: _select_if, ForOp: _select_for, WhileOp: _select_while}[type(inner)](lw, inner, loc)
            continue
        if inner.regions or len(inner.results) != 1 or inner.results[0].type.is_block():
            raise CompileError(f"'{inner.name}' inside a combine function is not supported yet", inner.loc)
        if mathlib.is_math(inner):
            lw.regs[inner.result] = mathlib.lower_math_scalar(b, inner, lw.get, lw.se)
        else:
            lw.regs[inner.result] = lower_scalar(b, inner, lw.get)


def _select_if(lw: Lowering, op: IfOp, loc) -> None:
    """A branch on the condition; each arm moves what it yields into the ``if``'s result registers."""
    b: MBuilder = lw.b
    outs = [_new(b, r.type, "if") for r in op.results]
    other, done = b.new_label("else"), b.new_label("endif")
    b("beqz", lw.get(op.cond), other, comment="scf.if in a combine function")
    for block, last in ((op.then_block, False), (op.else_block, True)):
        _select_ops(lw, block.ops[:-1], op.loc or loc)
        b.loc = op.loc or loc
        for out, v in zip(outs, block.terminator.values):
            _mv(b, v.type, out, lw.get(v))
        if not last:
            b("j", done)
            b.label(other)
    b.label(done)
    for r, out in zip(op.results, outs):
        lw.regs[r] = out


def _move_all(lw: Lowering, homes: List[VReg], values) -> None:
    """``homes[k] = values[k]`` for all k at once (a value may be another home: through temporaries)."""
    b: MBuilder = lw.b
    srcs = [lw.get(v) for v in values]
    temps = []
    for v, src in zip(values, srcs):
        t = _new(b, v.type, "t")
        _mv(b, v.type, t, src)
        temps.append(t)
    for h, t, v in zip(homes, temps, values):
        _mv(b, v.type, h, t)


def _select_for(lw: Lowering, op: ForOp, loc) -> None:
    """A counted loop; the loop-carried values live in registers (the results' too)."""
    b: MBuilder = lw.b
    homes = [_new(b, v.type, "carried") for v in op.inits]
    _move_all(lw, homes, list(op.inits))
    for arg, res, h in zip(op.iter_args, op.results, homes):
        lw.regs[arg] = lw.regs[res] = h
    with counted_loop(lw, op, "scf.for in a combine function"):
        _select_ops(lw, op.block.ops[:-1], op.loc or loc)
        b.loc = op.loc or loc
        _move_all(lw, homes, list(op.block.terminator.values))


def _select_while(lw: Lowering, op: WhileOp, loc) -> None:
    b: MBuilder = lw.b
    before = [_new(b, v.type, "carried") for v in op.inits]
    _move_all(lw, before, list(op.inits))
    for arg, h in zip(op.before_block.args, before):
        lw.regs[arg] = h
    after = [_new(b, r.type, "carried") for r in op.results]
    for arg, res, h in zip(op.after_block.args, op.results, after):
        lw.regs[arg] = lw.regs[res] = h
    top, done = b.new_label("while"), b.new_label("endwhile")
    b.label(top)
    _select_ops(lw, op.before_block.ops[:-1], op.loc or loc)
    cond = op.before_block.terminator
    b.loc = op.loc or loc
    _move_all(lw, after, list(cond.args))
    b("beqz", lw.get(cond.cond), done, comment="scf.while in a combine function")
    _select_ops(lw, op.after_block.ops[:-1], op.loc or loc)
    b.loc = op.loc or loc
    _move_all(lw, before, list(op.after_block.terminator.values))
    b("j", top)
    b.label(done)


def _combine(lw: Lowering, op, accs: List[VReg], xs: List[VReg], elems) -> None:
    """Select the region's ops once, with ``(accs, xs)`` as its arguments; move its results into ``accs``."""
    b: MBuilder = lw.b
    block = op.regions[0].blocks[0]
    for arg, reg in zip(block.args, accs + xs):
        lw.regs[arg] = reg
    _select_ops(lw, block.ops[:-1], op.loc)
    b.loc = op.loc
    outs = [lw.get(v) for v in block.terminator.values]
    if any(o in accs for o in outs):  # e.g. `return b, a`: go through temporaries
        temps = []
        for o, e in zip(outs, elems):
            t = _new(b, e, "t")
            _mv(b, e, t, o)
            temps.append(t)
        outs = temps
    for acc, o, e in zip(accs, outs, elems):
        if acc is not o:
            _mv(b, e, acc, o)


def lower_combine(lw: Lowering, op) -> None:
    if op.results[0].type.is_block() and _vector_ok(op):
        return lower_combine_vector(lw, op)
    b: MBuilder = lw.b
    srcs = list(op.operands)
    is_scan = isinstance(op, ScanOp)
    reverse = bool(op.attrs.get("reverse", False)) if is_scan else False
    shape, a = srcs[0].type.shape, op.axis
    outer, R, inner = split_axis(shape, a)
    elems = [s.type.element_type for s in srcs]
    sizes = [elem_bytes(e) for e in elems]
    addrs = [source_addr(lw, s) for s in srcs]
    scalar_results = not op.results[0].type.is_block()
    dsts, temps = [], []
    if not scalar_results:
        for r in op.results:
            if r in lw.demanded:
                dsts.append(lw.alloc(r).offset)
            else:  # computed alongside a result that is used; dropped after
                t = lw.lmem.alloc(r.type.numel * elem_bytes(r.type), "unused reduction result", op.loc)
                temps.append(t)
                dsts.append(t.offset)
    accs = [b.f("acc") if e.is_float() else b.x("acc") for e in elems]
    first = (R - 1) * inner if reverse else 0
    step = -inner if reverse else inner

    def position(cur: List[VReg]) -> None:
        n = len(srcs)
        sp, dp = cur[:n], cur[n:]
        ps = []
        for k in range(n):
            p = b.x("p")
            b("mv", p, sp[k])
            add_step(b, p, first * sizes[k])
            ps.append(p)
            b.loc = op.loc
            reg = scalar_load(b, elems[k], p)
            _mv(b, elems[k], accs[k], reg)
        qs = []
        if is_scan:
            for k in range(n):
                q = b.x("q")
                b("mv", q, dp[k])
                add_step(b, q, first * sizes[k])
                qs.append(q)
                scalar_store(b, elems[k], accs[k], q)
        if R > 1:
            count = b.li(R - 1, "r")
            top = b.new_label("combine")
            b.label(top)
            xs = []
            for k in range(n):
                add_step(b, ps[k], step * sizes[k])
                xs.append(scalar_load(b, elems[k], ps[k]))
            _combine(lw, op, accs, xs, elems)
            if is_scan:
                for k in range(n):
                    add_step(b, qs[k], step * sizes[k])
                    scalar_store(b, elems[k], accs[k], qs[k])
            b("addi", count, count, -1)
            b("bnez", count, top)
        if not is_scan and not scalar_results:
            for k in range(n):
                scalar_store(b, elems[k], accs[k], dp[k])

    if scalar_results:
        position([b.li(x, "src") for x in addrs])
        for r, acc in zip(op.results, accs):
            lw.regs[r] = acc
        return
    ptrs = [b.li(x, "src") for x in addrs] + [b.li(d, "dst") for d in dsts]
    src_steps = [[R * inner * s, s] for s in sizes]
    dst_steps = [[(R * inner if is_scan else inner) * s, s] for s in sizes]
    nest(b, [outer, inner], ptrs, src_steps + dst_steps, position)
    for t in temps:
        lw.lmem.free(t)


# --------------------------------------------------------------------------- the vector path
#
# When every element type is 32 bits and the region is made of ops with a vector form, the kept
# positions are processed VLEN/32 at a time (e32, LMUL 1): each region value gets its own vector
# register (v1..v31; v0 is the mask of a select), i1 values live as masks.  Lanes are the innermost
# kept positions: contiguous when the axis is not the last one (``inner > 1``), else the rows,
# ``R`` elements apart (strided loads ``vlse32``).  The order of combination per position is the
# scalar path's, so both give the same bits.

_CMP_I1 = {"eq": "vmxnor.mm", "ne": "vmxor.mm"}


def _vector_ok(op) -> bool:
    def w32(t):
        return (isinstance(t, FloatType) and t.kind == "f32") or (isinstance(t, IntType) and t.width == 32)
    if not all(w32(s.type.element_type) for s in op.operands):
        return False
    block = op.regions[0].blocks[0]
    count = len(block.args)
    local = set(block.args)
    for inner in block.ops:
        if any(v not in local for v in inner.operands):
            return False  # a value from outside the region (cse may share a constant): scalar path
        local.update(r for r in inner.results)
    for inner in block.ops[:-1]:
        if inner.regions or len(inner.results) != 1:
            return False
        t = inner.result.type
        if isinstance(inner, O.ConstantOp):
            ok = w32(t) or t.is_bool()
        elif type(inner) in VECTOR_BINARY:
            ok = w32(t) and type(inner) not in (O.DivSIOp, O.DivUIOp, O.RemSIOp, O.RemUIOp) or \
                (t.is_bool() and isinstance(inner, (O.AndIOp, O.OrIOp, O.XOrIOp)))
        elif isinstance(inner, O.CmpFOp):
            ok = inner.predicate in FLOAT_COMPARE and w32(inner.lhs.type)
        elif isinstance(inner, O.CmpIOp):
            ok = (inner.predicate in INT_COMPARE and w32(inner.lhs.type)) or \
                (inner.predicate in _CMP_I1 and inner.lhs.type.is_bool())
        elif isinstance(inner, O.SelectOp):
            ok = w32(t)
        else:
            ok = False
        if not ok:
            return False
        count += 1
    return count + len(op.operands) <= 30  # + temporaries for the final moves


def _vector_region(lw: Lowering, op, vregs, consts) -> List[str]:
    """The region's ops on vector registers; returns the registers of its results."""
    b: MBuilder = lw.b
    block = op.regions[0].blocks[0]
    for inner in block.ops[:-1]:
        d = vregs[inner.result]
        if isinstance(inner, O.ConstantOp):
            continue  # splatted at the top of the chunk
        if isinstance(inner, O.SelectOp):
            b("vmand.mm", "v0", vregs[inner.cond], vregs[inner.cond])
            b("vmerge.vvm", d, vregs[inner.false_value], vregs[inner.true_value], "v0")
            continue
        lhs, rhs = vregs[inner.lhs], vregs[inner.rhs]
        if type(inner) in VECTOR_BINARY:
            if inner.result.type.is_bool():
                mn = {O.AndIOp: "vmand.mm", O.OrIOp: "vmor.mm", O.XOrIOp: "vmxor.mm"}[type(inner)]
            else:
                mn = VECTOR_BINARY[type(inner)]
            b(mn, d, lhs, rhs)
            continue
        if isinstance(inner, O.CmpIOp) and inner.lhs.type.is_bool():
            b(_CMP_I1[inner.predicate], d, lhs, rhs)
            continue
        table = FLOAT_COMPARE if isinstance(inner, O.CmpFOp) else INT_COMPARE
        mn, swap = table[inner.predicate]
        b(mn, d, rhs, lhs) if swap else b(mn, d, lhs, rhs)
    return [vregs[v] for v in block.terminator.values]


def lower_combine_vector(lw: Lowering, op) -> None:
    b: MBuilder = lw.b
    srcs = list(op.operands)
    n = len(srcs)
    is_scan = isinstance(op, ScanOp)
    reverse = bool(op.attrs.get("reverse", False)) if is_scan else False
    shape, a = srcs[0].type.shape, op.axis
    outer, R, inner = split_axis(shape, a)
    addrs = [source_addr(lw, s) for s in srcs]
    dsts, temps = [], []
    for r in op.results:
        if r in lw.demanded:
            dsts.append(lw.alloc(r).offset)
        else:
            t = lw.lmem.alloc(r.type.numel * 4, "unused reduction result", op.loc)
            temps.append(t)
            dsts.append(t.offset)
    # registers: a_k, b_k, then one per region value
    block = op.regions[0].blocks[0]
    vregs, nxt = {}, 1
    for arg in block.args:
        vregs[arg] = f"v{nxt}"
        nxt += 1
    consts = []
    for inner_op in block.ops[:-1]:
        vregs[inner_op.result] = f"v{nxt}"
        nxt += 1
        if isinstance(inner_op, O.ConstantOp):
            consts.append(inner_op)
    spare = [f"v{nxt + k}" for k in range(n)]
    accs = [vregs[arg] for arg in block.args[:n]]
    xs = [vregs[arg] for arg in block.args[n:]]
    const_regs = {c: (None if c.result.type.is_bool() else constant(b, c.value, c.result.type)) for c in consts}
    if inner > 1:   # lanes: the inner positions (contiguous); one pass per outer index
        P, lanes, ls, step = outer, inner, 4, inner * 4
        src_outer, dst_outer = R * inner * 4, (R * inner if is_scan else inner) * 4
    else:           # lanes: the rows, R elements apart
        P, lanes, ls, step = 1, outer, R * 4, 4
        src_outer = dst_outer = 0
    dst_ls = ls if is_scan else 4
    first = (R - 1) * step if reverse else 0
    axis_step = -step if reverse else step
    ls_reg = b.li(ls, "lanestride") if ls != 4 else None
    dls_reg = b.li(dst_ls, "lanestride") if dst_ls != 4 else None

    def vload(reg, ptr):
        b("vlse32.v", reg, VMem(ptr), ls_reg) if ls_reg is not None else b("vle32.v", reg, VMem(ptr))

    def vstore(reg, ptr):
        b("vsse32.v", reg, VMem(ptr), dls_reg) if dls_reg is not None else b("vse32.v", reg, VMem(ptr))

    def per_outer(cur: List[VReg]) -> None:
        sp, dp = [], []
        for k in range(n):
            p, q = b.x("p"), b.x("q")
            b("mv", p, cur[k])
            b("mv", q, cur[n + k])
            sp.append(p)
            dp.append(q)
        left = b.li(lanes, "lanes")
        top = b.new_label("vcombine")
        b.label(top)
        vl = b.x("vl")
        b("vsetvli", vl, left, "e32, m1, ta, ma")
        for c in consts:
            reg = vregs[c.result]
            if c.result.type.is_bool():
                b("vmxnor.mm" if c.value else "vmxor.mm", reg, reg, reg)
            else:
                b("vfmv.v.f" if c.result.type.is_float() else "vmv.v.x", reg, const_regs[c])
        ps, qs = [], []
        for k in range(n):
            p = b.x("p")
            b("mv", p, sp[k])
            add_step(b, p, first)
            vload(accs[k], p)
            ps.append(p)
            if is_scan:
                q = b.x("q")
                b("mv", q, dp[k])
                add_step(b, q, first)
                vstore(accs[k], q)
                qs.append(q)
        if R > 1:
            count = b.li(R - 1, "r")
            rtop = b.new_label("vcombine_r")
            b.label(rtop)
            for k in range(n):
                add_step(b, ps[k], axis_step)
                vload(xs[k], ps[k])
            outs = _vector_region(lw, op, vregs, consts)
            if any(o in accs for o in outs):
                for o, t in zip(outs, spare):
                    b("vmv.v.v", t, o)
                outs = spare
            for acc, o in zip(accs, outs):
                if acc != o:
                    b("vmv.v.v", acc, o)
            if is_scan:
                for k in range(n):
                    add_step(b, qs[k], axis_step)
                    vstore(accs[k], qs[k])
            b("addi", count, count, -1)
            b("bnez", count, rtop)
        if not is_scan:
            for k in range(n):
                vstore(accs[k], dp[k])
        adv = b.x("adv")
        b("slli", adv, vl, ls.bit_length() - 1)
        for k in range(n):
            b("add", sp[k], sp[k], adv)
        if dst_ls != ls:
            b("slli", adv, vl, dst_ls.bit_length() - 1)
        for k in range(n):
            b("add", dp[k], dp[k], adv)
        b("sub", left, left, vl)
        b("bnez", left, top)

    ptrs = [b.li(x, "src") for x in addrs] + [b.li(d, "dst") for d in dsts]
    nest(b, [P], ptrs, [[src_outer]] * n + [[dst_outer]] * n, per_outer)
    for t in temps:
        lw.lmem.free(t)
