"""Kernels in TorchInductor's style calling each of triton_helpers' functions (written for these tests;
tests/inductor/test_helpers*.py run them against numpy)."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
triton_helpers.set_driver_to_gpu()


@triton.jit
def poi_elementwise(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, out_ptr1, out_ptr2, out_ptr3, out_ptr4,
                    out_ptr5, out_ptr6, xnumel, XBLOCK: tl.constexpr):
    # pow_integer, fp8e4m3fn_to_float32, frexp, exp, device_assert_then, maximum, minimum,
    # div_floor_integer, remainder_integer, promote_to_tensor / is_floating
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + xindex, xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + xindex, xmask, other=1)
    tmp2 = tl.load(in_ptr2 + xindex, xmask, other=0)
    tmp3 = tl.load(in_ptr3 + xindex, xmask, other=0)
    tmp4 = triton_helpers.pow_integer(tmp1, tmp2)
    tmp5 = triton_helpers.fp8e4m3fn_to_float32(tmp3)
    tmp6, tmp7 = triton_helpers.frexp(tmp0)
    tmp8 = triton_helpers.exp(tmp0 * 0.125, True) + triton_helpers.exp(tmp0 * 0.0625, False)
    tmp9 = triton_helpers.device_assert_then(tmp2 >= 0, "negative exponent", tmp8)
    tmp10 = triton_helpers.maximum(tmp0, tmp5) - triton_helpers.minimum(tmp0, tmp5)
    tmp11 = triton_helpers.div_floor_integer(tmp1, 3) * 10 + triton_helpers.remainder_integer(tmp1, 3)
    tmp12 = triton_helpers.promote_to_tensor(2.0)
    if triton_helpers.is_floating(tmp0) and not triton_helpers.is_floating(tmp1):
        tmp13 = tmp9 * tmp12
    else:
        tmp13 = tmp9
    tl.store(out_ptr0 + xindex, tmp4, xmask)
    tl.store(out_ptr1 + xindex, tmp5, xmask)
    tl.store(out_ptr2 + xindex, tmp6, xmask)
    tl.store(out_ptr3 + xindex, tmp7, xmask)
    tl.store(out_ptr4 + xindex, tmp13, xmask)
    tl.store(out_ptr5 + xindex, tmp10, xmask)
    tl.store(out_ptr6 + xindex, tmp11, xmask)


@triton.jit
def per_reductions(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, out_ptr3, out_ptr4, out_ptr5, out_ptr6,
                   xnumel, r0_numel, XBLOCK: tl.constexpr):
    # online_softmax_reduce, online_softmax_combine(_with_sum), select_one, prod, any, max2, min2,
    # welford_combine / welford / welford_reduce, max_with_index / min_with_index
    R0_BLOCK: tl.constexpr = 16
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    mask = xmask & r0_mask
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), mask, other=0.0)
    tmp1 = tl.load(in_ptr1 + (r0_index + r0_numel * xindex), mask, other=0)
    # softmax denominators two ways: per lane (max, 1) pairs merged, then column by column
    lane_max = tl.where(mask, tmp0, float("-inf"))
    lane_sum = tl.where(mask, 1.0, 0.0)
    tmp2, tmp3 = triton_helpers.online_softmax_reduce(lane_max, lane_sum, 1, True)
    acc_max = tl.full([XBLOCK, 1], float("-inf"), tl.float32)
    acc_sum = tl.zeros([XBLOCK, 1], tl.float32)
    acc2_max = tl.full([XBLOCK, 1], float("-inf"), tl.float32)
    acc2_sum = tl.zeros([XBLOCK, 1], tl.float32)
    for c in tl.static_range(R0_BLOCK):
        col = triton_helpers.select_one(lane_max, r0_index == c, dim=1, keep_dims=True)
        acc_max, acc_sum = triton_helpers.online_softmax_combine(acc_max, acc_sum, col, False)
        acc2_max, acc2_sum = triton_helpers.online_softmax_combine_with_sum(
            acc2_max, acc2_sum, col, tl.where(col == float("-inf"), 0.0, 2.0), False)
    tmp4 = triton_helpers.prod(tl.where(mask, tmp1, 1), 1)
    tmp5 = triton_helpers.any(tl.where(mask, tmp1 > 2, 0), 1)
    tmp6 = triton_helpers.max2(tl.where(mask, tmp0, float("-inf")), 1) - \
        triton_helpers.min2(tl.where(mask, tmp0, float("inf")), 1)
    tmp7_mean, tmp7_m2, tmp7_w = triton_helpers.welford_reduce(tmp0, tl.zeros_like(tmp0), tl.zeros_like(tmp0),
                                                               tl.zeros_like(tmp0), True)
    tmp8_mean, tmp8_m2, tmp8_w = triton_helpers.welford(tl.where(mask, tmp7_mean, 0.0),
                                                        tl.where(mask, tmp7_m2, 0.0),
                                                        tl.where(mask, tmp7_w, 0.0), 1)
    _, tmp9 = triton_helpers.max_with_index(tl.where(mask, tmp0, float("-inf")),
                                            tl.broadcast_to(r0_index, tmp0.shape), 1)
    _, tmp10 = triton_helpers.min_with_index(tl.where(mask, tmp0, float("inf")),
                                             tl.broadcast_to(r0_index, tmp0.shape), 1)
    # the arg-min again, column by column as a looped reduction does it
    vals = tl.where(mask, tmp0, float("inf"))
    acc_v = tl.full([XBLOCK, 1], float("inf"), tl.float32)
    acc_i = tl.zeros([XBLOCK, 1], tl.int32)
    for c in tl.static_range(R0_BLOCK):
        col = triton_helpers.select_one(vals, r0_index == c, dim=1, keep_dims=True)
        acc_v, acc_i = triton_helpers.minimum_with_index(acc_v, acc_i, col, tl.full([XBLOCK, 1], c, tl.int32))
    tmp11 = tl.reshape(acc_i, [XBLOCK])
    x = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xm = x < xnumel
    tl.store(out_ptr0 + x, tmp3, xm)
    tl.store(out_ptr1 + x, tl.reshape(acc_sum * tl.exp(acc_max - tmp2[:, None]), [XBLOCK]), xm)
    tl.store(out_ptr2 + x, tl.reshape(acc2_sum * tl.exp(acc2_max - tmp2[:, None]), [XBLOCK]), xm)
    tl.store(out_ptr3 + x, tmp4 * 2 + tmp5.to(tl.int32), xm)
    tl.store(out_ptr4 + x, tmp6, xm)
    tl.store(out_ptr5 + x, tmp8_m2 / tmp8_w, xm)
    tl.store(out_ptr6 + x, tmp9 * 10000 + tmp10 * 100 + tmp11, xm)
