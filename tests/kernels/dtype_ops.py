"""The kernels of the element-type tables (tests/dtype_table.py): load, store, arithmetic and a comparison on
one element type, for every entry (the CLI, ``mtiacc.load``, the Triton backend)."""
import triton
import triton.language as tl


@triton.jit
def ops(X, Y, Z, M, W, N: tl.constexpr):
    off = tl.arange(0, N)
    x = tl.load(X + off)
    y = tl.load(Y + off)
    tl.store(Z + off, x + y)
    m = x < y
    tl.store(M + off, m)
    tl.store(W + off, tl.where(m, x, y))


@triton.jit
def ops_wide(X, Y, Z, M, W, N: tl.constexpr):
    """The fp8 formats: Triton's backends neither add nor compare fp8, so both are done in fp32."""
    off = tl.arange(0, N)
    x = tl.load(X + off)
    y = tl.load(Y + off)
    xf = x.to(tl.float32)
    yf = y.to(tl.float32)
    tl.store(Z + off, xf + yf)
    m = xf < yf
    tl.store(M + off, m)
    tl.store(W + off, tl.where(m, x, y))


@triton.jit
def ops_strided(X, sx, Y, sy, Z, M, W, N: tl.constexpr):
    """``ops`` on X and Y with element strides (non-contiguous views)."""
    off = tl.arange(0, N)
    x = tl.load(X + off * sx)
    y = tl.load(Y + off * sy)
    tl.store(Z + off, x + y)
    m = x < y
    tl.store(M + off, m)
    tl.store(W + off, tl.where(m, x, y))


@triton.jit
def add_scalar(X, s, Z, M, N: tl.constexpr):
    """A scalar parameter of the block's type: Z = X + s, M = X < s."""
    off = tl.arange(0, N)
    x = tl.load(X + off)
    tl.store(Z + off, x + s)
    tl.store(M + off, x < s)
