"""Resampling Inductor leaves to aten, on the chip.

- ``grid_sampler_3d``: each output voxel's source point from the grid (``(x, y, z)`` in ``[-1, 1]``, unnormalized
  with or without ``align_corners``; ``border`` padding clips it to the volume, ``reflection`` reflects it about
  the volume's edges, then clips), then trilinear (the eight corners, each weighted by its opposite box's
  volume; a corner outside the volume contributes zero) or nearest (the point rounded half to even) sampling,
  as aten's CPU kernel computes it; float32, float16 and bfloat16, computed in float32.  One pointwise kernel:
  the corners are loads at computed indices.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering
from mtiacc.torch_backend.lowerings.linalg.lu import _fallback, _ints, _numel

aten = torch.ops.aten
F32 = torch.float32


def _const(v: float):
    from torch._inductor.virtualized import ops
    return ops.constant(v, F32)


def _clip(coord, size: int):
    from torch._inductor.virtualized import ops
    return ops.minimum(ops.maximum(coord, _const(0.0)), _const(float(size - 1)))


def _reflect(coord, twice_low: int, twice_high: int):
    """aten's ``reflect_coordinates``: ``coord`` folded into ``[low, high]`` by reflections about its ends."""
    from torch._inductor.virtualized import ops
    if twice_low == twice_high:
        return _const(0.0)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = ops.abs(ops.sub(coord, _const(low)))
    extra = ops.fmod(dist, _const(span))
    flips = ops.floor(ops.truediv(dist, _const(span)))
    even = ops.eq(ops.fmod(flips, _const(2.0)), _const(0.0))
    return ops.where(even, ops.add(extra, _const(low)), ops.add(ops.sub(_const(span), extra), _const(low)))


def _source(coord, size: int, padding: int, align: bool):
    """aten's ``grid_sampler_compute_source_index``."""
    from torch._inductor.virtualized import ops
    one = _const(1.0)
    if align:
        coord = ops.mul(ops.truediv(ops.add(coord, one), _const(2.0)), _const(float(size - 1)))
    else:
        coord = ops.truediv(ops.sub(ops.mul(ops.add(coord, one), _const(float(size))), one), _const(2.0))
    if padding == 1:
        coord = _clip(coord, size)
    elif padding == 2:
        coord = _reflect(coord, 0, 2 * (size - 1)) if align else _reflect(coord, -1, 2 * size - 1)
        coord = _clip(coord, size)
    return coord


@lowering(aten.grid_sampler_3d.default)
def grid_sampler_3d(x, grid, interpolation_mode, padding_mode, align_corners):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    size, gsize = _ints(x.get_size()), _ints(grid.get_size())
    dtype = x.get_dtype()
    if size is None or gsize is None or len(size) != 5 or interpolation_mode not in (0, 1) or \
            padding_mode not in (0, 1, 2) or dtype not in (F32, torch.float16, torch.bfloat16) or \
            grid.get_dtype() != dtype:
        return _fallback(aten.grid_sampler_3d.default, x, grid, interpolation_mode, padding_mode, align_corners)
    n, c, depth, height, width = size
    out_size = [n, c, *gsize[1:4]]
    dev = x.get_device()
    if _numel(out_size) == 0 or _numel(size) == 0:
        from torch._inductor import lowering as L
        return L.lowerings[aten.full.default](out_size, 0.0, dtype=dtype, device=dev)
    load, gload = x.make_loader(), grid.make_loader()
    dims = (width, height, depth)

    def fn(idx):
        b, ch, od, oh, ow = idx
        src = [_source(ops.to_dtype(gload([b, od, oh, ow, k]), F32), dims[k], padding_mode, align_corners)
               for k in range(3)]

        def at(corner):
            """The input at integer coordinates ``corner`` (x, y, z; float32), 0 outside the volume."""
            inside, index = None, []
            for v, size_k in zip(corner, dims):
                ok = ops.and_(ops.ge(v, _const(0.0)), ops.lt(v, _const(float(size_k))))
                inside = ok if inside is None else ops.and_(inside, ok)
                clamped = ops.to_dtype(_clip(v, size_k), torch.int64)
                index.append(ops.indirect_indexing(clamped, size_k, check=False))
            ix, iy, iz = index
            return ops.where(inside, ops.to_dtype(load([b, ch, iz, iy, ix]), F32), _const(0.0))
        if interpolation_mode == 1:
            return ops.to_dtype(at([ops.round(s) for s in src]), dtype)
        low = [ops.floor(s) for s in src]
        high = [ops.add(v, _const(1.0)) for v in low]
        w_high = [ops.sub(s, v) for s, v in zip(src, low)]       # the weight of the corner at low + 1
        w_low = [ops.sub(h, s) for s, h in zip(src, high)]
        acc = None
        for dz in (0, 1):          # aten's order: tnw, tne, tsw, tse, bnw, bne, bsw, bse
            for dy in (0, 1):
                for dx in (0, 1):
                    pick = (dx, dy, dz)
                    corner = [high[k] if pick[k] else low[k] for k in range(3)]
                    wt = None
                    for k in range(3):
                        w = w_high[k] if pick[k] else w_low[k]
                        wt = w if wt is None else ops.mul(wt, w)
                    term = ops.mul(at(corner), wt)
                    acc = term if acc is None else ops.add(acc, term)
        return ops.to_dtype(acc, dtype)
    return ir.Pointwise.create(device=dev, dtype=dtype, inner_fn=fn, ranges=out_size)
