"""Instruction selection for ``tt.load`` / ``tt.store``: DMA between DRAM and local memory.

* A contiguous access (pointer block ``base + start + i``) without a mask, or with a *prefix* mask
  (``offsets < N``), is one DMA transfer of the active prefix; the rest of a load takes ``other``.
* Any other mask, or a constant stride, moves element by element (one small DMA per active
  element): correct, and slow, as the real chip's fallback path is.
* A stride known only at run time (``X + offs * stride``, as Inductor writes non-contiguous
  inputs) goes to ndblocks.py's path, as an N-d tile's last stride does: it branches on the
  stride's value, one transfer when it is 1, element by element otherwise.
* Indices split with ``//`` and ``%`` (Inductor's ``x0 + 64*x1``, ``x % 64``, ``x // 64``), constant
  strides other than 1, and (YBLOCK, 1) tiles: by runs of contiguous elements, split_dma.py; 2-D tiles
  with such indices on either axis (and transposed stores): split_nd.py.
* Scalar pointers, and pointer blocks without structure (gather/scatter): gather.py.
"""
from __future__ import annotations

from typing import Optional

from mtiacc.codegen.memory import gather
from mtiacc.ir.analysis import axis_info
from mtiacc.ir.analysis.affine import Affine, pointer_affine, prefix_count
from mtiacc.codegen.vector.blocks import lower_elementwise, lower_fill, stored_value_addr
from mtiacc.codegen.machine.mir import MBuilder, Mem, VReg
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import i1


def affine_scalar(lw, aff: Affine) -> VReg:
    """A register holding the scalar ``sum(coef * term) + const``."""
    b: MBuilder = lw.b
    acc: Optional[VReg] = None
    for v, coef in aff.terms:
        r, negate = lw.get(v), coef < 0
        k = abs(coef)
        if k != 1:
            scaled = b.x()
            if k & (k - 1) == 0:
                b("slli", scaled, r, k.bit_length() - 1)
            else:
                b("mul", scaled, r, b.li(k))
            r = scaled
        s = b.x()
        if acc is None:
            if not negate:
                acc = r
                continue
            b("neg", s, r)
        else:
            b("sub" if negate else "add", s, acc, r)
        acc = s
    if acc is None:
        return b.li(aff.const)
    if aff.const:
        s = b.x()
        if -2048 <= aff.const < 2048:
            b("addi", s, acc, aff.const)
        else:
            b("add", s, acc, b.li(aff.const))
        acc = s
    return acc


def element_address(lw, base: VReg, index: VReg, esize: int) -> VReg:
    b = lw.b
    r = b.x("addr")
    if esize > 1:
        scaled = b.x()
        b("slli", scaled, index, esize.bit_length() - 1)
        index = scaled
    b("add", r, base, index)
    return r


def clamp(lw, value: VReg, hi: int) -> VReg:
    """min(max(value, 0), hi)."""
    b = lw.b
    r = b.x("count")
    ok_lo, ok_hi = b.new_label("clamp"), b.new_label("clamp")
    b("mv", r, value)
    b("bge", r, "zero", ok_lo)
    b("mv", r, "zero")
    b.label(ok_lo)
    limit = b.li(hi)
    b("ble", r, limit, ok_hi)
    b("mv", r, limit)
    b.label(ok_hi)
    return r


class Access:
    """What codegen knows of a load's or store's pointer block and mask."""

    def __init__(self, ptr, mask):
        self.pointer = pointer_affine(ptr) if ptr.type.is_block() else None
        self.prefix = prefix_count(mask) if mask is not None else None
        self.has_mask = mask is not None
        # A mask that axis-info proves equal over the whole block (e.g. a splat of `pid < M`): the
        # access is all or nothing, one DMA guarded by the mask's first element.
        self.uniform = self.has_mask and self.prefix is None and axis_info.is_uniform(mask)

    @property
    def structured(self) -> bool:
        return self.pointer is not None

    @property
    def contiguous(self) -> bool:
        return self.pointer is not None and self.pointer[1].stride == 1


def _by_tiles(op) -> bool:
    """Structured N-d tiles, and 1-D blocks with a run-time stride: ndblocks.py."""
    if not op.ptr.type.is_block() or len(op.ptr.type.shape) == 1 and pointer_affine(op.ptr) is not None:
        return False
    from mtiacc.ir.analysis.affine_nd import pointer_nd
    return pointer_nd(op.ptr) is not None


def needs_buffers(op):
    """The block operands whose data the lowering of this load/store reads from local memory."""
    from mtiacc.codegen.memory import runs as split_dma
    from mtiacc.codegen.memory import split_tiles as split_nd
    if split_dma.handles(op):  # indices split with // and %, constant strides, (YBLOCK, 1) tiles
        return split_dma.needs_buffers(op)
    if split_nd.handles(op):  # 2-D tiles with such indices, transposes
        return split_nd.needs_buffers(op)
    if _by_tiles(op):  # N-d tiles, run-time strides: ndblocks.py
        from mtiacc.codegen.tensor import ndblocks
        return ndblocks.needs_buffers(op)
    if gather.handles(op):  # scalar pointers, gather/scatter
        return gather.needs_buffers(op)
    acc = Access(op.ptr, op.mask)
    out = []
    if not acc.structured:
        raise CompileError("loads and stores through unstructured pointer blocks (gather/scatter) "
                           "are not supported yet")
    if acc.has_mask and acc.prefix is None:
        out.append(op.mask)
    if isinstance(op, O.StoreOp):
        out.append(op.value)
    return out


def _transfer(lw, op, acc: Access, dram_start: VReg, lmem_addr: int, direction: str, n: int,
              esize: int) -> Optional[VReg]:
    """Move the block; returns the active-prefix count register for prefix-masked accesses."""
    b = lw.b
    mnemonic = "mtia.dma.in" if direction == "in" else "mtia.dma.out"
    local = b.li(lmem_addr, "lmem")
    count = None
    if acc.contiguous and (not acc.has_mask or acc.prefix is not None or acc.uniform):
        if acc.prefix is not None or acc.uniform:
            if acc.uniform:  # all n elements when the mask's first element is set, else none
                first = b.x("m")
                b("lbu", first, Mem(b.li(lw.buffer(op.mask).offset), 0))
                count = b.x("count")
                b("mul", count, first, b.li(n))
            else:
                count = clamp(lw, affine_scalar(lw, acc.prefix), n)
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
    stride_bytes = acc.pointer[1].stride * esize
    limit = clamp(lw, affine_scalar(lw, acc.prefix), n) if acc.prefix is not None else b.li(n)
    i, addr = b.li(0, "i"), b.x("dram")
    b("mv", addr, dram_start)
    mask_ptr = b.li(lw.buffer(op.mask).offset) if acc.has_mask and acc.prefix is None else None
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
    return limit if acc.prefix is not None else None


def lower_load(lw, op) -> None:
    from mtiacc.codegen.memory import runs as split_dma
    from mtiacc.codegen.memory import split_tiles as split_nd
    if split_dma.handles(op):
        return split_dma.lower_load(lw, op)
    if split_nd.handles(op):
        return split_nd.lower_load(lw, op)
    if _by_tiles(op):  # N-d tiles, run-time strides: ndblocks.py
        from mtiacc.codegen.tensor import ndblocks
        return ndblocks.lower_load(lw, op)
    if gather.handles(op):
        return gather.lower_load(lw, op)
    b = lw.b
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    n = op.result.type.numel
    acc = Access(op.ptr, op.mask)
    dst = lw.alloc(op.result)
    base, off = acc.pointer
    start = element_address(lw, lw.get(base), affine_scalar(lw, off.start), esize)
    count = _transfer(lw, op, acc, start, dst.offset, "in", n, esize)
    if op.other is None:
        # No fill after the transfer: let it run while later loads issue; isel waits before a reader.
        lw.pending_dma_in = True
        return
    b("mtia.dma.wait")
    other = lw.src(op.other)
    if count is not None:
        # Elements [count, n) take `other`.
        rest = b.x("rest")
        b("sub", rest, b.li(n), count)
        tail = element_address(lw, b.li(dst.offset), count, esize)
        lower_fill(b, rest, other, Src(elem, addr=tail))
    elif acc.has_mask:
        select = O.SelectOp.get(op.mask, op.result, op.other)
        lower_elementwise(b, select, [lw.src(op.mask), Src(elem, addr=dst.offset), other],
                          Src(elem, addr=dst.offset))
        select.drop_operands()


def lower_store(lw, op) -> None:
    from mtiacc.codegen.memory import runs as split_dma
    from mtiacc.codegen.memory import split_tiles as split_nd
    if split_dma.handles(op):
        return split_dma.lower_store(lw, op)
    if split_nd.handles(op):
        return split_nd.lower_store(lw, op)
    if _by_tiles(op):  # N-d tiles, run-time strides: ndblocks.py
        from mtiacc.codegen.tensor import ndblocks
        return ndblocks.lower_store(lw, op)
    if gather.handles(op):
        if not op.ptr.type.is_block():
            return gather.lower_scalar_store(lw, op)
        return gather.lower_store(lw, op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    n = op.value.type.numel
    acc = Access(op.ptr, op.mask)
    addr = stored_value_addr(lw, op)
    base, off = acc.pointer
    start = element_address(lw, lw.get(base), affine_scalar(lw, off.start), esize)
    _transfer(lw, op, acc, start, addr, "out", n, esize)


def lower_scalar_load(lw, op) -> VReg:
    return gather.lower_scalar_load(lw, op)


__all__ = ["lower_load", "lower_store", "needs_buffers", "Access", "i1"]
