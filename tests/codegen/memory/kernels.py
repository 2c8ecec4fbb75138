"""Kernels for tests/codegen/memory: scalar loads/stores, gather/scatter (compiled from this file)."""
import triton
import triton.language as tl


@triton.jit
def scalar_copy(x_ptr, y_ptr, n, OTHER: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid, mask=pid < n, other=OTHER)
    tl.store(y_ptr + pid, v)


@triton.jit
def scalar_masked_store(x_ptr, y_ptr, n):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid % n)
    tl.store(y_ptr + pid, v, mask=pid < n)


@triton.jit
def scalar_axpy(x_ptr, a_ptr, y_ptr, N, BLOCK: tl.constexpr):
    # a scalar parameter read from memory, mixed with blocks
    a = tl.load(a_ptr)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, a * x + tl.load(a_ptr + 1), mask=m)


@triton.jit
def scalar_loop_sum(x_ptr, out_ptr, n):
    acc = 0.0
    for i in range(n):
        acc += tl.load(x_ptr + i)
    tl.store(out_ptr + tl.program_id(0), acc)


@triton.jit
def embedding_bag(table_ptr, idx_ptr, out_ptr, n_idx, D: tl.constexpr, BAG: tl.constexpr):
    # out[b, :] = sum over j < BAG of table[idx[b * BAG + j], :]
    bag = tl.program_id(0)
    j = tl.arange(0, BAG)
    cols = tl.arange(0, D)
    rows = tl.load(idx_ptr + bag * BAG + j, mask=bag * BAG + j < n_idx, other=0)
    vals = tl.load(table_ptr + rows[:, None] * D + cols[None, :])
    tl.store(out_ptr + bag * D + cols, tl.sum(vals, axis=0))


@triton.jit
def gather_1d(x_ptr, idx_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    v = tl.load(x_ptr + idx, mask=m & (idx >= 0), other=-7)
    tl.store(out_ptr + offs, v, mask=m)


@triton.jit
def scatter_1d(x_ptr, idx_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + idx, v * 2, mask=m)


@triton.jit
def scatter_rows(x_ptr, idx_ptr, out_ptr, R, D: tl.constexpr, BLOCK: tl.constexpr):
    # out[idx[r], :] = x[r, :] for the rows of this program
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, D)
    m = r < R
    dest = tl.load(idx_ptr + r, mask=m, other=0)
    x = tl.load(x_ptr + r[:, None] * D + cols[None, :], mask=m[:, None])
    tl.store(out_ptr + dest[:, None] * D + cols[None, :], x, mask=m[:, None])


@triton.jit
def row_gather(x_ptr, src_ptr, cidx_ptr, out_ptr, R, C, LO, BR: tl.constexpr, BC: tl.constexpr):
    # im2col-like: each row of the block reads row src[r] of x (-1: a padding row, masked off), its
    # columns at the loaded offsets cidx (consecutive or not, as the test chooses)
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, BC)
    src = tl.load(src_ptr + rows, mask=rows < R, other=-1)
    cidx = tl.load(cidx_ptr + cols)
    m = (src >= 0)[:, None] & ((cols >= LO) & (cols < C))[None, :]
    v = tl.load(x_ptr + (src * C)[:, None] + cidx[None, :], mask=m, other=-3.0)
    tl.store(out_ptr + (rows * BC)[:, None] + cidx[None, :], v + 1.0, mask=(rows < R)[:, None])
