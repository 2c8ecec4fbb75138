# access-plan `wrapped-tiles`, Inductor's bmm template: `rm % M` with M a constant, constant strides,
# the batch term `idx_q * stride_aq`, unmasked loads (EVEN_K), the K loop counting down; the constant
# modulus would also read as a split form, but a wrapped tile moves whole runs of rows per transfer.
# A 1-D block wrapped by a run-time modulus is one too (one row); by a constant, it is `runs`.
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=persistent-programs -D BLOCK_M=32 -D BLOCK_N=32 -D BLOCK_K=16 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bmm_like(arg_A, arg_B, out_ptr0, X, Y, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             BLOCK_K: tl.constexpr):
    M = 64
    N = 80
    K = 96
    stride_aq = 6144
    stride_am = 96
    stride_ak = 1
    stride_bq = 7680
    stride_bk = 80
    stride_bn = 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = rn % N
    rk = tl.arange(0, BLOCK_K)
    idx_q = tl.program_id(1)
    A = arg_A + (ram[:, None] * stride_am + rk[None, :] * stride_ak + idx_q * stride_aq)
    B = arg_B + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn + idx_q * stride_bq)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K):
        a = tl.load(A)
        b = tl.load(B)
        acc += tl.sum(a, axis=1)[:, None] + tl.sum(b, axis=0)[None, :]
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)
    xindex = idx_n + 80 * idx_m + 5120 * idx_q
    tl.store(out_ptr0 + (tl.broadcast_to(xindex, [BLOCK_M, BLOCK_N])), acc, mask)
    offs = tl.arange(0, 16)
    v = tl.load(X + (pid_m + offs) % n)
    w = tl.load(X + (pid_m + offs) % 12)
    tl.store(Y + offs, v + w)

# CHECK-LABEL: sym_name = "bmm_like"
# CHECK: %a = "tt.load"(%{{[^,)]+}}) {access = "wrapped-tiles"
# CHECK-SAME: (tensor<32x16x!tt.ptr<f32>>)
# CHECK: %b = "tt.load"(%{{[^,)]+}}) {access = "wrapped-tiles"
# CHECK-SAME: (tensor<16x32x!tt.ptr<f32>>)
# CHECK: "tt.store"(%{{[^,]+}}, %{{[^,]+}}, %mask) {access = "tiles"
# CHECK: %v = "tt.load"(%{{[^,)]+}}) {access = "wrapped-tiles"
# CHECK: %w = "tt.load"(%{{[^,)]+}}) {access = "runs"
