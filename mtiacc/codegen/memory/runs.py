"""The ``runs`` plan: loads and stores whose index is split with ``//`` and ``%`` (``split_index.py``).

With ``x = xs + i`` and ``G`` the gcd of the index terms' periods, the block falls into runs that end
at the multiples of ``G`` (the first run is ``G - xs % G`` long, the last one is cut by the prefix
mask), and inside a run the index moves by a constant slope.  A loop over the runs, computed at run
time (``common.for_each_run``), computes each run's first index and moves the run:

* slope 1: one DMA of the run (``x0 + 128*x1``: rows of 64 at stride 128);
* slope 0: one element, spread over the run in local memory afterwards (``x1``: a per-row scalar);
  a store writes the run's last element (the last writer wins, as for any repeated address);
* any other slope: element by element within the run.

A load first tries the *window*: when the run loop finds two or more runs whose indices all fall
in a window of at most the block's size (a bias ``x % 64``, per-row scalars ``x // 64``), the
window moves with one DMA into scratch local memory and each run is copied (slope 1) or broadcast
(slope 0) from it with strided vector loads.  Prefix masks (``xindex < xnumel``) cut the runs;
masked-off elements of a load take ``other``.  Blocks of one axis only (a (YBLOCK, 1) tile is one).
"""
from __future__ import annotations

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, VMem, VReg
from mtiacc.codegen.memory.common import (AccessPlanError, Consts, add, affine_scalar, byte_offset, clamp,
                                          cond_flag, element_address, for_each_run, per_run, prepare_consts,
                                          stored_value_addr)
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.split_index import MaskForm, Split, mask_form, split_pointer, window_elements


class SplitAccess:
    """The parameters of a ``runs`` access: the base pointer, the split offset (normalized) and the
    mask's form."""

    def __init__(self, op):
        p = split_pointer(op.ptr)
        self.mask = MaskForm() if op.mask is None else mask_form(op.mask)
        if p is None or self.mask is None:
            raise AccessPlanError(op, "its pointer or mask has no split form")
        self.pointer = (p[0], p[1].normalized())


def needs_buffers(op):
    return [op.value] if isinstance(op, O.StoreOp) else []


def spread(b: MBuilder, src: VReg, dst: VReg, n: VReg, stride: VReg, elem) -> None:
    """``dst[j] = src[j * stride bytes]`` for ``j < n`` (stride 0: one element repeated)."""
    sew = sew_of(elem)
    s, d, count = b.x("s"), b.x("d"), b.x("n")
    b("mv", s, src)
    b("mv", d, dst)
    b("mv", count, n)
    top, done = b.new_label("spread"), b.new_label("spreaddone")
    b("beqz", count, done)
    b.label(top)
    vl = b.x("vl")
    b("vsetvli", vl, count, f"e{sew}, m8, ta, ma")
    b(f"vlse{sew}.v", "v8", VMem(s), stride)
    b(f"vse{sew}.v", "v8", VMem(d))
    b("sub", count, count, vl)
    t = b.x()
    b("mul", t, vl, stride)
    b("add", s, s, t)
    b("add", d, d, byte_offset(b, vl, sew // 8))
    b("bnez", count, top)
    b.label(done)


# --------------------------------------------------------------------------- transfers

def _start(lw: Lowering, acc: SplitAccess, n: int, esize: int):
    b = lw.b
    base, sp = acc.pointer
    dram0 = element_address(lw, lw.get(base), affine_scalar(lw, sp.base), esize)
    xs = affine_scalar(lw, sp.xs) if sp.xs is not None else b.li(0)
    count = acc.mask.count
    cnt = b.li(n, "count") if count is None else clamp(lw, affine_scalar(lw, count), n)
    for c in acc.mask.conds:  # all or nothing
        b("mul", cnt, cnt, cond_flag(lw, c))
    return sp, dram0, xs, cnt


def _window(lw: Lowering, sp: Split, k: Consts, dram0: VReg, xs: VReg, cnt: VReg, lmem: VReg, esize: int,
            elem, scratch: int, cap: int, general) -> None:
    """Load the window of indices the runs touch with one DMA, then spread it; branches to
    ``general`` when the window is wider than the scratch buffer, or when there is one run of
    slope 0 or 1."""
    b = lw.b
    slope = sp.slope
    lo, hi, nruns = b.li((1 << 62), "lo"), b.li(-(1 << 62), "hi"), b.li(0, "runs")

    def bounds(g: VReg, pos: VReg, ln: VReg) -> None:
        first, last = g, g
        if slope:
            t = b.x()
            b("addi", t, ln, -1)
            if slope != 1:
                b("mul", t, t, k(slope))
            last = add(b, g, t)
            if slope < 0:
                first, last = last, first
        keep_lo, keep_hi = b.new_label("lo"), b.new_label("hi")
        b("bge", first, lo, keep_lo)
        b("mv", lo, first)
        b.label(keep_lo)
        b("ble", last, hi, keep_hi)
        b("mv", hi, last)
        b.label(keep_hi)
        b("addi", nruns, nruns, 1)
    for_each_run(b, sp, k, xs, cnt, bounds)
    # one run of slope 0 or 1 moves directly (a strided one is what the window is for); no run: nothing
    b("blt", nruns, k(2) if slope <= 1 else k(1), general)
    width = b.x("width")
    b("sub", width, hi, lo)
    b("addi", width, width, 1)
    b("bgt", width, k(cap), general)
    src0 = add(b, dram0, byte_offset(b, lo, esize))
    sbase = b.li(scratch, "window")
    b("mtia.dma.in", sbase, src0, byte_offset(b, width, esize))
    b("mtia.dma.wait")
    stride = k(slope * esize)

    def copy(g: VReg, pos: VReg, ln: VReg) -> None:
        off = b.x()
        b("sub", off, g, lo)
        spread(b, add(b, sbase, byte_offset(b, off, esize)), add(b, lmem, byte_offset(b, pos, esize)), ln,
               stride, elem)
    for_each_run(b, sp, k, xs, cnt, copy)


def _scratch(lw: Lowering, nbytes: int, op):
    """Scratch local memory for a window, or None when it does not fit next to the live blocks."""
    try:
        return lw.lmem.alloc(nbytes, "split-index window", op.loc)
    except CompileError:
        return None


def lower_load(lw: Lowering, op) -> None:
    b = lw.b
    acc = SplitAccess(op)
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    n = op.result.type.numel
    dst = lw.alloc(op.result)
    sp, dram0, xs, cnt = _start(lw, acc, n, esize)
    k = prepare_consts(b, sp, 0, 1, 2, esize, sp.slope * esize)
    lmem = b.li(dst.offset, "lmem")
    done = b.new_label("splitdone")
    window, cap = None, n
    wide = window_elements(sp, n, esize)
    if wide is not None:
        cap = wide
        window = _scratch(lw, cap * esize, op)
        if window is None and cap > n:
            cap = n
            window = _scratch(lw, cap * esize, op)
    if window is not None:
        k.make(cap)
        general = b.new_label("perrun")
        _window(lw, sp, k, dram0, xs, cnt, lmem, esize, elem, window.offset, cap, general)
        b("j", done)
        b.label(general)
    spread_runs = per_run(lw, sp, k, dram0, xs, cnt, lmem, esize, True)
    if spread_runs:  # each run's first element, repeated over the run
        b("mtia.dma.wait")
        zero = k(0)

        def fill(_g, pos: VReg, ln: VReg) -> None:
            at = add(b, lmem, byte_offset(b, pos, esize))
            spread(b, at, at, ln, zero, elem)
        for_each_run(b, sp, k, xs, cnt, fill, with_index=False)
    b.label(done)
    if window is not None:
        lw.lmem.free(window)
    if op.other is None:   # the op after it that touches local memory waits (insert-waits)
        return
    b("mtia.dma.wait")
    if acc.mask.count is not None or acc.mask.conds:  # elements [cnt, n) take `other`
        rest = b.x("rest")
        b("sub", rest, b.li(n), cnt)
        tail = element_address(lw, b.li(dst.offset), cnt, esize)
        lower_fill(b, rest, lw.src(op.other), Src(elem, addr=tail))


def lower_store(lw: Lowering, op) -> None:
    b = lw.b
    acc = SplitAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    n = op.value.type.numel
    addr = stored_value_addr(lw, op)
    sp, dram0, xs, cnt = _start(lw, acc, n, esize)
    k = prepare_consts(b, sp, esize, sp.slope * esize)
    per_run(lw, sp, k, dram0, xs, cnt, b.li(addr, "lmem"), esize, False)
