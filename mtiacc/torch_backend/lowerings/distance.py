"""``_cdist_forward`` (``torch.cdist``'s) and ``_pdist_forward`` (``pdist``'s), which Inductor leaves to
aten: each distance one reduction over the feature dimension on the chip, the batch dimensions of the two
operands broadcast.

``out[..., i, j]`` is ``(sum_k |x1[..., i, k] - x2[..., j, k]|^p)^(1/p)``: the count of the differences that are
not zero for ``p == 0``, their largest magnitude for ``p == inf``, the sum of magnitudes for ``p == 1``, the
square root of the sum of squares for ``p == 2``.  Every ``compute_mode`` computes the differences directly
(aten's matrix-product form for ``p == 2`` loses precision to cancellation; this does not).  With no features
every distance is 0, as aten's.

``pdist(x)`` is the upper triangle of ``cdist(x, x)`` row by row: output ``k`` is the pair ``(i, j)`` where ``i``
counts the rows after the first whose pairs start at or before ``k`` (row ``r``'s start at ``r * (2n - r - 1) / 2``,
a reduction over the rows) and ``j = k - start(i) + i + 1``, gathered from the ``n x n`` distances.
"""
from __future__ import annotations

import math

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten


@lowering(aten._cdist_forward.default)
def cdist(x1, x2, p, compute_mode=None):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    s1, s2 = list(x1.get_size()), list(x2.get_size())
    nb = max(len(s1), len(s2)) - 2
    b1, b2 = [1] * (nb - len(s1) + 2) + s1[:-2], [1] * (nb - len(s2) + 2) + s2[:-2]
    batch = [b if a == 1 else a for a, b in zip(b1, b2)]
    ranges = batch + [s1[-2], s2[-2]]
    dtype, device, m = x1.get_dtype(), x1.get_device(), s1[-1]
    if m == 0:
        return ir.Pointwise.create(device=device, dtype=dtype, inner_fn=lambda idx: ops.constant(0, dtype),
                                   ranges=ranges)
    l1, l2 = x1.make_loader(), x2.make_loader()

    def operand(load, size, bidx, row, k):
        own = size[:-2]
        return load([0 if d == 1 else i for d, i in zip(own, bidx[nb - len(own):])] + [row, k])

    def term(idx, ridx):
        bidx, k = idx[:nb], ridx[0]
        d = ops.sub(operand(l1, s1, bidx, idx[nb], k), operand(l2, s2, bidx, idx[nb + 1], k))
        if p == 0:
            return ops.to_dtype(ops.ne(d, ops.constant(0, dtype)), dtype)
        if p == 2:
            return ops.mul(d, d)
        a = ops.abs(d)
        if p == 1 or math.isinf(p):
            return a
        return ops.pow(a, ops.constant(float(p), dtype))

    red = ir.Reduction.create(device=device, dst_dtype=dtype, src_dtype=dtype, inner_fn=term, ranges=ranges,
                              reduction_ranges=[m], reduction_type="max" if math.isinf(p) else "sum")
    if p in (0, 1) or math.isinf(p):
        return red
    red.realize()
    load = red.make_loader()
    if p == 2:
        return ir.Pointwise.create(device=device, dtype=dtype, inner_fn=lambda idx: ops.sqrt(load(idx)),
                                   ranges=ranges)
    return ir.Pointwise.create(device=device, dtype=dtype, ranges=ranges,
                               inner_fn=lambda idx: ops.pow(load(idx), ops.constant(1.0 / p, dtype)))


@lowering(aten._pdist_forward.default)
def pdist(x, p=2.0):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    n = x.get_size()[0]
    pairs, dtype, device, i64 = n * (n - 1) // 2, x.get_dtype(), x.get_device(), torch.int64
    if pairs == 0:
        return ir.Pointwise.create(device=device, dtype=dtype, inner_fn=lambda idx: ops.constant(0, dtype),
                                   ranges=[0])
    dist = cdist(x, x, p)
    dist.realize()
    load = dist.make_loader()

    def start(r):   # the first pair of row r
        return ops.floordiv(ops.mul(r, ops.sub(ops.constant(2 * n - 1, i64), r)), ops.constant(2, i64))

    def row_after(idx, ridx):   # rows 1..n-2 whose pairs start at or before k
        r = ops.add(ops.index_expr(ridx[0], i64), ops.constant(1, i64))
        return ops.to_dtype(ops.le(start(r), ops.index_expr(idx[0], i64)), i64)
    rows = ir.Reduction.create(device=device, dst_dtype=i64, src_dtype=i64, inner_fn=row_after, ranges=[pairs],
                               reduction_ranges=[max(n - 2, 1)] if n > 2 else [1], reduction_type="sum")
    rows.realize()
    row_load = rows.make_loader()

    def gather(idx):
        i = row_load(idx)
        j = ops.add(ops.sub(ops.index_expr(idx[0], i64), start(i)), ops.add(i, ops.constant(1, i64)))
        return load([ops.indirect_indexing(i, n, check=False), ops.indirect_indexing(j, n, check=False)])
    return ir.Pointwise.create(device=device, dtype=dtype, inner_fn=gather, ranges=[pairs])
