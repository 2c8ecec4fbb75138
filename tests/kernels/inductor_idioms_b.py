"""More Inductor idioms: var_mean split over two kernels (welford partials, then a persistent combine),
tl.sort-based kernels (sorted rows, median, a descending top half), tl.cumsum on int64 (also of a bool
mask, and reversed), argmax/argmin with ties on fp16 through tl.argmax and triton_helpers."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()


@triton.jit
def triton_red_fused_var_mean_0(in_ptr0, out_ptr0, out_ptr1, out_ptr2, xnumel, r0_numel, N, CHUNK,
                                XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # x = row * SPLIT + part; part p of a row covers columns [p * CHUNK, min((p + 1) * CHUNK, N)):
    # Welford partials (mean, m2, weight) per (row, part); a part past the row's end has weight 0
    SPLIT: tl.constexpr = 4
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex % SPLIT
    x1 = xindex // SPLIT
    x3 = xindex
    tmp3_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp3_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp3_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_2 = r0_index
        tmp0 = r0_2 + x0 * CHUNK
        tmp1 = tmp0 < N
        tmp2 = tl.load(in_ptr0 + (r0_2 + CHUNK*x0 + N*x1), r0_mask & tmp1 & xmask, eviction_policy='evict_first',
                       other=0.0).to(tl.float32)
        tmp4 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
        tmp3_mean_next, tmp3_m2_next, tmp3_weight_next = triton_helpers.welford_reduce(
            tmp4, tmp3_mean, tmp3_m2, tmp3_weight, r0_offset == 0
        )
        tmp3_mean = tl.where(r0_mask & tmp1 & xmask, tmp3_mean_next, tmp3_mean)
        tmp3_m2 = tl.where(r0_mask & tmp1 & xmask, tmp3_m2_next, tmp3_m2)
        tmp3_weight = tl.where(r0_mask & tmp1 & xmask, tmp3_weight_next, tmp3_weight)
    tmp5, tmp6, tmp7 = triton_helpers.welford(tmp3_mean, tmp3_m2, tmp3_weight, 1)
    tmp3 = tmp5[:, None]
    tmp8 = tmp6[:, None]
    tmp9 = tmp7[:, None]
    tl.store(out_ptr0 + (x3), tmp3, xmask)
    tl.store(out_ptr1 + (x3), tmp8, xmask)
    tl.store(out_ptr2 + (x3), tmp9, xmask)


@triton.jit
def triton_per_fused_var_mean_1(in_ptr0, in_ptr1, in_ptr2, out_ptr0, out_ptr1, xnumel, r0_numel,
                                XBLOCK: tl.constexpr):
    # combines the SPLIT partials of each row (r0_numel = SPLIT) into mean and the unbiased variance
    R0_BLOCK: tl.constexpr = 4
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = tl.full([XBLOCK, R0_BLOCK], True, tl.int1)
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 4*x0), xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_1 + 4*x0), xmask, other=0.0)
    tmp2 = tl.load(in_ptr2 + (r0_1 + 4*x0), xmask, other=0.0)
    tmp3 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp4 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
    tmp5 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp7 = tl.where(r0_mask & xmask, tmp3, 0)
    tmp8 = tl.where(r0_mask & xmask, tmp4, 0)
    tmp9 = tl.where(r0_mask & xmask, tmp5, 0)
    tmp10, tmp11, tmp12 = triton_helpers.welford(tmp7, tmp8, tmp9, 1)
    tmp13 = tmp10[:, None]
    tmp14 = tmp11[:, None]
    tmp15 = tmp12[:, None]
    tmp16 = tmp15 - 1.0
    tmp17 = tmp14 / tmp16
    tl.store(out_ptr0 + (x0), tmp13, xmask)
    tl.store(out_ptr1 + (x0), tmp17, xmask)


@triton.jit
def triton_per_fused_sort_median_2(in_ptr0, out_ptr0, out_ptr1, out_ptr2, xnumel, r0_numel,
                                   XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # sorted rows (padding +inf sorts last), the lower median picked out of the sorted block by a
    # masked sum, the row descending (padding -inf) through tl.sort(..., descending=True)
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.where(r0_mask & xmask, tmp0, float("inf"))
    tmp2 = tl.sort(tmp1, 1)
    tmp3 = (r0_numel - 1) // 2
    tmp4 = tl.where(r0_index == tmp3, tmp2, 0.0)
    tmp5 = tl.sum(tmp4, 1)[:, None]
    tmp6 = tl.where(r0_mask & xmask, tmp0, float("-inf"))
    tmp7 = tl.sort(tmp6, dim=1, descending=True)
    tl.store(out_ptr0 + (r0_index + r0_numel*x0), tmp2, r0_mask & xmask)
    tl.store(out_ptr1 + (x0), tmp5, xmask)
    tl.store(out_ptr2 + (r0_index + r0_numel*x0), tmp7, r0_mask & xmask)


@triton.jit
def triton_per_fused_sort_int_3(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # int32 rows of 16 sorted, then each element's difference from the previous one (a sorted-unique
    # flag: nonzero where a new value starts), as in an Inductor unique/bincount preamble
    R0_BLOCK: tl.constexpr = 16
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + 16*x0), xmask, other=0)
    tmp1 = tl.sort(tmp0)
    tmp2 = tl.cumsum(tmp1.to(tl.int64), 1)
    tmp3 = tl.where(r0_index == 15, tmp2, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None]
    tl.store(out_ptr0 + (r0_index + 17*x0), tmp1, xmask)
    tl.store(out_ptr0 + (16 + 17*x0), tmp4.to(tl.int32), xmask)


@triton.jit
def triton_per_fused_cumsum_i64_4(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, xnumel, r0_numel,
                                  XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # tl.cumsum along r0 of int64 values (beyond 32 bits), of a bool mask as int64 (positions of the
    # kept elements, as for a nonzero/compaction), and a reversed one
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0)
    tmp1 = tl.load(in_ptr1 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0.0)
    tmp2 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.cumsum(tmp2, 1)
    tmp4 = (tmp1 > 0.0) & (libdevice.isnan(tmp1).to(tl.int1) == 0)
    tmp5 = tmp4.to(tl.int64)
    tmp6 = tl.cumsum(tmp5, 1) - 1
    tmp7 = tl.where(tmp4, tmp6, -1)
    tmp8 = tl.cumsum(tmp2, 1, reverse=True)
    tl.store(out_ptr0 + (r0_index + r0_numel*x0), tmp3, r0_mask & xmask)
    tl.store(out_ptr1 + (r0_index + r0_numel*x0), tmp7, r0_mask & xmask)
    tl.store(out_ptr2 + (r0_index + r0_numel*x0), tmp8, r0_mask & xmask)


@triton.jit
def triton_per_fused_argmax_argmin_fp16_5(in_ptr0, out_ptr0, out_ptr1, out_ptr2, out_ptr3, xnumel, r0_numel,
                                          XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # fp16 rows with ties: tl.argmax (first index of the max, NaN ignored... none here), and
    # triton_helpers.max_with_index / min_with_index over (value, r0_index) as Inductor writes argmax
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = tl.broadcast_to(r0_index, tmp3.shape)
    tmp5_val, tmp5_idx = triton_helpers.max_with_index(tmp3, tmp4, 1)
    tmp5 = tmp5_idx[:, None]
    tmp6 = tl.where(r0_mask & xmask, tmp1, float("inf"))
    tmp7_val, tmp7_idx = triton_helpers.min_with_index(tmp6, tmp4, 1)
    tmp7 = tmp7_idx[:, None]
    tmp8 = tl.argmax(tmp3, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp5.to(tl.int64), xmask)
    tl.store(out_ptr1 + (x0), tmp7.to(tl.int64), xmask)
    tl.store(out_ptr2 + (x0), tmp8, xmask)
    tl.store(out_ptr3 + (x0), tmp5_val[:, None], xmask)


@triton.jit
def triton_red_fused_argmax_i64_6(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                                  R0_BLOCK: tl.constexpr):
    # the looped argmax: int64 index accumulator initialised to INT64_MAX, int32 r0_index candidates
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp2_index = tl.full([XBLOCK, R0_BLOCK], 9223372036854775807, tl.int64)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0.to(tl.float32), [XBLOCK, R0_BLOCK])
        _tmp2_next, _tmp2_index_next = triton_helpers.maximum_with_index(_tmp2, _tmp2_index, tmp1, r0_index)
        _tmp2 = tl.where(r0_mask & xmask, _tmp2_next, _tmp2)
        _tmp2_index = tl.where(r0_mask & xmask, _tmp2_index_next, _tmp2_index)
    tmp2_val, tmp2_idx = triton_helpers.max_with_index(_tmp2, _tmp2_index, 1)
    tmp2 = tmp2_idx[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)


@triton.jit
def triton_per_fused_logsumexp_xblock1_7(in_out_ptr0, in_ptr0, out_ptr0, xnumel, r0_numel):
    # older Inductor's XBLOCK = 1 persistent reduction: 1-D blocks, a scalar xindex from tl.full,
    # reductions over axis 0 to scalars, tl.debug_barrier before the in-place store
    XBLOCK: tl.constexpr = 1
    RBLOCK: tl.constexpr = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = tl.full([1], xoffset, tl.int32)
    xmask = tl.full([RBLOCK], True, tl.int1)
    rindex = tl.arange(0, RBLOCK)[:]
    rmask = rindex < r0_numel
    r1 = rindex
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r1 + r0_numel*x0), rmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [RBLOCK])
    tmp3 = tl.where(rmask, tmp1, float("-inf"))
    tmp4 = triton_helpers.promote_to_tensor(triton_helpers.max2(tmp3, 0))
    tmp5 = tl_math.abs(tmp4)
    tmp6 = float("inf")
    tmp7 = tmp5 == tmp6
    tmp8 = 0.0
    tmp9 = tl.where(tmp7, tmp8, tmp4)
    tmp10 = tmp0 - tmp9
    tmp11 = tl_math.exp(tmp10)
    tmp12 = tl.broadcast_to(tmp11, [RBLOCK])
    tmp14 = tl.where(rmask, tmp12, 0)
    tmp15 = triton_helpers.promote_to_tensor(tl.sum(tmp14, 0))
    tmp16 = tl_math.log(tmp15)
    tmp17 = tmp16 + tmp9
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp17, None)
    tl.store(out_ptr0 + (r1 + r0_numel*x0), tmp0 - tmp17, rmask)


@triton.jit
def triton_per_fused_sum_scalar_out_8(in_out_ptr0, in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr):
    # a whole-tensor reduction in one program: the result stored through
    # tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1) (a method call with shape varargs)
    R0_BLOCK: tl.constexpr = 128
    xoffset = tl.program_id(0) * XBLOCK
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + (r0_index), r0_mask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tmp5 = r0_numel
    tmp6 = tmp5.to(tl.float32)
    tmp7 = tmp4 / tmp6
    tl.store(out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp4, None)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp7, None)


@triton.jit
def triton_poi_fused_upsample_nearest_f64_9(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    # 2x nearest upsampling of (C, 5, 7) with fp64 constants (tl.full([1], 0.5, tl.float64)) and a
    # gather through float -> int index math, as Inductor writes upsample_nearest2d
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 14) % 10)
    x0 = (xindex % 14)
    x2 = xindex // 140
    x3 = xindex
    tmp0 = x1
    tmp1 = tmp0.to(tl.float64)
    tmp2 = tl.full([1], 0.5, tl.float64)
    tmp3 = tmp1 * tmp2
    tmp4 = tmp3.to(tl.int32)
    tmp5 = x0
    tmp6 = tmp5.to(tl.float32)
    tmp7 = 0.5
    tmp8 = tmp6 * tmp7
    tmp9 = tmp8.to(tl.int32)
    tmp10 = tl.load(in_ptr0 + (tmp9 + 7*tmp4 + 35*x2), xmask, eviction_policy='evict_last')
    tl.store(out_ptr0 + (x3), tmp10, xmask)


@triton.jit
def triton_poi_fused_tiled_transpose_add_10(in_ptr0, in_ptr1, out_ptr0, ynumel, xnumel, YBLOCK: tl.constexpr,
                                            XBLOCK: tl.constexpr):
    # Inductor's 2-D tiled pointwise: y along axis 1 of the grid, x along axis 0, masks ymask & xmask,
    # a row broadcast (in_ptr1 + y0), libdevice.signbit in a where
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[None, :]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (y0 + ynumel*x1), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr1 + (y0), ymask, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = libdevice.signbit(tmp2) != 0
    tmp4 = tl.where(tmp3, -tmp2, tmp2)
    tl.store(out_ptr0 + (x1 + xnumel*y0), tmp4, xmask & ymask)


@triton.jit
def triton_per_fused_cumsum_bool_u8_11(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, out_ptr3, xnumel, r0_numel,
                                       XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # tl.cumsum of an int1 block (uint32 in Triton 3.9) and of uint8 values (uint32), an int64 -> int1
    # conversion of values beyond 32 bits, tl.where between int64 and a float literal (f32)
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0)
    tmp2 = tl.cumsum((tmp0 > 0) & r0_mask, 1)
    tmp3 = tl.cumsum(tmp1.to(tl.uint8), 1)
    tmp4 = tmp1.to(tl.int1)
    tmp5 = tl.where(tmp4, tmp1, 0.5)
    tl.store(out_ptr0 + (r0_index + r0_numel*x0), tmp2, r0_mask & xmask)
    tl.store(out_ptr1 + (r0_index + r0_numel*x0), tmp3, r0_mask & xmask)
    tl.store(out_ptr2 + (r0_index + r0_numel*x0), tmp4, r0_mask & xmask)
    tl.store(out_ptr3 + (r0_index + r0_numel*x0), tmp5, r0_mask & xmask)
