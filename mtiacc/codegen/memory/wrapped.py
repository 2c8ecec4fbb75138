"""The ``wrapped-tiles`` plan: N-d tiles wrapped along some axes (``wrapped_nd``), one 2-D DMA per run.

Every Triton GEMM loads its operands as ``a_ptr + ((pid_m*BM + arange(BM)) % M)[:, None] * stride_am +
offs_k[None, :] * stride_ak``: along a wrapped axis, block row ``i`` is DRAM row ``(u + i) % R``.  The
rows fall into *runs* of consecutive DRAM rows (usually one: ``BM <= R - u % R``), found at run time
(``_runs``), and each run moves with one ``mtia.dma.in2d`` / ``out2d``:

* the DMA's rows are the second-to-last axis (a run of it when it is wrapped, else its active count),
  with the axis's DRAM stride and the tile's local row stride (``mtia.dma.cfg``);
* a DMA row is the last axis (a run of it when it is wrapped), ``width * esize`` bytes when its DRAM
  stride is one element, else one 2-D DMA per column of one element (a stride known only at run time
  branches between the two);
* outer axes loop index by index (a wrapped one computes ``(u + i) % R`` per index).

``%`` is C's (Triton's ``arith.remsi``: the result has the dividend's sign), computed with ``rem``, so
any sign of ``u`` and ``R`` is exact (``_runs``); a zero ``R`` (undefined in Triton) still terminates.

A clamped axis (loads only: ``where(u + i < R, u + i, c)``, tutorial 09) has two runs at most
(``_clamped_runs``): positions ``[0, n)``, ``n = min(max(R - u, 0), count)`` computed at run time (so
``u >= R`` gives none and a negative ``u`` reads the rows it names), are the DRAM rows ``u ..``; the rest
all read row ``c``, with one 2-D DMA of DRAM row stride 0 when the axis is the DMA's rows, else one 2-D
DMA per column (the last axis) or row ``c`` per index (an outer axis).
Masks are prefix boxes (``(rows < M)[:, None] & (k < K - k0)[None, :]``): each axis moves its active
prefix only.  A load's masked-off elements take ``other``: the tile is filled first, and only when the
box is not full at run time (inside a K loop, only the last iteration fills).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional, Sequence

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import DmaTag, MBuilder, VReg, WaitRequest
from mtiacc.codegen.memory.common import (PREFETCH_WAIT, AccessPlanError, clamp_count, dma2d, dma2d_config,
                                          poly_reg, scaled, stored_value_addr)
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.nest import Step, add_step, dense_strides
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine_nd import Poly, prefix_box
from mtiacc.ir.analysis.wrapped_nd import Wrap, pointer_wrapped
from mtiacc.ir.core import Value


class WrappedAccess:
    """The base pointer, the wrapped offset (as a rank-2 or more form: a 1-D block gets a leading axis of
    one row) and the prefix box of the mask (None per unconstrained axis)."""

    def __init__(self, op, shape: Sequence[int]):
        p = pointer_wrapped(op.ptr)
        if p is None:
            raise AccessPlanError(op, "its pointer block is not wrapped")
        self.base, form = p
        box = prefix_box(op.mask) if op.mask is not None else [None] * len(shape)
        if box is None:
            raise AccessPlanError(op, "its mask is not a prefix box")
        self.start = form.affine.start
        self.shape = list(shape)
        self.strides: List[Poly] = list(form.affine.strides)
        self.wraps: List[Optional[Wrap]] = list(form.wraps)
        self.box: List[Optional[Poly]] = list(box)
        if len(self.shape) == 1:
            self.shape, self.strides = [1] + self.shape, [Poly()] + self.strides
            self.wraps, self.box = [None] + self.wraps, [None] + self.box


def needs_buffers(op) -> List[Value]:
    """A stored value (masks are prefix boxes, never read)."""
    return [op.value] if isinstance(op, O.StoreOp) else []


@dataclasses.dataclass
class _Axis:
    count: Step                   # active positions (the box's count clamped to the axis, or its size)
    step: Step                    # DRAM bytes per index (affine axis) or per wrapped row
    local: int                    # local-memory bytes per index
    u: Optional[VReg] = None      # wrapped: row i is (u + i) % modulus
    modulus: Optional[VReg] = None
    clamp: Optional[VReg] = None  # clamped instead: row i is u + i below modulus, else clamp


# --------------------------------------------------------------------------- scalar helpers

def _times(b: MBuilder, r: VReg, k: Step) -> VReg:
    """A new register holding ``r * k``."""
    out = b.x()
    if isinstance(k, int):
        if k == 0:
            b("mv", out, "zero")
        elif k > 0 and k & (k - 1) == 0:
            b("slli", out, r, k.bit_length() - 1)
        else:
            b("mul", out, r, b.li(k))
    else:
        b("mul", out, r, k)
    return out


def _plus(b: MBuilder, base: VReg, off: VReg) -> VReg:
    out = b.x("p")
    b("add", out, base, off)
    return out


def _loop(b: MBuilder, count: Step, body: Callable[[VReg], None]) -> None:
    """``body(i)`` for ``i`` in ``[0, count)``."""
    if isinstance(count, int) and count <= 0:
        return
    i = b.li(0, "i")
    limit = b.li(count) if isinstance(count, int) else count
    top, done = b.new_label("wloop"), b.new_label("wloopdone")
    if not isinstance(count, int):
        b("bge", i, limit, done)
    b.label(top)
    body(i)
    b("addi", i, i, 1)
    b("blt", i, limit, top)
    b.label(done)


def _abs(b: MBuilder, r: VReg) -> VReg:
    out, ok = b.x("absmod"), b.new_label("abs")
    b("mv", out, r)
    b("bge", out, "zero", ok)
    b("neg", out, out)
    b.label(ok)
    return out


def _runs(b: MBuilder, ax: _Axis, body: Callable[[VReg, VReg, VReg], None]) -> None:
    """A loop over the runs of consecutive DRAM rows of positions ``[0, count)`` of a wrapped axis:
    ``body(row, pos, length)``.  With ``x = u + pos``, ``r = x rem R`` (C's) and ``a = |R|``: a run
    from ``x >= 0`` ends at the next multiple of ``R`` (``a - r`` rows); from ``x < 0`` it ends at the
    next multiple, whose row is 0 (``1 - r`` rows), or runs on to ``a - 1`` when that multiple is 0
    (``x == r``: ``a - r`` rows); at least one row, at most the positions left."""
    if isinstance(ax.count, int) and ax.count <= 0:
        return
    a = _abs(b, ax.modulus)
    limit = b.li(ax.count) if isinstance(ax.count, int) else ax.count
    pos = b.li(0, "pos")
    top, done = b.new_label("wrun"), b.new_label("wrundone")
    if not isinstance(ax.count, int):
        b("bge", pos, limit, done)
    b.label(top)
    x, r, ln, rest = b.x("x"), b.x("row"), b.x("len"), b.x("rest")
    have, positive, fits = b.new_label("wlen"), b.new_label("wpos"), b.new_label("wfits")
    b("add", x, ax.u, pos)
    b("rem", r, x, ax.modulus)
    b("sub", ln, a, r)
    b("bge", x, "zero", have)
    b("beq", x, r, have)
    b("neg", ln, r)
    b("addi", ln, ln, 1)
    b.label(have)
    b("bgtz", ln, positive)
    b("addi", ln, "zero", 1)
    b.label(positive)
    b("sub", rest, limit, pos)
    b("bge", rest, ln, fits)
    b("mv", ln, rest)
    b.label(fits)
    body(r, pos, ln)
    b("add", pos, pos, ln)
    b("blt", pos, limit, top)
    b.label(done)


def _clamped_runs(b: MBuilder, ax: _Axis, body: Callable[[VReg, VReg, VReg, bool], None]) -> None:
    """The two runs of positions ``[0, count)`` of a clamped axis: ``body(u, 0, n, False)`` (rows
    ``u ..``) then ``body(clamp, n, count - n, True)`` (row ``clamp`` repeated), each when not empty, with
    ``n = min(max(modulus - u, 0), count)``."""
    if isinstance(ax.count, int) and ax.count <= 0:
        return
    limit = b.li(ax.count) if isinstance(ax.count, int) else ax.count
    n, rest = b.x("below"), b.x("rest")
    low, high = b.new_label("wclo"), b.new_label("wchi")
    b("sub", n, ax.modulus, ax.u)
    b("bge", n, "zero", low)
    b("mv", n, "zero")
    b.label(low)
    b("bge", limit, n, high)
    b("mv", n, limit)
    b.label(high)
    first, second = b.new_label("wcfirst"), b.new_label("wcrest")
    b("beqz", n, first)
    body(ax.u, b.li(0, "pos"), n, False)
    b.label(first)
    b("sub", rest, limit, n)
    b("beqz", rest, second)
    body(ax.clamp, n, rest, True)
    b.label(second)


def _axis_runs(b: MBuilder, ax: _Axis, body: Callable[[VReg, VReg, VReg, bool], None]) -> None:
    """``body(row, pos, length, repeated)`` per run of a wrapped or clamped axis (``repeated``: every
    position of the run reads DRAM row ``row``)."""
    if ax.clamp is not None:
        _clamped_runs(b, ax, body)
    else:
        _runs(b, ax, lambda r, pos, ln: body(r, pos, ln, False))


# --------------------------------------------------------------------------- the transfer

def _transfer(lw: Lowering, acc: WrappedAccess, axes: List[_Axis], lmem: int, esize: int, inbound: bool,
              owed: Optional[WaitRequest] = None) -> None:
    b: MBuilder = lw.b
    rank = len(axes)
    rows_ax, last_ax = axes[rank - 2], axes[rank - 1]

    def cfg(value: Step, reg: int) -> None:
        b("mtia.dma.cfg", b.li(value) if isinstance(value, int) else value, reg)

    # A prefetch's wait for the tiles in flight (``owed``: :func:`lower_load_waiting`) goes right before each
    # transfer, its addresses computed while those tiles still move; a path issuing none waits at the end
    # (``issued``).  That code is part of the request: insert-waits drops it with the request's wait.
    def part(ins):
        ins.dma = DmaTag(part_of=owed)

    issued = None
    if owed is not None:
        issued = b.li(0, "issued")
        part(b.fn.items[-1])

    def dma(dram: VReg, local: VReg, nbytes: Step) -> None:
        if owed is not None:
            part(b("mtia.dma.wait", comment=PREFETCH_WAIT + ", its addresses computed"))
        dma2d(b, inbound, dram, local, nbytes)
        if owed is not None:
            part(b("li", issued, 1))

    def row(dram: VReg, local: VReg, width: Step, repeated: bool = False) -> None:
        """One DMA of the rows (``width`` elements each) when the last axis is unit-stride, else one per column
        (``repeated``: every column reads the element at ``dram``)."""
        step = 0 if repeated else last_ax.step
        if isinstance(width, int) and width <= 0:
            return

        def whole() -> None:
            if isinstance(width, int):
                dma(dram, local, width * esize)
                return
            empty = b.new_label("wempty")
            b("beqz", width, empty)
            dma(dram, local, _times(b, width, esize))
            b.label(empty)

        def by_column() -> None:
            d, l = b.x("p"), b.x("p")
            b("mv", d, dram)
            b("mv", l, local)

            def column(_i: VReg) -> None:
                dma(d, l, esize)
                if step != 0:
                    add_step(b, d, step)
                b("addi", l, l, esize)
            _loop(b, width, column)
        if isinstance(step, int):
            (whole if step == esize else by_column)()
            return
        strided, done = b.new_label("wcols"), b.new_label("wcolsdone")
        b("bne", step, b.li(esize, "esize"), strided)
        whole()
        b("j", done)
        b.label(strided)
        by_column()
        b.label(done)

    def rows(dram: VReg, local: VReg) -> None:
        """The last two axes from ``dram`` / ``local``."""
        if last_ax.u is None:
            row(dram, local, last_ax.count)
            return

        def last_run(r: VReg, pos: VReg, ln: VReg, repeated: bool) -> None:
            row(_plus(b, dram, _times(b, r, last_ax.step)), _plus(b, local, _times(b, pos, esize)), ln, repeated)
        _axis_runs(b, last_ax, last_run)

    def level(d: int, dram: VReg, local: VReg) -> None:
        if d == rank - 2:
            if rows_ax.u is None:
                rows(dram, local)
                return

            def rows_run(r: VReg, pos: VReg, ln: VReg, repeated: bool) -> None:
                cfg(ln, 0)
                if rows_ax.clamp is not None:  # the DRAM row stride: 0 for the repeated row
                    cfg(0 if repeated else rows_ax.step, 1)
                rows(_plus(b, dram, _times(b, r, rows_ax.step)), _plus(b, local, _times(b, pos, rows_ax.local)))
            _axis_runs(b, rows_ax, rows_run)
            return
        ax = axes[d]
        if ax.u is None:
            cur_d, cur_l = b.x("p"), b.x("p")
            b("mv", cur_d, dram)
            b("mv", cur_l, local)

            def index(_i: VReg) -> None:
                level(d + 1, cur_d, cur_l)
                add_step(b, cur_d, ax.step)
                add_step(b, cur_l, ax.local)
            _loop(b, ax.count, index)
            return

        def wrapped_index(i: VReg) -> None:
            x, r = b.x("x"), b.x("row")
            b("add", x, ax.u, i)
            if ax.clamp is None:
                b("rem", r, x, ax.modulus)
            else:
                below = b.new_label("wcbelow")
                b("mv", r, x)
                b("blt", x, ax.modulus, below)
                b("mv", r, ax.clamp)
                b.label(below)
            level(d + 1, _plus(b, dram, _times(b, r, ax.step)), _plus(b, local, _times(b, i, ax.local)))
        _loop(b, ax.count, wrapped_index)

    base = lw.get(acc.base)
    start = scaled(lw, acc.start, esize)
    dram = b.x("dram")
    if isinstance(start, int) and -2048 <= start < 2048:
        b("addi", dram, base, start)
    elif isinstance(start, int):
        b("add", dram, base, b.li(start))
    else:
        b("add", dram, base, start)
    skip = b.new_label("wnone")
    if not isinstance(rows_ax.count, int):
        b("beqz", rows_ax.count, skip)
    elif rows_ax.count <= 0:
        if owed is not None:
            part(b("mtia.dma.wait", comment=PREFETCH_WAIT + " (no transfer issued)"))
        return
    if rows_ax.u is None:
        dma2d_config(b, rows_ax.count, rows_ax.step, rows_ax.local)
    else:  # the rows: per run (and the DRAM row stride per run when clamped)
        if rows_ax.clamp is None:
            cfg(rows_ax.step, 1)
        cfg(rows_ax.local, 2)
    level(0, dram, b.li(lmem, "lmem"))
    b.label(skip)
    if owed is not None:
        waited = b.new_label("wwaited")
        part(b("bnez", issued, waited))
        part(b("mtia.dma.wait", comment=PREFETCH_WAIT + " (no transfer issued)"))
        b.label(waited)
        part(b.fn.items[-1])


def _axes(lw: Lowering, acc: WrappedAccess, esize: int) -> List[_Axis]:
    out = []
    local = [s * esize for s in dense_strides(acc.shape)]
    for d, dim in enumerate(acc.shape):
        box, w = acc.box[d], acc.wraps[d]
        count = clamp_count(lw, box, dim) if box is not None else dim
        if w is None:
            out.append(_Axis(count, scaled(lw, acc.strides[d], esize), local[d]))
        else:
            out.append(_Axis(count, scaled(lw, w.coef, esize), local[d], poly_reg(lw, w.u), poly_reg(lw, w.modulus),
                             poly_reg(lw, w.clamp) if w.clamp is not None else None))
    return out


def _fill_unless_full(lw: Lowering, axes: List[_Axis], shape: Sequence[int], other, dst: Src, n: int) -> None:
    """Fill the tile with ``other`` unless every axis is active in full (checked at run time)."""
    b = lw.b
    partial = [(ax.count, dim) for ax, dim in zip(axes, shape) if ax.count != dim]
    if not partial:
        return
    if any(isinstance(c, int) for c, _ in partial):  # a constant count below its axis: always partial
        lower_fill(b, n, other, dst)
        return
    fill, full = b.new_label("wfill"), b.new_label("wfull")
    for c, dim in partial:
        b("blt", c, b.li(dim), fill)
    b("j", full)
    b.label(fill)
    lower_fill(b, n, other, dst)
    b.label(full)


def lower_load(lw: Lowering, op, owed: Optional[WaitRequest] = None) -> None:
    t = op.result.type
    acc = WrappedAccess(op, t.shape)
    esize = elem_bytes(t.element_type)
    dst = lw.alloc(op.result)
    axes = _axes(lw, acc, esize)
    if op.mask is not None and op.other is not None:
        _fill_unless_full(lw, axes, acc.shape, lw.src(op.other), Src(t.element_type, addr=dst.offset), t.numel)
    _transfer(lw, acc, axes, dst.offset, esize, True, owed)


def lower_load_waiting(lw: Lowering, op, owed: WaitRequest) -> None:
    """A prefetch that first waits for every transfer in flight: the wait goes right before each transfer."""
    lower_load(lw, op, owed)


def lower_store(lw: Lowering, op) -> None:
    t = op.value.type
    acc = WrappedAccess(op, t.shape)
    if any(w is not None and w.clamp is not None for w in acc.wraps):
        raise AccessPlanError(op, "a clamped store would write a repeated row more than once")
    esize = elem_bytes(t.element_type)
    addr = stored_value_addr(lw, op)
    _transfer(lw, acc, _axes(lw, acc, esize), addr, esize, False)
