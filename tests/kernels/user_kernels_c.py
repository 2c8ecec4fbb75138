"""User-style kernels, third set (tests/kernels/test_user_kernels.py): persistent grid-stride loops,
early returns, integer hashing with wrap-around, constexpr feature flags, strided/column-major access,
bit tricks, counting with boolean sums."""
import triton
import triton.language as tl


@triton.jit
def persistent_scale_rows(X, Y, n_rows, n_cols, BLOCK: tl.constexpr):
    """A persistent kernel: each program walks rows pid, pid + nprogs, ... (grid-stride loop)."""
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    cmask = cols < n_cols
    for row in range(pid, n_rows, nprog):
        x = tl.load(X + row * n_cols + cols, mask=cmask, other=0.0)
        y = x / (tl.max(tl.abs(x), axis=0) + 1e-6)
        tl.store(Y + row * n_cols + cols, y, mask=cmask)


@triton.jit
def early_exit_copy(X, Y, n_rows, n_cols, BLOCK: tl.constexpr):
    """Programs past the last row return at once; row 0 is special-cased with a scalar mask."""
    row = tl.program_id(0)
    if row >= n_rows:
        return
    cols = tl.arange(0, BLOCK)
    first = row == 0
    x = tl.load(X + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(Y + row * n_cols + cols, x + 1.0, mask=cols < n_cols)
    tl.store(Y + n_rows * n_cols + cols, x * 10.0, mask=first & (cols < n_cols))


@triton.jit
def hash_keep_mask(Seeds, X, Y, Kept, n, p_keep, BLOCK: tl.constexpr):
    """Dropout-like: a 32-bit integer hash (multiply wraps), logical shifts on uint32, keep if
    hash/2**32 < p_keep, scaled by 1/p; the number of kept elements per program via a bool sum."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(Seeds)
    h = (offs + seed).to(tl.uint32)
    h = h * 747796405 + 2891336453
    h = ((h >> ((h >> 28) + 4)) ^ h) * 277803737
    h = (h >> 22) ^ h
    r = h.to(tl.float32) * (1.0 / 4294967296.0)
    keep = r < p_keep
    x = tl.load(X + offs, mask=mask, other=0.0)
    tl.store(Y + offs, tl.where(keep, x / p_keep, 0.0), mask=mask)
    tl.store(Kept + pid, tl.sum((keep & mask).to(tl.int32), axis=0))


@triton.jit
def _act(x, ACT: tl.constexpr):
    if ACT == "relu":
        return tl.maximum(x, 0.0)
    elif ACT == "sigmoid":
        return tl.sigmoid(x)
    return x


@triton.jit
def linear_epilogue(X, Bias, Res, Y, M, N, stride, HAS_BIAS: tl.constexpr, HAS_RES: tl.constexpr,
                    ACT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """y = act(x + bias) + residual, features switched by constexpr flags."""
    tl.static_assert(BLOCK_N % 8 == 0)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    offs = rm[:, None] * stride + rn[None, :]
    acc = tl.load(X + offs, mask=mask, other=0.0)
    if HAS_BIAS:
        acc += tl.load(Bias + rn, mask=rn < N, other=0.0)[None, :]
    acc = _act(acc, ACT)
    if HAS_RES:
        acc = acc + tl.load(Res + offs, mask=mask, other=0.0)
    tl.store(Y + offs, acc, mask=mask)


@triton.jit
def col_major_colsum(X, Out, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Column sums of a matrix given by two run-time strides (column-major when stride_m == 1),
    reducing over axis 0 in a loop, keep_dims then squeezed."""
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([1, BLOCK_N], dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rm = m0 + tl.arange(0, BLOCK_M)
        x = tl.load(X + rm[:, None] * stride_m + rn[None, :] * stride_n,
                    mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.0)
        acc += tl.sum(x, axis=0, keep_dims=True)
    tl.store(Out + rn[None, :], acc, mask=(rn < N)[None, :])


@triton.jit
def bit_tricks(X, Y, E, n, BLOCK: tl.constexpr):
    """|x| by clearing the sign bit, the unbiased exponent by shifting the bits, copysign by or-ing."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1.0)
    bits = x.to(tl.int32, bitcast=True)
    ab = (bits & 0x7FFFFFFF).to(tl.float32, bitcast=True)
    expo = ((bits >> 23) & 0xFF) - 127
    neg_one = (bits & -2147483648) | 0x3F800000
    tl.store(Y + offs, ab * neg_one.to(tl.float32, bitcast=True), mask=mask)
    tl.store(E + offs, expo, mask=mask)


@triton.jit
def ragged_rows_i64_bounds(X, RowPtr, Out, BLOCK: tl.constexpr):
    """Per row a range(start, end, BLOCK) loop whose bounds are int64 values loaded from memory;
    the max and its first position, tracked across blocks."""
    row = tl.program_id(0)
    start = tl.load(RowPtr + row)
    end = tl.load(RowPtr + row + 1)
    best = -float("inf")
    best_i = tl.full([], -1, tl.int64)
    for s in range(start, end, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < end, other=-float("inf"))
        m = tl.max(x, axis=0)
        i = tl.argmax(x, axis=0)
        better = m > best
        best_i = tl.where(better, s + i - start, best_i)
        best = tl.maximum(best, m)
    tl.store(Out + row, best_i)


@triton.jit
def fp16_masked_max_norm(X, Y, n_cols, BLOCK: tl.constexpr):
    """fp16 row: masked lanes load -inf (in fp16), max in fp16, result scaled in f32 and stored fp16."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=mask, other=float("-inf"))
    mx = tl.max(x, axis=0)
    y = x.to(tl.float32) - mx.to(tl.float32)
    tl.store(Y + row * n_cols + cols, tl.exp(y).to(tl.float16), mask=mask)


@triton.jit
def permute_3d(X, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    """y[c, a, b] = x[a, b, c] + a, a 3-D block built from three aranges, tl.permute and tl.reshape."""
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(X + a * (B * C) + b * C + c)
    x = x + a.to(tl.float32)
    y = tl.permute(x, (2, 0, 1))
    flat = tl.reshape(y, (C * A * B,))
    tl.store(Y + tl.arange(0, C * A * B), flat)


@triton.jit
def argmin_axis0(X, Out, M: tl.constexpr, N, BLOCK_N: tl.constexpr):
    """The argmin down each column of an [M, N] matrix (axis 0), ragged N."""
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = tl.arange(0, M)
    x = tl.load(X + rm[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
    tl.store(Out + rn, tl.argmin(x, axis=0), mask=rn < N)
