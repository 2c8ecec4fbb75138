"""The ``scalar``, ``gather`` and ``scatter`` plans: loads and stores that move one element at a time.

* ``scalar``: a ``tl.load(ptr)`` / ``tl.store(ptr, x)`` through a scalar pointer is a one-element DMA
  between DRAM and a scratch slot in local memory, plus a scalar load or store of the slot.  A scalar
  mask branches around the transfer; a masked-off load takes ``other`` (or 0).
* ``gather`` (loads) / ``scatter`` (stores): a pointer block without affine structure (data-dependent
  addresses, ``table + idx * stride``) is materialized in local memory as 64-bit DRAM addresses
  (``tt.addptr`` on blocks: offsets widened with ``vsext``/``vzext``, scaled by the element size, added
  to the pointers), then the data moves a row (the block's last axis) at a time: the vector unit checks
  that the row's active elements are a prefix of it (all, some, or none) at consecutive addresses: one
  DMA for them, as in the im2col gathers of convolution templates; any other row moves one small DMA
  per active element, the chip's slow fallback path.  Masked-off elements of a load take ``other``.
"""
from __future__ import annotations

from typing import List, Optional

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, Mem, VMem, VReg
from mtiacc.codegen.arith.scalar import constant
from mtiacc.codegen.memory.common import stored_value_addr
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, VLoop, elem_bytes, emit_loop, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.types import FloatType, IntType, PointerType, Type


def _scalar_backed(v: Optional[Value]) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, (O.SplatOp, O.ConstantOp))


def needs_buffers(op) -> List[Value]:
    """Block operands read from local memory: the pointer block, a mask, a stored value."""
    if not op.ptr.type.is_block():
        return []
    out = [op.ptr]
    if op.mask is not None and not _scalar_backed(op.mask):
        out.append(op.mask)
    if isinstance(op, O.StoreOp):
        out.append(op.value)
    elif op.other is not None and op.other.type.is_block() and not _scalar_backed(op.other):
        out.append(op.other)
    return out


# --------------------------------------------------------------------------- scalar accesses

def _int_load(t: IntType) -> str:
    if t.width <= 8:
        return "lbu" if t.width == 1 or not t.signed else "lb"
    if t.width == 16:
        return "lh" if t.signed else "lhu"
    return "lw" if t.width == 32 else "ld"


_STORE = {1: "sb", 2: "sh", 4: "sw", 8: "sd"}


def _pointee(ptr: Value) -> Type:
    p = ptr.type.element_type
    assert isinstance(p, PointerType)
    return p.pointee


def _slot_load(b: MBuilder, slot: VReg, t: Type, dst: VReg) -> None:
    """``dst`` = the scalar of type ``t`` at local address ``slot`` (halves NaN-boxed)."""
    if isinstance(t, FloatType) and t.kind in ("f32", "f64"):
        b("flw" if t.kind == "f32" else "fld", dst, Mem(slot, 0))
    elif isinstance(t, FloatType):
        bits = b.x()
        b("lhu", bits, Mem(slot, 0))
        boxed = b.x()
        b("or", boxed, bits, b.li(-65536))  # 0xFFFF0000 sign-extended: the NaN box of a half
        b("fmv.w.x", dst, boxed)
    elif isinstance(t, IntType):
        b(_int_load(t), dst, Mem(slot, 0))
    else:  # a pointer to pointers
        b("ld", dst, Mem(slot, 0))


def _slot_store(b: MBuilder, slot: VReg, t: Type, src: VReg) -> None:
    if isinstance(t, FloatType) and t.kind in ("f32", "f64"):
        b("fsw" if t.kind == "f32" else "fsd", src, Mem(slot, 0))
    elif isinstance(t, FloatType):
        bits = b.x()
        b("fmv.x.w", bits, src)
        b("sh", bits, Mem(slot, 0))
    else:
        b(_STORE[elem_bytes(t)], src, Mem(slot, 0))


def lower_scalar_load(lw: Lowering, op) -> VReg:
    """``tl.load`` of a scalar pointer; returns the result register."""
    b: MBuilder = lw.b
    t = op.result.type
    res = b.f("ld") if t.is_float() else b.x("ld")
    skip = b.new_label("noload")
    if op.mask is not None:
        if op.other is not None:
            b("fmv.d" if t.is_float() else "mv", res, lw.get(op.other))
        else:
            b("fmv.d" if t.is_float() else "mv", res, constant(b, 0, t))
        b("beqz", lw.get(op.mask), skip)
    slot = lw.lmem.alloc(8, "scalar load slot", op.loc)
    local = b.li(slot.offset, "slot")
    b("mtia.dma.in", local, lw.get(op.ptr), b.li(elem_bytes(t), "bytes"))
    b("mtia.dma.wait")
    _slot_load(b, local, t, res)
    b.label(skip)
    lw.lmem.free(slot)
    return res


def lower_scalar_store(lw: Lowering, op) -> None:
    """``tl.store`` of a scalar through a scalar pointer.  The slot stays allocated (its DMA may
    still be reading it when the program goes on), as stored blocks do."""
    b: MBuilder = lw.b
    t = _pointee(op.ptr)
    skip = b.new_label("nostore")
    if op.mask is not None:
        b("beqz", lw.get(op.mask), skip)
    slot = lw.lmem.alloc(8, "scalar store slot", op.loc)
    local = b.li(slot.offset, "slot")
    _slot_store(b, local, t, lw.get(op.value))
    b("mtia.dma.out", lw.get(op.ptr), local, b.li(elem_bytes(t), "bytes"))
    b.label(skip)


# --------------------------------------------------------------------------- pointer blocks

def lower_addptr(lw: Lowering, op) -> None:
    """Materialize ``ptr + offset`` on blocks: 64-bit addresses in local memory."""
    res = op.result
    esize = elem_bytes(_pointee(op.ptr))
    off_t = op.offset.type.element_type
    if not isinstance(off_t, IntType):
        raise CompileError(f"pointer offsets of type {off_t} are not supported yet")
    ptr_src, off_src = lw.src(op.ptr), lw.src(op.offset)
    dst = Src(res.type.element_type, addr=lw.alloc(res).offset)
    factor = 64 // sew_of(off_t)
    widen = ("vzext" if (not off_t.signed or off_t.width == 1) else "vsext") + f".vf{factor}"

    def compute(loop: VLoop, g: List[str]) -> str:
        b = loop.b
        off = g[1]
        loop.ensure(res.type.element_type)  # e64
        if factor > 1:
            b(widen, "v24", off)
            off = "v24"
        shift = esize.bit_length() - 1
        if shift:
            b("vsll.vi", "v24", off, shift)
            off = "v24"
        b("vadd.vv", "v24", g[0], off)
        return "v24"

    emit_loop(lw.b, res.type.numel, [ptr_src, off_src], dst, compute, comment="pointer block")


def _row_checks(b: MBuilder, ptrs: VReg, mask_ptr: Optional[VReg], n: int, esize: int,
                first: VReg) -> tuple:
    """Vector checks of one row of ``n`` addresses at local ``ptrs`` (mask bytes at ``mask_ptr``).  Returns
    ``(bad, count, top)``: ``bad`` is non-zero unless every active address is ``first + j * esize``; ``count``
    is the number of active elements and ``top`` one past the last active index (``count == top``: the
    active elements are a prefix of the row).  Without a mask every element is active (``None, None``)."""
    bad = b.li(0, "bad")
    count = top = None
    if mask_ptr is not None:
        count, top = b.li(0, "count"), b.li(0, "top")
    left, j = b.li(n, "left"), b.li(0, "j")
    p, m = b.x("prow"), b.x("mrow")
    b("mv", p, ptrs)
    if mask_ptr is not None:
        b("mv", m, mask_ptr)
    vm = ("v0.t",) if mask_ptr is not None else ()
    loop = b.new_label("rowchk")
    b.label(loop)
    vl = b.x("vl")
    if mask_ptr is not None:
        b("vsetvli", vl, left, "e8, m1, ta, ma")
        b("vle8.v", "v24", VMem(m))
        b("vmsne.vi", "v0", "v24", 0)
        b("vsetvli", "zero", vl, "e64, m8, ta, ma")
    else:
        b("vsetvli", vl, left, "e64, m8, ta, ma")
    b("vle64.v", "v8", VMem(p))
    b("vid.v", "v16")
    b("vadd.vx", "v16", "v16", j)
    if mask_ptr is not None:
        b("vadd.vi", "v24", "v16", 1)          # one past each index: the largest active one is the row's top
        b("vmv.s.x", "v1", top)
        b("vredmaxu.vs", "v1", "v24", "v1", *vm)
        b("vmv.x.s", top, "v1")
        b("vmv.v.i", "v24", 1)
        b("vmv.s.x", "v1", count)
        b("vredsum.vs", "v1", "v24", "v1", *vm)
        b("vmv.x.s", count, "v1")
    shift = esize.bit_length() - 1
    if shift:
        b("vsll.vi", "v16", "v16", shift)
    b("vadd.vx", "v16", "v16", first)
    b("vxor.vv", "v24", "v8", "v16")
    b("vmv.s.x", "v1", bad)
    b("vredor.vs", "v1", "v24", "v1", *vm)
    b("vmv.x.s", bad, "v1")
    if mask_ptr is not None:
        b("add", m, m, vl)
    step = b.x("step")
    b("slli", step, vl, 3)
    b("add", p, p, step)
    b("add", j, j, vl)
    b("sub", left, left, vl)
    b("bnez", left, loop)
    return bad, count, top


def _elements(lw: Lowering, op, lmem_addr: int, esize: int, inbound: bool) -> None:
    """DMAs between DRAM ``ptrs[i]`` and local ``lmem_addr + i * esize``, a row (the last axis) at a time:
    a row whose active elements are a prefix of it (all of it, or none) at consecutive addresses (checked on
    the vector unit) moves as one DMA or not at all; any other row moves one DMA per active element."""
    b: MBuilder = lw.b
    n = op.ptr.type.numel
    shape = op.ptr.type.shape
    row = shape[-1] if shape else 1
    skip_all = b.new_label("noelems")
    mask_ptr = None
    if op.mask is not None:
        if _scalar_backed(op.mask):
            root = op.mask.op
            if isinstance(root, O.ConstantOp):
                if not root.value:
                    return
            else:
                b("beqz", lw.get(root.src), skip_all)
        else:
            mask_ptr = b.li(lw.buffer(op.mask).offset, "mask")
    ptrs = b.li(lw.buffer(op.ptr).offset, "ptrs")
    local = b.li(lmem_addr, "lmem")
    size = b.li(esize, "esize")
    r, rows = b.li(0, "r"), b.li(n // row, "rows")
    row_top, row_next = b.new_label("gatherrow"), b.new_label("rownext")
    b.label(row_top)
    slow = b.new_label("rowslow")
    if row >= 2:
        first = b.x("first")
        b("ld", first, Mem(ptrs, 0))
        bad, count, top = _row_checks(b, ptrs, mask_ptr, row, esize, first)
        if mask_ptr is not None:
            b("beqz", count, row_next)
            b("bne", count, top, slow)
        b("bnez", bad, slow)
        if mask_ptr is not None:   # the active prefix
            nbytes = b.x("rowbytes")
            b("slli", nbytes, count, esize.bit_length() - 1)
        else:
            nbytes = b.li(row * esize, "rowbytes")
        b("mtia.dma.in" if inbound else "mtia.dma.out", *((local, first) if inbound else (first, local)), nbytes)
        b("j", row_next)
    b.label(slow)
    i, limit = b.x("i"), b.li(row, "n")
    b("li", i, 0)
    ep, el, em = b.x("ep"), b.x("el"), b.x("em")
    b("mv", ep, ptrs)
    b("mv", el, local)
    if mask_ptr is not None:
        b("mv", em, mask_ptr)
    top, nxt = b.new_label("gather"), b.new_label("gnext")
    b.label(top)
    if mask_ptr is not None:
        m = b.x("m")
        b("lbu", m, Mem(em, 0))
        b("beqz", m, nxt)
    addr = b.x("addr")
    b("ld", addr, Mem(ep, 0))
    b("mtia.dma.in" if inbound else "mtia.dma.out", *((el, addr) if inbound else (addr, el)), size)
    b.label(nxt)
    b("addi", ep, ep, 8)
    b("addi", el, el, esize)
    if mask_ptr is not None:
        b("addi", em, em, 1)
    b("addi", i, i, 1)
    b("blt", i, limit, top)
    b.label(row_next)
    for reg, step in ((ptrs, 8 * row), (local, esize * row), (mask_ptr, row)):
        if reg is None:
            continue
        if -2048 <= step < 2048:
            b("addi", reg, reg, step)
        else:
            b("add", reg, reg, b.li(step, "rowstep"))
    b("addi", r, r, 1)
    b("blt", r, rows, row_top)
    b.label(skip_all)


def lower_load(lw: Lowering, op) -> None:
    b = lw.b
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    dst = lw.alloc(op.result)
    if op.mask is not None:
        if op.other is not None:
            other = lw.src(op.other)
        else:
            other = Src(elem, scalar=constant(b, 0, elem))
        lower_fill(b, op.result.type.numel, other, Src(elem, addr=dst.offset))
    _elements(lw, op, dst.offset, esize, True)
    b("mtia.dma.wait")


def lower_store(lw: Lowering, op) -> None:
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    addr = stored_value_addr(lw, op)
    _elements(lw, op, addr, esize, False)
