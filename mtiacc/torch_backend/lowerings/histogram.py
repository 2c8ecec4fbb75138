"""``histc`` on the chip, which Inductor leaves to aten: each bin's count a reduction over the input.

An element ``x`` in ``[min, max]`` falls in bin ``int((x - min) * bins / (max - min))`` (``max`` itself in the
last bin), computed in the input's type as PyTorch's CPU kernel does; NaN and elements outside are not counted.
With ``min == max`` the range is the input's own smallest and largest element (two reductions on the chip),
widened by one each way if those are equal too.  Each bin counts its elements with one masked sum over the
input: ``bins * numel`` terms, past ``MAX_WORK`` of which ``histc`` stays aten's.
"""
from __future__ import annotations

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
