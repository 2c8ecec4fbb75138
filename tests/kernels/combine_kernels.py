"""Kernels with tl.reduce / tl.associative_scan combine functions (tests/kernels/test_combine.py)."""
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _argmax_combine(a, ai, b, bi):
    # the larger value; on a tie the smaller index
    take_a = (a > b) | ((a == b) & (ai < bi))
    return tl.where(take_a, a, b), tl.where(take_a, ai, bi)


@triton.jit
def _swap_pair(a0, a1, b0, b1):
    # (x, y) . (u, v) = (x + u, y + v): returned as the accumulators swap places twice
    return a0 + b0, a1 + b1


@triton.jit
def _welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    frac = tl.where(n == 0.0, 0.0, n_b / n)
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * n_a * frac, n


@triton.jit
def reduce_argmax_rows(X, V, I, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    idx = tl.broadcast_to(cols[None, :], (M, N))
    v, i = tl.reduce((x, idx), 1, _argmax_combine)
    tl.store(V + rows, v)
    tl.store(I + rows, i)


@triton.jit
def reduce_axis0_keepdims(X, Y, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    s = tl.reduce(x, 0, _mul, keep_dims=True)       # [1, N]
    tl.store(Y + cols[None, :], s)


@triton.jit
def reduce_all_to_scalar(X, Y, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    total = tl.reduce(x, None, _add)
    first = x.reduce(1, _add)                     # method form
    tl.store(Y + tl.arange(0, 1), total + tl.zeros((1,), tl.int32))  # scalar stores: not yet
    tl.store(Y + (rows + 1), first)


@triton.jit
def welford_rows(X, MEAN, VAR, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    mean, m2, n = tl.reduce((x, tl.zeros_like(x), tl.full((M, N), 1.0, tl.float32)), 1, _welford_combine)
    tl.store(MEAN + rows, mean)
    tl.store(VAR + rows, m2 / n)


@triton.jit
def scan_rows(X, Y, Z, M: tl.constexpr, N: tl.constexpr, REVERSE: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(X + offs)
    s = tl.associative_scan(x, 1, _add, reverse=REVERSE)
    c, = tl.associative_scan((x,), 0, _add)
    tl.store(Y + offs, s)
    tl.store(Z + offs, c)


@triton.jit
def scan_pairs_1d(X, A, B, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    a, b = tl.associative_scan((x, x * 2), 0, _swap_pair)
    tl.store(A + offs, a)
    tl.store(B + offs, b)


@triton.jit
def running_max_index(X, V, I, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    v, i = tl.associative_scan((x, offs), 0, _argmax_combine)
    tl.store(V + offs, v)
    tl.store(I + offs, i)


@triton.jit
def float_specials(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(X + offs, mask=mask, other=-float("inf"))
    lo = tl.full((BLOCK,), float("inf"), tl.float32)
    m = tl.max(x, 0)
    y = tl.where(x == m, lo, x)
    y = tl.where(mask, y, float("nan"))
    tl.store(Y + offs, y)
    one = tl.arange(0, 1)
    tl.store(Y + BLOCK + one, -float('inf') + m * 0 + tl.zeros((1,), tl.float32))


@triton.jit
def _clamped_add(a, b):
    s = a + b
    if s > 100:  # run-time control flow inside a combine function
        s = 100
    return s


@triton.jit
def combine_with_if(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.associative_scan(tl.load(X + offs), 0, _clamped_add))


@triton.jit
def reduce_in_loop(X, Y, M, N: tl.constexpr, ROWS: tl.constexpr):
    # per chunk of ROWS rows: each row's argmax pair, accumulated across the chunks
    cols = tl.arange(0, N)
    best = tl.full((ROWS,), -float("inf"), tl.float32)
    best_i = tl.zeros((ROWS,), tl.int32)
    for start in range(0, M, ROWS):
        rows = start + tl.arange(0, ROWS)
        x = tl.load(X + rows[:, None] * N + cols[None, :], mask=(rows < M)[:, None], other=-float("inf"))
        v, i = tl.reduce((x, tl.broadcast_to(cols[None, :], (ROWS, N))), 1, _argmax_combine)
        take = v > best
        best = tl.where(take, v, best)
        best_i = tl.where(take, rows * N + i, best_i)   # flat index of the element
    tl.store(Y + tl.arange(0, ROWS), best_i)


@triton.jit
def reduce_argmax_rows_i64(X, V, I, M: tl.constexpr, N: tl.constexpr):
    # 64-bit indices: the scalar path of codegen (the vector path takes 32-bit elements)
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    idx = tl.broadcast_to(cols[None, :], (M, N)).to(tl.int64)
    v, i = tl.reduce((x, idx), 1, _argmax_combine)
    tl.store(V + rows, v)
    tl.store(I + rows, i)


@triton.jit
def python_min_max(X, Y, N, G: tl.constexpr):
    # Python's min/max/abs: constexpr folding, and tl.minimum/tl.maximum/tl.abs on run-time values
    offs = tl.arange(0, 8)
    x = tl.load(X + offs)
    lim = min(G, N - 2)                   # run-time scalar
    y = max(x, -lim, min(3, G)) + abs(-G)  # block, scalar, constexpr
    tl.store(Y + offs, abs(y - 10))
