"""Depthwise convolutions on the vector unit: a pointwise kernel summing the taps, when the cost model says so.

A group with one input channel (a depthwise convolution) is a poor GEMM for the matrix engine: its K is the taps
(9 for 3 x 3) and its N the channel multiplier (1, usually), so each 32 x 32 engine tile is mostly padding, and
every group is its own column of programs.  Written directly, each output is ``sum over taps of x[n, c / mult,
o * stride - padding + tap * dilation] * w[c, 0, tap]``: an Inductor pointwise node (a Triton kernel on the
chip's vector unit, in fp32, which Inductor fuses with what follows, a batch norm and an activation), its input
loads masked where a tap falls in the padding.  A 2-D convolution takes :mod:`.conv_rows`'s vector template instead
(the same sums, its loads tiles, its taps a loop); this pointwise form is a 3-D depthwise convolution's.

:func:`prefer_direct` compares the two by the chip's description: the GEMM template's estimate
(:func:`..gemm_cost.estimate`, its tile the cost model's) against the direct form's (each output's taps a
multiply-add and a load a ``vlen / 32``-lane vector instruction each, over the PEs; no faster than DRAM allows),
for kernels of at most :data:`MAX_TAPS` taps.  On a depthwise 3 x 3 of 2 x 32 x 8 x 8 (fp32) the simulator
times the direct form at 41.8 us and the template at 66.3 us.
"""
from __future__ import annotations

import itertools
import math
from typing import Optional, Sequence

OPS_PER_TAP = 4.0     # a tap's vector instructions per output vector: its load, the mask, the multiply, the add
# the direct form unrolls its taps: beyond 3 x 3 the kernel's compile outgrows its gain (a depthwise 7 x 7 on
# 2 x 32 x 8 x 8, fp32: 182 us simulated against the template's 210, but 111 s of host time against 46 s)
MAX_TAPS = 9


def direct_cycles(out_numel: int, taps: int, *, dtype_bytes: int, machine) -> float:
    """The direct form's estimated cycles: its vector instructions over the PEs, or DRAM's time for the input
    read once per tap and the output written."""
    lanes = machine.vlen_bits // 32
    vector = math.ceil(out_numel / (lanes * machine.n_pes)) * taps * OPS_PER_TAP
    dram = out_numel * (taps + 1) * dtype_bytes / (machine.dram_bw_bytes_per_s / machine.clock_hz)
    return max(vector, dram)


def prefer_direct(m: int, n: int, k: int, groups: int, taps: int, *, dtype, transposed: bool,
                  looped: bool = False, engine: Optional[float] = None) -> bool:
    """Whether a convolution with one input channel per group (``k == taps``), or with two for the vector unit's
    template that loops over its taps (``looped``, :mod:`.conv_rows`), is cheaper on the vector unit than as
    ``groups`` ``m x n x k`` GEMMs on the matrix engine.  The pointwise form unrolls its taps: it takes at most
    :data:`MAX_TAPS`; the looped template any number.  ``engine`` is the engine's template's estimate
    (:mod:`.conv_cost`); without it, the GEMM's (:mod:`..gemm_cost`)."""
    from mtiacc.torch_backend import gemm_cost, precision
    from mtiacc.torch_backend.gemm_search import chip
    from mtiacc.torch_backend.ops.conv_rows import MAX_VECTOR_GROUP_CHANNELS
    if transposed or k % taps or k // taps > (MAX_VECTOR_GROUP_CHANNELS if looped else 1):
        return False
    if not looped and taps > MAX_TAPS:
        return False
    direct = direct_cycles(m * n * groups, k, dtype_bytes=dtype.itemsize, machine=chip())
    if engine is not None:
        return direct < engine
    p = precision.engine_passes(dtype)
    ranked = gemm_cost.rank(m, n, k, dtype_bytes=dtype.itemsize, batch=groups, passes=p.passes,
                            split_parts=p.split_parts)
    if not ranked:
        return True
    return direct < ranked[0].cycles


def lower(x, weight, out_size: Sequence, w_size: Sequence[int], stride, padding, dilation, groups: int):
    """The direct form as an Inductor pointwise node of ``out_size`` (see the module's docstring)."""
    import torch
    from torch._inductor import ir
    from torch._inductor.lowering import range_mask
    from torch._inductor.virtualized import ops
    from torch.utils._sympy.functions import FloorDiv
    ndim = len(w_size) - 2
    mult = w_size[0] // groups
    dtype = x.get_dtype()
    x_load, w_load = x.make_loader(), weight.make_loader()
    in_sizes = x.get_size()[2:]

    def inner_fn(index):
        n, c, *o = index
        cin = FloorDiv(c, mult) if mult > 1 else c
        acc = None
        for taps in itertools.product(*(range(k) for k in w_size[2:])):
            pos = [o[d] * stride[d] - padding[d] + taps[d] * dilation[d] for d in range(ndim)]

            def load(pos=pos):
                return x_load([n, cin, *pos])
            mask = None
            for d in range(ndim):
                if padding[d] > 0:
                    m = range_mask(pos[d], in_sizes[d], 0)
                    mask = m if mask is None else ops.and_(mask, m)
            xv = load() if mask is None else ops.masked(mask, load, 0.0)
            prod = ops.mul(ops.to_dtype(xv, torch.float32), ops.to_dtype(w_load([c, 0, *taps]), torch.float32))
            acc = prod if acc is None else ops.add(acc, prod)
        return ops.to_dtype(acc, dtype)

    return ir.Pointwise.create(device=x.get_device(), dtype=dtype, inner_fn=inner_fn, ranges=list(out_size))
