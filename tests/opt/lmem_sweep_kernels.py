"""GPU-sized kernels for the local-memory sweep (tests/opt/test_lmem_sweep.py): a grouped-order GEMM whose K loop
moves its operand pointers (as tutorial 03 writes it), a row softmax and a row layer norm, with their block sizes
given as constexprs."""
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
         GROUP: tl.constexpr, PREC: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    in_group = GROUP * tiles_n
    first_m = (pid // in_group) * GROUP
    rows_here = min(tiles_m - first_m, GROUP)
    tile_m = first_m + (pid % in_group) % rows_here
    tile_n = (pid % in_group) // rows_here
    rm = (tile_m * BM + tl.arange(0, BM)) % M
    rn = (tile_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a_ptr + rm[:, None] * K + rk[None, :]
    pb = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a = tl.load(pa, mask=rk[None, :] < left, other=0.0)
        b = tl.load(pb, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PREC)
        pa += BK
        pb += BK * N
    om = tile_m * BM + tl.arange(0, BM)
    on = tile_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + om[:, None] * N + on[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(om[:, None] < M) & (on[None, :] < N))


@triton.jit
def softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    """Each program takes rows first, first + programs, ... (a persistent loop over rows, as tutorial 02's)."""
    cols = tl.arange(0, BLOCK)
    for r in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x = tl.load(in_ptr + r * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + r * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def layer_norm(X, Y, W, B, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    part = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        part += tl.load(X + cols, mask=cols < N, other=0.0)
    mean = tl.sum(part, axis=0) / N
    part = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        d = tl.where(cols < N, tl.load(X + cols, mask=cols < N, other=0.0) - mean, 0.0)
        part += d * d
    rstd = 1 / tl.sqrt(tl.sum(part, axis=0) / N + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(X + cols, mask=m, other=0.0)
        tl.store(Y + cols, (x - mean) * rstd * tl.load(W + cols, mask=m) + tl.load(B + cols, mask=m), mask=m)
