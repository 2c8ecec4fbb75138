"""The ``tiles`` plan: pointer blocks affine in N dimensions (``affine_nd``), one DMA per row.

N-d tiles (``X + rows[:, None] * stride + cols[None, :]``) and 1-D blocks whose stride is a run-time
value (``X + offs * stride``, as Inductor writes non-contiguous inputs) move one row (the last
dimension) per DMA transfer when the last stride is 1, a row clipped to a prefix-box mask
(``(rows < M)[:, None] & (cols < N)[None, :]``); one DMA per element otherwise.  A last stride known
only at run time branches between the two on its value.  A general mask is read from its buffer per
element.  Masked-off elements of a load take ``other`` (the whole tile is filled with it first).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.memory.common import AccessPlanError, clamp_count, scaled, stored_value_addr
from mtiacc.codegen.vector.nest import Step, dense_strides, masked_element, nest
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine_nd import pointer_nd, prefix_box
from mtiacc.ir.core import Value


# --------------------------------------------------------------------------- loads and stores

class NdAccess:
    """The parameters of a ``tiles`` access: the base pointer and N-d affine offset, the prefix box of
    the mask (None: no mask, or a general one)."""

    def __init__(self, op):
        self.pointer = pointer_nd(op.ptr)
        if self.pointer is None:
            raise AccessPlanError(op, "its pointer block is not affine")
        self.box = prefix_box(op.mask) if op.mask is not None else None
        self.general_mask = op.mask is not None and self.box is None


def needs_buffers(op) -> List[Value]:
    """A mask that is not a prefix box (read per element), and a stored value."""
    out = [op.mask] if op.mask is not None and prefix_box(op.mask) is None else []
    if isinstance(op, O.StoreOp):
        out.append(op.value)
    return out


def _transfer(lw: Lowering, acc: NdAccess, shape: Sequence[int], lmem: int, esize: int, inbound: bool,
              mask_addr: Optional[int]) -> None:
    b: MBuilder = lw.b
    base, off = acc.pointer
    rank = len(shape)
    dram = b.x("dram")
    start = scaled(lw, off.start, esize)
    if isinstance(start, int):
        if -2048 <= start < 2048:
            b("addi", dram, lw.get(base), start)
        else:
            b("add", dram, lw.get(base), b.li(start))
    else:
        b("add", dram, lw.get(base), start)
    dsteps = [scaled(lw, s, esize) for s in off.strides]
    lsteps = [st * esize for st in dense_strides(shape)]
    mask_steps = dense_strides(shape)
    box = acc.box or [None] * rank
    counts = [clamp_count(lw, c, d) if c is not None else d for c, d in zip(box, shape)]
    mnemonic = "mtia.dma.in" if inbound else "mtia.dma.out"
    last_stride = off.strides[-1].as_const()
    contiguous = last_stride == 1 and mask_addr is None
    # a run-time last stride: branch to the row path when it is 1 at run time
    checked = last_stride is None and mask_addr is None
    ptrs = [dram, b.li(lmem, "lmem")] + ([b.li(mask_addr, "mask")] if mask_addr is not None else [])
    steps = [dsteps, lsteps] + ([mask_steps] if mask_addr is not None else [])

    def dma(d: VReg, l: VReg, nbytes: Step) -> None:
        n = b.li(nbytes, "bytes") if isinstance(nbytes, int) else nbytes
        b(mnemonic, *((l, d) if inbound else (d, l)), n)

    if contiguous or checked:
        last = counts[-1]

        def row(cur: List[VReg]) -> None:
            if isinstance(last, int):
                if last:
                    dma(cur[0], cur[1], last * esize)
                return
            nbytes = b.x("bytes")
            b("slli", nbytes, last, esize.bit_length() - 1)
            skip = b.new_label("nodma")
            b("beqz", nbytes, skip)
            dma(cur[0], cur[1], nbytes)
            b.label(skip)
        if not checked:
            nest(b, counts[:-1], ptrs, [s[:-1] for s in steps], row)
            return
        by_element, done = b.new_label("strided"), b.new_label("rowsdone")
        b("bne", dsteps[-1], b.li(esize, "esize"), by_element)
        nest(b, counts[:-1], ptrs, [s[:-1] for s in steps], row)
        b("j", done)
        b.label(by_element)

    size = b.li(esize, "esize")

    def element(cur: List[VReg]) -> None:
        with masked_element(b, cur[2] if mask_addr is not None else None):
            b(mnemonic, *((cur[1], cur[0]) if inbound else (cur[0], cur[1])), size)
    nest(b, counts, ptrs, steps, element)
    if checked:
        b.label(done)


def lower_load(lw: Lowering, op) -> None:
    acc = NdAccess(op)
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    dst = lw.alloc(op.result)
    if op.other is not None:
        lower_fill(lw.b, op.result.type.numel, lw.src(op.other), Src(elem, addr=dst.offset))
    mask_addr = lw.buffer(op.mask).offset if acc.general_mask else None
    _transfer(lw, acc, op.result.type.shape, dst.offset, esize, True, mask_addr)
    lw.b("mtia.dma.wait")


def lower_store(lw: Lowering, op) -> None:
    acc = NdAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    addr = stored_value_addr(lw, op)
    mask_addr = lw.buffer(op.mask).offset if acc.general_mask else None
    _transfer(lw, acc, op.value.type.shape, addr, esize, False, mask_addr)
