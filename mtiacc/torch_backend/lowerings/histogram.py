"""``histc``, ``histogram``, ``histogramdd`` and ``bincount`` on the chip, which Inductor leaves to aten: each
bin's count a reduction over the input (``bincount``: atomic adds, its length read back from the chip).

``histogram`` (an int ``bins`` or a tensor of edges) and ``histogramdd`` (``_histogramdd_bin_edges``,
``_histogramdd_from_bin_cts`` and ``_histogramdd_from_bin_tensors``): edges and bins as aten's (:func:`linear_edges`, :func:`counts`), weights and
``density`` included; their work is ``bins * numel`` terms too (the product of the bins for ``histogramdd``).

``histc``: an element ``x`` in ``[min, max]`` falls in bin ``int((x - min) * bins / (max - min))`` (``max`` itself in the
last bin), computed in the input's type as PyTorch's CPU kernel does; NaN and elements outside are not counted.
With ``min == max`` the range is the input's own smallest and largest element (two reductions on the chip),
widened by one each way if those are equal too.  Each bin counts its elements with one masked sum over the
input: ``bins * numel`` terms, past ``MAX_WORK`` of which ``histc`` stays aten's.
"""
from __future__ import annotations

import numpy as np
import sympy
import torch

from mtiacc.torch_backend.lowerings import lowering

MAX_WORK = 1 << 22


@lowering(torch.ops.aten.histc.default)
def histc(x, bins=100, min=0, max=0):
    from torch._inductor import ir
    from torch._inductor.lowering import fallback_handler, make_reduction, view
    from torch._inductor.virtualized import V, ops
    dtype, device = x.get_dtype(), x.get_device()
    numel = x.get_numel()
    if (not dtype.is_floating_point or dtype == torch.float64
            or not V.graph.sizevars.statically_known_leq(numel * bins, MAX_WORK)):
        return fallback_handler(torch.ops.aten.histc.default, add_to_fallback_set=False)(x, bins, min, max)
    flat = view(x, [numel]) if len(x.get_size()) != 1 else x
    if numel == 0:
        return ir.Pointwise.create(device=device, dtype=dtype, ranges=[bins],
                                   inner_fn=lambda idx: ops.constant(0, dtype))
    load = flat.make_loader()
    data_range = float(min) == float(max)
    if data_range:
        lo_buf = make_reduction("min")(flat, [0], False)
        hi_buf = make_reduction("max")(flat, [0], False)
        lo_buf.realize()
        hi_buf.realize()
        lo_load, hi_load = lo_buf.make_loader(), hi_buf.make_loader()

    def edges():
        if not data_range:
            return ops.constant(float(min), dtype), ops.constant(float(max), dtype)
        lo, hi = lo_load([]), hi_load([])
        same = ops.eq(lo, hi)
        one = ops.constant(1.0, dtype)
        return ops.where(same, ops.sub(lo, one), lo), ops.where(same, ops.add(hi, one), hi)

    def term(idx, ridx):
        lo, hi = edges()
        v = load(ridx)
        pos = ops.truediv(ops.mul(ops.sub(v, lo), ops.constant(float(bins), dtype)), ops.sub(hi, lo))
        b = ops.to_dtype(pos, torch.int64)
        b = ops.where(ops.eq(b, ops.constant(bins, torch.int64)), ops.constant(bins - 1, torch.int64), b)
        inside = ops.and_(ops.ge(v, lo), ops.le(v, hi))
        hit = ops.and_(inside, ops.eq(b, ops.index_expr(idx[0], torch.int64)))
        return ops.to_dtype(hit, dtype)

    out = ir.Reduction.create(device=device, dst_dtype=dtype, src_dtype=dtype, inner_fn=term, ranges=[bins],
                              reduction_ranges=[numel], reduction_type="sum")
    out.realize()
    return out


def _column_extreme(points, m: int, dim: int, kind: str):
    """The smallest or largest (``kind``) coordinate ``dim`` of the ``m`` points (a 0-d buffer, on the chip)."""
    from torch._inductor import ir
    load = points.make_loader()
    dtype = points.get_dtype()
    red = ir.Reduction.create(device=points.get_device(), dst_dtype=dtype, src_dtype=dtype,
                              inner_fn=lambda idx, ridx: load([ridx[0], dim]), ranges=[], reduction_ranges=[m],
                              reduction_type=kind)
    red.realize()
    return red


def linear_edges(points, m: int, dim: int, bins: int, bounds):
    """The ``bins + 1`` edges of dimension ``dim`` as aten makes them: ``linspace`` over ``bounds`` (a pair of
    floats) or the points' smallest and largest coordinate, widened by 1/2 each way if they are equal; element
    ``i`` is ``start + step * i`` in the first half and ``end - step * (bins - i)`` in the second, each one
    fused multiply-add (one rounding), as aten's CPU kernel computes it."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    dtype = points.get_dtype()
    if bounds is not None:
        lo_v, hi_v = float(bounds[0]), float(bounds[1])
        if lo_v == hi_v:
            lo_v, hi_v = lo_v - 0.5, hi_v + 0.5
    elif m == 0:
        lo_v, hi_v = 0.0, 1.0
    else:
        lo_load = _column_extreme(points, m, dim, "min").make_loader()
        hi_load = _column_extreme(points, m, dim, "max").make_loader()
    half = (bins + 1) // 2

    if bounds is not None or m == 0:
        # in the input's precision on the host, as aten computes them (constants folded in double would not)
        lo_c, hi_c = np.float32(lo_v), np.float32(hi_v)
        step_c = float(np.float32(hi_c - lo_c) / np.float32(bins))

    def edge(idx):
        if bounds is not None or m == 0:
            lo, hi = ops.constant(float(lo_c), dtype), ops.constant(float(hi_c), dtype)
            step = ops.constant(step_c, dtype)
        else:
            lo, hi = lo_load([]), hi_load([])
            same = ops.eq(lo, hi)
            half_one = ops.constant(0.5, dtype)
            lo, hi = ops.where(same, ops.sub(lo, half_one), lo), ops.where(same, ops.add(hi, half_one), hi)
            step = ops.truediv(ops.sub(hi, lo), ops.constant(float(bins), dtype))
        i = ops.index_expr(idx[0], torch.int64)
        first = ops.fma(step, ops.to_dtype(i, dtype), lo)
        second = ops.fma(ops.neg(step), ops.to_dtype(ops.sub(ops.constant(bins, torch.int64), i), dtype), hi)
        return ops.where(ops.lt(i, ops.constant(half, torch.int64)), first, second)
    out = ir.Pointwise.create(device=points.get_device(), dtype=dtype, inner_fn=edge, ranges=[bins + 1])
    out.realize()
    return out


def counts(points, m: int, edges, weight, density: bool):
    """The histogram of the ``m`` points (``[m, D]``) over the bins ``edges`` (one 1-D buffer of nondecreasing
    edges a dimension): a point is in bin ``b`` of a dimension when ``edges[b] <= x < edges[b + 1]`` (the last
    bin's right edge included), which is where aten's binary search puts it; outside the edges (or NaN) it is
    in none.  Each bin is one masked sum over the points (of their weights if given), a reduction on the chip;
    ``density`` divides by the total and by each bin's volume."""
    from torch._inductor import ir
    from torch._inductor.lowering import make_reduction
    from torch._inductor.virtualized import ops
    dtype = points.get_dtype()
    device = points.get_device()
    load = points.make_loader()
    loads = [e.make_loader() for e in edges]
    nbins = [int(e.get_size()[0]) - 1 for e in edges]
    w_load = weight.make_loader() if weight is not None else None

    def term(idx, ridx):
        hit = None
        for d, (edge, n) in enumerate(zip(loads, nbins)):
            x = load([ridx[0], d])
            left, right = edge([idx[d]]), edge([idx[d] + 1])
            last = ops.eq(ops.index_expr(idx[d], torch.int64), ops.constant(n - 1, torch.int64))
            below = ops.or_(ops.lt(x, right), ops.and_(last, ops.le(x, right)))
            inside = ops.and_(ops.ge(x, left), below)
            hit = inside if hit is None else ops.and_(hit, inside)
        one = w_load([ridx[0]]) if w_load is not None else ops.constant(1.0, dtype)
        return ops.where(hit, one, ops.constant(0.0, dtype))

    hist = ir.Reduction.create(device=device, dst_dtype=dtype, src_dtype=dtype, inner_fn=term, ranges=nbins,
                               reduction_ranges=[m], reduction_type="sum")
    hist.realize()
    if not density:
        return hist
    total = make_reduction("sum")(hist, list(range(len(nbins))), False)
    total.realize()
    h_load, t_load = hist.make_loader(), total.make_loader()

    def normalize(idx):
        v = ops.truediv(h_load(idx), t_load([]))
        for d, edge in enumerate(loads):
            v = ops.truediv(v, ops.sub(edge([idx[d] + 1]), edge([idx[d]])))
        return v
    out = ir.Pointwise.create(device=device, dtype=dtype, inner_fn=normalize, ranges=nbins)
    out.realize()
    return out


def _points(x, dims: int):
    """``x`` as ``[m, dims]`` points, and ``m``; None if its sizes are not static."""
    from torch._inductor.lowering import view
    numel = x.get_numel()
    if not isinstance(numel, (int, sympy.Integer)):
        return None
    m = int(numel) // dims if dims else 0
    return view(x, [m, dims]), m


def _flat_weight(weight, m: int):
    from torch._inductor.lowering import view
    return None if weight is None else view(weight, [m])


def _takes(x, weight, work: int) -> bool:
    # fp32 (aten's edges in fp16 or bf16 are computed in those types; float64 stays aten's)
    return (x.get_dtype() == torch.float32 and work <= MAX_WORK
            and (weight is None or weight.get_dtype() == x.get_dtype()))


@lowering(torch.ops.aten.histogram.bin_ct)
def histogram_bin_ct(x, bins=100, *, range=None, weight=None, density=False):
    from torch._inductor.lowering import fallback_handler
    pts = _points(x, 1)
    if pts is None or not _takes(x, weight, pts[1] * int(bins)):
        return fallback_handler(torch.ops.aten.histogram.bin_ct, add_to_fallback_set=False)(
            x, bins, range=range, weight=weight, density=density)
    points, m = pts
    edges = linear_edges(points, m, 0, int(bins), range)
    return counts(points, m, [edges], _flat_weight(weight, m), density), edges


@lowering(torch.ops.aten.histogram.bins_tensor)
def histogram_bins_tensor(x, bins, *, weight=None, density=False):
    from torch._inductor import ir
    from torch._inductor.lowering import fallback_handler
    pts = _points(x, 1)
    nedges = bins.get_size()[0] if len(bins.get_size()) == 1 else None
    if (pts is None or not isinstance(nedges, (int, sympy.Integer)) or int(nedges) < 2
            or bins.get_dtype() != x.get_dtype() or not _takes(x, weight, pts[1] * int(nedges))):
        return fallback_handler(torch.ops.aten.histogram.bins_tensor, add_to_fallback_set=False)(
            x, bins, weight=weight, density=density)
    points, m = pts
    edges = ir.Pointwise.create(device=bins.get_device(), dtype=bins.get_dtype(), inner_fn=bins.make_loader(),
                                ranges=[int(nedges)])
    edges.realize()
    return counts(points, m, [edges], _flat_weight(weight, m), density), edges


def _dd_edges(x, bins, range):
    """The points of ``x`` (its last dimension the coordinates) and each dimension's edges; None if aten keeps
    it (dynamic sizes, or more than ``MAX_WORK`` terms)."""
    dims = int(x.get_size()[-1]) if x.get_size() else 0
    if dims == 0 or len(bins) != dims:
        return None
    pts = _points(x, dims)
    if pts is None:
        return None
    points, m = pts
    work = m
    for b in bins:
        work *= int(b)
    if not _takes(x, None, work):
        return None
    edges = [linear_edges(points, m, d, int(b), None if range is None else range[2 * d:2 * d + 2])
             for d, b in enumerate(bins)]
    return points, m, edges


@lowering(torch.ops.aten._histogramdd_bin_edges.default)
def histogramdd_bin_edges(x, bins, *, range=None, weight=None, density=False):
    from torch._inductor.lowering import fallback_handler
    got = _dd_edges(x, bins, range)
    if got is None:
        return fallback_handler(torch.ops.aten._histogramdd_bin_edges.default, add_to_fallback_set=False)(
            x, bins, range=range, weight=weight, density=density)
    return list(got[2])


@lowering(torch.ops.aten._histogramdd_from_bin_cts.default)
def histogramdd_from_bin_cts(x, bins, *, range=None, weight=None, density=False):
    from torch._inductor.lowering import fallback_handler
    got = _dd_edges(x, bins, range)
    if got is None or (weight is not None and weight.get_dtype() != x.get_dtype()):
        return fallback_handler(torch.ops.aten._histogramdd_from_bin_cts.default, add_to_fallback_set=False)(
            x, bins, range=range, weight=weight, density=density)
    points, m, edges = got
    return counts(points, m, edges, _flat_weight(weight, m), density)


def numel_too_large(x) -> bool:
    """Whether ``x`` has dynamic or int32-overflowing sizes (``bincount``'s counts are int32 on the chip)."""
    n = x.get_numel()
    return not isinstance(n, (int, sympy.Integer)) or int(n) >= 1 << 31


@lowering(torch.ops.aten.bincount.default)
def bincount(x, weights=None, minlength=0):
    """``bincount``: its length is the data's (the largest value plus one, at least ``minlength``), a size the
    graph knows only as a symbol bound by the op: the largest value is a reduction on the chip, read back as that
    symbol (Inductor's ``DynamicScalar``, as for ``.item()``); then every value adds one (or its weight) to its
    bin, Inductor's ``index_put`` with ``accumulate`` (atomic adds on the chip)."""
    from torch._inductor import ir
    from torch._inductor.lowering import fallback_handler, lowerings as L, make_reduction, to_dtype
    from torch._inductor.virtualized import V, ops
    from torch.fx.experimental.symbolic_shapes import resolve_unbacked_bindings
    op = torch.ops.aten.bincount.default
    node = V.graph.current_node
    bindings = resolve_unbacked_bindings(V.graph.sizevars.shape_env, node.meta.get("unbacked_bindings"))
    val = node.meta.get("val")
    if (not bindings or len(bindings) != 1 or val is None or len(x.get_size()) != 1 or x.get_dtype().is_floating_point
            or x.get_dtype() == torch.bool or not isinstance(x.get_size()[0], (int, sympy.Integer))
            or numel_too_large(x) or (weights is not None and val.dtype not in (torch.float32, torch.float64))):
        return fallback_handler(op, add_to_fallback_set=False)(x, weights, minlength)
    sym, _ = next(iter(bindings.items()))
    device = x.get_device()
    numel = int(x.get_size()[0])
    if numel:
        top = make_reduction("max")(x, [0], False)
        top.realize()
        top_load = top.make_loader()

    def length(idx):
        n = ops.add(ops.to_dtype(top_load([]), torch.int64), ops.constant(1, torch.int64)) if numel else \
            ops.constant(0, torch.int64)
        return ops.maximum(n, ops.constant(int(minlength), torch.int64))
    size = ir.Pointwise.create(device=device, dtype=torch.int64, inner_fn=length, ranges=[])
    size.realize()
    scalar = ir.DynamicScalar(sym, (), size)
    scalar.name = V.graph.register_buffer(scalar)
    V.graph.register_operation(scalar)
    dtype = val.dtype
    # counts in int32 (the chip's atomic adds take no int64), widened at the end
    acc = torch.int32 if weights is None else dtype
    out = L[torch.ops.aten.full.default]([val.shape[0].node.expr], 0, dtype=acc, device=device)
    if numel:
        if weights is None:
            values = L[torch.ops.aten.full.default]([numel], 1, dtype=acc, device=device)
        else:
            w_load = weights.make_loader()
            values = ir.Pointwise.create(device=device, dtype=acc, ranges=[numel],
                                         inner_fn=lambda idx: ops.to_dtype(w_load(idx), acc))
        index = x if x.get_dtype() == torch.int64 else to_dtype(x, torch.int64)
        out = L[torch.ops.aten.index_put.default](out, [index], values, True)
    return out if acc == dtype else to_dtype(out, dtype)


@lowering(torch.ops.aten._histogramdd_from_bin_tensors.default)
def histogramdd_from_bin_tensors(x, bins, *, weight=None, density=False):
    """``histogramdd`` with a tensor of edges a dimension (aten's binary search: :func:`counts`)."""
    from torch._inductor import ir
    from torch._inductor.lowering import fallback_handler
    dims = int(x.get_size()[-1]) if x.get_size() else 0
    pts = _points(x, dims) if dims and len(bins) == dims else None
    sizes = [b.get_size()[0] if len(b.get_size()) == 1 else None for b in bins]
    work = pts[1] if pts is not None else 0
    for n in sizes:
        work = work * int(n) if isinstance(n, (int, sympy.Integer)) and int(n) >= 2 else MAX_WORK + 1
    if (pts is None or any(b.get_dtype() != x.get_dtype() for b in bins) or not _takes(x, weight, work)):
        return fallback_handler(torch.ops.aten._histogramdd_from_bin_tensors.default, add_to_fallback_set=False)(
            x, bins, weight=weight, density=density)
    points, m = pts
    edges = []
    for b, n in zip(bins, sizes):
        e = ir.Pointwise.create(device=b.get_device(), dtype=b.get_dtype(), inner_fn=b.make_loader(), ranges=[int(n)])
        e.realize()
        edges.append(e)
    return counts(points, m, edges, _flat_weight(weight, m), density)
