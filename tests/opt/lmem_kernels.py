"""Kernels whose scratch the local-memory plan must count (tests/opt/test_lmem_plan_agrees.py): shapes of the
corpus's ResNet-18 and GroupNorm kernels (Inductor's y/x tiles and Welford reductions) where the plan was below
what codegen allocates."""
import triton
import triton.language as tl


@triton.jit
def window_rows(in_ptr0, out_ptr0, YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    # ResNet-18's convolution weight copy (a `runs` load of index x + 9 y, slope 9: read through a window of
    # up to 16 times the block, 36864 bytes for YBLOCK 1024)
    xnumel = 9
    yindex = tl.program_id(1) * YBLOCK + tl.arange(0, YBLOCK)[:, None]
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    y0 = yindex % 64
    y1 = yindex // 64
    tmp0 = tl.load(in_ptr0 + (xindex + 9 * yindex), xmask)
    tl.store(out_ptr0 + (y0 + 64 * xindex + 576 * y1), tmp0, xmask)


@triton.jit
def transposed_store(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    # an Inductor y/x tile stored transposed (`split-tiles` by columns: through a transposed copy of the tile)
    ynumel = 192
    xnumel = 49
    yindex = tl.program_id(1) * YBLOCK + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = yindex % 3
    y1 = yindex // 3
    tmp0 = tl.load(in_ptr0 + (x2 + 49 * y3), xmask & ymask)
    tl.store(out_ptr0 + (y0 + 3 * x2 + 147 * y1), tmp0, xmask & ymask)


@triton.jit
def _welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = tl.where(new_weight == 0.0, 0.0, weight_2 / new_weight)
    return mean_1 + delta * w2_over_w, m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w, new_weight


@triton.jit
def welford_rows(in_ptr0, out_ptr0, out_ptr1, R0_BLOCK: tl.constexpr):
    # GroupNorm's Welford reduction of one row: the m2 operand is a constant block, which the reduction reads
    # from a buffer filled at it (and codegen keeps to the kernel's end)
    x = tl.program_id(0)
    r = tl.arange(0, R0_BLOCK)[None, :]
    tmp0 = tl.load(in_ptr0 + (r + R0_BLOCK * x))
    m2 = tl.zeros([1, R0_BLOCK], tl.float32)
    weight = tl.full([1, R0_BLOCK], 1.0, tl.float32)
    mean, var, _ = tl.reduce((tmp0, m2, weight), 1, _welford_combine)
    tl.store(out_ptr0 + x + tl.arange(0, 1), mean)
    tl.store(out_ptr1 + x + tl.arange(0, 1), var)


@triton.jit
def split_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision=PREC))


# Where the plan was above or below codegen's bytes (tests/opt/test_lmem_plan_agrees.py's READERS): Inductor's
# persistent reductions and pointwise kernels as the corpus's layer norm, softmax, argmin, ResNet-18 batch norm and
# MLP training kernels have them.

@triton.jit
def norm_rows(in_ptr0, in_ptr1, out_ptr0, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # the row index [None, :] is a view of the range (one buffer), read as data only by the mask; the addresses
    # read it by their structure; the row's mean and rstd ([1, 1]) are read a scalar a row by the fused op
    xnumel = 64
    r0_numel = 768
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + (r0_index + 768 * xindex), r0_mask & xmask, other=0.0)
    tmp1 = tl.load(in_ptr1 + r0_index, r0_mask, other=0.0)
    tmp2 = tl.where(r0_mask & xmask, tmp0, 0)
    tmp3 = tl.sum(tmp2, 1)[:, None] / 768.0
    tmp4 = tmp0 - tmp3
    tmp5 = tl.sum(tl.where(r0_mask & xmask, tmp4 * tmp4, 0), 1)[:, None] / 768.0
    tmp6 = tmp4 * tl.math.rsqrt(tmp5 + 1e-05) * tmp1
    tl.store(out_ptr0 + (r0_index + 768 * xindex), tmp6, r0_mask & xmask)


@triton.jit
def argmin_cols(in_ptr0, out_ptr0, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # a reduction of a value and its index whose value nothing reads: codegen allocates that result too, in the
    # order of the results, while the reduction runs
    xnumel = 513
    r0_numel = 100
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    acc = tl.full([XBLOCK, R0_BLOCK], float("inf"), tl.float32)
    acc_index = tl.full([XBLOCK, R0_BLOCK], 2147483647, tl.int32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (xindex + 513 * r0_index), r0_mask & xmask, other=0.0)
        take = tmp0 < acc
        acc = tl.where(r0_mask & xmask & take, tmp0, acc)
        acc_index = tl.where(r0_mask & xmask & take, r0_index, acc_index)
    _, idx = tl.reduce((acc, acc_index), 1, _min_with_index)
    tl.store(out_ptr0 + xindex, idx[:, None].to(tl.int64), xmask)


@triton.jit
def _min_with_index(v0, i0, v1, i1):
    lt = (v0 < v1) | ((v0 == v1) & (i0 < i1))
    return tl.where(lt, v0, v1), tl.where(lt, i0, i1)


@triton.jit
def scale_shift_cols(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, XBLOCK: tl.constexpr):
    # four per-channel vectors the slot's programs share (keep-invariant keeps them: its guarded read, a slot or
    # DRAM, writes the `if`'s one buffer)
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    x0 = xindex % 128
    tmp0 = tl.load(in_out_ptr0 + xindex)
    tmp1 = tl.load(in_ptr0 + x0)
    tmp2 = tl.load(in_ptr1 + x0)
    tmp3 = tl.load(in_ptr2 + x0)
    tmp4 = tl.load(in_ptr3 + x0)
    tmp5 = (tmp0 - tmp1) / tl.sqrt_rn(tmp2 + 1e-05) * tmp3 + tmp4
    tl.store(in_out_ptr0 + xindex, tl.maximum(tmp5, 0.0))


@triton.jit
def nll_backward_rows(in_out_ptr0, in_ptr0, in_ptr1, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # a fused op's [X, 1] result that the next fused op reads a scalar a row (its broadcast is never built)
    xnumel = 32
    r0_numel = 10
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + xindex, xmask)
    tmp1 = tl.load(in_out_ptr0 + (r0_index + 10 * xindex), r0_mask & xmask, other=0.0)
    tmp2 = tl.load(in_ptr1 + xindex, xmask)
    valid = tmp0 != -100
    target = tl.where(valid, tmp0, 0)
    tmp3 = tl.where(target == r0_index, -1.0, 0.0) * tl.where(valid, tmp2, 0.0)
    tmp4 = tl.sum(tl.where(r0_mask & xmask, tmp3, 0), 1)[:, None]
    tl.store(in_out_ptr0 + (r0_index + 10 * xindex), tmp3 - tl.exp(tmp1) * tmp4, r0_mask & xmask)
