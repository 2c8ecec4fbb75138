"""Kernels for test_tiles_2d.py: N-d affine tiles (the ``tiles`` plan) and split-index tiles moved by 2-D DMA."""
import triton
import triton.language as tl


@triton.jit
def tile_copy(X, Y, M, N, sxm, sym, MASK: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """Y[r, c] = X[r, c] * 2 on (BM, BN) tiles with run-time row strides.  MASK 0: none; 1: the prefix box
    ``rows < M & cols < N``; 2: a general mask (odd columns off, in the box), loads take -7 off the mask."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    src = X + rows[:, None] * sxm + cols[None, :]
    dst = Y + rows[:, None] * sym + cols[None, :]
    if MASK == 0:
        t = tl.load(src)
        tl.store(dst, t * 2.0)
    elif MASK == 1:
        box = (rows < M)[:, None] & (cols < N)[None, :]
        t = tl.load(src, mask=box, other=-7.0)
        tl.store(dst, t * 2.0, mask=box)
    else:
        m = (rows < M)[:, None] & (cols < N)[None, :] & (cols % 2 == 0)[None, :]
        t = tl.load(src, mask=m, other=-7.0)
        tl.store(dst, t * 2.0, mask=m)


@triton.jit
def tile_transpose(X, Y, M, N, sxm, sxn, sym, BM: tl.constexpr, BN: tl.constexpr):
    """Y[r, c] = X[r * sxm + c * sxn] with a run-time column stride (1 or not), boxed."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    box = (rows < M)[:, None] & (cols < N)[None, :]
    t = tl.load(X + rows[:, None] * sxm + cols[None, :] * sxn, mask=box, other=0.0)
    tl.store(Y + rows[:, None] * sym + cols[None, :], t, mask=box)


@triton.jit
def tile_scatter_t(X, Y, M, N, sxm, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    """Y[r * sym + c * syn] = X[r, c] (a store with a run-time column stride), boxed."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    box = (rows < M)[:, None] & (cols < N)[None, :]
    t = tl.load(X + rows[:, None] * sxm + cols[None, :], mask=box, other=0.0)
    tl.store(Y + rows[:, None] * sym + cols[None, :] * syn, t + 1.0, mask=box)


@triton.jit
def tile_3d(X, Y, B, M, N, sxb, sxm, BB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """A (BB, BM, BN) block: one 2-D transfer per batch slab."""
    b = tl.arange(0, BB)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    box = (b < B)[:, None, None] & (rows < M)[None, :, None] & (cols < N)[None, None, :]
    off = b[:, None, None] * sxb + rows[None, :, None] * sxm + cols[None, None, :]
    t = tl.load(X + off, mask=box, other=3.0)
    tl.store(Y + b[:, None, None] * (BM * BN) + rows[None, :, None] * BN + cols[None, None, :], t)


@triton.jit
def split_tile(in_ptr0, out_ptr0, ynumel, xnumel, XN: tl.constexpr, YN: tl.constexpr, YBLOCK: tl.constexpr,
               XBLOCK: tl.constexpr):
    """Inductor's transposed copy: rows in (``tiles``), a transposed store (``split-tiles``)."""
    yindex = tl.program_id(1) * YBLOCK + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex + XN * yindex), xmask & ymask)
    tl.store(out_ptr0 + (yindex + YN * xindex), tmp0 + 1.0, xmask & ymask)
