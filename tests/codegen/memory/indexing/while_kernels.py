"""Kernels for tests/codegen/memory/indexing/test_while_ptrs.py: pointer blocks carried through `while` and `if`."""
import triton
import triton.language as tl


@triton.jit
def while_row_sum(X, Y, N, stride, BLOCK: tl.constexpr):
    """1-D: one row per program, the pointer block advanced by BLOCK while blocks remain."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    ptrs = X + row * stride + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    k = 0
    while k < N:
        acc += tl.load(ptrs, mask=offs < N - k, other=0.0)
        ptrs += BLOCK
        k += BLOCK
    tl.store(Y + row, tl.sum(acc, axis=0))


@triton.jit
def while_gather_step(X, Y, N, BLOCK: tl.constexpr):
    """A non-uniform, non-affine advance (odd lanes step twice as far): the general path."""
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    i = 0
    while i < N:
        acc += tl.load(ptrs)
        ptrs = tl.where(offs % 2 == 0, ptrs + 1, ptrs + 2)
        i += 1
    tl.store(Y + offs, acc)


@triton.jit
def if_two_bases(X, Z, Y, flag, BLOCK: tl.constexpr):
    """An `if` choosing between pointer blocks into two different tensors."""
    offs = tl.arange(0, BLOCK)
    if flag > 0:
        ptrs = X + offs
    else:
        ptrs = Z + offs + 1
    tl.store(Y + offs, tl.load(ptrs, mask=offs < 10, other=-1.0))


@triton.jit
def while_tile_2d(X, Y, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    """2-D: a BM x BN tile walks along the columns of an M x N matrix; Y gets the tile-wise sum."""
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    ptrs = X + rows[:, None] * stride + cols[None, :]
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    k = 0
    while k < N:
        m = (rows[:, None] < M) & (cols[None, :] < N - k)
        acc += tl.load(ptrs, mask=m, other=0.0)
        ptrs += BN
        k += BN
    tl.store(Y + rows[:, None] * BN + cols[None, :], acc)


@triton.jit
def while_copy_after(X, Y, N, BLOCK: tl.constexpr):
    """Load and store pointer blocks both carried through `while`; the store pointer is used after."""
    offs = tl.arange(0, BLOCK)
    xp = X + offs
    yp = Y + offs
    k = 0
    while k < N:
        m = offs < N - k
        tl.store(yp, tl.load(xp, mask=m) * 2.0, mask=m)
        xp += BLOCK
        yp += BLOCK
        k += BLOCK
    tl.store(yp, tl.full([BLOCK], 7.0, tl.float32), mask=offs < 1)


@triton.jit
def for_gather_step(X, Y, N, BLOCK: tl.constexpr):
    """A `for` loop whose pointer block is yielded by a `tl.where`: carried as data."""
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(N):
        acc += tl.load(ptrs, mask=offs < 12, other=0.0)
        ptrs = tl.where(offs % 2 == 0, ptrs + 1, ptrs + 2)
    tl.store(Y + offs, acc)


@triton.jit
def if_two_bases_2d(X, Z, Y, stride, flag, B: tl.constexpr):
    """A 2-D pointer tile into one of two tensors, chosen at run time."""
    r = tl.arange(0, B)
    c = tl.arange(0, B)
    if flag > 0:
        p = X + r[:, None] * stride + c[None, :]
    else:
        p = Z + r[:, None] * stride + c[None, :] + 3
    tl.store(Y + r[:, None] * B + c[None, :], tl.load(p))


@triton.jit
def if_two_strides(X, Y, flag, BLOCK: tl.constexpr):
    """Branches whose pointer blocks differ beyond a scalar (stride 1 or 2): carried as data."""
    offs = tl.arange(0, BLOCK)
    if flag > 0:
        ptrs = X + offs
    else:
        ptrs = X + offs * 2
    tl.store(Y + offs, tl.load(ptrs, mask=offs < 10, other=-1.0))
