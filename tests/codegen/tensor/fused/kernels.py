"""Kernels with elementwise chains for the fuse-elementwise differential tests."""
import triton
import triton.language as tl


@triton.jit
def mixed_chain(X, Y, A, Z, N, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=0.0)
    y = tl.load(Y + offs, mask=m, other=1.0)
    a = x * s + y                      # also stored: an intermediate used outside the chain
    tl.store(A + offs, a, mask=m)
    z = tl.where(a > 0.0, a, -a * 0.5)
    z = tl.maximum(z, y) - tl.minimum(x, 0.25) / (y * y + 1.0)
    tl.store(Z + offs, tl.exp(z * 0.125), mask=m)


@triton.jit
def int_chain(X, Y, Z, N, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    a = tl.load(X + offs, mask=m, other=0)
    b = tl.load(Y + offs, mask=m, other=0)
    c = ((a > 0) & (b < 5)) | (a == b) | ((a ^ k) < 0)
    r = tl.where(c, a - b, a * b + k)
    r = tl.maximum(r, -1000) + (r >> 2) - (b & 7)
    tl.store(Z + offs, r, mask=m)


@triton.jit
def long_math(X, Y, Z, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=0.5)
    y = tl.load(Y + offs, mask=m, other=0.5)
    e = tl.exp(x * 0.5)
    s = tl.sin(x)
    c = tl.cos(y)
    t = libtanh(y)
    l = tl.log(tl.abs(x) + 1.0)
    f = tl.erf(y * 0.75)
    g = tl.sqrt(tl.abs(y) + 2.0)
    h = tl.exp(y * 0.25)
    k = tl.sin(y)
    q = tl.cos(x)
    a = tl.exp(x * y * 0.125)
    b = tl.sin(x + y)
    d = tl.cos(x * 0.375)
    o = tl.log(tl.abs(y) + 3.0)
    r = e * s + c * t + l * f + g * (x - y) + tl.floor(x) * tl.ceil(y) + h * k * q + a * b + d * o
    tl.store(Z + offs, r, mask=m)


@triton.jit
def libtanh(v):
    return tl.sigmoid(2.0 * v) * 2.0 - 1.0
