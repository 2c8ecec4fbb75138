"""The ``split-tiles`` plan: 2-D tiles whose index is a sum of split forms, one per axis (Inductor's y/x kernels).

Inductor's tiled pointwise kernels index ``(YBLOCK, XBLOCK)`` tiles with ``x2 + 49*y3`` and store
them transposed, ``y0 + 3*x2 + 147*y1`` with ``y0 = yindex % 3``, ``y1 = yindex // 3``: the index is
``S0(y) + S1(x)``, each ``S`` a split form (``split_index.Split``, per axis: ``split_axes.py``).  One
axis moves by runs of slope 1 (``common.per_run``):

* along the last axis (x): per active row y, the x runs, from ``S0(y)`` on (rows of the tile are
  contiguous in local memory);
* along the first axis (y): per active column x, the y runs, through a transposed scratch copy of the
  tile (``vector/nest.strided_copy``) since a column is not contiguous in local memory.

The axis with fewer expected transfers wins; an axis with a slope other than 1 moves element by
element inside its runs.  When every row is one run (no period on the run axis) and the other axis
moves the rows by a constant stride (no period either), the tile is one 2-D DMA (``mtia.dma.in2d`` /
``out2d``) instead of a transfer per row.  Masks: a prefix per axis (``ymask & xmask``), all-true ones, scalar
conditions.
"""
from __future__ import annotations

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import VReg
from mtiacc.codegen.memory.common import (AccessPlanError, affine_scalar, byte_offset, clamp, cond_flag, dma2d,
                                          dma2d_config, element_address, per_run, prepare_consts, run_index,
                                          stored_value_addr)
from mtiacc.codegen.vector.nest import strided_copy
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import Affine
from mtiacc.ir.analysis.split_axes import by_columns, mask_box, pointer_axes
from mtiacc.ir.analysis.split_index import Split


# --------------------------------------------------------------------------- the access

class TileAccess:
    """The parameters of a ``split-tiles`` access: the base pointer, the split form of each axis
    (normalized), the mask's prefix count per axis and its conditions, and which axis moves by runs."""

    def __init__(self, op):
        ptr = op.ptr
        box = ([None, None], ()) if op.mask is None else mask_box(op.mask)
        p = pointer_axes(ptr)
        if box is None or p is None:
            raise AccessPlanError(op, "its pointer or mask has no split form per axis")
        axes = [s.normalized() for s in p[1]]
        self.pointer = (p[0], axes)
        self.counts, self.conds = box
        y, x = ptr.type.shape
        # the run axis moves by runs of slope 1; the other one is looped over
        self.by_columns = by_columns(axes, (y, x))


def needs_buffers(op):
    return [op.value] if isinstance(op, O.StoreOp) else []


def _axis_offset(lw: Lowering, k, s: Split, xs: VReg, pos: VReg) -> VReg:
    """``S(pos) - S.base`` in a register (the base is added once, into the start address)."""
    b = lw.b
    acc = b.li(0) if not s.terms else None
    if s.terms:
        x = b.x()
        b("add", x, xs, pos)
        acc = run_index(b, k, s, x)
    if s.lin:
        t = b.x()
        b("mul", t, pos, k(s.lin))
        r = b.x()
        b("add", r, acc, t)
        acc = r
    return acc


def _move(lw: Lowering, op, acc: TileAccess, lmem: int, esize: int, inbound: bool) -> None:
    """Per position of the outer axis, the runs of the run axis (local rows ``shape[run]`` apart)."""
    b = lw.b
    base, axes = acc.pointer
    shape = op.ptr.type.shape
    total = Affine()
    for s in axes:
        total = total + s.base
    dram0 = element_address(lw, lw.get(base), affine_scalar(lw, total), esize)
    cnts = [clamp(lw, affine_scalar(lw, c), d) if c is not None else b.li(d) for c, d in zip(acc.counts, shape)]
    for c in acc.conds:
        b("mul", cnts[0], cnts[0], cond_flag(lw, c))
    run_axis = 0 if acc.by_columns else 1
    outer_axis = 1 - run_axis
    run, outer = axes[run_axis], axes[outer_axis]
    k = prepare_consts(b, run, esize, run.slope * esize)
    ko = prepare_consts(b, outer, esize)
    if outer.lin:
        ko.make(outer.lin)
    xs_run, xs_outer = [affine_scalar(lw, s.xs) if s.xs is not None else b.li(0) for s in (run, outer)]
    # local layout: rows of the run axis, `shape[run_axis]` elements apart
    row_bytes = shape[run_axis] * esize
    if run.period is None and run.slope == 1 and outer.period is None:
        # one run per row (contiguous in DRAM), rows at a uniform DRAM stride: one 2-D transfer
        dram = element_address(lw, dram0, _axis_offset(lw, ko, outer, xs_outer, b.li(0)), esize)
        dram = element_address(lw, dram, run_index(b, k, run, xs_run), esize)
        dma2d_config(b, cnts[outer_axis], outer.slope * esize, row_bytes)
        dma2d(b, inbound, dram, b.li(lmem, "row"), byte_offset(b, cnts[run_axis], esize))
        return
    i, top, done = b.li(0, "o"), b.new_label("tile"), b.new_label("tiledone")
    local, step = b.x("row"), b.li(row_bytes)
    b("li", local, lmem)
    b("bge", i, cnts[outer_axis], done)
    b.label(top)
    off = _axis_offset(lw, ko, outer, xs_outer, i)
    dram = element_address(lw, dram0, off, esize)
    per_run(lw, run, k, dram, xs_run, cnts[run_axis], local, esize, inbound)
    b("add", local, local, step)
    b("addi", i, i, 1)
    b("blt", i, cnts[outer_axis], top)
    b.label(done)


def lower_load(lw: Lowering, op) -> None:
    acc = TileAccess(op)
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    y, x = op.result.type.shape
    dst = lw.alloc(op.result)
    target = dst
    if acc.by_columns:
        target = lw.lmem.alloc(y * x * esize, "transposed tile", op.loc)
    if op.other is not None:
        lower_fill(lw.b, y * x, lw.src(op.other), Src(elem, addr=target.offset))
    _move(lw, op, acc, target.offset, esize, True)
    lw.b("mtia.dma.wait")
    if acc.by_columns:  # tile[y, x] = scratch[x * Y + y]
        strided_copy(lw.b, dst.offset, (y, x), target.offset, (1, y), elem)
        lw.lmem.free(target)


def lower_store(lw: Lowering, op) -> None:
    acc = TileAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    y, x = op.value.type.shape
    addr = stored_value_addr(lw, op)
    if not acc.by_columns:
        _move(lw, op, acc, addr, esize, False)
        return
    scratch = lw.lmem.alloc(y * x * esize, "transposed tile", op.loc)
    strided_copy(lw.b, scratch.offset, (x, y), addr, (1, x), elem)  # scratch[x, y] = tile[y, x]
    _move(lw, op, acc, scratch.offset, esize, False)
    lw.b("mtia.dma.wait")  # the transfers read the scratch copy
    lw.lmem.free(scratch)
