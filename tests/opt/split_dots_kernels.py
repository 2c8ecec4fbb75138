"""Kernels whose blocks do not fit in a PE's local memory at GPU-tuned block sizes (``split-dots``, ``stream-blocks``)."""
import triton
import triton.language as tl


@triton.jit
def gemm(A, B, C, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * BK + rk[None, :])
    b = tl.load(B + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)
    tl.store(C + rm[:, None] * BN + rn[None, :], c)


@triton.jit
def gemm_relu(A, B, C, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The result read by element-wise ops before its store: they run on each band."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * BK + rk[None, :])
    b = tl.load(B + rk[:, None] * BN + rn[None, :])
    c = tl.maximum(tl.dot(a, b) * 0.5, 0.0)
    tl.store(C + rm[:, None] * BN + rn[None, :], c.to(tl.float16), mask=rn[None, :] < BN - 3)


@triton.jit
def loop_k(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A loop over K whose tiles do not fit: only K is split (the accumulator is the loop's)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :], mask=(k + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def softmax_shifted(X, n, BLOCK: tl.constexpr):
    """Stores over what it loads, one element over: streamed, a chunk stored would be read again by the next one."""
    offs = tl.arange(0, BLOCK)
    row = tl.load(X + offs, mask=offs < n, other=-float('inf'))
    e = tl.exp(row - tl.max(row, axis=0))
    tl.store(X + 1 + offs, e / tl.sum(e, axis=0), mask=offs < n - 1)


@triton.jit
def store_then_dot(A, B, C, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A store between the loads of a dot's tiles and the dot: sub-tiles loaded at the dot would see it."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * BK + rk[None, :])
    b = tl.load(B + rk[:, None] * BN + rn[None, :])
    tl.store(A + rm[:, None] * BK + rk[None, :], a + 1.0)
    c = tl.dot(a, b)
    tl.store(C + rm[:, None] * BN + rn[None, :], c)
