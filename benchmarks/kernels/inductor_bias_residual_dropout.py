"""Bias + residual + dropout, ``residual + dropout(x + bias, p=0.1)`` with the bias broadcast over rows, as one
pointwise ("poi") kernel in the form TorchInductor (torch 2.13) generates Triton for it: the seed loaded from
Inductor's seed buffer at ``load_seed_offset``, ``tl.rand(seed, offset)`` on the element's flat index, kept
where the draw is above p, kept values scaled by 1 / (1 - p).  The header, names and ``tmpN`` values follow
Inductor's generated kernels; ``xnumel`` and ``ks0`` (the row length, the bias's extent) are parameters that
the benchmark specializes with -D (Inductor writes them as literals).  The second kernel is the same with the
draw Inductor writes for a one-dimensional kernel on a CUDA device (``triton_helpers.rand4x``: four values per
Philox call).  Used by benchmarks/bench_roofline.py."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()


@triton.jit
def triton_poi_fused_add_native_dropout_0(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, load_seed_offset, ks0,
                                          xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = (xindex % ks0)
    tmp0 = tl.load(in_ptr0 + load_seed_offset)
    tmp1 = x2
    tmp2 = tl.rand(tmp0, (tmp1).to(tl.uint32))
    tmp3 = tl.full([1], 0.1, tl.float32)
    tmp4 = tmp2 > tmp3
    tmp5 = tl.load(in_ptr1 + (x2), xmask)
    tmp6 = tl.load(in_ptr2 + (x0), xmask, eviction_policy='evict_last')
    tmp7 = tmp5 + tmp6
    tmp8 = tmp4.to(tl.float32)
    tmp9 = tmp8 * tmp7
    tmp10 = tl.full([1], 1.1111111111111112, tl.float32)
    tmp11 = tmp9 * tmp10
    tmp12 = tl.load(in_ptr3 + (x2), xmask)
    tmp13 = tmp11 + tmp12
    tl.store(out_ptr0 + (x2), tmp13, xmask)


@triton.jit
def triton_poi_fused_add_native_dropout_rand4x_0(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, load_seed_offset, ks0,
                                                 xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = (xindex % ks0)
    tmp0 = tl.load(in_ptr0 + load_seed_offset)
    tmp1 = x2
    tmp2 = triton_helpers.rand4x(tmp0, (tmp1).to(tl.uint32), XBLOCK)
    tmp3 = tl.full([1], 0.1, tl.float32)
    tmp4 = tmp2 > tmp3
    tmp5 = tl.load(in_ptr1 + (x2), xmask)
    tmp6 = tl.load(in_ptr2 + (x0), xmask, eviction_policy='evict_last')
    tmp7 = tmp5 + tmp6
    tmp8 = tmp4.to(tl.float32)
    tmp9 = tmp8 * tmp7
    tmp10 = tl.full([1], 1.1111111111111112, tl.float32)
    tmp11 = tmp9 * tmp10
    tmp12 = tl.load(in_ptr3 + (x2), xmask)
    tmp13 = tmp11 + tmp12
    tl.store(out_ptr0 + (x2), tmp13, xmask)
