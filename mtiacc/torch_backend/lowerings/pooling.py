"""Pooling Inductor leaves to aten, on the chip.

- ``_adaptive_avg_pool3d``: each output's window ``[floor(i * in / out), ceil((i + 1) * in / out))`` along depth,
  height and width (as aten's), summed by one reduction over the largest window, the positions past an output's
  own window masked, and divided by its own window's size.  Inductor's 2-D lowering unrolls the window into a
  pointwise kernel (and gives up past 25 elements); a reduction takes a window of any size.  Accumulated in
  float32 for float16 and bfloat16.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering
from mtiacc.torch_backend.lowerings.linalg.lu import _fallback, _ints, _numel

aten = torch.ops.aten


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


@lowering(aten._adaptive_avg_pool3d.default)
def adaptive_avg_pool3d(x, output_size):
    from torch._inductor import ir
    from torch._inductor import lowering as L
    from torch._inductor.virtualized import ops
    from torch.utils._sympy.functions import FloorDiv
    size = _ints(x.get_size())
    outs = [o for o in output_size if isinstance(o, int)]
    dtype = x.get_dtype()
    if size is None or len(size) not in (4, 5) or len(outs) != 3 or _numel(size[-3:]) == 0 or \
            dtype not in (torch.float32, torch.float16, torch.bfloat16):
        return _fallback(aten._adaptive_avg_pool3d.default, x, output_size)
    batch, ins = size[:-3], size[-3:]
    new_size = [*batch, *outs]
    dev = x.get_device()
    if _numel(new_size) == 0:
        return L.lowerings[aten.full.default](new_size, 0.0, dtype=dtype, device=dev)
    windows = [_ceildiv(i + o - 1, o) for i, o in zip(ins, outs)]   # the largest window along each dimension
    x.realize_hint()
    load = x.make_loader()

    def bounds(idx):
        prefix, out = list(idx[:-3]), idx[-3:]
        starts = [FloorDiv(o * i, n) for o, i, n in zip(out, ins, outs)]
        ends = [FloorDiv((o + 1) * i + n - 1, n) for o, i, n in zip(out, ins, outs)]
        return prefix, starts, ends

    def window(idx, ridx):
        prefix, starts, ends = bounds(idx)
        pos = [s + r for s, r in zip(starts, ridx)]
        mask = None
        for p, e in zip(pos, ends):
            inside = ops.lt(ops.index_expr(p, torch.int64), ops.index_expr(e, torch.int64))
            mask = inside if mask is None else ops.and_(mask, inside)
        return ops.masked(mask, lambda: ops.to_dtype(load([*prefix, *pos]), torch.float32), 0.0)

    total = ir.Reduction.create(device=dev, dst_dtype=torch.float32, src_dtype=torch.float32, inner_fn=window,
                                ranges=new_size, reduction_ranges=windows, reduction_type="sum")
    total.realize()
    sums = total.make_loader()

    def mean(idx):
        _, starts, ends = bounds(idx)
        count = (ends[0] - starts[0]) * (ends[1] - starts[1]) * (ends[2] - starts[2])
        size = ops.to_dtype(ops.index_expr(count, torch.int64), torch.float32)
        return ops.to_dtype(ops.truediv(sums(idx), size), dtype)
    return ir.Pointwise.create(device=dev, dtype=dtype, inner_fn=mean, ranges=new_size)
