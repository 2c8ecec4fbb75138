"""Kernels for tests/codegen/memory/wrapped: tiles indexed ``(u + arange) % R`` along some axes (the
``wrapped-tiles`` plan), compiled from this file.  The pointers add ``R * stride`` (or ``base``) so that
negative remainders (C's ``%`` of a negative ``u`` or ``R``) stay inside the buffers."""
import triton
import triton.language as tl


@triton.jit
def wrap_rows(X, Out, base, R, sr, sc, u0, kvalid, BR: tl.constexpr, BC: tl.constexpr):
    """The a operand of a GEMM: rows wrapped, columns masked to a prefix; the tile dumped densely."""
    pid = tl.program_id(0)
    rows = (u0 + pid * BR + tl.arange(0, BR)) % R
    cols = tl.arange(0, BC)
    tile = tl.load(X + base + rows[:, None] * sr + cols[None, :] * sc, mask=cols[None, :] < kvalid, other=-1.0)
    tl.store(Out + pid * BR * BC + tl.arange(0, BR)[:, None] * BC + cols[None, :], tile)


@triton.jit
def wrap_cols(X, Out, R, sr, sc, u0, kvalid, BK: tl.constexpr, BN: tl.constexpr):
    """The b operand: columns wrapped, rows masked to a prefix."""
    pid = tl.program_id(0)
    rows = tl.arange(0, BK)
    cols = (u0 + pid * BN + tl.arange(0, BN)) % R
    tile = tl.load(X + R * sc + rows[:, None] * sr + cols[None, :] * sc, mask=rows[:, None] < kvalid, other=-1.0)
    tl.store(Out + pid * BK * BN + rows[:, None] * BN + tl.arange(0, BN)[None, :], tile)


@triton.jit
def wrap_both(X, Out, R1, R2, sr, sc, u1, u2, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    rows = (u1 + pid * BR + tl.arange(0, BR)) % R1
    cols = (u2 + pid * BC + tl.arange(0, BC)) % R2
    tile = tl.load(X + R1 * sr + R2 * sc + rows[:, None] * sr + cols[None, :] * sc)
    tl.store(Out + pid * BR * BC + tl.arange(0, BR)[:, None] * BC + tl.arange(0, BC)[None, :], tile)


@triton.jit
def wrap_copy(X, Y, R, sr, u0, M, kvalid, BR: tl.constexpr, BC: tl.constexpr):
    """A wrapped load and a wrapped store under a box mask (a prefix on the wrapped axis too)."""
    pid = tl.program_id(0)
    offs = u0 + pid * BR + tl.arange(0, BR)
    rows = offs % R
    cols = tl.arange(0, BC)
    box = (offs < M)[:, None] & (cols < kvalid)[None, :]
    tile = tl.load(X + R * sr + rows[:, None] * sr + cols[None, :], mask=box, other=0.0)
    tl.store(Y + R * sr + rows[:, None] * sr + cols[None, :], tile * 2.0 + 1.0, mask=box)


@triton.jit
def wrap_const(X, Out, BR: tl.constexpr, BC: tl.constexpr, R: tl.constexpr, SR: tl.constexpr):
    """Inductor's `rm % M` with M and the strides constants."""
    pid = tl.program_id(0)
    rm = pid * BR + tl.arange(0, BR)
    ram = tl.max_contiguous(tl.multiple_of(rm % R, BR), BR)
    cols = tl.arange(0, BC)
    tile = tl.load(X + ram[:, None] * SR + cols[None, :])
    tl.store(Out + pid * BR * BC + tl.arange(0, BR)[:, None] * BC + cols[None, :], tile)


@triton.jit
def wrap_3d(X, Out, R, sq, sr, sc, sb, u0, kvalid, BQ: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr,
            AXIS: tl.constexpr):
    """A batched (3-D) tile wrapped along AXIS, the last axis masked to a prefix, plus a batch term
    ``idx_q * sb`` (Inductor's bmm)."""
    pid = tl.program_id(0)
    idx_q = tl.program_id(1)
    q = tl.arange(0, BQ)[:, None, None]
    r = tl.arange(0, BR)[None, :, None]
    c = tl.arange(0, BC)[None, None, :]
    if AXIS == 0:
        off = ((u0 + pid * BQ + q) % R) * sq + r * sr + c * sc + R * sq
    elif AXIS == 1:
        off = q * sq + ((u0 + pid * BR + r) % R) * sr + c * sc + R * sr
    else:
        off = q * sq + r * sr + ((u0 + pid * BC + c) % R) * sc + R * sc
    tile = tl.load(X + off + idx_q * sb, mask=c < kvalid, other=-1.0)
    dense = q * (BR * BC) + r * BC + c
    tl.store(Out + (idx_q * tl.num_programs(0) + pid) * (BQ * BR * BC) + dense, tile)


@triton.jit
def matmul_tutorial(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                    stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                    BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    """Triton's tutorial 03, tl.dot replaced by row and column sums of the operand tiles."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator += tl.sum(a.to(tl.float32), axis=1)[:, None] + tl.sum(b.to(tl.float32), axis=0)[None, :]
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)


@triton.jit
def bmm_template(arg_A, arg_B, out_ptr0, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Inductor's bmm template (EVEN_K, constant sizes and strides), tl.dot replaced by sums."""
    M = 48
    N = 40
    K = 32
    stride_aq = 1536
    stride_am = 32
    stride_ak = 1
    stride_bq = 1280
    stride_bk = 40
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
    xindex = idx_n + N * idx_m + M * N * idx_q
    tl.store(out_ptr0 + (tl.broadcast_to(xindex, [BLOCK_M, BLOCK_N])), acc, mask)


@triton.jit
def clamp_rows(X, Out, base, M, sr, sc, u0, C, kvalid, BR: tl.constexpr, BC: tl.constexpr, GE: tl.constexpr):
    """Tutorial 09's a operand: rows clamped, ``where(offs < M, offs, C)`` (``GE``: ``where(offs >= M, C,
    offs)``), columns masked to a prefix; the tile dumped densely.  ``base`` keeps negative rows inside X."""
    pid = tl.program_id(0)
    offs = u0 + pid * BR + tl.arange(0, BR)
    if GE:
        rows = tl.where(offs >= M, C, offs)
    else:
        rows = tl.where(offs < M, offs, C)
    rows = tl.max_contiguous(tl.multiple_of(rows, BR), BR)
    cols = tl.arange(0, BC)
    tile = tl.load(X + base + rows[:, None] * sr + cols[None, :] * sc, mask=cols[None, :] < kvalid, other=-1.0)
    tl.store(Out + pid * BR * BC + tl.arange(0, BR)[:, None] * BC + cols[None, :], tile)


@triton.jit
def clamp_cols(X, Out, base, N, sr, sc, u0, C, kvalid, BK: tl.constexpr, BN: tl.constexpr):
    """Tutorial 09's b operand: columns clamped (``N > offs`` written the other way round), rows masked."""
    pid = tl.program_id(0)
    rows = tl.arange(0, BK)
    offs = u0 + pid * BN + tl.arange(0, BN)
    cols = tl.where(N > offs, offs, C)
    tile = tl.load(X + base + rows[:, None] * sr + cols[None, :] * sc, mask=rows[:, None] < kvalid, other=-1.0)
    tl.store(Out + pid * BK * BN + rows[:, None] * BN + tl.arange(0, BN)[None, :], tile)


@triton.jit
def clamp_3d(X, Out, base, R, sq, sr, u0, C, BQ: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    """A 3-D tile clamped along its outer axis."""
    pid = tl.program_id(0)
    offs = u0 + pid * BQ + tl.arange(0, BQ)
    q = tl.where(offs < R, offs, C)[:, None, None]
    r = tl.arange(0, BR)[None, :, None]
    c = tl.arange(0, BC)[None, None, :]
    tile = tl.load(X + base + q * sq + r * sr + c)
    tl.store(Out + pid * (BQ * BR * BC) + tl.arange(0, BQ)[:, None, None] * (BR * BC) + r * BC + c, tile)


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr, MIXED: tl.constexpr, DOT: tl.constexpr):
    """Triton's tutorial 09 (persistent matmul): clamped operand offsets (b's written ``where(offs >= N, 0,
    offs)``; ``MIXED``: a's wrapped ``% M`` as in tutorial 03), the pointers rebuilt per K step under a K
    prefix mask; ``tl.dot`` (``DOT``) or the tiles' row and column sums."""
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        start_m = pid_m * BLOCK_SIZE_M
        start_n = pid_n * BLOCK_SIZE_N
        offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
        if MIXED:
            offs_am = offs_am % M
        else:
            offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn >= N, 0, offs_bn)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K, other=0.0)
            if DOT:
                accumulator = tl.dot(a, b, accumulator)
            else:
                accumulator += tl.sum(a.to(tl.float32), axis=1)[:, None] + tl.sum(b.to(tl.float32), axis=0)[None, :]
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator, mask=c_mask)
