"""Codegen for ``tt.reduce`` / ``tt.scan`` with a combine region (``tl.reduce``, ``tl.associative_scan``).

Each operand block is viewed as ``(outer, R, inner)`` around the axis.  For every kept position
``(o, i)`` a scalar loop walks the axis: the accumulators ``acc_k = src_k[o, 0, i]`` live in
registers, and for ``r = 1 .. R - 1`` the region's ops are selected as scalar instructions
(``scalar.py``, ``mathlib.py``) with its arguments bound to ``acc_1 .. acc_n`` and the elements
``src_k[o, r, i]``; the values its terminator returns become the new accumulators.  A reduction
stores the accumulators into its results once per position (or keeps them in registers when the
results are scalars); a scan stores them after every step (walking from ``R - 1`` down when
``reverse``).  So the elements are combined strictly in order, left to right, like a sequential
loop; an associative combiner gives the same result as Triton's tree.

The region must be straight-line scalar code (what a combine function becomes after inlining);
control flow inside it is reported as not supported yet.
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen import mathlib
from mtiacc.codegen.mir import MBuilder, VReg
from mtiacc.codegen.ndblocks import add_step, nest
from mtiacc.codegen.reduce import _source_addr, scalar_load, scalar_store
from mtiacc.codegen.scalar import lower_scalar
from mtiacc.codegen.vloop import elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir.shape_ops import ReduceOp, ScanOp


def is_combine(op) -> bool:
    """A reduction or scan whose combiner is a region (not a built-in kind)."""
    return isinstance(op, (ReduceOp, ScanOp)) and bool(op.regions)


def _mv(b: MBuilder, elem, dst: VReg, src: VReg) -> None:
    b("fmv.s" if elem.is_float() else "mv", dst, src)


def _combine(lw, op, accs: List[VReg], xs: List[VReg], elems) -> None:
    """Select the region's ops once, with ``(accs, xs)`` as its arguments; move its results into ``accs``."""
    b: MBuilder = lw.b
    block = op.regions[0].blocks[0]
    for arg, reg in zip(block.args, accs + xs):
        lw.regs[id(arg)] = reg
    for inner in block.ops[:-1]:
        b.loc = inner.loc or op.loc
        if inner.regions or len(inner.results) != 1 or inner.results[0].type.is_block():
            raise CompileError(f"'{inner.name}' inside a combine function is not supported yet", inner.loc)
        if mathlib.is_math(inner):
            lw.regs[id(inner.result)] = mathlib.lower_math_scalar(b, inner, lw.get)
        else:
            lw.regs[id(inner.result)] = lower_scalar(b, inner, lw.get)
    b.loc = op.loc
    outs = [lw.get(v) for v in block.terminator.values]
    if any(o in accs for o in outs):  # e.g. `return b, a`: go through temporaries
        temps = []
        for o, e in zip(outs, elems):
            t = b.f("t") if e.is_float() else b.x("t")
            _mv(b, e, t, o)
            temps.append(t)
        outs = temps
    for acc, o, e in zip(accs, outs, elems):
        if acc is not o:
            _mv(b, e, acc, o)


def lower_combine(lw, op) -> None:
    b: MBuilder = lw.b
    srcs = list(op.operands)
    is_scan = isinstance(op, ScanOp)
    reverse = bool(op.attrs.get("reverse", False)) if is_scan else False
    shape, a = srcs[0].type.shape, op.axis
    outer = 1
    for d in shape[:a]:
        outer *= d
    R = shape[a]
    inner = 1
    for d in shape[a + 1:]:
        inner *= d
    elems = [s.type.element_type for s in srcs]
    sizes = [elem_bytes(e) for e in elems]
    addrs = [_source_addr(lw, s) for s in srcs]
    scalar_results = not op.results[0].type.is_block()
    dsts, temps = [], []
    if not scalar_results:
        for r in op.results:
            if id(r) in lw.demanded:
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
            lw.regs[id(r)] = acc
        return
    ptrs = [b.li(x, "src") for x in addrs] + [b.li(d, "dst") for d in dsts]
    src_steps = [[R * inner * s, s] for s in sizes]
    dst_steps = [[(R * inner if is_scan else inner) * s, s] for s in sizes]
    nest(b, [outer, inner], ptrs, src_steps + dst_steps, position)
    for t in temps:
        lw.lmem.free(t)
