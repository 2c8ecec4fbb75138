"""Kernels in TorchInductor's style (written for these tests): the header Inductor emits, then
persistent ("per") and looped ("red") reductions through triton_helpers."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()


@triton.jit
def per_amax_argmin_any(in_ptr0, out_ptr0, out_ptr1, out_ptr2, out_ptr3, xnumel, r0_numel,
                        XBLOCK: tl.constexpr):
    R0_BLOCK: tl.constexpr = 32
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = triton_helpers.max2(tmp3, 1)[:, None]
    tmp5 = tl.where(r0_mask & xmask, tmp1, float("inf"))
    tmp6 = tl.broadcast_to(r0_index, tmp5.shape)
    _, tmp7_tmp = triton_helpers.min_with_index(tmp5, tmp6, 1)
    tmp7 = tmp7_tmp[:, None]
    tmp8 = tl_math.abs(tmp1) > 1.5
    tmp9 = tl.where(r0_mask & xmask, tmp8, 0)
    tmp10 = triton_helpers.any(tmp9, 1)[:, None]
    tmp11 = triton_helpers.maximum(tmp4, libdevice.floor(tmp4 * 0.5))
    tl.store(out_ptr0 + (x0), tmp4, xmask)
    tl.store(out_ptr1 + (x0), tmp7.to(tl.int64), xmask)
    tl.store(out_ptr2 + (x0), tmp10.to(tl.int8), xmask)
    tl.store(out_ptr3 + (x0), tmp11, xmask)


@triton.jit
def red_welford(in_ptr0, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK: tl.constexpr,
                R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    tmp2_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp2_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp2_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask, eviction_policy='evict_first',
                       other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp2_mean_next, tmp2_m2_next, tmp2_weight_next = triton_helpers.welford_reduce(
            tmp1, tmp2_mean, tmp2_m2, tmp2_weight, roffset == 0
        )
        tmp2_mean = tl.where(r0_mask & xmask, tmp2_mean_next, tmp2_mean)
        tmp2_m2 = tl.where(r0_mask & xmask, tmp2_m2_next, tmp2_m2)
        tmp2_weight = tl.where(r0_mask & xmask, tmp2_weight_next, tmp2_weight)
    tmp3, tmp4, tmp5 = triton_helpers.welford(tmp2_mean, tmp2_m2, tmp2_weight, 1)
    tmp2 = tmp3[:, None]
    tmp6 = tmp4[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)
    tl.store(out_ptr1 + (x0), tmp6 / r0_numel, xmask)


@triton.jit
def poi_floor_div_mod(in_ptr0, in_ptr1, out_ptr0, out_ptr1, xnumel, XBLOCK: tl.constexpr):
    INDEX_DTYPE: tl.constexpr = tl.int32
    xoffset = tl.program_id(0).to(INDEX_DTYPE) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tmp1 = tl.load(in_ptr1 + (xindex), xmask)
    tmp2 = triton_helpers.div_floor_integer(tmp0, tmp1)
    tmp3 = triton_helpers.remainder_integer(tmp0, tmp1)
    tl.store(out_ptr0 + (xindex), tmp2, xmask)
    tl.store(out_ptr1 + (xindex), tmp3, xmask)
