"""Kernels for the N-d block tests (read by mtiacc with `ast`, never imported)."""
import triton
import triton.language as tl


@triton.jit
def add_row(X, R, Y, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Y[m, n] = X[m, n] + R[n]: a row vector broadcast over a masked tile."""
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(X + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    r = tl.load(R + cols, mask=cols < N, other=0.0)
    tl.store(Y + rows[:, None] * N + cols[None, :], x + r[None, :], mask=mask)


@triton.jit
def row_reduce(X, S, MX, MN, AMX, AMN, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Row sums, max, min, argmax, argmin of a masked tile (-3e38/+3e38 padding for max/min)."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = X + rows[:, None] * stride + cols[None, :]
    x = tl.load(ptrs, mask=mask, other=0.0)
    lo = tl.load(ptrs, mask=mask, other=-3.0e38)
    hi = tl.load(ptrs, mask=mask, other=3.0e38)
    rmask = rows < M
    tl.store(S + rows, tl.sum(x, axis=1), mask=rmask)
    tl.store(MX + rows, tl.max(lo, axis=1), mask=rmask)
    tl.store(MN + rows, hi.min(1), mask=rmask)
    tl.store(AMX + rows, tl.argmax(lo, axis=1), mask=rmask)
    tl.store(AMN + rows, tl.argmin(hi, 1), mask=rmask)


@triton.jit
def col_reduce(X, S, MX, AMX, AMN, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Column reductions (axis 0) of one tile, and keep_dims."""
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    lo = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=-3.0e38)
    x = tl.where(mask, lo, 0.0)
    s = tl.sum(x, axis=0, keep_dims=True)
    tl.store(S + cols[None, :], s, mask=(cols < N)[None, :])
    tl.store(MX + cols, tl.max(lo, axis=0), mask=cols < N)
    tl.store(AMX + cols, tl.argmax(lo, axis=0), mask=cols < N)
    tl.store(AMN + cols, tl.argmin(tl.where(mask, lo, 3.0e38), axis=0), mask=cols < N)


@triton.jit
def full_reduce(X, OUT, N, BM: tl.constexpr, BN: tl.constexpr):
    """Whole-tile reductions (axis=None) of an int tile, as scalars."""
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    x = tl.load(X + offs, mask=offs < N, other=0)
    total = tl.sum(x)
    big = tl.max(x)
    small = tl.min(tl.where(offs < N, x, 2147483647))
    xs = tl.xor_sum(x, axis=None)
    am = tl.argmax(tl.ravel(x), 0)
    k = tl.arange(0, 8)
    res = tl.where(k == 0, total, tl.where(k == 1, big, tl.where(k == 2, small, tl.where(k == 3, xs, am))))
    tl.store(OUT + k, res, mask=k < 5)


@triton.jit
def transpose(X, Y, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    """Y = X.T with runtime strides on both sides."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    x = tl.load(X + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    tl.store(Y + rn[:, None] * sym + rm[None, :] * syn, tl.trans(x), mask=tl.trans(mask))


@triton.jit
def scans(X, CS, CP, RCS, CS0, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """cumsum / cumprod along rows, reverse cumsum, cumsum along columns."""
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    offs = rows[:, None] * N + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(X + offs, mask=mask, other=0.0)
    tl.store(CS + offs, tl.cumsum(x, axis=1), mask=mask)
    tl.store(CP + offs, tl.cumprod(tl.where(mask, x, 1.0), 1), mask=mask)
    tl.store(RCS + offs, x.cumsum(1, reverse=True), mask=mask)
    tl.store(CS0 + offs, tl.cumsum(x, axis=0), mask=mask)


@triton.jit
def shapes3d(X, Y, Z, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    """3-D blocks: reshape/ravel round trips, permute, expand_dims, broadcast_to, a 3-D sum."""
    i = tl.arange(0, BA * BB * BC)
    x = tl.load(X + i)
    t = tl.reshape(x, (BA, BB, BC))
    p = tl.permute(t, (2, 0, 1))                       # (BC, BA, BB)
    tl.store(Y + i, tl.ravel(p))
    e = tl.expand_dims(tl.sum(t, axis=2), 2)           # (BA, BB, 1)
    b = tl.broadcast_to(e, (BA, BB, BC)) + t.reshape(BA, BB, BC) * 0
    tl.store(Z + i, tl.view(b, BA * BB * BC))


@triton.jit
def matmul_nodot(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B for small tiles: broadcast multiply and tl.sum over k."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(B + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    c = tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(C + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def general_mask(X, Y, N, BM: tl.constexpr, BN: tl.constexpr):
    """A non-box mask (lower triangle) on a 2-D tile: element-by-element transfers, `other` elsewhere."""
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    tri = (c <= r) & (r < N) & (c < N)
    x = tl.load(X + r * N + c, mask=tri, other=-1.0)
    tl.store(Y + r * BN + c, x)
