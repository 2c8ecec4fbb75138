"""The ``contiguous`` and ``elements`` plans: 1-D affine pointer blocks, ``base + start + stride * i``.

* ``contiguous`` (stride 1): one DMA transfer.  A *prefix* mask (``offsets < N``) cuts it to the active
  prefix and the rest of a load takes ``other``; a mask that axis-info proves uniform over the block
  (a splat of ``pid < M``) makes it all or nothing, guarded by the mask's first element.
* ``elements`` (a mask that is neither, or a constant stride other than 1 with such a mask): one small
  DMA per active element, a prefix mask bounding the loop: correct, and slow, as the real chip's
  fallback path is.  Masked-off elements of a load take ``other``.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import Mem, VReg
from mtiacc.codegen.memory.common import AccessPlanError, affine_scalar, clamp, element_address, stored_value_addr
from mtiacc.codegen.vector.blocks import lower_elementwise, lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import Affine, pointer_affine, prefix_count


def _form(op):
    """(base pointer, affine offset in elements, prefix count or None) of the access."""
    p = pointer_affine(op.ptr)
    if p is None:
        raise AccessPlanError(op, "its pointer block is not affine")
    return p[0], p[1], prefix_count(op.mask) if op.mask is not None else None


def needs_buffers(op):
    """The block operands whose data the lowering reads from local memory: a mask that is not a prefix
    (a uniform one's first element, or every element), and a stored value."""
    out = []
    if op.mask is not None and prefix_count(op.mask) is None:
        out.append(op.mask)
    if isinstance(op, O.StoreOp):
        out.append(op.value)
    return out


def _transfer(lw: Lowering, op, off: Affine, prefix: Optional[Affine], dram_start: VReg, lmem_addr: int, direction: str,
              n: int, esize: int) -> Optional[VReg]:
    """Move the block; returns the active-prefix count register for prefix-masked accesses."""
    b = lw.b
    mnemonic = "mtia.dma.in" if direction == "in" else "mtia.dma.out"
    local = lmem_addr if isinstance(lmem_addr, VReg) and op.access == "contiguous" else b.li(lmem_addr, "lmem")
    count = None
    if op.access == "contiguous":
        if op.mask is not None:
            if prefix is None:  # uniform: all n elements when the mask's first element is set, else none
                first = b.x("m")
                b("lbu", first, Mem(b.li(lw.buffer(op.mask).offset), 0))
                count = b.x("count")
                b("mul", count, first, b.li(n))
            else:
                count = clamp(lw, affine_scalar(lw, prefix), n)
            nbytes = b.x("bytes")
            b("slli", nbytes, count, esize.bit_length() - 1)
            skip = b.new_label("nodma")
            b("beqz", nbytes, skip)
            b(mnemonic, *((local, dram_start) if direction == "in" else (dram_start, local)), nbytes)
            b.label(skip)
        else:
            b(mnemonic, *((local, dram_start) if direction == "in" else (dram_start, local)),
              b.li(n * esize, "bytes"))
        return count
    # Element by element.
    stride_bytes = off.stride * esize
    limit = clamp(lw, affine_scalar(lw, prefix), n) if prefix is not None else b.li(n)
    i, addr = b.li(0, "i"), b.x("dram")
    b("mv", addr, dram_start)
    mask_ptr = b.li(lw.buffer(op.mask).offset) if op.mask is not None and prefix is None else None
    size = b.li(esize)
    top, nxt, done = b.new_label("elem"), b.new_label("next"), b.new_label("elemdone")
    b("bge", i, limit, done)
    b.label(top)
    if mask_ptr is not None:
        m = b.x("m")
        b("lbu", m, Mem(mask_ptr, 0))
        b("beqz", m, nxt)
    b(mnemonic, *((local, addr) if direction == "in" else (addr, local)), size)
    b.label(nxt)
    step = b.li(stride_bytes) if not -2048 <= stride_bytes < 2048 else None
    if step is None:
        b("addi", addr, addr, stride_bytes)
    else:
        b("add", addr, addr, step)
    b("addi", local, local, esize)
    if mask_ptr is not None:
        b("addi", mask_ptr, mask_ptr, 1)
    b("addi", i, i, 1)
    b("blt", i, limit, top)
    b.label(done)
    return limit if prefix is not None else None


def lower_load(lw: Lowering, op) -> None:
    b = lw.b
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    n = op.result.type.numel
    base, off, prefix = _form(op)
    dst = lw.alloc(op.result)
    start = element_address(lw, lw.get(base), affine_scalar(lw, off.start), esize)
    count = _transfer(lw, op, off, prefix, start, dst.offset, "in", n, esize)
    if op.other is None:
        # No fill after the transfer: let it run while later loads issue; the op after it that touches local
        # memory waits (insert-waits).
        return
    other = lw.src(op.other)
    if count is not None:
        # Elements [count, n) take `other`: bytes the transfer does not write, so it keeps running.
        rest = b.x("rest")
        b("sub", rest, b.li(n), count)
        tail = element_address(lw, b.li(dst.offset), count, esize)
        lower_fill(b, rest, other, Src(elem, addr=tail))
        return
    b("mtia.dma.wait")
    if op.mask is not None:
        select = O.SelectOp.get(op.mask, op.result, op.other)
        lower_elementwise(b, select, [lw.src(op.mask), Src(elem, addr=dst.offset), other],
                          Src(elem, addr=dst.offset))
        select.drop_operands()


def lower_store(lw: Lowering, op) -> None:
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    n = op.value.type.numel
    base, off, prefix = _form(op)
    addr = stored_value_addr(lw, op)
    start = element_address(lw, lw.get(base), affine_scalar(lw, off.start), esize)
    _transfer(lw, op, off, prefix, start, addr, "out", n, esize)
