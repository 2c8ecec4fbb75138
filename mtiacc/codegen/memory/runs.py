"""Loads and stores whose 1-D index is split with ``//`` and ``%`` (``split_index.py``): one DMA per run.

With ``x = xs + i`` and ``G`` the gcd of the index terms' periods, the block falls into runs that end
at the multiples of ``G`` (the first run is ``G - xs % G`` long, the last one is cut by the prefix
mask), and inside a run the index moves by a constant slope.  A loop over the runs, computed at run
time, computes each run's first index with shifts and masks (``divu``/``remu`` for divisors that are
not powers of two) and moves the run:

* slope 1: one DMA of the run (``x0 + 128*x1``: rows of 64 at stride 128);
* slope 0: one element, spread over the run in local memory afterwards (``x1``: a per-row scalar);
  a store writes the run's last element (the last writer wins, as for any repeated address);
* any other slope: element by element within the run.

A load first tries the *window*: when the run loop finds two or more runs whose indices all fall
in a window of at most the block's size (a bias ``x % 64``, per-row scalars ``x // 64``), the
window moves with one DMA into scratch local memory and each run is copied (slope 1) or broadcast
(slope 0) from it with strided vector loads.  Prefix masks (``xindex < xnumel``) cut the runs;
masked-off elements of a load take ``other``.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

from mtiacc.ir.analysis.affine import pointer_affine, prefix_count
from mtiacc.ir.analysis.affine_nd import pointer_nd
from mtiacc.codegen.memory.dma import affine_scalar, clamp, element_address
from mtiacc.codegen.machine.mir import MBuilder, VMem, VReg
from mtiacc.ir.analysis.split_index import Cond, MaskForm, Split, mask_form, single_axis, split_pointer
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir.analysis import axis_info
from mtiacc.ir import ops as O

class SplitAccess:
    """A load or store of a single-axis block (``split_index.single_axis``) whose pointer has split
    structure, with a mask ``mask_form`` understands, that the affine paths would move element by
    element: split indices, constant strides other than 1, (YBLOCK, 1) tiles."""

    def __init__(self, op):
        self.pointer = None
        self.mask: Optional[MaskForm] = None
        ptr = op.ptr
        if not ptr.type.is_block() or not single_axis(ptr.type.shape) or ptr.type.numel < 2:
            return
        mask = MaskForm() if op.mask is None else mask_form(op.mask)
        if mask is None or not _beats_affine_paths(op, mask):
            return
        p = split_pointer(ptr)
        if p is None:
            return
        self.pointer = (p[0], p[1].normalized())
        self.mask = mask

    @property
    def ok(self) -> bool:
        return self.pointer is not None


def _beats_affine_paths(op, mask: MaskForm) -> bool:
    """False where memory.py or ndblocks.py already move the block in one transfer per row."""
    ptr = op.ptr
    shape = ptr.type.shape
    if len(shape) == 1:
        aff = pointer_affine(ptr)
        if aff is None or aff[1].stride != 1:
            return True
        # contiguous: memory.py's one transfer, unless the mask is one it takes element by element
        return op.mask is not None and prefix_count(op.mask) is None and not axis_info.is_uniform(op.mask)
    nd = pointer_nd(ptr)
    if nd is None:
        return True
    axis = max(range(len(shape)), key=lambda d: shape[d])
    return axis != len(shape) - 1 or nd[1].strides[axis].as_const() not in (1, None)


def handles(op) -> bool:
    return SplitAccess(op).ok


def needs_buffers(op):
    return [op.value] if isinstance(op, O.StoreOp) else []


# --------------------------------------------------------------------------- the run loop

class _Consts:
    """Registers for constants, made before a loop so the loop body does not rebuild them."""

    def __init__(self, b: MBuilder):
        self.b = b
        self.regs: Dict[int, VReg] = {}

    def make(self, *ks: int) -> None:
        for k in ks:
            if k not in self.regs:
                self.regs[k] = self.b.li(k)

    def __call__(self, k: int) -> VReg:
        return self.regs[k]  # made by make() before any branch or loop


def _is_pow2(k: int) -> bool:
    return k > 0 and k & (k - 1) == 0


def _mod(b: MBuilder, k: _Consts, x: VReg, m: int) -> VReg:
    r = b.x()
    if _is_pow2(m) and m - 1 < 2048:
        b("andi", r, x, m - 1)
    else:
        b("remu", r, x, k(m))
    return r


def _div(b: MBuilder, k: _Consts, x: VReg, d: int) -> VReg:
    if d == 1:
        return x
    r = b.x()
    if _is_pow2(d):
        b("srli", r, x, d.bit_length() - 1)
    else:
        b("divu", r, x, k(d))
    return r


def prepare_consts(b: MBuilder, sp: Split, *extra: int) -> _Consts:
    k = _Consts(b)
    for t in sp.terms:
        k.make(t.div, t.mod or 1, abs(t.coef))
    if sp.period is not None:
        k.make(sp.period)
    k.make(sp.slope, *extra)
    return k


def run_index(b: MBuilder, k: _Consts, sp: Split, x: VReg) -> VReg:
    """``sum(coef * ((x // div) % mod))`` for the run starting at ``x``."""
    acc: Optional[VReg] = None
    for t in sp.terms:
        v = _div(b, k, x, t.div)
        if t.mod is not None:
            v = _mod(b, k, v, t.mod)
        c = abs(t.coef)
        if c != 1:
            s = b.x()
            if _is_pow2(c):
                b("slli", s, v, c.bit_length() - 1)
            else:
                b("mul", s, v, k(c))
            v = s
        s = b.x()
        if acc is None:
            if t.coef > 0:
                acc = v
                continue
            b("neg", s, v)
        else:
            b("add" if t.coef > 0 else "sub", s, acc, v)
        acc = s
    return acc if acc is not None else b.li(0)


def runs(b: MBuilder, sp: Split, k: _Consts, xs: VReg, cnt: VReg,
         body: Callable[[Optional[VReg], VReg, VReg], None], with_index: bool = True) -> None:
    """A loop over the runs of elements ``[0, cnt)``: ``body(index, pos, length)`` per run, where
    ``index`` is the run's first index (None unless ``with_index``) and ``pos`` its block position."""
    g = sp.period
    pos, x = b.li(0, "pos"), b.x("x")
    b("mv", x, xs)
    top, done = b.new_label("run"), b.new_label("runsdone")
    b("bge", pos, cnt, done)
    b.label(top)
    ln = b.x("len")
    b("sub", ln, cnt, pos)
    if g is not None:
        run, keep = b.x("runlen"), b.new_label("cut")
        b("sub", run, k(g), _mod(b, k, x, g))
        b("bge", run, ln, keep)
        b("mv", ln, run)
        b.label(keep)
    body(run_index(b, k, sp, x) if with_index else None, pos, ln)
    b("add", pos, pos, ln)
    b("add", x, x, ln)
    b("blt", pos, cnt, top)
    b.label(done)


def _times(b: MBuilder, r: VReg, esize: int) -> VReg:
    if esize == 1:
        return r
    s = b.x()
    b("slli", s, r, esize.bit_length() - 1)
    return s


def _plus(b: MBuilder, base: VReg, off: VReg) -> VReg:
    s = b.x()
    b("add", s, base, off)
    return s


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
    b("add", d, d, _times(b, vl, sew // 8))
    b("bnez", count, top)
    b.label(done)


# --------------------------------------------------------------------------- transfers

def cond_flag(lw, c: Cond) -> VReg:
    """1 when the condition holds, else 0."""
    b = lw.b
    if c.flag is not None:
        r = b.x("flag")
        b("snez", r, lw.get(c.flag))
        return r
    lhs, rhs = affine_scalar(lw, c.lhs), affine_scalar(lw, c.rhs)
    r = b.x("flag")
    if c.pred in ("slt", "sge"):
        b("slt", r, lhs, rhs)
    else:
        b("slt", r, rhs, lhs)
    if c.pred in ("sge", "sle"):
        b("xori", r, r, 1)
    return r


def _start(lw, acc: SplitAccess, n: int, esize: int):
    b = lw.b
    base, sp = acc.pointer
    dram0 = element_address(lw, lw.get(base), affine_scalar(lw, sp.base), esize)
    xs = affine_scalar(lw, sp.xs) if sp.xs is not None else b.li(0)
    count = acc.mask.count
    cnt = b.li(n, "count") if count is None else clamp(lw, affine_scalar(lw, count), n)
    for c in acc.mask.conds:  # all or nothing
        b("mul", cnt, cnt, cond_flag(lw, c))
    return sp, dram0, xs, cnt


def per_run(lw, sp: Split, k: _Consts, dram0: VReg, xs: VReg, cnt: VReg, lmem: VReg, esize: int,
             inbound: bool) -> bool:
    """One DMA per run (slope 1), one element per run (slope 0), else element by element.
    Returns whether a load's runs still need spreading (slope 0)."""
    b = lw.b
    slope = sp.slope
    mnemonic = "mtia.dma.in" if inbound else "mtia.dma.out"

    def dma(dram: VReg, local: VReg, nbytes: VReg) -> None:
        b(mnemonic, *((local, dram) if inbound else (dram, local)), nbytes)

    size = k(esize)
    step = k(slope * esize)

    def body(g: VReg, pos: VReg, ln: VReg) -> None:
        dram = _plus(b, dram0, _times(b, g, esize))
        local = _plus(b, lmem, _times(b, pos, esize))
        if slope == 1:
            dma(dram, local, _times(b, ln, esize))
        elif slope == 0 and inbound:
            dma(dram, local, size)
        elif slope == 0:  # the run's last element
            last = b.x()
            b("addi", last, ln, -1)
            dma(dram, _plus(b, local, _times(b, last, esize)), size)
        else:
            j, top = b.li(0, "j"), b.new_label("elem")
            b.label(top)
            dma(dram, local, size)
            b("add", dram, dram, step)
            b("addi", local, local, esize)
            b("addi", j, j, 1)
            b("blt", j, ln, top)
    runs(b, sp, k, xs, cnt, body)
    return inbound and slope == 0


def _window(lw, sp: Split, k: _Consts, dram0: VReg, xs: VReg, cnt: VReg, lmem: VReg, esize: int,
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
            last = _plus(b, g, t)
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
    runs(b, sp, k, xs, cnt, bounds)
    # one run of slope 0 or 1 moves directly (a strided one is what the window is for); no run: nothing
    b("blt", nruns, k(2) if slope <= 1 else k(1), general)
    width = b.x("width")
    b("sub", width, hi, lo)
    b("addi", width, width, 1)
    b("bgt", width, k(cap), general)
    src0 = _plus(b, dram0, _times(b, lo, esize))
    sbase = b.li(scratch, "window")
    b("mtia.dma.in", sbase, src0, _times(b, width, esize))
    b("mtia.dma.wait")
    stride = k(slope * esize)

    def copy(g: VReg, pos: VReg, ln: VReg) -> None:
        off = b.x()
        b("sub", off, g, lo)
        spread(b, _plus(b, sbase, _times(b, off, esize)), _plus(b, lmem, _times(b, pos, esize)), ln,
               stride, elem)
    runs(b, sp, k, xs, cnt, copy)


WINDOW_BYTES = 64 * 1024


def _scratch(lw, nbytes: int, op):
    """Scratch local memory for a window, or None when it does not fit next to the live blocks."""
    try:
        return lw.lmem.alloc(nbytes, "split-index window", op.loc)
    except CompileError:
        return None


def lower_load(lw, op) -> None:
    from mtiacc.codegen.vector.blocks import lower_fill
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
    if sp.slope >= 0 and (sp.period is not None or sp.slope > 1):
        # up to 16 times the block for a stride: reading 16 elements per element used is cheaper
        # than a transfer per element
        cap = max(n, min(n * min(sp.slope, 16), WINDOW_BYTES // esize))
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
            at = _plus(b, lmem, _times(b, pos, esize))
            spread(b, at, at, ln, zero, elem)
        runs(b, sp, k, xs, cnt, fill, with_index=False)
    b.label(done)
    if window is not None:
        lw.lmem.free(window)
    if op.other is None:
        lw.pending_dma_in = True
        return
    b("mtia.dma.wait")
    if acc.mask.count is not None or acc.mask.conds:  # elements [cnt, n) take `other`
        rest = b.x("rest")
        b("sub", rest, b.li(n), cnt)
        tail = element_address(lw, b.li(dst.offset), cnt, esize)
        lower_fill(b, rest, lw.src(op.other), Src(elem, addr=tail))


def lower_store(lw, op) -> None:
    from mtiacc.codegen.vector.blocks import stored_value_addr
    b = lw.b
    acc = SplitAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    n = op.value.type.numel
    addr = stored_value_addr(lw, op)
    sp, dram0, xs, cnt = _start(lw, acc, n, esize)
    k = prepare_consts(b, sp, esize, sp.slope * esize)
    per_run(lw, sp, k, dram0, xs, cnt, b.li(addr, "lmem"), esize, False)
