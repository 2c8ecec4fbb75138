"""Sorts too long for one program's bitonic network, and ``nanmedian``, on the chip.

Inductor sorts a dimension of up to 512 elements with a bitonic network in one program (``ir.Sort``, what
``sort``, ``argsort``, ``topk``, ``kthvalue``, ``median`` and ``mode`` become with ``decompose_sort_ops``,
``backend.py``), and leaves longer ones to aten (with ``decompose_sort_ops`` it would build a network of
any length in one program, too slow to run: here those go to a rank sort, or else to aten).  Here a longer sort (up to ``MAX_LEN`` elements) is a
*rank sort*: each element's key is a 64-bit integer ordered as ``torch.sort(stable=True)`` orders (the
value's bits, mapped so that integer order is the float order, -0.0 as 0.0, NaN above everything, flipped
for a descending sort, then the element's index), its rank the number of keys below it (a reduction over
the dimension, spread over the PEs), and values and indices are scattered to their ranks.  The work grows
as the square of the length, and the result equals a stable sort's, which is also a valid unstable one.

``nanmedian``: the values sorted with NaN last, the median the element at ``(count - 1) // 2`` of the
non-NaN ones (NaN if every one is NaN), its index the sorted one there.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering, replaces

BITONIC_MAX = 512      # Inductor's own bound for a sort in one program
MAX_LEN = 16384

_KEYED = (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int16, torch.int8, torch.uint8,
          torch.bool)


def _key(v, dtype, descending: bool):
    """A 32-bit integer (in int64) ordered as ``v`` is by torch.sort."""
    from torch._inductor.virtualized import ops
    if dtype.is_floating_point:
        f = ops.add(ops.to_dtype(v, torch.float32), ops.constant(0.0, torch.float32))   # -0.0 -> 0.0
        bits = ops.to_dtype(ops.to_dtype_bitcast(f, torch.int32, torch.float32), torch.int64)
        # negative floats: larger magnitude is smaller; flip their magnitude bits
        key = ops.where(ops.lt(bits, ops.constant(0, torch.int64)),
                        ops.bitwise_xor(bits, ops.constant(0x7FFFFFFF, torch.int64)), bits)
        key = ops.where(ops.ne(f, f), ops.constant(0x7FFFFFFF, torch.int64), key)
    else:
        key = ops.to_dtype(v, torch.int64)
    if descending:
        key = ops.sub(ops.constant(-1, torch.int64), key)
    return key


def rank_sort(x, dim: int, descending: bool):
    """(values, int64 indices) of ``x`` sorted along ``dim`` (stable), by ranks (see the module)."""
    from torch._inductor import ir
    from torch._inductor.lowering import clone, full_like
    from torch._inductor.virtualized import V, ops
    size = list(x.get_size())
    n = size[dim]
    dtype, device = x.get_dtype(), x.get_device()
    load = x.make_loader()

    def key_at(idx):
        k = _key(load(idx), dtype, descending)
        return ops.add(ops.mul(k, ops.constant(1 << 32, torch.int64)), ops.index_expr(idx[dim], torch.int64))

    keys = ir.Pointwise.create(device=device, dtype=torch.int64, inner_fn=key_at, ranges=size)
    keys.realize()
    kload = keys.make_loader()

    def below(idx, ridx):
        other = list(idx)
        other[dim] = ridx[0]
        return ops.to_dtype(ops.lt(kload(other), kload(idx)), torch.int64)

    rank = ir.Reduction.create(device=device, dst_dtype=torch.int64, src_dtype=torch.int64, inner_fn=below,
                               ranges=size, reduction_ranges=[n], reduction_type="sum")
    rank.realize()
    rload = rank.make_loader()

    def to_rank(idx):
        out = list(idx)
        out[dim] = ops.indirect_indexing(rload(idx), n, check=False)
        return out

    def scattered(base, value_fn):
        base = clone(base)
        base.realize()
        node = ir.Scatter(device=device, dtype=base.get_dtype(), inner_fn=value_fn, ranges=size,
                          output_indexer=to_rank, scatter_mode=None)
        buf = ir.ComputedBuffer(name=None, layout=ir.MutationLayoutSHOULDREMOVE(base), data=node)
        buf.name = V.graph.register_buffer(buf)
        V.graph.register_operation(buf)
        return base

    values = scattered(x, load)
    indices = scattered(full_like(x, 0, dtype=torch.int64), lambda idx: ops.index_expr(idx[dim], torch.int64))
    return values, indices


def _long(x, dim: int) -> bool:
    from torch._inductor.virtualized import V
    size = x.get_size()
    if not size or x.get_dtype() not in _KEYED:
        return False
    n = size[dim]
    sv = V.graph.sizevars
    return sv.statically_known_gt(n, BITONIC_MAX) and sv.statically_known_leq(n, MAX_LEN)


_ORIGINAL = {}


@lowering(torch.ops.aten.sort.stable)
@replaces("sort_stable")       # what Inductor's topk, kthvalue, median and mode lowerings sort with
def sort_stable(x, *, stable=None, dim=-1, descending=False):
    from torch._inductor.lowering import fallback_handler
    from torch._inductor.virtualized import V
    ndim = len(x.get_size())
    d = dim % ndim if ndim else 0
    # a rank sort is stable; aten's unstable sort orders ties its own way, so an unstable sort of a type
    # where ties are common (16-bit floats, integers) stays aten's
    if _long(x, d) and (stable or x.get_dtype() in SELECT_BY_SORT):
        return rank_sort(x, d, descending)
    if ndim and not V.graph.sizevars.statically_known_leq(x.get_size()[d], BITONIC_MAX):
        # too long for one program's network and not a rank sort's: aten's, as without decompose_sort_ops
        return fallback_handler(torch.ops.aten.sort.stable, add_to_fallback_set=False)(
            x, stable=stable, dim=dim, descending=descending)
    return _ORIGINAL[torch.ops.aten.sort.stable](x, stable=stable, dim=dim, descending=descending)


@lowering(torch.ops.aten.sort.default)
def sort(x, dim=-1, descending=False):
    return sort_stable(x, stable=False, dim=dim, descending=descending)


@lowering(torch.ops.aten.nanmedian.default)
def nanmedian(x):
    from torch._inductor.lowering import view
    numel = 1
    for s in x.get_size():
        numel = numel * s
    values, _ = _nanmedian_dim(view(x, [numel]), 0, False)
    return values


@lowering(torch.ops.aten.nanmedian.dim)
def nanmedian_dim(x, dim=-1, keepdim=False):
    return _nanmedian_dim(x, dim, keepdim)


def _nanmedian_dim(x, dim, keepdim):
    from torch._inductor import ir
    from torch._inductor.lowering import clone, full_like, make_reduction, squeeze
    from torch._inductor.virtualized import ops
    size = list(x.get_size())
    if not size:
        return clone(x), full_like(x, 0, dtype=torch.int64)
    dim = dim % len(size)
    svals, sidx = sort_stable(x, stable=True, dim=dim)
    load = x.make_loader()
    nonnan = ir.Pointwise.create(device=x.get_device(), dtype=torch.int64, ranges=size,
                                 inner_fn=lambda idx: ops.to_dtype(ops.eq(load(idx), load(idx)), torch.int64))
    count = make_reduction("sum", override_return_dtype=torch.int64)(nonnan, [dim], True)
    cload, vload, iload = count.make_loader(), svals.make_loader(), sidx.make_loader()
    n = size[dim]
    out = list(size)
    out[dim] = 1

    def pick(loader):
        def fn(idx):
            c = cload(idx)
            # (count - 1) // 2 of the non-NaN values; with none, the first (a NaN)
            k = ops.where(ops.gt(c, ops.constant(0, torch.int64)),
                          ops.floordiv(ops.sub(c, ops.constant(1, torch.int64)), ops.constant(2, torch.int64)),
                          ops.constant(0, torch.int64))
            at = list(idx)
            at[dim] = ops.indirect_indexing(k, n, check=False)
            return loader(at)
        return fn

    values = ir.Pointwise.create(device=x.get_device(), dtype=x.get_dtype(), inner_fn=pick(vload), ranges=out)
    indices = ir.Pointwise.create(device=x.get_device(), dtype=torch.int64, inner_fn=pick(iload), ranges=out)
    if not keepdim:
        values, indices = squeeze(values, dim), squeeze(indices, dim)
    return values, indices


# topk and kthvalue as sorts only where ties are rare: a stable sort gives the first index of equal values,
# aten's selection algorithms one of its own choosing, so integer and 16-bit float inputs (ties common) stay
# aten's
SELECT_BY_SORT = (torch.float32,)


@lowering(torch.ops.aten.topk.default)
def topk(x, k, dim=-1, largest=True, sorted=True):
    from torch._inductor.lowering import fallback_handler
    op = torch.ops.aten.topk.default
    if x.get_dtype() not in SELECT_BY_SORT:
        return fallback_handler(op, add_to_fallback_set=False)(x, k, dim, largest, sorted)
    return _ORIGINAL[op](x, k, dim, largest, sorted)


@lowering(torch.ops.aten.kthvalue.default)
def kthvalue(x, k, dim=-1, keepdim=False):
    from torch._inductor.lowering import fallback_handler
    op = torch.ops.aten.kthvalue.default
    if x.get_dtype() not in SELECT_BY_SORT:
        return fallback_handler(op, add_to_fallback_set=False)(x, k, dim, keepdim)
    return _ORIGINAL[op](x, k, dim, keepdim)


def _capture_originals():
    from torch._inductor import lowering as L
    for op in (torch.ops.aten.sort.stable, torch.ops.aten.topk.default, torch.ops.aten.kthvalue.default):
        _ORIGINAL[op] = L.lowerings[op]


_capture_originals()
