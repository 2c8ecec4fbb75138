"""The ``tiles`` plan: pointer blocks affine in N dimensions (``affine_nd``), one 2-D DMA per slab.

N-d tiles (``X + rows[:, None] * stride + cols[None, :]``) and 1-D blocks whose stride is a run-time
value (``X + offs * stride``, as Inductor writes non-contiguous inputs).  When the last stride is 1,
each 2-D slab (the last two axes) moves with one ``mtia.dma.in2d`` / ``out2d``: its rows, clipped to a
prefix-box mask (``(rows < M)[:, None] & (cols < N)[None, :]``) or range-box mask (``lo <= rows < hi``
per axis, as block pointers and descriptors check their bounds: each axis clipped at run time to
``[max(0, lo), min(hi, B))``, both ends moving the DRAM and local starts), at the DRAM stride of the
axis before the last and the dense local one; a 1-D block is one DMA.  Otherwise the elements are rows of one
element: one 2-D transfer along an axis per index of the others.  A last stride known only at run
time branches between the two on its value.  A general mask is read from its buffer per element and
only the active elements move, one DMA each (a 2-D transfer cannot skip elements).  Masked-off elements
of a load take ``other``.  When the active elements are a row-major prefix of the tile (a box mask with no
lower bounds, every axis after the last clipped one whole and every axis before it of size 1: Inductor's
``r0_mask & xmask`` with one row, ``XBLOCK = 1``), only the tail after them is filled, after the transfer,
which keeps running (readers wait for it, ``insert-waits``, as for a ``contiguous`` load); otherwise the
whole tile is filled first, before the transfer in program order, and the transfer keeps running too (a block
pointer's or descriptor's range box: a prefetched tile of tutorial 06's K and V is not waited for at its issue).
"""
from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.memory.common import (AccessPlanError, clamp, clamp_count, dma2d, dma2d_config,
                                          element_address, scaled, stored_value_addr)
from mtiacc.codegen.vector.nest import Step, dense_strides, masked_element, nest
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine_nd import pointer_nd, range_box
from mtiacc.ir.core import Value


# --------------------------------------------------------------------------- loads and stores

class NdAccess:
    """The parameters of a ``tiles`` access: the base pointer and N-d affine offset, the range box of
    the mask (None: no mask, or a general one)."""

    def __init__(self, op):
        self.pointer = pointer_nd(op.ptr)
        if self.pointer is None:
            raise AccessPlanError(op, "its pointer block is not affine")
        self.box = range_box(op.mask) if op.mask is not None else None
        self.general_mask = op.mask is not None and self.box is None


def needs_buffers(op) -> List[Value]:
    """A mask that is not a range box (read per element), and a stored value."""
    out = [op.mask] if op.mask is not None and range_box(op.mask) is None else []
    if isinstance(op, O.StoreOp):
        out.append(op.value)
    return out


def _bands(lw: Lowering, count: Step, bands: int, rows: int, dram: VReg, lmem: VReg, dstep: Step, lstep: int,
           row_bytes: Step, inbound: bool) -> None:
    """The 2-D transfer of ``count`` rows (of ``rows``) as ``bands`` transfers of ``rows / bands`` rows each
    (a store's ``row_bands``: each band's DMA starts once the engine has written that band)."""
    b = lw.b
    band = rows // bands
    for i in range(bands):
        if isinstance(count, int):
            n: Step = max(0, min(band, count - i * band))
            if not n:
                break
            skip = None
        else:
            left = b.x("left")
            b("addi", left, count, -i * band)
            n = clamp(lw, left, band)
            skip = b.new_label("band")
            b("beqz", n, skip)
        b("mtia.dma.cfg", b.li(n) if isinstance(n, int) else n, 0, comment=f"row band {i} of {bands}")
        d, l = b.x("p"), b.x("p")
        off = i * band
        if isinstance(dstep, int):
            b("add", d, dram, b.li(off * dstep))
        else:
            b("mul", d, dstep, b.li(off))
            b("add", d, d, dram)
        b("addi", l, lmem, off * lstep) if -2048 <= off * lstep < 2048 else b("add", l, lmem, b.li(off * lstep))
        dma2d(b, inbound, d, l, row_bytes)
        if skip is not None:
            b.label(skip)


def _transfer(lw: Lowering, acc: NdAccess, shape: Sequence[int], lmem: int, esize: int, inbound: bool,
              mask_addr: Optional[int], fill: Optional[Callable[[List[Step]], None]] = None,
              bands: int = 1) -> List[Step]:
    """Move the tile; ``fill`` (a load's ``other``, given the counts moved per axis) runs on every path right
    before the first transfer, after the address arithmetic and the DMA configuration, which then overlap with
    it.  ``bands`` > 1 (a store's ``row_bands``): a 2-D block's contiguous rows move in that many transfers.
    Returns the number of indices moved per axis."""
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
    lmem_reg = b.li(lmem, "lmem")
    counts = [_clip(lw, r, d, dram, lmem_reg, ds, ls) for r, d, ds, ls in zip(box, shape, dsteps, lsteps)]
    mnemonic = "mtia.dma.in" if inbound else "mtia.dma.out"
    last_stride = off.strides[-1].as_const()
    contiguous = last_stride == 1 and mask_addr is None
    # a run-time last stride: branch to the row path when it is 1 at run time
    checked = last_stride is None and mask_addr is None
    ptrs = [dram, lmem_reg] + ([b.li(mask_addr, "mask")] if mask_addr is not None else [])
    steps = [dsteps, lsteps] + ([mask_steps] if mask_addr is not None else [])
    ready = (lambda: fill(counts)) if fill is not None else (lambda: None)
    if checked:         # one fill before the branch on the stride
        ready()
        ready = lambda: None  # noqa: E731

    def one_d(cur: List[VReg], nbytes: Step) -> None:
        """One 1-D transfer (none when ``nbytes`` is 0)."""
        if isinstance(nbytes, int) and not nbytes:
            return
        skip = b.new_label("nodma")
        if not isinstance(nbytes, int):
            b("beqz", nbytes, skip)
        n = b.li(nbytes, "bytes") if isinstance(nbytes, int) else nbytes
        b(mnemonic, *((cur[1], cur[0]) if inbound else (cur[0], cur[1])), n)
        b.label(skip)

    def slabs(axis: int, row_bytes: Step, outer: List[int]) -> None:
        """One 2-D transfer of rows along ``axis`` (``row_bytes`` each) per index of the ``outer`` axes;
        a 1-D transfer per index when the axis has one row (configuring a 2-D one costs more)."""
        if isinstance(counts[axis], int) and not counts[axis] or isinstance(row_bytes, int) and not row_bytes:
            ready()
            return
        if bands > 1 and rank == 2 and axis == 0 and not outer:
            dma2d_config(b, counts[axis], dsteps[axis], lsteps[axis])
            ready()
            _bands(lw, counts[axis], bands, shape[axis], ptrs[0], ptrs[1], dsteps[axis], lsteps[axis], row_bytes,
                   inbound)
            return
        if shape[axis] == 1:
            outer = sorted(outer + [axis])
            body = lambda cur: one_d(cur, row_bytes)  # noqa: E731
        else:
            dma2d_config(b, counts[axis], dsteps[axis], lsteps[axis])
            body = lambda cur: dma2d(b, inbound, cur[0], cur[1], row_bytes)  # noqa: E731
        ready()
        nest(b, [counts[k] for k in outer], ptrs[:2], [[s[k] for k in outer] for s in steps[:2]], body)

    if contiguous or checked:
        if checked:
            by_element, done = b.new_label("strided"), b.new_label("rowsdone")
            b("bne", dsteps[-1], b.li(esize, "esize"), by_element)
        last = counts[-1]
        if isinstance(last, int):
            nbytes: Step = last * esize
        else:
            nbytes = b.x("bytes")
            b("slli", nbytes, last, esize.bit_length() - 1)
        if rank == 1:
            ready()
            one_d(ptrs, nbytes)
        else:   # the rows of each 2-D slab (the last two axes) in one transfer
            slabs(rank - 2, nbytes, list(range(rank - 2)))
        if not checked:
            return counts
        b("j", done)
        b.label(by_element)

    if mask_addr is None:
        # Unmasked elements at a stride: rows of one element.  A load takes the longest axis (fewest
        # transfers: local rows never overlap); a store the last one, to write in the same order as
        # element by element (the last writer wins where DRAM addresses coincide).
        axis = max(range(rank), key=lambda k: (shape[k], k)) if inbound else rank - 1
        slabs(axis, esize, [k for k in range(rank) if k != axis])
        if checked:
            b.label(done)
        return counts

    # A general mask is read per element, so the active elements move one DMA each (a 2-D transfer
    # has no mask).
    size = b.li(esize, "esize")
    ready()

    def element(cur: List[VReg]) -> None:
        with masked_element(b, cur[2]):
            b(mnemonic, *((cur[1], cur[0]) if inbound else (cur[0], cur[1])), size)
    nest(b, counts, ptrs, steps, element)
    return counts


def _prefix_axis(acc: NdAccess, shape: Sequence[int]) -> Optional[int]:
    """When the active elements of ``acc`` are a row-major prefix of the tile: the last axis the mask
    clips (-1: none, every element is active), every later axis whole and every earlier one of size 1;
    else None."""
    if acc.general_mask:
        return None
    box = acc.box or [None] * len(shape)
    clipped = []
    for k, (r, d) in enumerate(zip(box, shape)):
        if r is None:
            continue
        lo, hi = r
        if lo is not None:
            return None
        c = hi.as_const() if hi is not None else None
        if c is None or c < d:
            clipped.append(k)
    if not clipped:
        return -1
    j = clipped[-1]
    return j if all(d == 1 for d in shape[:j]) else None


def _times(b: MBuilder, x: Step, k: Step) -> Step:
    """``x * k`` for a count and a byte step (constants or registers)."""
    if isinstance(x, int) and isinstance(k, int):
        return x * k
    r = b.x("off")
    b("mul", r, x if not isinstance(x, int) else b.li(x), k if not isinstance(k, int) else b.li(k))
    return r


def _clip(lw: Lowering, rng, d: int, dram: VReg, lmem: VReg, dstep: Step, lstep: int) -> Step:
    """The number of indices of an axis of ``d`` inside the range ``rng`` (``(lo, hi)``, either None;
    None: all); a lower bound ``lo`` moves the DRAM and local starts to ``max(0, lo)``."""
    if rng is None:
        return d
    lo, hi = rng
    if lo is None:
        return clamp_count(lw, hi, d)
    b = lw.b
    first = clamp_count(lw, lo, d)
    end = clamp_count(lw, hi, d) if hi is not None else d
    if isinstance(first, int) and isinstance(end, int):
        count: Step = max(0, end - first)
    else:
        diff = b.x("span")
        b("sub", diff, end if not isinstance(end, int) else b.li(end), first if not isinstance(first, int)
          else b.li(first))
        count = clamp(lw, diff, d)
    for ptr, step in ((dram, dstep), (lmem, lstep)):
        off = _times(b, first, step)
        if isinstance(off, int):
            if off:
                b("add", ptr, ptr, b.li(off))
        else:
            b("add", ptr, ptr, off)
    return count


def lower_load(lw: Lowering, op) -> None:
    acc = NdAccess(op)
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    dst = lw.alloc(op.result)
    shape = op.result.type.shape
    prefix = _prefix_axis(acc, shape)
    if prefix is not None:
        # the transfer writes the first elements: the rest take ``other`` meanwhile; readers wait for it
        counts = _transfer(lw, acc, shape, dst.offset, esize, True, None)
        if op.other is not None and prefix >= 0:
            b = lw.b
            written: Step = 1
            for k in range(prefix + 1):
                written = _times(b, written, counts[k])
            written = _times(b, written, math.prod(shape[prefix + 1:]))
            n = op.result.type.numel
            other = lw.src(op.other)
            if isinstance(written, int):
                if n > written:
                    lower_fill(b, n - written, other, Src(elem, addr=dst.offset + written * esize))
            else:
                rest = b.x("rest")
                b("sub", rest, b.li(n), written)
                lower_fill(b, rest, other, Src(elem, addr=element_address(lw, b.li(dst.offset), written, esize)))
        return   # the op after it that touches local memory waits (insert-waits)
    fill = None
    if op.other is not None:
        def fill(counts: List[Step]) -> None:
            other = lw.src(op.other)     # a constant's register made on every path, before the branch
            whole = lambda: lower_fill(lw.b, op.result.type.numel, other, Src(elem, addr=dst.offset))  # noqa: E731
            if acc.general_mask or op.result.type.numel * esize < FILL_CHECK_MIN_BYTES:
                whole()     # masked-off elements inside the counts; or a fill too short to be worth a check
            else:
                _fill_unless_whole(lw, counts, shape, whole)
    mask_addr = lw.buffer(op.mask).offset if acc.general_mask else None
    _transfer(lw, acc, shape, dst.offset, esize, True, mask_addr, fill)
    # the fill went first (in program order: the transfer lands over it), so the transfer keeps running: the op
    # after it that touches local memory waits (insert-waits), and a prefetch's reader only where its tile is read


# A range-boxed load's padding fill of at least this many bytes is skipped at run time when the tile is whole (its
# 64 cycles of the vector unit, at 32 bytes a cycle, against the check's compare and branch per clipped axis); a
# shorter one is always filled, so a tile that is never whole (a ragged matrix in small blocks) pays no check
FILL_CHECK_MIN_BYTES = 2048


def _fill_unless_whole(lw: Lowering, counts: List[Step], shape: Sequence[int], fill: Callable[[], None]) -> None:
    """``fill()`` unless the range box's transfer covers the whole tile: an axis clipped at run time (its count a
    register) branches around the fill when its count is the axis' size at run time (a range box's lower bound
    moves the start, so the count is whole only when the range covers every index); an axis clipped at compile
    time below its size always fills."""
    if any(isinstance(c, int) and c < d for c, d in zip(counts, shape)):
        fill()
        return
    checks = [(c, d) for c, d in zip(counts, shape) if not isinstance(c, int)]
    if not checks:
        return
    b = lw.b
    whole, partial = b.new_label("whole"), b.new_label("partial")
    for k, (c, d) in enumerate(checks):
        last = k == len(checks) - 1
        b("beq" if last else "bne", c, b.li(d, "size"), whole if last else partial,
          comment="every index of the tile in range: no fill" if last else "an index out of range: fill")
    if len(checks) > 1:
        b.label(partial)
    fill()
    b.label(whole)


def lower_store(lw: Lowering, op) -> None:
    acc = NdAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    addr = stored_value_addr(lw, op)
    mask_addr = lw.buffer(op.mask).offset if acc.general_mask else None
    _transfer(lw, acc, op.value.type.shape, addr, esize, False, mask_addr, bands=op.row_bands or 1)
