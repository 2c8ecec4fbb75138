"""``nonzero_static``, which Inductor leaves to aten: the indices of the first ``size`` elements that are not
zero, in row-major order, rows past the count filled with ``fill_value``, all on the chip.

The flattened input's mask is counted by a cumulative sum (a scan on the chip); element ``i`` is the ``c``-th
nonzero when it is one and the count up to it is ``c``.  So each output coordinate ``out[r, d]`` is one
reduction over the elements of the coordinate ``d`` of the one element whose count is ``r + 1`` (there is at most
one), and ``fill_value`` where ``r`` reaches the total count.  The work is ``size * ndim * numel``.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten


@lowering(aten.nonzero_static.default)
def nonzero_static(x, *, size, fill_value=-1):
    from torch._inductor import ir
    from torch._inductor import lowering as L
    from torch._inductor.virtualized import ops
    from torch.utils._sympy.functions import ModularIndexing
    shape, device, i64 = list(x.get_size()), x.get_device(), torch.int64
    ndim, n = len(shape), 1
    for s in shape:
        n = n * s
    if ndim == 0 or n == 0:
        rows = ir.Pointwise.create(device=device, dtype=i64, inner_fn=lambda idx: ops.constant(fill_value, i64),
                                   ranges=[size, ndim])
        return rows
    load = x.make_loader()
    mask = ir.Pointwise.create(device=device, dtype=i64, ranges=shape, inner_fn=lambda idx: ops.to_dtype(
        ops.ne(load(idx), ops.constant(0, x.get_dtype())), i64))
    mask = L.lowerings[aten.view.default](mask, [n])
    count = L.lowerings[aten.cumsum.default](mask, 0)
    count.realize()
    m_load, c_load = mask.make_loader(), count.make_loader()
    coords = []
    for d in range(ndim):
        stride = 1
        for s in shape[d + 1:]:
            stride = stride * s

        def term(idx, ridx, d=d, stride=stride):
            i = ridx[0]
            hit = ops.and_(ops.ne(m_load([i]), ops.constant(0, i64)),
                           ops.eq(c_load([i]), ops.index_expr(idx[0] + 1, i64)))
            return ops.where(hit, ops.index_expr(ModularIndexing(i, stride, shape[d]), i64), ops.constant(0, i64))
        red = ir.Reduction.create(device=device, dst_dtype=i64, src_dtype=i64, inner_fn=term, ranges=[size],
                                  reduction_ranges=[n], reduction_type="sum")
        red.realize()
        coords.append(red.make_loader())

    def row(idx):
        r, d = idx
        out = coords[-1]([r])
        for k in range(ndim - 2, -1, -1):
            out = ops.where(ops.eq(ops.index_expr(d, i64), ops.constant(k, i64)), coords[k]([r]), out)
        found = ops.lt(ops.index_expr(r, i64), c_load([n - 1]))
        return ops.where(found, out, ops.constant(fill_value, i64))
    return ir.Pointwise.create(device=device, dtype=i64, inner_fn=row, ranges=[size, ndim])
