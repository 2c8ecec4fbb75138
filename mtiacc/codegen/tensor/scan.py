"""Codegen for ``tt.scan`` (``tl.cumsum``, ``tl.cumprod``): inclusive scans along one axis.

The block is viewed as ``(outer, R, inner)`` around the scanned axis.

* ``inner == 1`` (the last axis): a sequential scalar loop per row, left to right (right to left
  when ``reverse``), so float results equal a sequential accumulation in the element type
  (``np.cumsum`` on float32 gives the same bits).
* ``inner > 1``: row ``r`` of the result is row ``r - 1`` combined with source row ``r``, one
  strip-mined vector loop per row (each column is still accumulated sequentially).
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.vector.nest import add_step, nest
from mtiacc.codegen.tensor.axes import scalar_load, scalar_store, source_addr, split_axis
from mtiacc.codegen.arith.scalar_narrow import narrow, widen
from mtiacc.codegen.vector.vloop import Src, VLoop, elem_bytes, emit_loop
from mtiacc.diagnostics import CompileError

VECTOR = {("sum", True): "vfadd.vv", ("prod", True): "vfmul.vv",
          ("sum", False): "vadd.vv", ("prod", False): "vmul.vv"}


def _scalar_op(elem, kind: str) -> str:
    if elem.is_float():
        if elem.width not in (16, 32):
            raise CompileError(f"scans of {elem} along the last axis are not supported yet")
        return "fadd.s" if kind == "sum" else "fmul.s"
    if elem.width == 64:
        return "add" if kind == "sum" else "mul"
    if elem.width == 32:
        return "addw" if kind == "sum" else "mulw"
    # narrower: 64-bit arithmetic; the low bits (the only ones stored) wrap as the type does
    return "add" if kind == "sum" else "mul"


def lower_scan(lw: Lowering, op) -> None:
    b: MBuilder = lw.b
    src, a, kind, reverse = op.src, op.axis, op.kind, bool(op.reverse)
    shape = src.type.shape
    elem = src.type.element_type
    esize = elem_bytes(elem)
    outer, R, inner = split_axis(shape, a)
    src_addr = source_addr(lw, src)
    dst = lw.alloc(op.result)
    row_bytes = R * inner * esize
    first = (R - 1) * inner * esize if reverse else 0
    step = -inner * esize if reverse else inner * esize

    if inner == 1:
        mn = _scalar_op(elem, kind)
        half = elem.is_float() and elem.width == 16

        def row(cur: List[VReg]) -> None:
            s, d = b.x("s"), b.x("d")
            b("mv", s, cur[0])
            b("mv", d, cur[1])
            add_step(b, s, first)
            add_step(b, d, first)
            acc = scalar_load(b, elem, s)
            scalar_store(b, elem, acc, d)
            if R == 1:
                return

            def element(ptrs: List[VReg]) -> None:
                x = scalar_load(b, elem, ptrs[0])
                if half:  # in f32, rounded to the half type at each step (exact: f32 > 2 * 11 + 2 bits)
                    s = b.f()
                    b(mn, s, widen(b, acc, elem), widen(b, x, elem))
                    b("fmv.s", acc, narrow(b, s, elem))
                else:
                    b(mn, acc, acc, x)
                    if elem.is_int() and elem.width == 1:
                        b("andi", acc, acc, 1)
                scalar_store(b, elem, acc, ptrs[1])
            add_step(b, s, step)
            add_step(b, d, step)
            nest(b, [R - 1], [s, d], [[step], [step]], element)
        nest(b, [outer], [b.li(src_addr, "src"), b.li(dst.offset, "dst")], [[row_bytes], [row_bytes]], row)
        return

    mn = VECTOR[(kind, elem.is_float())]

    def copy_first(cur: List[VReg]) -> None:
        emit_loop(b, inner, [Src(elem, addr=cur[0])], Src(elem, addr=cur[1]), lambda loop, g: g[0],
                  comment="first row")
    s0, d0 = b.li(src_addr, "src"), b.li(dst.offset, "dst")
    add_step(b, s0, first)
    add_step(b, d0, first)
    nest(b, [outer], [s0, d0], [[row_bytes], [row_bytes]], copy_first)
    if R == 1:
        return

    def combine_row(cur: List[VReg]) -> None:
        prev = b.x("prev")
        b("mv", prev, cur[1])
        add_step(b, prev, -step)

        def compute(loop: VLoop, g: List[str]) -> str:
            loop.ensure(elem)
            b(mn, "v24", g[0], g[1])
            return "v24"
        emit_loop(b, inner, [Src(elem, addr=prev), Src(elem, addr=cur[0])], Src(elem, addr=cur[1]),
                  compute, comment=op.name)
    s1, d1 = b.li(src_addr, "src"), b.li(dst.offset, "dst")
    add_step(b, s1, first + step)
    add_step(b, d1, first + step)
    nest(b, [outer, R - 1], [s1, d1], [[row_bytes, step], [row_bytes, step]], combine_row)
