"""More user-style kernels (tests/kernels/test_user_kernels.py): 3-D blocks, data-dependent while
loops, static_range, scatter, matrix-vector products without tl.dot, fp16 activations, scans."""
import triton
import triton.language as tl

from triton.language.extra import libdevice

from .user_kernels_utils import leaky


@triton.jit
def batched_outer_sum(A, B, Out, BATCH, M: tl.constexpr, N: tl.constexpr, BB: tl.constexpr):
    """out[b, i] = sum_j a[b, i] * b[b, j] * (i + j), as a [BB, M, N] block built with [:, :, None]."""
    pid = tl.program_id(0)
    bs = pid * BB + tl.arange(0, BB)
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    bmask = bs < BATCH
    a = tl.load(A + bs[:, None] * M + i[None, :], mask=bmask[:, None], other=0.0)       # [BB, M]
    b = tl.load(B + bs[:, None] * N + j[None, :], mask=bmask[:, None], other=0.0)       # [BB, N]
    w = (i[:, None] + j[None, :]).to(tl.float32)                                        # [M, N]
    prod = a[:, :, None] * b[:, None, :] * w[None, :, :]                                # [BB, M, N]
    s = tl.sum(prod, axis=2)                                                            # [BB, M]
    tl.store(Out + bs[:, None] * M + i[None, :], s, mask=bmask[:, None])


@triton.jit
def segment_sum_while(X, Offsets, Out, BLOCK: tl.constexpr):
    """Ragged segments (CSR offsets): a while loop over a bound loaded from memory."""
    seg = tl.program_id(0)
    start = tl.load(Offsets + seg)
    end = tl.load(Offsets + seg + 1)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    pos = start
    while pos < end:
        offs = pos + tl.arange(0, BLOCK)
        acc += tl.load(X + offs, mask=offs < end, other=0.0)
        pos += BLOCK
    total = tl.sum(acc, axis=0)
    n = end - start
    mean = tl.where(n > 0, total / tl.maximum(n, 1).to(tl.float32), 0.0)
    tl.store(Out + 2 * seg, total)
    tl.store(Out + 2 * seg + 1, mean)


@triton.jit
def newton_sqrt_while(X, Y, Iters, n, BLOCK: tl.constexpr):
    """A while loop whose condition is a reduction over the block (data-dependent trip count)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1.0)
    y = tl.maximum(x, 1.0)
    err = tl.max(tl.abs(y * y - x) / x, axis=0)
    it = 0
    while (err > 1e-6) & (it < 50):
        y = 0.5 * (y + x / y)
        err = tl.max(tl.abs(y * y - x) / x, axis=0)
        it += 1
    tl.store(Y + offs, y, mask=mask)
    tl.store(Iters + tl.program_id(0), it)


@triton.jit
def fir_static_range(X, Taps, Y, n, NTAPS: tl.constexpr, BLOCK: tl.constexpr):
    """y[i] = sum_k taps[k] * x[i - k] (zero before the start), the tap loop unrolled."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(NTAPS):
        src = offs - k
        x = tl.load(X + src, mask=(src >= 0) & (src < n), other=0.0)
        acc += tl.load(Taps + k) * x
    tl.store(Y + offs, acc, mask=offs < n)


@triton.jit
def horner_static_range(X, Y, n, C0: tl.constexpr, C1: tl.constexpr, C2: tl.constexpr, C3: tl.constexpr,
                        BLOCK: tl.constexpr):
    """A polynomial with constexpr coefficients chosen inside a static_range loop."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    acc = tl.zeros_like(x)
    for k in tl.static_range(3, -1, -1):
        if k == 3:
            c = C3
        elif k == 2:
            c = C2
        elif k == 1:
            c = C1
        else:
            c = C0
        acc = acc * x + c
    tl.store(Y + offs, acc, mask=mask)


@triton.jit
def scatter_by_index(Src, Idx, Out, n, n_out, BLOCK: tl.constexpr):
    """out[perm(idx[i])] = src[i] * 2 for idx in range; the target index is computed, the mask drops
    negative and out-of-range indices."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(Idx + offs, mask=mask, other=-1)
    target = (idx * 3 + 1) % n_out
    ok = mask & (idx >= 0) & (idx < n_out)
    v = tl.load(Src + offs, mask=mask, other=0.0)
    tl.store(Out + target, v * 2.0, mask=ok)


@triton.jit
def matvec_rows(A, X, Y, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    """y = leaky(A @ x) without tl.dot: a K loop of broadcast multiply and a row sum."""
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(A + rows[:, None] * stride_am + ks[None, :],
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        x = tl.load(X + ks, mask=ks < K, other=0.0)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(Y + rows, leaky(acc, 0.1), mask=rows < M)


@triton.jit
def gelu_tanh_fp16(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.0).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(Y + offs, y.to(tl.float16), mask=mask)


@triton.jit
def row_cumsum_normalize(X, Y, n_cols, BLOCK: tl.constexpr):
    """Per row: cumulative sum divided by the row total (an empirical CDF); ragged rows masked."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=mask, other=0.0)
    c = tl.cumsum(x, axis=0)
    total = tl.sum(x, axis=0)
    tl.store(Y + row * n_cols + cols, c / total, mask=mask)


@triton.jit
def checked_div(X, D, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.load(D + offs, mask=mask, other=1)
    tl.device_assert(d != 0, "divisor must be non-zero", mask=mask)
    x = tl.load(X + offs, mask=mask, other=0)
    tl.store(Y + offs, x // d, mask=mask)


@triton.jit
def transpose_tiles_i64(X, Y, M, N, stride_xm, stride_yn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Tiled transpose with int64 offsets (program id promoted before the multiply, as for big tensors)."""
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * stride_xm + rn[None, :], mask=mask)
    tl.store(Y + rn[None, :] * stride_yn + rm[:, None], x, mask=mask)


@triton.jit
def attention_row(Q, K, V, O, L, seq_len, scale, D: tl.constexpr, BLOCK_N: tl.constexpr):
    """One query row against all keys: online softmax over key blocks, output = softmax(qK^T) V."""
    qi = tl.program_id(0)
    d = tl.arange(0, D)
    q = tl.load(Q + qi * D + d) * scale
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros([D], dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        n = start_n + tl.arange(0, BLOCK_N)
        nmask = n < seq_len
        k = tl.load(K + n[:, None] * D + d[None, :], mask=nmask[:, None], other=0.0)
        s = tl.sum(k * q[None, :], axis=1)
        s = tl.where(nmask, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)
        v = tl.load(V + n[:, None] * D + d[None, :], mask=nmask[:, None], other=0.0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, 0)
        m_i = m_new
    tl.store(O + qi * D + d, acc / l_i)
    tl.store(L + qi, m_i + tl.log(l_i))
