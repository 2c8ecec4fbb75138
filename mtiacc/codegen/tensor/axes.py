"""One axis of a block in local memory, as reductions and scans walk it.

A block is viewed as ``(outer, R, inner)`` around the axis (``split_axis``); its elements live at
``source_addr`` (a broadcast scalar is filled into a buffer first) and are read and written one at a
time with ``scalar_load`` / ``scalar_store`` (halves NaN-boxed in f registers, as ``arith/scalar.py``
keeps them).  A splat or constant behind shape ops (``ir.analysis.scalar_blocks.scalar_root``):
``materialize_scalar`` fills a buffer with it.  Shared by ``reduce.py``, ``scan.py`` and ``reduce_region.py``.
"""
from __future__ import annotations

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, Mem, VReg
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir.analysis.scalar_blocks import scalar_root
from mtiacc.ir.core import Value


def unsigned(elem) -> bool:
    return elem.is_int() and (not elem.signed or elem.is_bool())


def scalar_load(b: MBuilder, elem, addr: VReg) -> VReg:
    """A scalar register holding the element at ``addr`` (halves NaN-boxed, as scalar.py keeps them)."""
    nb = elem_bytes(elem)
    if elem.is_float():
        r = b.f()
        if nb == 2:
            bits = b.x()
            b("lhu", bits, Mem(addr, 0))
            b("or", bits, bits, b.li(-65536))
            b("fmv.w.x", r, bits)
            return r
        b("flw" if nb == 4 else "fld", r, Mem(addr, 0))
        return r
    r = b.x()
    mn = {1: "lbu" if unsigned(elem) else "lb", 2: "lhu" if unsigned(elem) else "lh", 4: "lw", 8: "ld"}[nb]
    b(mn, r, Mem(addr, 0))
    return r


def scalar_store(b: MBuilder, elem, value: VReg, addr: VReg) -> None:
    nb = elem_bytes(elem)
    if elem.is_float():
        if nb == 2:
            bits = b.x()
            b("fmv.x.w", bits, value)
            b("sh", bits, Mem(addr, 0))
            return
        b("fsw" if nb == 4 else "fsd", value, Mem(addr, 0))
        return
    b({1: "sb", 2: "sh", 4: "sw", 8: "sd"}[nb], value, Mem(addr, 0))


def split_axis(shape, axis: int):
    """(outer, R, inner): the element counts before, along and after ``axis`` of a row-major block."""
    outer = inner = 1
    for d in shape[:axis]:
        outer *= d
    for d in shape[axis + 1:]:
        inner *= d
    return outer, shape[axis], inner


def source_addr(lw: Lowering, v) -> int:
    """The local address of block ``v``'s elements (a splat or constant behind shape ops is filled into a
    buffer first).  A buffer filled inside a region (a loop body, a branch) holds its value only in that region
    and the regions nested in it: a read elsewhere (after a loop that may run no iteration) fills it again."""
    homes = lw.homes
    if v in lw.bufs and (v not in homes.fill_scope or homes.set_here(homes.fill_scope[v])):
        return lw.buffer(v).offset
    root = scalar_root(v)
    if root is None:
        raise CompileError(f"internal: block value of type {v.type} was not materialized")
    buf = lw.bufs[v] if v in lw.bufs else lw.alloc(v)
    materialize_scalar(lw, root, v, buf)
    homes.fill_scope[v] = homes.scope
    return buf.offset


def materialize_scalar(lw: Lowering, root: Value, res: Value, buf) -> None:
    """Fill ``buf`` (block ``res``) with the broadcast scalar behind ``root`` (a splat or constant)."""
    lower_fill(lw.b, res.type.numel, lw.src(root), Src(res.type.element_type, addr=buf.offset))


