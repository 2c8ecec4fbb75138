"""Kernels for tests/codegen/memory/indexing: loop-carried pointer blocks, Inductor-style loops."""
import triton
import triton.language as tl


@triton.jit
def row_sum_carried(X, Y, N, stride, BLOCK: tl.constexpr):
    """1-D: one row per program, the pointer block advanced by BLOCK each iteration."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    ptrs = X + row * stride + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, N, BLOCK):
        x = tl.load(ptrs, mask=offs < N - k, other=0.0)
        acc += x
        ptrs += BLOCK
    tl.store(Y + row, tl.sum(acc, axis=0))


@triton.jit
def scaled_copy_carried(X, Y, N, BLOCK: tl.constexpr):
    """1-D: load and store pointer blocks both carried, advanced by a run-time step."""
    offs = tl.arange(0, BLOCK)
    xp = X + offs
    yp = Y + offs
    step = BLOCK * 1
    for k in range(0, N, BLOCK):
        m = offs < N - k
        tl.store(yp, tl.load(xp, mask=m) * 2.0, mask=m)
        xp += step
        yp = yp + step
    # the results after the loop: one more (masked) element at index N
    tl.store(yp, tl.load(xp - step, mask=offs < 0, other=7.0), mask=offs < 1)


@triton.jit
def matmul_no_dot(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """2-D: a matmul without tl.dot whose A and B tiles are carried pointer blocks."""
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = B + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N), other=0.0)
        acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    c_ptrs = C + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def gather_step_carried(X, Y, N, BLOCK: tl.constexpr):
    """A non-uniform increment (each lane moves by its own amount): the offset block is carried."""
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, N):
        acc += tl.load(ptrs)
        ptrs += offs % 2 + 1
    tl.store(Y + offs, acc)


@triton.jit
def too_big(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(X + offs)
    b = tl.load(Y + offs)
    c = a * b + a
    tl.store(Y + offs, c + b)


@triton.jit
def nested_carried(X, Y, R, C, BLOCK: tl.constexpr):
    """Nested loops both advancing one pointer block: by a column chunk inside, by a row outside."""
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for r in range(0, R):
        for c in range(0, C):
            acc += tl.load(ptrs)
            ptrs += BLOCK
        ptrs += 1
    tl.store(Y + offs, acc)


@triton.jit
def ptrs_through_if(X, Y, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs
    if flag > 0:
        ptrs = ptrs + 1
    tl.store(Y + offs, tl.load(ptrs))


@triton.jit
def cond_advance(X, Y, N, BLOCK: tl.constexpr):
    """In a loop, an `if` advances the pointer block on even iterations only."""
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, N):
        acc += tl.load(ptrs)
        if k % 2 == 0:
            ptrs += 1
        ptrs += BLOCK
    tl.store(Y + offs, acc)
