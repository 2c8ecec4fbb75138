"""Kernels with loops over tiles, for tests/opt/test_pipeline_loads.py (the looped softmax is
benchmarks/kernels/softmax_looped.py)."""
import triton
import triton.language as tl


@triton.jit
def dot_rows(Out, A, B, K, TILES: tl.constexpr, BLOCK: tl.constexpr):
    """Out[r] = sum(A[r, :] * B): a reduction over a constant number of unmasked tiles."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for t in range(TILES):
        cols = t * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(A + row * K + cols) * tl.load(B + cols)
    tl.store(Out + row, tl.sum(acc, axis=0))


@triton.jit
def shift_in_place(X, N, BLOCK: tl.constexpr):
    """X[i] = X[i + 1] + 1, tile by tile in one program: a load the loop's stores overwrite later (not moved)."""
    for off in range(0, N - 1, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols + 1, mask=cols < N - 1)
        tl.store(X + cols, x + 1.0, mask=cols < N - 1)


@triton.jit
def scaled_copy(Y, X, N, step, BLOCK: tl.constexpr):
    """Y = 2 X over [0, N) by tiles of BLOCK: masks from a bound the loop does not use (a clamped prefetch)."""
    for off in tl.range(0, N, BLOCK, num_stages=2):
        cols = off + tl.arange(0, BLOCK)
        tl.store(Y + cols, tl.load(X + cols, mask=cols < step) * 2.0, mask=cols < step)


@triton.jit
def no_pipeline_hint(Y, X, N, BLOCK: tl.constexpr):
    """The loop asks for one stage: left alone."""
    for off in tl.range(0, N, BLOCK, num_stages=1):
        cols = off + tl.arange(0, BLOCK)
        tl.store(Y + cols, tl.load(X + cols, mask=cols < N) + 1.0, mask=cols < N)


@triton.jit
def strided_rows(Y, X, stride, n_rows, n_cols, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    """Each program takes rows program_id, program_id + num_programs, ...: one row a trip, loaded, reduced,
    stored (a persistent row loop whose step is known only at launch)."""
    for r in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=STAGES):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + r * stride + cols, mask=cols < n_cols, other=float("-inf"))
        tl.store(Y + r * stride + cols, x - tl.max(x, axis=0), mask=cols < n_cols)


@triton.jit
def rows_by_argument(Y, X, stride, n_rows, n_cols, step, BLOCK: tl.constexpr):
    """The row loop of strided_rows with a step read from an argument (its sign unknown): left alone."""
    for r in tl.range(tl.program_id(0), n_rows, step, num_stages=2):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + r * stride + cols, mask=cols < n_cols, other=0.0)
        tl.store(Y + r * stride + cols, x * 2.0, mask=cols < n_cols)
