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
