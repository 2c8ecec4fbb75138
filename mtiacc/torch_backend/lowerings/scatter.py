"""``scatter_reduce`` and ``index_reduce`` with every reduction (sum, prod, mean, amax, amin; ``include_self``
or not), which Inductor leaves to aten but for a sum: each output element as a reduction over the index.

``out[..., i, ...]`` (``i`` along ``dim``) reduces ``src[..., r, ...]`` over every ``r`` whose index is ``i``:
for ``scatter_reduce`` the index is ``index[..., r, ...]`` (and an output element outside ``index``'s extent
in another dimension gets nothing); for ``index_reduce`` it is ``index[r]``.  So each output element is one
reduction of ``index.size(dim)`` masked terms (Inductor's ``Reduction``, on the chip like any ``sum``), a
second one counting them; then the element is ``self`` where nothing was scattered to it, else the reduction
combined with ``self`` (``include_self``) or alone, and ``mean`` divides by the count (plus one with
``self``; floor division for integers).  No atomics, so the result is deterministic and the same on every
run.  The work is ``self.numel() * index.size(dim)``: past ``MAX_WORK`` terms the operation keeps Inductor's
own lowering (aten).  A ``scatter_reduce`` sum keeps Inductor's lowering too, which is on the chip already
(atomic adds).
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering

MAX_WORK = 1 << 22

_REDUCTION = {"sum": "sum", "mean": "sum", "prod": "prod", "amax": "max", "amin": "min"}


def _identity(reduce: str, dtype: torch.dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return float("-inf") if reduce == "amax" else float("inf")
    if dtype == torch.bool:
        return reduce == "amin"
    info = torch.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce_into(self, dim: int, n: int, term, reduce: str, include_self: bool):
    """``self`` with each element combined with the reduction of ``term(idx, r)`` (``(valid, value)``) over
    ``r`` in ``range(n)``, as described in the module's docstring."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    dtype = self.get_dtype()
    device = self.get_device()
    size = list(self.get_size())
    identity = _identity(reduce, dtype)

    def values(idx, ridx):
        valid, value = term(idx, ridx[0])
        return ops.where(valid, value, ops.constant(identity, dtype))

    def counts(idx, ridx):
        valid, _ = term(idx, ridx[0])
        return ops.to_dtype(valid, torch.int32)

    red = ir.Reduction.create(device=device, dst_dtype=dtype, src_dtype=dtype, inner_fn=values, ranges=size,
                              reduction_ranges=[n], reduction_type=_REDUCTION[reduce])
    cnt = ir.Reduction.create(device=device, dst_dtype=torch.int32, src_dtype=torch.int32, inner_fn=counts,
                              ranges=size, reduction_ranges=[n], reduction_type="sum")
    red.realize()
    cnt.realize()
    self_load, red_load, cnt_load = self.make_loader(), red.make_loader(), cnt.make_loader()

    def combine(idx):
        s, r, c = self_load(idx), red_load(idx), cnt_load(idx)
        if include_self:
            out = {"sum": lambda: ops.add(s, r), "mean": lambda: ops.add(s, r), "prod": lambda: ops.mul(s, r),
                   "amax": lambda: ops.maximum(s, r), "amin": lambda: ops.minimum(s, r)}[reduce]()
        else:
            out = r
        if reduce == "mean":
            k = ops.add(c, ops.constant(1, torch.int32)) if include_self else c
            k = ops.to_dtype(ops.maximum(k, ops.constant(1, torch.int32)), dtype)
            out = ops.truediv(out, k) if dtype.is_floating_point else ops.floordiv(out, k)
        return ops.where(ops.gt(c, ops.constant(0, torch.int32)), out, s)

    return ir.Pointwise.create(device=device, dtype=dtype, inner_fn=combine, ranges=size)


def _small(self, n) -> bool:
    from torch._inductor.virtualized import V
    work = self.get_numel() * n
    return V.graph.sizevars.statically_known_leq(work, MAX_WORK) if hasattr(
        V.graph.sizevars, "statically_known_leq") else V.graph.sizevars.guard_or_false(work <= MAX_WORK)


_ORIGINAL = {}


@lowering(torch.ops.aten.scatter_reduce.two)
def scatter_reduce(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    op = torch.ops.aten.scatter_reduce.two
    ndim = len(self.get_size())
    dim = dim % max(ndim, 1)
    isize = list(index.get_size())
    # a sum keeps Inductor's own lowering (atomic adds on the chip)
    if (reduce not in _REDUCTION or reduce == "sum" or ndim == 0 or len(isize) != ndim or not isinstance(src, ir.TensorBox)
            or not _small(self, isize[dim])):
        return _ORIGINAL[op](self, dim, index, src, reduce, include_self=include_self)
    if index.get_numel() == 0:
        return self
    idx_load, src_load = index.make_loader(), src.make_loader()

    def term(idx, r):
        at = list(idx)
        at[dim] = r
        # an output element past index's extent in another dimension gets nothing (and reads nothing)
        inside = None
        for d in range(ndim):
            if d != dim and isize[d] != self.get_size()[d]:
                lt = ops.lt(ops.index_expr(idx[d], torch.int64), ops.constant(isize[d], torch.int64))
                inside = lt if inside is None else ops.and_(inside, lt)
        if inside is None:
            target, value = idx_load(at), src_load(at)
        else:
            target = ops.masked(inside, lambda: idx_load(at), -1)
            value = ops.masked(inside, lambda: src_load(at), 0)
        return ops.eq(ops.to_dtype(target, torch.int64), ops.index_expr(idx[dim], torch.int64)), value

    return _reduce_into(self, dim, isize[dim], term, reduce, include_self)


@lowering(torch.ops.aten.index_reduce.default)
def index_reduce(self, dim: int, index, source, reduce: str, *, include_self: bool = True):
    from torch._inductor.virtualized import ops
    from torch._inductor.lowering import view
    op = torch.ops.aten.index_reduce.default
    if len(self.get_size()) == 0:        # a 0-d self as one element, the index's and source's too
        out = index_reduce(view(self, [1]), 0, view(index, [1]) if not index.get_size() else index,
                           view(source, [1]) if not source.get_size() else source, reduce,
                           include_self=include_self)
        return view(out, [])
    ndim = len(self.get_size())
    isize = list(index.get_size())
    if reduce not in _REDUCTION or ndim == 0 or len(isize) != 1 or not _small(self, isize[0]):
        return _ORIGINAL[op](self, dim, index, source, reduce, include_self=include_self)
    dim = dim % ndim
    idx_load, src_load = index.make_loader(), source.make_loader()

    def term(idx, r):
        at = list(idx)
        at[dim] = r
        valid = ops.eq(ops.to_dtype(idx_load([r]), torch.int64), ops.index_expr(idx[dim], torch.int64))
        return valid, src_load(at)
    return _reduce_into(self, dim, isize[0], term, reduce, include_self)


def _capture_originals():
    from torch._inductor import lowering as L
    from torch._inductor.lowering import fallback_handler
    for op in (torch.ops.aten.scatter_reduce.two, torch.ops.aten.index_reduce.default):
        _ORIGINAL[op] = L.lowerings.get(op) or fallback_handler(op, add_to_fallback_set=False)


_capture_originals()
