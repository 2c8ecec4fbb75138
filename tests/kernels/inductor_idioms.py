"""Kernels written the way TorchInductor emits them (its header, tmpN names, xindex/rindex, masks folded
with tl.where), each exercising one idiom: int64 index arithmetic, negative-index wrap with a device
assert, embeddings, isnan/isinf masks, bool outputs, int/float tl.where, tl.full accumulators, bool
counts, reshaped reductions, mixed-dtype triton_helpers.maximum/minimum, promote_to_tensor."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()


@triton.jit
def triton_poi_fused_embedding_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # out[i, :] = table[idx[i] (wrapped if negative), :], table 64 x 128, int64 index arithmetic
    xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:].to(tl.int64)
    xmask = xindex < xnumel
    x1 = xindex // 128
    x0 = xindex % 128
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([XBLOCK], 64, tl.int64)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 64)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 64")
    tmp6 = tl.load(in_ptr1 + (x0 + 128*tmp4), xmask)
    tl.store(out_ptr0 + (x2), tmp6, xmask)


@triton.jit
def triton_poi_fused_embedding_nomask_1(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # xnumel a multiple of XBLOCK: no mask anywhere, the assert without `| ~xmask`; int32 indices
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    x1 = xindex // 32
    x0 = xindex % 32
    tmp0 = tl.load(in_ptr0 + (x1), None, eviction_policy='evict_last')
    tmp1 = tmp0 + 64
    tmp2 = tmp0 < 0
    tmp5 = tl.where(tmp2, tmp1, tmp0)
    tl.device_assert((0 <= tmp5) & (tmp5 < 64), "index out of bounds: 0 <= tmp5 < 64")
    tmp7 = tl.load(in_ptr1 + (x0 + 32*tmp5), None)
    tl.store(out_ptr0 + (xindex), tmp7, None)


@triton.jit
def triton_per_fused_add_embedding_mean_2(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, r0_numel,
                                          XBLOCK: tl.constexpr):
    # tokens x 48 features: word embedding (wrapped index) + position embedding (x0 = xindex % 16),
    # written out, and each token's mean through tl.broadcast_to / tl.where(xmask, ..., 0) / tl.sum
    R0_BLOCK: tl.constexpr = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x3 = xindex
    x0 = (xindex % 16)
    r0_2 = r0_index
    tmp0 = tl.load(in_ptr0 + (x3), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], 100, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 100)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 100")
    tmp6 = tl.load(in_ptr1 + (r0_2 + 48*tmp4), r0_mask & xmask, other=0.0)
    tmp7 = tl.load(in_ptr2 + (r0_2 + 48*x0), r0_mask & xmask, other=0.0)
    tmp8 = tmp6 + tmp7
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(r0_mask & xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp13 = tl.full([1, 1], 48, tl.int32)
    tmp14 = tmp13.to(tl.float32)
    tmp15 = (tmp12 / tmp14)
    tl.store(in_out_ptr0 + (r0_2 + 48*x3), tmp8, r0_mask & xmask)
    tl.store(out_ptr0 + (x3), tmp15, xmask)


@triton.jit
def triton_poi_fused_isinf_isnan_where_3(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, out_ptr3, xnumel,
                                         XBLOCK: tl.constexpr):
    # bool outputs (*i1), isnan/isinf masks, tl.where between an int and a float, a broadcast scalar
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp10 = tl.load(in_ptr1 + (0))
    tmp11 = tl.broadcast_to(tmp10, [XBLOCK])
    tmp1 = libdevice.isnan(tmp0).to(tl.int1)
    tmp2 = libdevice.isinf(tmp0).to(tl.int1)
    tmp3 = tmp1 | tmp2
    tmp4 = tmp3 == 0
    tmp5 = tl.full([1], 0, tl.int32)
    tmp6 = tl.where(tmp3, tmp5, tmp0)
    tmp7 = tmp0 > tmp11
    tmp8 = tmp7 & tmp4
    tmp9 = tl.where(tmp1, -1, tmp8)
    tl.store(out_ptr0 + (x0), tmp3, xmask)
    tl.store(out_ptr1 + (x0), tmp6, xmask)
    tl.store(out_ptr2 + (x0), tmp8, xmask)
    tl.store(out_ptr3 + (x0), tmp9.to(tl.int8), xmask)


@triton.jit
def triton_poi_fused_maximum_minimum_mixed_4(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, out_ptr1, out_ptr2,
                                             out_ptr3, xnumel, XBLOCK: tl.constexpr):
    # triton_helpers.maximum/minimum between f16 and f32, i32 and f32, i64 and i32; promote_to_tensor
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tl.load(in_ptr2 + (x0), xmask)
    tmp3 = tl.load(in_ptr3 + (x0), xmask)
    tmp4 = tl.load(in_ptr0 + (x0), xmask)
    tmp5 = triton_helpers.maximum(tmp4, tmp1)
    tmp6 = triton_helpers.minimum(tmp2, tmp1)
    tmp7 = triton_helpers.maximum(tmp3, tmp2)
    tmp8 = triton_helpers.minimum(tmp3, tl.full([1], -3, tl.int32))
    tmp9 = triton_helpers.promote_to_tensor(tmp8)
    tmp10 = triton_helpers.maximum(tmp0, 0.0)
    tl.store(out_ptr0 + (x0), tmp5 + tmp10, xmask)
    tl.store(out_ptr1 + (x0), tmp6, xmask)
    tl.store(out_ptr2 + (x0), tmp7, xmask)
    tl.store(out_ptr3 + (x0), tmp9, xmask)


@triton.jit
def triton_red_fused_abs_any_count_max_sum_5(in_ptr0, out_ptr0, out_ptr1, out_ptr2, out_ptr3, out_ptr4, xnumel,
                                             r0_numel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # tl.full accumulators updated through tl.where(r0_mask & xmask, ..., _acc); a NaN-propagating max,
    # an int64 count of a bool mask, an any; reductions reshaped to [XBLOCK, 1]
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    _tmp3 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    _tmp6 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp10 = tl.full([XBLOCK, R0_BLOCK], 0, tl.int64)
    _tmp13 = tl.full([XBLOCK, R0_BLOCK], False, tl.int1)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl_math.abs(tmp0)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        tmp4 = _tmp3 + tmp2
        _tmp3 = tl.where(r0_mask & xmask, tmp4, _tmp3)
        tmp5 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp7 = triton_helpers.maximum(_tmp6, tmp5)
        _tmp6 = tl.where(r0_mask & xmask, tmp7, _tmp6)
        tmp8 = libdevice.isnan(tmp0).to(tl.int1) | (tmp0 > 1.0)
        tmp9 = tl.broadcast_to(tmp8.to(tl.int64), [XBLOCK, R0_BLOCK])
        tmp11 = _tmp10 + tmp9
        _tmp10 = tl.where(r0_mask & xmask, tmp11, _tmp10)
        tmp12 = libdevice.isinf(tmp0).to(tl.int1)
        _tmp13 = _tmp13 | tl.where(r0_mask & xmask, tmp12, False)
    tmp3 = tl.sum(_tmp3, 1)[:, None]
    tmp6 = triton_helpers.max2(_tmp6, 1)[:, None]
    tmp10 = tl.reshape(tl.sum(_tmp10, 1), [XBLOCK, 1])
    tmp13 = triton_helpers.any(_tmp13, 1)[:, None]
    tmp14 = tl.sum(_tmp13.to(tl.int32), 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp3, xmask)
    tl.store(out_ptr1 + (x0), tmp6, xmask)
    tl.store(out_ptr2 + (x0), tmp10, xmask)
    tl.store(out_ptr3 + (x0), tmp13, xmask)
    tl.store(out_ptr4 + (x0), tmp14, xmask)


@triton.jit
def triton_per_fused_count_nonzero_sum_6(in_ptr0, out_ptr0, out_ptr1, out_ptr2, xnumel, r0_numel,
                                         XBLOCK: tl.constexpr):
    # bool reductions in a persistent kernel: tl.sum of an int1 block (uint32 in Triton), of
    # mask.to(tl.int32), and Inductor's where(mask, bool, 0) feeding triton_helpers.any
    R0_BLOCK: tl.constexpr = 32
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0)
    tmp1 = tmp0 != 0
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
    tmp4 = tl.where(r0_mask & xmask, tmp2, 0)
    tmp5 = triton_helpers.any(tmp4, 1)[:, None]
    tmp6 = tl.sum((tmp0 < 0) & r0_mask, 1)[:, None]
    tmp7 = tl.sum(tmp2.to(tl.int32), 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp5, xmask)
    tl.store(out_ptr1 + (x0), tmp6.to(tl.int32), xmask)
    tl.store(out_ptr2 + (x0), tmp7, xmask)


@triton.jit
def triton_poi_fused_clone_permute_i64_7(in_ptr0, out_ptr0, xnumel, S, XBLOCK: tl.constexpr):
    # (B, S, 128) -> (S, B, 128) with int64 index arithmetic: x0 = xindex % 128, x1, x2 by // and %
    xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:].to(tl.int64)
    xmask = xindex < xnumel
    x0 = xindex % 128
    x1 = (xindex // 128) % S
    x2 = xindex // (128 * S)
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*x1 + 128*S*x2), xmask)
    B = xnumel // (128 * S)
    tl.store(out_ptr0 + (x0 + 128*x2 + 128*B*x1), tmp0, xmask)


@triton.jit
def triton_poi_fused_quantize_per_tensor_8(in_ptr0, out_ptr0, out_ptr1, xnumel, XBLOCK: tl.constexpr):
    # round, clamp into int8's range, then .to(tl.int8) (only in-range values convert: out-of-range
    # float -> int8 is undefined in Triton); dequantize back
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = 0.05
    tmp2 = tmp0 / tmp1
    tmp3 = libdevice.nearbyint(tmp2)
    tmp4 = tl.full([1], 3, tl.int64)
    tmp5 = tmp3 + tmp4.to(tl.float32)
    tmp6 = -128.0
    tmp7 = triton_helpers.maximum(tmp5, tmp6)
    tmp8 = 127.0
    tmp9 = triton_helpers.minimum(tmp7, tmp8)
    tmp10 = tmp9.to(tl.int8)
    tmp11 = (tmp10.to(tl.int32) - 3).to(tl.float32) * tmp1
    tl.store(out_ptr0 + (x0), tmp10, xmask)
    tl.store(out_ptr1 + (x0), tmp11, xmask)


@triton.jit
def triton_poi_fused_math_aliases_9(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # tl.math.* and tl_math.* (Inductor's `math as tl_math`) next to tl.* and libdevice.*
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tl.math.exp(tmp0 * 0.5) + tl_math.exp(-tmp0)
    tmp3 = tl.math.sqrt(tl_math.abs(tmp1)) + tl.math.rsqrt(tmp1 * tmp1 + 1.0)
    tmp4 = tl.math.log2(tmp1 * tmp1 + 2.0) + tl_math.log(tl.math.abs(tmp0) + 1.0)
    tmp5 = tl.math.fma(tmp0, tmp1, tl.math.floor(tmp1)) - tl.math.ceil(tmp0)
    tmp6 = tl_math.sin(tmp0) * tl.math.cos(tmp1) + tl.math.exp2(tmp0 * 0.25)
    tmp7 = tl.maximum(tmp2, tmp3) + tl.minimum(tmp4, tmp5)
    tl.store(out_ptr0 + (x0), tmp7 + tmp6 + tl.math.div_rn(tmp0, tmp1 * tmp1 + 1.0), xmask)
