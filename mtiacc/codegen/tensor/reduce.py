"""Codegen for ``tt.reduce`` (``tl.sum``, ``max``, ``min``, ``xor_sum``, ``argmax``, ``argmin``).

The source block is viewed as ``(outer, R, inner)`` around the reduced axis.

* ``inner == 1`` (the last axis, contiguous): per row, RVV reductions over strip-mined chunks
  (``vredsum``/``vfredusum``/``vfredmax``/...), chained through the accumulator register ``v1``,
  which starts as the row's first element.  Order of a float sum: element 0, then per chunk of
  VLMAX elements (128 f32 at VLEN 512, LMUL 8) the chunk's unordered sum added to the accumulator;
  results may differ from a sequential sum by reassociation rounding.
  ``argmax``/``argmin``: a first pass finds the extreme value; a second pass takes the smallest
  index whose element equals it (``vmfeq``/``vmseq``, ``vid``, ``vmerge``, ``vredminu``);
  ``argmax_last``/``argmin_last`` (``tie_break_left=False``) the largest (``vredmax`` from -1).
  ``max``/``min`` of many short rows (:func:`by_columns`) instead walk the columns: a strided load
  (``vlse``) takes element ``r`` of up to VLMAX rows at once and ``vfmax.vv`` (on a target with an SE,
  its ALU's ``mtia.se.fmax.vv`` at fp32 and fp16, beside the vector unit's loads) folds it into their results,
  two columns a step with each column's load issued before the column before it is combined, so each row
  costs a lane of an instruction rather than a reduction, its scalar read-back and a loop of its own (flash
  attention's ``tl.max(qk, 1)`` of a 128 x 64 block: 64 columns, not 128 rows).  The extreme is the same in
  any order (NaN ignored as above; -0 < +0).
  Other rows short enough for one chunk after their first element (``R - 1 <= VLMAX``:
  :func:`_reduce_short_rows`) are reduced two a step without a chunk loop, each result stored
  from ``v1``/``v2`` by a one-element ``vse`` after the other row's reduction has issued (no
  read-back into a scalar register waiting for the reduction): the same operations on the same
  elements as above, so the same results.
* ``inner > 1`` (another axis): elementwise accumulation of the rows ``src[o, r, :]`` into the
  result, in order ``r = 0, 1, ..``.  ``argmax``/``argmin`` keep the best value and index per
  column and replace them only on a strictly better element (so ties keep the first index); the
  ``_last`` kinds replace them on an element at least as good (ties take the last index).

NaN: ``max``/``min`` ignore NaN elements (IEEE maxNum/minNum, like ``tl.maximum``); a row of only
NaN gives NaN.  ``argmax``/``argmin`` give the index of the first extreme non-NaN element (0 for a
row of only NaN), the ``_last`` kinds that of the last one (``R - 1`` for a row of only NaN).
Integer sums wrap.
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen.arith.scalar_narrow import zero_extend
from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, VMem, VReg
from mtiacc.codegen.tensor.axes import scalar_store, source_addr, split_axis, unsigned
from mtiacc.codegen.vector.nest import add_step, nest
from mtiacc.codegen.vector.vloop import Src, VLoop, elem_bytes, emit_loop, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.codegen.mathlib.se import ALU
from mtiacc.codegen.vector.fused_loop import SE_ALU
from mtiacc.ir.types import f16, f32, i32

FLOAT_RED = {"sum": "vfredusum.vs", "max": "vfredmax.vs", "min": "vfredmin.vs"}
INT_RED = {"sum": "vredsum.vs", "max": "vredmax.vs", "min": "vredmin.vs", "xor_sum": "vredxor.vs"}
UINT_RED = {**INT_RED, "max": "vredmaxu.vs", "min": "vredminu.vs"}
FLOAT_VV = {"sum": "vfadd.vv", "max": "vfmax.vv", "min": "vfmin.vv"}
INT_VV = {"sum": "vadd.vv", "max": "vmax.vv", "min": "vmin.vv", "xor_sum": "vxor.vv"}
UINT_VV = {**INT_VV, "max": "vmaxu.vv", "min": "vminu.vv"}


def arg_base(kind: str) -> str:
    """``argmax_last`` -> ``max``; ``argmin`` -> ``min``; ``sum`` -> ``sum``."""
    return kind[3:].split("_")[0] if kind.startswith("arg") else kind


def _chunks(b: MBuilder, sew: int, start: VReg, count: int, body, index: VReg = None) -> None:
    """Strip-mined loop over ``count`` elements from ``start``; ``body(vl)`` sees the chunk in v8."""
    if count <= 0:
        return
    p, n = b.x("p"), b.li(count, "n")
    b("mv", p, start)
    top, vl = b.new_label("red"), b.x("vl")
    b.label(top)
    b("vsetvli", vl, n, f"e{sew}, m8, ta, ma")
    b(f"vle{sew}.v", "v8", VMem(p))
    body(vl)
    b("sub", n, n, vl)
    t = b.x()
    b("slli", t, vl, (sew // 8).bit_length() - 1)
    b("add", p, p, t)
    if index is not None:
        b("add", index, index, vl)
    b("bnez", n, top)


def reduce_row(lw: Lowering, ptr: VReg, R: int, elem, kind: str) -> VReg:
    """Reduce ``R`` contiguous elements at ``ptr``; the scalar result (an index for arg kinds)."""
    b: MBuilder = lw.b
    sew, esize = sew_of(elem), elem_bytes(elem)
    is_f = elem.is_float()
    base_kind = arg_base(kind)
    last = kind.endswith("_last")
    table = FLOAT_RED if is_f else (UINT_RED if unsigned(elem) else INT_RED)
    if base_kind not in table:
        raise CompileError(f"tl.{kind} of {elem} is not supported yet")
    one = b.li(1)
    b("vsetvli", "zero", one, f"e{sew}, m1, ta, ma")
    b(f"vle{sew}.v", "v1", VMem(ptr))
    rest = b.x("p")
    b("addi", rest, ptr, esize)
    _chunks(b, sew, rest, R - 1, lambda vl: b(table[base_kind], "v1", "v8", "v1"))
    b("vsetvli", "zero", one, f"e{sew}, m1, ta, ma")
    value = b.f() if is_f else b.x()
    b("vfmv.f.s" if is_f else "vmv.x.s", value, "v1")
    if not is_f and unsigned(elem) and sew < 32:
        # vmv.x.s sign-extends the element; an 8- or 16-bit unsigned scalar is kept zero-extended (the register
        # convention `lbu` / `lhu` follow), so 143 stays 143 when widened or converted, not -113
        value = zero_extend(b, value, sew)
    if base_kind == kind:
        return value
    # Second pass: the smallest (largest, for the _last kinds) index whose element equals the extreme
    # value; elements that do not equal it count as R (-1).
    none = b.li(-1 if last else R, "none")
    b("vmv.s.x", "v2", none)
    k = b.li(0, "k")

    def equal_index(vl):
        b("vmfeq.vf" if is_f else "vmseq.vx", "v0", "v8", value)
        b("vid.v", "v16")
        b("vadd.vx", "v16", "v16", k)
        b("vmv.v.x", "v24", none)
        b("vmerge.vvm", "v24", "v24", "v16", "v0")
        b("vredmax.vs" if last else "vredminu.vs", "v2", "v24", "v2")
    _chunks(b, sew, ptr, R, equal_index, index=k)
    b("vsetvli", "zero", one, f"e{sew}, m1, ta, ma")
    idx = b.x("idx")
    b("vmv.x.s", idx, "v2")
    found = b.new_label("found")
    if last:
        b("bge", idx, "zero", found)  # a row of only NaN: the last index
        b("li", idx, R - 1)
    else:
        b("blt", idx, none, found)  # a row of only NaN: index 0
        b("mv", idx, "zero")
    b.label(found)
    return idx


def by_columns(lw: Lowering, outer: int, R: int, elem, kind: str) -> bool:
    """Whether the ``outer`` rows of ``R`` contiguous elements reduce faster a column at a time (the module
    docstring): ``max``/``min`` only (exact in any order), when the columns' instructions (a strided load and a
    combine of up to VLMAX rows each, at least a few cycles of the core each) cost less than the rows' (a
    reduction each, with its loop, read-back and store: about 24 cycles of the core)."""
    if kind not in ("max", "min") or outer < 2 or R < 2:
        return False
    sew = sew_of(elem)
    vlmax = lw.target.vlen_bits * 8 // sew
    unit = 256       # bits the vector unit takes a cycle (the machine's datapath; the published peaks)
    chunks = -(-outer // vlmax)
    cols = chunks * R * max(2 * -(-min(outer, vlmax) * sew // unit), 6)
    rows = outer * (24 + 2 * -(-R * sew // unit))
    return cols < rows


def _reduce_columns(lw: Lowering, src_addr: int, dst_addr: int, outer: int, R: int, elem, kind: str) -> None:
    """``dst[o] = kind(src[o, :])`` a column at a time: per chunk of up to VLMAX rows, column 0 by a strided load,
    then each further column loaded and combined elementwise (``vfmax.vv``)."""
    b: MBuilder = lw.b
    sew, esize = sew_of(elem), elem_bytes(elem)
    table = FLOAT_VV if elem.is_float() else (UINT_VV if unsigned(elem) else INT_VV)
    mn = table[kind]
    if elem in (f32, f16) and ALU in lw.se:   # the combine on the SE's ALUs: the vector unit only loads
        mn = SE_ALU[mn]
    stride = b.li(R * esize, "stride")
    n, p, d = b.li(outer, "rows"), b.li(src_addr, "src"), b.li(dst_addr, "dst")
    top, vl = b.new_label("columns"), b.x("vl")
    b.label(top)
    b("vsetvli", vl, n, f"e{sew}, m8, ta, ma")
    b(f"vlse{sew}.v", "v8", VMem(p), stride, comment=f"tt.reduce {kind}, a column at a time")
    q = b.x("col")
    b("addi", q, p, esize)
    if R % 2 == 0 and R >= 4:
        # two columns a step (R - 1 is odd: blocks are powers of two), each loaded before the column before it
        # is combined: the vector unit goes from one strided load to the next while the combine waits
        k = b.li((R - 1) // 2, "cols")
        b(f"vlse{sew}.v", "v16", VMem(q), stride)
        col = b.new_label("column")
        b.label(col)
        b("addi", q, q, esize)
        b(f"vlse{sew}.v", "v24", VMem(q), stride)
        b(mn, "v8", "v8", "v16")
        b("addi", q, q, esize)
        b("addi", k, k, -1)
        b(f"vlse{sew}.v", "v16", VMem(q), stride)     # the last step loads the last column
        b(mn, "v8", "v8", "v24")
        b("bnez", k, col)
        b(mn, "v8", "v8", "v16")
    else:
        k = b.li(R - 1, "cols")
        col = b.new_label("column")
        b.label(col)
        b(f"vlse{sew}.v", "v16", VMem(q), stride)
        b(mn, "v8", "v8", "v16")
        b("addi", q, q, esize)
        b("addi", k, k, -1)
        b("bnez", k, col)
    b(f"vse{sew}.v", "v8", VMem(d))
    b("sub", n, n, vl)
    t = b.x()
    b("mul", t, vl, stride)
    b("add", p, p, t)
    b("slli", t, vl, (sew // 8).bit_length() - 1)
    b("add", d, d, t)
    b("bnez", n, top)


def _reduce_short_rows(lw: Lowering, src_addr: int, dst_addr: int, outer: int, R: int, elem, kind: str) -> None:
    """``dst[o] = kind(src[o, :])`` for rows of ``2 <= R <= VLMAX + 1`` elements (the module docstring): per
    row, ``v1`` = its first element, then one reduction of the rest into it; two rows a step, in ``v1``/``v8``
    and ``v2``/``v16``."""
    b: MBuilder = lw.b
    sew, esize = sew_of(elem), elem_bytes(elem)
    table = FLOAT_RED if elem.is_float() else (UINT_RED if unsigned(elem) else INT_RED)
    red = table[kind]
    one, rest = b.li(1, "one"), b.li(R - 1, "rest")

    def rows(cur: List[VReg], k: int) -> None:
        accs = [("v1", "v8"), ("v2", "v16")][:k]
        for j, (acc, chunk) in enumerate(accs):
            row = cur[0]
            if j:
                row = b.x("row")
                b("addi", row, cur[0], j * R * esize)
            b("vsetvli", "zero", one, f"e{sew}, m1, ta, ma")
            b(f"vle{sew}.v", acc, VMem(row), comment=f"tt.reduce {kind}, {k} row(s) a step" if j == 0 else "")
            first = b.x("p")
            b("addi", first, row, esize)
            b("vsetvli", "zero", rest, f"e{sew}, m8, ta, ma")
            b(f"vle{sew}.v", chunk, VMem(first))
            b(red, acc, chunk, acc)
        b("vsetvli", "zero", one, f"e{sew}, m1, ta, ma")
        for j, (acc, _) in enumerate(accs):
            at = cur[1]
            if j:
                at = b.x("at")
                b("addi", at, cur[1], j * esize)
            b(f"vse{sew}.v", acc, VMem(at))

    src, dst = b.li(src_addr, "src"), b.li(dst_addr, "dst")
    if outer >= 2:
        nest(b, [outer // 2], [src, dst], [[2 * R * esize], [2 * esize]], lambda cur: rows(cur, 2))
    if outer % 2:
        last = outer - 1
        rows([b.li(src_addr + last * R * esize, "src"), b.li(dst_addr + last * esize, "dst")], 1)


def lower_reduce(lw: Lowering, op) -> None:
    if op in lw.fused_reductions:    # the fused loop that computed its operand wrote it (tensor/fused.py)
        return
    b: MBuilder = lw.b
    src, a, kind = op.src, op.axis, op.kind
    shape = src.type.shape
    elem = src.type.element_type
    esize = elem_bytes(elem)
    outer, R, inner = split_axis(shape, a)
    src_addr = source_addr(lw, src)
    res = op.result
    relem = res.type.element_type
    if not res.type.is_block():
        lw.regs[res] = reduce_row(lw, b.li(src_addr, "src"), R, elem, kind)
        return
    dst = lw.alloc(res)
    if inner == 1 and by_columns(lw, outer, R, elem, kind):
        _reduce_columns(lw, src_addr, dst.offset, outer, R, elem, kind)
        return
    table = FLOAT_RED if elem.is_float() else (UINT_RED if unsigned(elem) else INT_RED)
    if inner == 1 and kind in table and relem == elem and 2 <= R <= lw.target.vlen_bits * 8 // sew_of(elem) + 1:
        _reduce_short_rows(lw, src_addr, dst.offset, outer, R, elem, kind)
        return
    if inner == 1:
        def row(cur: List[VReg]) -> None:
            scalar_store(b, relem, reduce_row(lw, cur[0], R, elem, kind), cur[1])
        nest(b, [outer], [b.li(src_addr, "src"), b.li(dst.offset, "dst")],
             [[R * esize], [elem_bytes(relem)]], row)
        return
    _reduce_rows(lw, src_addr, dst.offset, outer, R, inner, elem, kind, op)


def _reduce_rows(lw: Lowering, src_addr: int, dst_addr: int, outer: int, R: int, inner: int, elem, kind: str,
                 op) -> None:
    """Accumulate rows ``src[o, r, :]`` into ``dst[o, :]``."""
    b: MBuilder = lw.b
    esize = elem_bytes(elem)
    is_f = elem.is_float()
    is_arg = kind.startswith("arg")
    vals = dst_addr
    tmp = None
    if is_arg:
        tmp = lw.lmem.alloc(outer * inner * esize, "argmax/argmin values", op.loc)
        vals = tmp.offset

    def copy_first(cur: List[VReg]) -> None:
        emit_loop(b, inner, [Src(elem, addr=cur[0])], Src(elem, addr=cur[1]), lambda loop, g: g[0],
                  comment="first row")
        if is_arg:
            zero = b.li(0)
            emit_loop(b, inner, [Src(i32, scalar=zero)], Src(i32, addr=cur[2]), lambda loop, g: g[0],
                      comment="index 0")
    ptrs = [b.li(src_addr, "src"), b.li(vals, "acc")] + ([b.li(dst_addr, "idx")] if is_arg else [])
    steps = [[R * inner * esize], [inner * esize]] + ([[inner * 4]] if is_arg else [])
    nest(b, [outer], ptrs, steps, copy_first)
    if R == 1:
        if tmp is not None:
            lw.lmem.free(tmp)
        return
    base = arg_base(kind)
    last = kind.endswith("_last")
    table = FLOAT_VV if is_f else (UINT_VV if unsigned(elem) else INT_VV)
    if base not in table:
        raise CompileError(f"tl.{kind} of {elem} is not supported yet")
    mn = table[base]
    indices: List[VReg] = []

    def accumulate(cur: List[VReg]) -> None:
        if is_arg:
            r = b.x("r")
            b("addi", r, indices[1], 1)

            def better(loop: VLoop, g: List[str]) -> str:
                loop.ensure(elem)
                x, v = g[1], g[0]
                if last:  # at least as good: ties move to the later index
                    lt = "vmfle.vv" if is_f else ("vmsleu.vv" if unsigned(elem) else "vmsle.vv")
                else:
                    lt = "vmflt.vv" if is_f else ("vmsltu.vv" if unsigned(elem) else "vmslt.vv")
                if base == "max":
                    b(lt, "v0", v, x)   # v < x (v <= x)
                else:
                    b(lt, "v0", x, v)   # x < v (x <= v)
                if is_f and last:  # a NaN best value yields to anything (a column of only NaN: R - 1)
                    b("vmfne.vv", "v1", v, v)
                    b("vmor.mm", "v0", "v0", "v1")
                elif is_f:  # a NaN best value yields to any number
                    b("vmfne.vv", "v1", v, v)
                    b("vmfeq.vv", "v2", x, x)
                    b("vmand.mm", "v1", "v1", "v2")
                    b("vmor.mm", "v0", "v0", "v1")
                loop.ensure(i32)
                b("vmerge.vxm", g[2], g[2], r, "v0")
                return g[2]
            emit_loop(b, inner, [Src(elem, addr=cur[1]), Src(elem, addr=cur[0]), Src(i32, addr=cur[2])],
                      Src(i32, addr=cur[2]), better, comment=op.name)

        def combine(loop: VLoop, g: List[str]) -> str:
            loop.ensure(elem)
            b(mn, "v24", g[0], g[1])
            return "v24"
        emit_loop(b, inner, [Src(elem, addr=cur[1]), Src(elem, addr=cur[0])], Src(elem, addr=cur[1]),
                  combine, comment=op.name)

    first_row = b.x("src")
    b("li", first_row, src_addr)
    add_step(b, first_row, inner * esize)
    ptrs = [first_row, b.li(vals, "acc")] + ([b.li(dst_addr, "idx")] if is_arg else [])
    steps = [[R * inner * esize, inner * esize], [inner * esize, 0]] + ([[inner * 4, 0]] if is_arg else [])
    nest(b, [outer, R - 1], ptrs, steps, accumulate, index_regs=indices)
    if tmp is not None:
        lw.lmem.free(tmp)
