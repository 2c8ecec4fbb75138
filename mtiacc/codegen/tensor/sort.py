"""Codegen for ``tt.sort`` (``tl.sort``, ``tl.topk``), ``tt.gather`` and ``tt.histogram``.

Sort: the source is copied into the result buffer (a scratch buffer for a top-k) and Triton's bitonic
network (specified in :mod:`mtiacc.ir.permute_ops`) runs in place on the flat block; every stage's
directions only depend on bits below the last dimension, so the rows of a 2-D block are sorted
by the same passes as one long row.  One compare-and-swap pass at distance ``d`` splits the block
into runs of one direction (``2**s`` elements, asc and desc alternating, or the whole block), each run
into ``run / 2d`` pair blocks ``[lo: d elements][hi: d elements]``.  Vectors (e``SEW``, LMUL 8) run over
whichever is longer: the ``d`` pairs of a block (unit stride) or the blocks (stride ``2d`` elements),
so even ``d = 1`` uses long vectors.  Per lane, with ``A`` the lo element and ``B`` the hi one::

    ascending:  lo = B if A > B else A;   hi = B if B > A else A
    descending: lo = A if A > B else B;   hi = A if B > A else B

(comparisons with NaN are false, as in Triton's ``where``).  A top-k's halving rounds take
``vfmax``/``vmax`` (``min`` when ascending) of the pairs ``(p, p + k)`` into the other scratch buffer.

Gather takes the index modulo the source dimension (so any index stays inside the block): with 32-bit
indices a vector loop ending in an indexed load (``vluxei32``), else a scalar loop moving element
bits.  Histogram is a scalar loop.
"""
from __future__ import annotations

from typing import Callable, List, Sequence

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, Mem, VMem, VReg
from mtiacc.codegen.vector.nest import masked_element, nest
from mtiacc.codegen.tensor.axes import source_addr, split_axis
from mtiacc.codegen.vector.vloop import elem_bytes, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir.permute_ops import GatherOp, HistogramOp, SortOp
from mtiacc.ir.types import FloatType

LMUL = 8


SORT_OPS = (SortOp, GatherOp, HistogramOp)


def handles(op) -> bool:
    return isinstance(op, SORT_OPS)


def lower(lw: Lowering, op) -> None:
    if isinstance(op, SortOp):
        lower_sort(lw, op)
    elif isinstance(op, GatherOp):
        lower_gather(lw, op)
    else:
        lower_histogram(lw, op)


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _loops(b: MBuilder, counts: Sequence[int], ptrs: List[VReg], steps: Sequence[Sequence[int]],
           body: Callable[[List[VReg]], None]) -> None:
    """``nest`` without the levels that run once."""
    keep = [i for i, c in enumerate(counts) if c != 1]
    nest(b, [counts[i] for i in keep], ptrs, [[s[i] for i in keep] for s in steps], body)


def _copy(b: MBuilder, dst: int, src: int, nbytes: int) -> None:
    """Copy ``nbytes`` of local memory (e8 chunks)."""
    p, q, n = b.li(src, "src"), b.li(dst, "dst"), b.li(nbytes, "n")
    top, vl = b.new_label("copy"), b.x("vl")
    b.label(top)
    b("vsetvli", vl, n, "e8, m8, ta, ma")
    b("vle8.v", "v8", VMem(p))
    b("vse8.v", "v8", VMem(q))
    b("add", p, p, vl)
    b("add", q, q, vl)
    b("sub", n, n, vl)
    b("bnez", n, top)


class _Vec:
    """Vector-loop parameters for ``count`` pair blocks ``[lo: length elements][hi: length elements]``
    (``2 * length`` elements apart): the vector runs over the longer of the ``length`` pairs of a block
    (unit stride) or the blocks (stride ``2 * length`` elements, in ``stride``).  Setting up emits the
    vl and stride registers."""

    def __init__(self, lw: Lowering, elem, count: int, length: int):
        b: MBuilder = lw.b
        self.b, self.length = b, length
        self.sew, self.esize = sew_of(elem), elem_bytes(elem)
        self.contiguous = length >= count
        self.lanes = length if self.contiguous else count
        self.iters = count if self.contiguous else length
        self.vl = min(self.lanes, lw.target.vlen_bits * LMUL // self.sew)
        self.chunks = self.lanes // self.vl
        self.vl_reg = b.li(self.vl, "vl")
        self.stride = None if self.contiguous else b.li(2 * length * self.esize, "stride")

    def steps(self, group: int) -> List[int]:
        """Per-iteration and per-chunk byte steps for a pointer whose groups are ``group`` elements apart."""
        if self.contiguous:
            return [group * self.esize, self.vl * self.esize]
        return [self.esize, self.vl * group * self.esize]

    def load_pair(self, ptr: VReg) -> VReg:
        """v8 = the lo elements of the pairs at ``ptr``, v16 = the hi ones; returns the hi pointer."""
        b = self.b
        hi = _hi_ptr(b, ptr, self.length * self.esize)
        b("vsetvli", "zero", self.vl_reg, f"e{self.sew}, m{LMUL}, ta, ma")
        _vload(b, self.sew, "v8", ptr, self.stride)
        _vload(b, self.sew, "v16", hi, self.stride)
        return hi


def _vload(b, sew, vreg, ptr, stride):
    if stride is None:
        b(f"vle{sew}.v", vreg, VMem(ptr))
    else:
        b(f"vlse{sew}.v", vreg, VMem(ptr), stride)


def _vstore(b, sew, vreg, ptr, stride):
    if stride is None:
        b(f"vse{sew}.v", vreg, VMem(ptr))
    else:
        b(f"vsse{sew}.v", vreg, VMem(ptr), stride)


def _less(elem) -> str:
    if isinstance(elem, FloatType):
        return "vmflt.vv"
    return "vmslt.vv" if elem.signed else "vmsltu.vv"


def _maxmin(elem, take_max: bool) -> str:
    if isinstance(elem, FloatType):
        return "vfmax.vv" if take_max else "vfmin.vv"
    if elem.signed:
        return "vmax.vv" if take_max else "vmin.vv"
    return "vmaxu.vv" if take_max else "vminu.vv"


def _hi_ptr(b: MBuilder, ptr: VReg, offset: int) -> VReg:
    q = b.x("hi")
    if -2048 <= offset < 2048:
        b("addi", q, ptr, offset)
    else:
        b("add", q, ptr, b.li(offset))
    return q


def _cas_pass(lw: Lowering, elem, base: int, length: int, d: int, run: int, desc: bool) -> None:
    """One compare-and-swap pass at distance ``d`` over ``length`` elements at ``base``.  ``run``:
    elements per run of one direction, alternating from ascending (``run == length``: ``desc``)."""
    b: MBuilder = lw.b
    v = _Vec(lw, elem, run // (2 * d), d)
    sew, esize = v.sew, v.esize
    less = _less(elem)
    alternating = run < length

    def one(ptr: VReg, down: bool) -> None:
        hi = v.load_pair(ptr)
        b(less, "v0", "v16", "v8")  # A > B
        b("vmerge.vvm", "v24", *(("v16", "v8") if down else ("v8", "v16")), "v0")
        _vstore(b, sew, "v24", ptr, v.stride)
        b(less, "v0", "v8", "v16")  # B > A
        b("vmerge.vvm", "v24", *(("v16", "v8") if down else ("v8", "v16")), "v0")
        _vstore(b, sew, "v24", hi, v.stride)

    def body(cur: List[VReg]) -> None:
        if alternating:
            one_run = cur[0]
            second = _hi_ptr(b, one_run, run * esize)
            _loops(b, [v.iters, v.chunks], [one_run], [v.steps(2 * d)], lambda c: one(c[0], False))
            _loops(b, [v.iters, v.chunks], [second], [v.steps(2 * d)], lambda c: one(c[0], True))
        else:
            _loops(b, [v.iters, v.chunks], [cur[0]], [v.steps(2 * d)], lambda c: one(c[0], desc))

    pairs = length // (2 * run) if alternating else 1
    _loops(b, [pairs], [b.li(base, "run")], [[2 * run * esize]], body)


def _halve(lw: Lowering, elem, src: int, dst: int, length: int, k: int, take_max: bool) -> None:
    """``dst[blk*k + t] = max(src[blk*2k + t], src[blk*2k + k + t])`` (min unless ``take_max``)."""
    b: MBuilder = lw.b
    v = _Vec(lw, elem, length // (2 * k), k)
    d_stride = None if v.contiguous else b.li(k * v.esize, "stride")
    op = _maxmin(elem, take_max)

    def body(cur: List[VReg]) -> None:
        p, q = cur
        v.load_pair(p)
        b(op, "v24", "v8", "v16")
        _vstore(b, v.sew, "v24", q, d_stride)

    _loops(b, [v.iters, v.chunks], [b.li(src, "src"), b.li(dst, "dst")], [v.steps(2 * k), v.steps(k)], body)


def _merge(lw: Lowering, elem, base: int, length: int, stage: int, run: int, desc: bool) -> None:
    for j in reversed(range(stage)):
        _cas_pass(lw, elem, base, length, 1 << j, run, desc)


def lower_sort(lw: Lowering, op: SortOp) -> None:
    elem = op.src.type.element_type
    esize = elem_bytes(op.src.type)
    numel, n, k, desc = op.src.type.numel, op.src.type.shape[-1], op.k, op.descending
    log_n, log_k = _log2(n), _log2(k)
    src = source_addr(lw, op.src)
    res = lw.alloc(op.result).offset
    if k == n:
        _copy(lw.b, res, src, numel * esize)
        for s in range(1, log_n + 1):
            _merge(lw, elem, res, numel, s, (1 << s) if s < log_n else numel, desc)
        return
    work = [lw.lmem.alloc(numel * esize, "top-k scratch", op.loc),
            lw.lmem.alloc(numel // 2 * esize, "top-k scratch", op.loc)]
    cur, length = work[0].offset, numel
    _copy(lw.b, cur, src, numel * esize)
    for s in range(1, log_k + 1):  # k < n: every stage alternates
        _merge(lw, elem, cur, length, s, 1 << s, desc)
    for i in range(log_k + 1, log_n + 1):
        dst = res if i == log_n else (work[1].offset if cur == work[0].offset else work[0].offset)
        _halve(lw, elem, cur, dst, length, k, desc)
        cur, length = dst, length // 2
        _merge(lw, elem, cur, length, log_k, (1 << log_k) if i < log_n else length, desc)
    for w in work:
        lw.lmem.free(w)


# --------------------------------------------------------------------------- scalar loops

_LOAD = {1: "lb", 2: "lh", 4: "lw", 8: "ld"}
_STORE = {1: "sb", 2: "sh", 4: "sw", 8: "sd"}


def _shift_left(b: MBuilder, r: VReg, amount: int) -> None:
    if amount:
        b("slli", r, r, amount)


def lower_gather(lw: Lowering, op: GatherOp) -> None:
    b: MBuilder = lw.b
    a = op.axis
    e, ie = elem_bytes(op.src.type), elem_bytes(op.index.type)
    outer, r_out, inner = split_axis(op.index.type.shape, a)
    _, r_src, _ = split_axis(op.src.type.shape, a)
    src = source_addr(lw, op.src)
    idx = source_addr(lw, op.index)
    out = lw.alloc(op.result).offset
    wrap = b.li(r_src - 1, "wrap")
    if ie == 4:
        return _gather_vector(lw, op, src, idx, out, wrap)

    def body(cur: List[VReg]) -> None:
        ip, op_, sp = cur
        i = b.x("i")
        b(_LOAD[ie], i, Mem(ip, 0))
        b("and", i, i, wrap)
        _shift_left(b, i, _log2(inner * e))
        b("add", i, i, sp)
        x = b.x("x")
        b(_LOAD[e], x, Mem(i, 0))
        b(_STORE[e], x, Mem(op_, 0))

    steps = [[r_out * inner * ie, inner * ie, ie], [r_out * inner * e, inner * e, e], [r_src * inner * e, 0, e]]
    _loops(b, [outer, r_out, inner], [b.li(idx, "idx"), b.li(out, "out"), b.li(src, "src")], steps, body)


def _gather_vector(lw: Lowering, op: GatherOp, src: int, idx: int, out: int, wrap: VReg) -> None:
    """32-bit indices: byte offsets computed in vector registers (e32, v8; the position along the
    contiguous dimension from ``vid`` in v16), then an indexed load ``vluxei32`` into v24.  The vector
    runs along the index's rows when the axis is the last dimension, else along ``inner``."""
    b: MBuilder = lw.b
    sew, e = sew_of(op.src.type), elem_bytes(op.src.type)
    outer, r_out, inner = split_axis(op.index.type.shape, op.axis)
    _, r_src, _ = split_axis(op.src.type.shape, op.axis)
    lmul = min(LMUL, LMUL * sew // 32)  # the e32 offsets take LMUL * 32 / SEW registers
    emul = lmul * 32 // sew
    lanes = r_out if inner == 1 else inner
    vl_n = min(lanes, lw.target.vlen_bits * lmul // sew)
    chunks = lanes // vl_n
    vl = b.li(vl_n, "vl")

    def body(cur: List[VReg]) -> None:
        ip, q, base = cur
        b("vsetvli", "zero", vl, f"e32, m{emul}, ta, ma")
        b("vle32.v", "v8", VMem(ip))
        b("vand.vx", "v8", "v8", wrap)
        shift = _log2(e) if inner == 1 else _log2(inner * e)
        if shift:
            b("vsll.vi", "v8", "v8", shift)
        if inner > 1:
            b("vid.v", "v16")
            if _log2(e):
                b("vsll.vi", "v16", "v16", _log2(e))
            b("vadd.vv", "v8", "v8", "v16")
        b("vsetvli", "zero", vl, f"e{sew}, m{lmul}, ta, ma")
        b("vluxei32.v", "v24", VMem(base), "v8")
        b(f"vse{sew}.v", "v24", VMem(q))

    if inner == 1:
        counts = [outer, chunks]
        steps = [[r_out * 4, vl_n * 4], [r_out * e, vl_n * e], [r_src * e, 0]]
    else:
        counts = [outer, r_out, chunks]
        steps = [[r_out * inner * 4, inner * 4, vl_n * 4], [r_out * inner * e, inner * e, vl_n * e],
                 [r_src * inner * e, 0, vl_n * e]]
    _loops(b, counts, [b.li(idx, "idx"), b.li(out, "out"), b.li(src, "src")], steps, body)


def lower_histogram(lw: Lowering, op: HistogramOp) -> None:
    b: MBuilder = lw.b
    nb, n = op.num_bins, op.src.type.numel
    src = source_addr(lw, op.src)
    mask = source_addr(lw, op.mask) if op.mask is not None else None
    res = lw.alloc(op.result).offset
    zero = b.li(res, "bins")
    cnt = b.li(nb * 4, "n")
    top, vl = b.new_label("zero"), b.x("vl")
    b.label(top)
    b("vsetvli", vl, cnt, "e8, m8, ta, ma")
    b("vmv.v.i", "v8", 0)
    b("vse8.v", "v8", VMem(zero))
    b("add", zero, zero, vl)
    b("sub", cnt, cnt, vl)
    b("bnez", cnt, top)
    bins, limit = b.li(res, "bins"), b.li(nb, "nbins")

    def body(cur: List[VReg]) -> None:
        with masked_element(b, cur[1] if mask is not None else None, "skip") as skip:
            x = b.x("x")
            b("lw", x, Mem(cur[0], 0))
            b("bgeu", x, limit, skip)  # negative values are huge unsigned
            b("slli", x, x, 2)
            b("add", x, x, bins)
            c = b.x("c")
            b("lw", c, Mem(x, 0))
            b("addi", c, c, 1)
            b("sw", c, Mem(x, 0))

    ptrs = [b.li(src, "src")] + ([b.li(mask, "mask")] if mask is not None else [])
    steps = [[4]] + ([[1]] if mask is not None else [])
    _loops(b, [n], ptrs, steps, body)


__all__ = ["handles", "lower", "CompileError"]
