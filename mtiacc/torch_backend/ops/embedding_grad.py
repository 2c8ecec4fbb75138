"""A training step's embedding bags on the chip: the forward's other outputs and the backward.

``aten._embedding_bag`` returns, beside the bags' reductions, what its backward reads; a training step's forward
(:func:`forward`, called by :mod:`.embedding`'s lowering when the graph reads them) computes them as aten's CPU
kernel does, each an Inductor kernel on the chip:

- ``offset2bag``, the bag of each index (for ``mean``, ``max``, and ``sum`` with ``padding_idx`` or a layout
  off aten's fast path; else empty, as aten's): the last bag whose offset is at most the index's position, a
  binary search over ``offsets`` (``ceil(log2(bags))`` loads an index);
- ``bag_size``, each bag's count of indices not equal to ``padding_idx`` (zeros for ``sum``, as aten makes
  them): the difference of its offsets, less its padding indices (a reduction over the indices, one per bag);
- ``max_indices``: for ``max``, the table row giving each column's maximum (the first index reaching it, 0 in
  an empty bag), the embedding-bag template's ``MODE == 3``; the output is then those rows' values (zeros for
  an empty bag); for ``sum`` and ``mean`` a copy of ``bag_size``.

The backward (:func:`backward`, ``aten._embedding_bag_backward`` and ``_embedding_bag_dense_backward``): for
``sum`` and ``mean`` each index's row of the gradient is its bag's gradient row, scaled by its
``per_sample_weights`` (``sum``) or divided by its bag's size (``mean``), zero for ``padding_idx``, and
accumulated into the table's gradient at its row (Inductor's ``index_put`` with ``accumulate``: atomic adds on
the chip); for ``max`` each bag's gradient goes to the row of its column's maximum, empty bags' nowhere.
``_embedding_bag_per_sample_weights_backward``: each index's weight gradient, the dot product of its bag's
gradient row and its table row (a reduction over the columns).

Not taken (aten's, on the host): ``sparse`` gradients, ``scale_grad_by_freq``, float64 and dynamic sizes.
"""
from __future__ import annotations

import math

import sympy
import torch

aten = torch.ops.aten
MAX_WORK = 1 << 22        # bags x indices past which counting padding indices per bag stays aten's
FLOATS = (torch.float32, torch.float16, torch.bfloat16)


def _static(*sizes) -> bool:
    return all(isinstance(s, (int, sympy.Integer)) for s in sizes)


def _bag_bounds(offsets, bags: int, length: int, include_last_offset: bool):
    """A function of a bag's index (sympy) giving its (start, end) positions in ``indices`` (int64 ops)."""
    from torch._inductor.virtualized import ops
    load = offsets.make_loader()
    n_offsets = int(offsets.get_size()[0])

    def bounds(b):
        start = ops.to_dtype(load([b]), torch.int64)
        if include_last_offset:
            return start, ops.to_dtype(load([b + 1]), torch.int64)
        nxt = ops.index_expr(b + 1, torch.int64)
        at = ops.minimum(nxt, ops.constant(n_offsets - 1, torch.int64))
        end = ops.to_dtype(load([ops.indirect_indexing(at, n_offsets, check=False)]), torch.int64)
        return start, ops.where(ops.lt(nxt, ops.constant(bags, torch.int64)), end, ops.constant(length, torch.int64))
    return bounds


def bag_of(offsets, n: int, i):
    """The bag of the index at position ``i`` (an int64 op): the last ``b < n`` with ``offsets[b] <= i``, by
    binary search (``offsets`` nondecreasing from 0, as aten requires)."""
    from torch._inductor.virtualized import ops
    load = offsets.make_loader()
    lo, hi = ops.constant(0, torch.int64), ops.constant(n - 1, torch.int64)
    one, two = ops.constant(1, torch.int64), ops.constant(2, torch.int64)
    for _ in range(max(1, math.ceil(math.log2(max(n, 1)))) if n > 1 else 0):
        mid = ops.floordiv(ops.add(ops.add(lo, hi), one), two)
        ok = ops.le(ops.to_dtype(load([ops.indirect_indexing(mid, n, check=False)]), torch.int64), i)
        lo, hi = ops.where(ok, mid, lo), ops.where(ok, hi, ops.sub(mid, one))
    return lo


def offset2bag(offsets, n: int, length: int, dtype):
    """Each index's bag (see :func:`bag_of`), ``[length]`` of ``dtype``."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops

    def fn(idx):
        return ops.to_dtype(bag_of(offsets, n, ops.index_expr(idx[0], torch.int64)), dtype)
    return ir.Pointwise.create(device=offsets.get_device(), dtype=dtype, inner_fn=fn, ranges=[length])


def bag_sizes(indices, offsets, bags: int, length: int, padding_idx: int, include_last_offset: bool, dtype):
    """Each bag's count of indices other than ``padding_idx``; None if counting the padding would take past
    ``MAX_WORK`` terms."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    bounds = _bag_bounds(offsets, bags, length, include_last_offset)
    device = offsets.get_device()
    pad = None
    if padding_idx >= 0:
        if bags * length > MAX_WORK:
            return None
        idx_load = indices.make_loader()

        def term(idx, ridx):
            start, end = bounds(idx[0])
            r = ops.index_expr(ridx[0], torch.int64)
            inside = ops.and_(ops.ge(r, start), ops.lt(r, end))
            hit = ops.eq(ops.to_dtype(idx_load(ridx), torch.int64), ops.constant(padding_idx, torch.int64))
            return ops.to_dtype(ops.and_(inside, hit), torch.int64)
        pad = ir.Reduction.create(device=device, dst_dtype=torch.int64, src_dtype=torch.int64, inner_fn=term,
                                  ranges=[bags], reduction_ranges=[length], reduction_type="sum")
        pad.realize()
        pad_load = pad.make_loader()

    def size(idx):
        start, end = bounds(idx[0])
        n = ops.sub(end, start)
        return ops.to_dtype(n if pad is None else ops.sub(n, pad_load(idx)), dtype)
    return ir.Pointwise.create(device=device, dtype=dtype, inner_fn=size, ranges=[bags])


def _copy(x):
    from torch._inductor import ir
    return ir.Pointwise.create(device=x.get_device(), dtype=x.get_dtype(), inner_fn=x.make_loader(),
                               ranges=list(x.get_size()))


def forward(weight, indices, offsets, per_sample_weights, *, mode: int, padding_idx: int,
            include_last_offset: bool):
    """``aten._embedding_bag``'s four outputs (see the module's docstring), or None where aten keeps it."""
    from torch._inductor import ir
    from torch._inductor.lowering import lowerings as L
    from torch._inductor.virtualized import V, ops
    from mtiacc.torch_backend.ops import embedding
    vals = V.graph.current_node.meta.get("val")
    rows, d = weight.get_size()
    length = indices.get_size()[0]
    n_offsets = offsets.get_size()[0]
    if vals is None or len(vals) != 4 or not _static(rows, d, length, n_offsets):
        return None
    rows, d, length, n_offsets = int(rows), int(d), int(length), int(n_offsets)
    bags = n_offsets - (1 if include_last_offset else 0)
    index_dtype = vals[1].dtype
    device = weight.get_device_or_error()
    dtype = weight.get_dtype()
    if mode == 0:       # aten zeroes a sum's bag sizes (its backward does not read them)
        sizes = L[aten.full.default]([bags], 0, dtype=index_dtype, device=device)
    else:
        sizes = bag_sizes(indices, offsets, bags, length, padding_idx, include_last_offset, index_dtype)
        if sizes is None:
            return None
    o2b = (offset2bag(offsets, bags, length, index_dtype) if vals[1].numel() else
           L[aten.full.default]([0], 0, dtype=index_dtype, device=device))
    if mode != 2:
        layout = ir.FixedLayout(device, dtype, [bags, d], [d, 1])
        out = embedding.kernel(weight, indices, offsets, per_sample_weights, mode=mode, padding_idx=padding_idx,
                               include_last_offset=include_last_offset, layout=layout)
        if out is None:
            return None
        return out, o2b, sizes, _copy(sizes)
    layout = ir.FixedLayout(device, index_dtype, [bags, d], [d, 1])
    arg = embedding.kernel(weight, indices, offsets, None, mode=3, padding_idx=padding_idx,
                           include_last_offset=include_last_offset, layout=layout)
    if arg is None:
        return None
    sizes.realize()
    arg_load, size_load, w_load = arg.make_loader(), sizes.make_loader(), weight.make_loader()

    def value(idx):
        row = ops.indirect_indexing(arg_load(idx), rows, check=False)
        nonempty = ops.gt(size_load([idx[0]]), ops.constant(0, index_dtype))
        return ops.where(nonempty, w_load([row, idx[1]]), ops.constant(0.0, dtype))
    out = ir.Pointwise.create(device=device, dtype=dtype, inner_fn=value, ranges=[bags, d])
    return out, o2b, sizes, arg


def backward(original):
    """The lowering of ``aten._embedding_bag_backward`` (the module's docstring), ``original`` for what it does
    not take."""
    def embedding_bag_backward(grad, indices, offsets, offset2bag_, bag_size, max_indices, num_weights,
                               scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                               padding_idx=-1):
        args = (grad, indices, offsets, offset2bag_, bag_size, max_indices, num_weights, scale_grad_by_freq,
                mode, sparse, per_sample_weights, padding_idx)
        if sparse or not _static(*offsets.get_size(), *indices.get_size()):
            return original(*args)
        n = int(offsets.get_size()[0])
        out = _dense(grad, indices, lambda: offset2bag_ if offset2bag_.get_numel() else
                     offset2bag(offsets, n, int(indices.get_size()[0]), torch.int64),
                     bag_size, max_indices, num_weights, scale_grad_by_freq, mode, per_sample_weights, padding_idx)
        return out if out is not None else original(*args)
    return embedding_bag_backward


def dense_backward(original):
    """The lowering of ``aten._embedding_bag_dense_backward`` (offset2bag given), ``original`` for what it does
    not take."""
    def embedding_bag_dense_backward(grad, indices, offset2bag_, bag_size, max_indices, num_weights,
                                     scale_grad_by_freq=False, mode=0, per_sample_weights=None, padding_idx=-1):
        out = None
        if _static(*indices.get_size()) and (mode == 2 or offset2bag_.get_numel()):
            out = _dense(grad, indices, lambda: offset2bag_, bag_size, max_indices, num_weights,
                         scale_grad_by_freq, mode, per_sample_weights, padding_idx)
        return out if out is not None else original(grad, indices, offset2bag_, bag_size, max_indices,
                                                    num_weights, scale_grad_by_freq, mode, per_sample_weights,
                                                    padding_idx)
    return embedding_bag_dense_backward


def _dense(grad, indices, bags_of, bag_size, max_indices, num_weights, scale_grad_by_freq, mode,
           per_sample_weights, padding_idx):
    from torch._inductor import ir
    from torch._inductor.lowering import lowerings as L, to_dtype, view
    from torch._inductor.virtualized import ops
    dtype = grad.get_dtype()
    if (scale_grad_by_freq or dtype not in FLOATS or len(grad.get_size()) != 2 or mode not in (0, 1, 2)
            or not _static(num_weights, *grad.get_size())
            or (per_sample_weights is not None and per_sample_weights.get_dtype() != dtype)):
        return None
    num_weights = int(num_weights)
    bags, d = (int(s) for s in grad.get_size())
    device = grad.get_device_or_error()
    padding_idx = -1 if padding_idx is None else int(padding_idx)
    zeros = L[aten.full.default]([num_weights * d] if mode == 2 else [num_weights, d], 0, dtype=dtype,
                                 device=device)
    g_load, s_load = grad.make_loader(), bag_size.make_loader()
    if mode == 2:
        m_load = max_indices.make_loader()

        def value(idx):
            nonempty = ops.ne(s_load([idx[0]]), ops.constant(0, bag_size.get_dtype()))
            return ops.where(nonempty, g_load(idx), ops.constant(0.0, dtype))

        def target(idx):
            return ops.add(ops.mul(ops.to_dtype(m_load(idx), torch.int64), ops.constant(d, torch.int64)),
                           ops.index_expr(idx[1], torch.int64))
        values = ir.Pointwise.create(device=device, dtype=dtype, inner_fn=value, ranges=[bags, d])
        where = ir.Pointwise.create(device=device, dtype=torch.int64, inner_fn=target, ranges=[bags, d])
        return view(L[aten.index_put.default](zeros, [where], values, True), [num_weights, d])
    length = int(indices.get_size()[0])
    o2b = bags_of()
    o_load, i_load = o2b.make_loader(), indices.make_loader()
    w_load = per_sample_weights.make_loader() if per_sample_weights is not None else None

    def row(idx):
        b = ops.indirect_indexing(o_load([idx[0]]), bags, check=False)
        v = g_load([b, idx[1]])
        if w_load is not None:
            v = ops.mul(v, w_load([idx[0]]))
        if mode == 1:
            size = s_load([b])
            inv = ops.truediv(ops.constant(1.0, torch.float32), ops.to_dtype(size, torch.float32))
            nonzero = ops.ne(size, ops.constant(0, bag_size.get_dtype()))
            v = ops.where(nonzero, ops.to_dtype(ops.mul(ops.to_dtype(v, torch.float32), inv), dtype), v)
        if padding_idx >= 0:
            pad = ops.eq(ops.to_dtype(i_load([idx[0]]), torch.int64), ops.constant(padding_idx, torch.int64))
            v = ops.where(pad, ops.constant(0.0, dtype), v)
        return v
    values = ir.Pointwise.create(device=device, dtype=dtype, inner_fn=row, ranges=[length, d])
    index = indices if indices.get_dtype() == torch.int64 else to_dtype(indices, torch.int64)
    return L[aten.index_put.default](zeros, [index], values, True)


def per_sample_weights_backward(original):
    """The lowering of ``aten._embedding_bag_per_sample_weights_backward``: each index's weight gradient, the dot
    product of its bag's gradient row and its table row (0 for ``padding_idx``)."""
    def psw_backward(grad, weight, indices, offsets, offset2bag_, mode, padding_idx=-1):
        from torch._inductor import ir
        from torch._inductor.virtualized import ops
        args = (grad, weight, indices, offsets, offset2bag_, mode, padding_idx)
        dtype = grad.get_dtype()
        if (mode != 0 or dtype not in FLOATS or weight.get_dtype() != dtype or len(grad.get_size()) != 2
                or not _static(*grad.get_size(), *indices.get_size(), *offsets.get_size(), *weight.get_size())):
            return original(*args)
        bags, d = (int(s) for s in grad.get_size())
        rows = int(weight.get_size()[0])
        length = int(indices.get_size()[0])
        o2b = offset2bag_ if offset2bag_.get_numel() else offset2bag(offsets, int(offsets.get_size()[0]),
                                                                         length, torch.int64)
        o_load, i_load = o2b.make_loader(), indices.make_loader()
        g_load, w_load = grad.make_loader(), weight.make_loader()
        padding_idx = -1 if padding_idx is None else int(padding_idx)

        def term(idx, ridx):
            b = ops.indirect_indexing(o_load(idx), bags, check=False)
            word = i_load(idx)
            r = ops.indirect_indexing(word, rows, check=False)
            v = ops.mul(ops.to_dtype(g_load([b, ridx[0]]), torch.float32),
                        ops.to_dtype(w_load([r, ridx[0]]), torch.float32))
            if padding_idx >= 0:
                pad = ops.eq(ops.to_dtype(word, torch.int64), ops.constant(padding_idx, torch.int64))
                v = ops.where(pad, ops.constant(0.0, torch.float32), v)
            return v
        out = ir.Reduction.create(device=grad.get_device_or_error(), dst_dtype=dtype, src_dtype=torch.float32,
                                  inner_fn=term, ranges=[length], reduction_ranges=[d], reduction_type="sum")
        out.realize()
        return out
    return psw_backward
