"""Reductions Inductor gets wrong or leaves to aten.

``var_mean`` over no elements: the mean NaN, as aten's (a sum divided by a count of zero).  Inductor's
lowering computes the mean and the variance in one Welford reduction, whose mean starts at 0 and stays there when
no element arrives, so ``torch.var_mean(torch.empty(0))`` gives a mean of 0 with ``backend="inductor"`` (its
variance is NaN, as aten's).  Here, when the reduced dimensions hold no element, the mean is a NaN of the
result's shape; any other reduction is Inductor's.

``segment_reduce`` (``torch.segment_reduce``: ``sum``, ``mean``, ``max``, ``min``, ``prod`` over consecutive
segments of ``axis``, given by ``lengths`` or ``offsets``): one reduction over the whole axis per segment, the
elements outside the segment masked to the reduction's identity, then a pointwise step as aten's: ``initial``
joins every segment (added, multiplied, or compared; ``mean`` divides ``initial + sum`` by the count), and an
empty segment gives ``initial``, or without it 0, 1, -inf, inf, or NaN for ``mean``.  Lengths become offsets by a
cumulative sum on the chip.  The work is ``segments * axis length`` per row: segments are few in practice.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten


def _reduced_count(x, axis):
    size = list(x.get_size())
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        dims = range(len(size))
    else:
        dims = [d % max(len(size), 1) for d in ([axis] if isinstance(axis, int) else axis)]
    n = 1
    for d in dims:
        if size:
            n = n * size[d]
    return n


@lowering(aten.var_mean.correction)
def var_mean(x, axis=None, *, correction=None, keepdim=False):
    from torch._inductor import lowering as L
    from torch._inductor.virtualized import V
    var, mean = L.var_mean(x, axis, correction=correction, keepdim=keepdim)
    if not V.graph.sizevars.statically_known_equals(_reduced_count(x, axis), 0):
        return var, mean
    return var, L.full_like(mean, float("nan"))


_IDENTITY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "max": float("-inf"), "min": float("inf")}
_EMPTY = {"sum": 0.0, "mean": float("nan"), "prod": 1.0, "max": float("-inf"), "min": float("inf")}


@lowering(aten.segment_reduce.default)
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    from torch._inductor import ir
    from torch._inductor import lowering as L
    from torch._inductor.virtualized import ops
    size = [int(s) for s in data.get_size()]
    bounds = offsets if offsets is not None else lengths
    if data.get_dtype() != torch.float32 or indices is not None or bounds is None or reduce not in _IDENTITY:
        return L.fallback_handler(aten.segment_reduce.default, add_to_fallback_set=False)(
            data, reduce, lengths=lengths, indices=indices, offsets=offsets, axis=axis, unsafe=unsafe,
            initial=initial)
    axis = axis % len(size)
    bsize = [int(s) for s in bounds.get_size()]
    if offsets is None:   # offsets: 0, then the running sum of the lengths
        run = L.lowerings[aten.cumsum.default](bounds, len(bsize) - 1)
        offsets = L.lowerings[aten.constant_pad_nd.default](run, [1, 0], 0)
        bsize = [*bsize[:-1], bsize[-1] + 1]
    segs, n = bsize[-1] - 1, size[axis]
    oload = offsets.make_loader()
    dload = data.make_loader()
    i64, f32 = torch.int64, torch.float32
    out_size = [*size[:axis], segs, *size[axis + 1:]]

    def span(idx):
        outer, s = list(idx[:axis]), idx[axis]
        return (ops.to_dtype(oload([*outer, s]), i64), ops.to_dtype(oload([*outer, s + 1]), i64))

    def term(idx, ridx):
        start, end = span(idx)
        j = ops.index_expr(ridx[0], i64)
        inside = ops.and_(ops.ge(j, start), ops.lt(j, end))
        v = dload([*idx[:axis], ridx[0], *idx[axis + 1:]])
        return ops.where(inside, v, ops.constant(_IDENTITY[reduce], f32))
    red = ir.Reduction.create(device=data.get_device(), dst_dtype=f32, src_dtype=f32, inner_fn=term,
                              ranges=out_size, reduction_ranges=[n],
                              reduction_type="sum" if reduce == "mean" else reduce)
    red.realize()
    rload = red.make_loader()

    def finish(idx):
        start, end = span(idx)
        count = ops.sub(end, start)
        v = rload(idx)
        empty = ops.eq(count, ops.constant(0, i64))
        if initial is not None:
            init = ops.constant(float(initial), f32)
            join = {"sum": ops.add, "mean": ops.add, "prod": ops.mul, "max": ops.maximum, "min": ops.minimum}
            v = join[reduce](v, init)
            fill = init
        else:
            fill = ops.constant(_EMPTY[reduce], f32)
        if reduce == "mean":
            v = ops.truediv(v, ops.to_dtype(count, f32))
        return ops.where(empty, fill, v)
    return ir.Pointwise.create(device=data.get_device(), dtype=f32, inner_fn=finish, ranges=out_size)
