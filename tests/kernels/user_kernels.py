"""Kernels written the way kernel authors write them (tutorial style and TorchInductor style), for
tests/kernels/test_user_kernels.py.  Each one combines several features; none is copied from elsewhere."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math

from .user_kernels_utils import row_offsets, leaky, clamp_to_u8


# --- tutorial-style row kernels -----------------------------------------------------------------

@triton.jit
def online_softmax(X, Y, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    """One program per row; pass 1 keeps a running max and a rescaled running sum, pass 2 writes."""
    row = tl.program_id(0)
    x_row = X + row * x_stride
    m = -float("inf")
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    inv = 1.0 / l
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        tl.store(Y + row * y_stride + cols, tl.exp(x - m) * inv, mask=mask)


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def grouped_tile_scale(A, Out, RowScale, M, N, stride_am, stride_om,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """out = a * row_scale[:, None] + pid, tiles visited in grouped order (1-D launch)."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    a = tl.load(A + offs_m[:, None] * stride_am + offs_n[None, :], mask=mask, other=0.0)
    s = tl.load(RowScale + offs_m, mask=offs_m < M, other=0.0)
    tl.store(Out + offs_m[:, None] * stride_om + offs_n[None, :], a * s[:, None] + pid, mask=mask)


@triton.jit
def swizzled_copy(A, Out, Tag, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP: tl.constexpr):
    """2-D launch remapped with tl.swizzle2d; each tile is copied and tagged with its linear program id."""
    i = tl.program_id(0)
    j = tl.program_id(1)
    ni = tl.num_programs(0)
    nj = tl.num_programs(1)
    i, j = tl.swizzle2d(i, j, ni, nj, GROUP)
    offs_m = i * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = j * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m < M)[:, None] & (offs_n < N)[None, :]
    ptrs = offs_m[:, None] * N + offs_n[None, :]
    x = tl.load(A + ptrs, mask=mask)
    tl.store(Out + ptrs, x * 2.0, mask=mask)
    tag = tl.program_id(0) * nj + tl.program_id(1)
    tl.store(Tag + i * nj + j, tag)


# --- TorchInductor-style kernels ----------------------------------------------------------------

@triton.jit
def triton_poi_fused_add_relu_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % 64
    x1 = (xindex // 64)
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 64*x1), xmask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(out_ptr0 + (x2), tmp4, xmask)


@triton.jit
def triton_poi_fused_int_relu_1(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    """Integer input: maximum(int32 zero, int32 x) stays int32; then scaled by a float and stored f32."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tmp3 = tmp2.to(tl.float32)
    tmp4 = 0.5
    tmp5 = tmp3 * tmp4
    tl.store(out_ptr0 + (x0), tmp5, xmask)


@triton.jit
def triton_red_fused_sum_max_0(in_ptr0, out_ptr0, out_ptr1, xnumel, rnumel, XBLOCK: tl.constexpr,
                               RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, RBLOCK], 0, tl.float32)
    _tmp4 = tl.full([XBLOCK, RBLOCK], float("-inf"), tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (r1 + (rnumel*x0)), rmask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(rmask & xmask, tmp3, _tmp2)
        tmp5 = triton_helpers.maximum(_tmp4, tmp1)
        _tmp4 = tl.where(rmask & xmask, tmp5, _tmp4)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tmp4 = triton_helpers.max2(_tmp4, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)
    tl.store(out_ptr1 + (x0), tmp4, xmask)


@triton.jit
def triton_red_fused_var_mean_1(in_ptr0, out_ptr0, out_ptr1, xnumel, rnumel, XBLOCK: tl.constexpr,
                                RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    tmp2_mean = tl.zeros([XBLOCK, RBLOCK], tl.float32)
    tmp2_m2 = tl.zeros([XBLOCK, RBLOCK], tl.float32)
    tmp2_weight = tl.zeros([XBLOCK, RBLOCK], tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (r1 + (rnumel*x0)), rmask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])
        tmp2_mean_next, tmp2_m2_next, tmp2_weight_next = triton_helpers.welford_reduce(
            tmp1, tmp2_mean, tmp2_m2, tmp2_weight, roffset == 0
        )
        tmp2_mean = tl.where(rmask & xmask, tmp2_mean_next, tmp2_mean)
        tmp2_m2 = tl.where(rmask & xmask, tmp2_m2_next, tmp2_m2)
        tmp2_weight = tl.where(rmask & xmask, tmp2_weight_next, tmp2_weight)
    tmp3, tmp4, tmp5 = triton_helpers.welford(tmp2_mean, tmp2_m2, tmp2_weight, 1)
    tmp6 = tmp3[:, None]
    tmp7 = tmp4[:, None]
    tmp8 = tmp7 / rnumel
    tl.store(out_ptr0 + (x0), tmp6, xmask)
    tl.store(out_ptr1 + (x0), tmp8, xmask)


@triton.jit
def welford_two_halves(X, Mean, Var, N: tl.constexpr, HALF: tl.constexpr):
    """Each row's two halves summarized separately, then merged with triton_helpers.welford_combine."""
    row = tl.program_id(0)
    cols = tl.arange(0, HALF)
    a = tl.load(X + row * N + cols)
    b = tl.load(X + row * N + HALF + cols)
    mean_a = tl.sum(a, 0) / HALF
    mean_b = tl.sum(b, 0) / HALF
    m2_a = tl.sum((a - mean_a) * (a - mean_a), 0)
    m2_b = tl.sum((b - mean_b) * (b - mean_b), 0)
    w = HALF * 1.0
    mean, m2, weight = triton_helpers.welford_combine(mean_a, m2_a, w, mean_b, m2_b, w)
    tl.store(Mean + row, mean)
    tl.store(Var + row, m2 / weight)


@triton.jit
def triton_per_fused_rms_norm_2(in_ptr0, in_ptr1, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr):
    RBLOCK: tl.constexpr = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    roffset = 0
    rmask = rindex < rnumel
    r1 = rindex
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r1 + (rnumel*x0)), rmask & xmask, other=0.0)
    tmp7 = tl.load(in_ptr1 + (r1), rmask, eviction_policy='evict_last', other=0.0)
    tmp1 = tmp0 * tmp0
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK, RBLOCK])
    tmp4 = tl.where(rmask & xmask, tmp2, 0)
    tmp5 = tl.sum(tmp4, 1)[:, None]
    tmp6 = rnumel.to(tl.float32)
    tmp8 = tmp5 / tmp6
    tmp9 = 1e-06
    tmp10 = tmp8 + tmp9
    tmp11 = libdevice.rsqrt(tmp10)
    tmp12 = tmp0 * tmp11
    tmp13 = tmp12 * tmp7
    tl.store(out_ptr0 + (r1 + (rnumel*x0)), tmp13, rmask & xmask)


@triton.jit
def triton_red_fused_argmax_3(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, RBLOCK], float("-inf"), tl.float32)
    _tmp2_index = tl.full([XBLOCK, RBLOCK], 2147483647, tl.int32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (r1 + (rnumel*x0)), rmask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])
        _tmp2_next, _tmp2_index_next = triton_helpers.maximum_with_index(_tmp2, _tmp2_index, tmp1, rindex)
        _tmp2 = tl.where(rmask & xmask, _tmp2_next, _tmp2)
        _tmp2_index = tl.where(rmask & xmask, _tmp2_index_next, _tmp2_index)
    _, tmp2_tmp = triton_helpers.max_with_index(_tmp2, _tmp2_index, 1)
    tmp2 = tmp2_tmp[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)


@triton.jit
def triton_poi_fused_index_i64_4(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    """Embedding lookup: int64 indices, negative ones wrapped (Python indexing), with a device assert."""
    xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:].to(tl.int64)
    xmask = xindex < xnumel
    x1 = xindex // 16
    x0 = xindex % 16
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([XBLOCK], 10, tl.int64)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 10)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 10")
    tmp6 = tl.load(in_ptr1 + (x0 + 16*tmp4), xmask)
    tl.store(out_ptr0 + (x0 + 16*x1), tmp6, xmask)


# --- dtypes: bool masks, uint8 images, bf16 -------------------------------------------------------

@triton.jit
def compare_masks(A, B, OutBool, OutI8, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask, other=0.0)
    b = tl.load(B + offs, mask=mask, other=0.0)
    gt = a > b
    tl.store(OutBool + offs, gt, mask=mask)
    both = gt & (a > 0)
    tl.store(OutI8 + offs, both.to(tl.int8) + (a == b).to(tl.int8) * 2, mask=mask)


@triton.jit
def brightness_contrast_u8(Img, Out, n_pixels, alpha, beta, BLOCK: tl.constexpr):
    """uint8 RGB image: y = clamp(round(x * alpha + beta), 0, 255), per-channel offset; helper module."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_pixels * 3
    px = tl.load(Img + offs, mask=mask, other=0)
    channel = offs % 3
    x = px.to(tl.float32) * alpha + beta + tl.where(channel == 0, 10.0, 0.0)
    tl.store(Out + offs, clamp_to_u8(x), mask=mask)


@triton.jit
def saturating_add_u8(A, B, Out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask, other=0)
    b = tl.load(B + offs, mask=mask, other=0)
    s = a.to(tl.int16) + b.to(tl.int16)
    s = tl.where(s > 255, 255, s)
    d = a.to(tl.int16) - b.to(tl.int16)
    d = tl.where(d < 0, -d, d)
    tl.store(Out + offs, s.to(tl.uint8), mask=mask)
    tl.store(Out + n + offs, d.to(tl.uint8), mask=mask)


@triton.jit
def bf16_row_scale(X, W, Y, S, n_cols, stride, BLOCK: tl.constexpr):
    """bf16 in, f32 accumulation, bf16 out: y = x * w / rms(x), rms stored in f32."""
    row = tl.program_id(0)
    base, cols = row_offsets(row, stride, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        c = off + cols
        x = tl.load(X + base + c, mask=c < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    rms = tl.sqrt(tl.sum(acc, axis=0) / n_cols + 1e-5)
    tl.store(S + row, rms)
    for off in range(0, n_cols, BLOCK):
        c = off + cols
        m = c < n_cols
        x = tl.load(X + base + c, mask=m, other=0.0).to(tl.float32)
        w = tl.load(W + c, mask=m, other=0.0).to(tl.float32)
        tl.store(Y + base + c, (x / rms * w).to(tl.bfloat16), mask=m)
