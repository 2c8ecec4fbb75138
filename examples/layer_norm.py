"""Layer norm, forward and backward, one row per program with loops over BLOCK_SIZE column chunks
(so N is a run-time value).

Forward: y = (x - mean) * rstd * w + b; it also saves mean and rstd = 1 / sqrt(var + eps) per row.
Backward: dx per row (``layer_norm_bwd_dx``), and dw, db per block of columns summed over the rows
(``layer_norm_bwd_dwdb``, one program per column block: no atomics needed).

    mkdir -p build
    mtiacc examples/layer_norm.py --kernel layer_norm_fwd -D BLOCK_SIZE=256 \\
        --signature '*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32' --grid 'Mean.shape[0]' -o build/layer_norm.bin
    python examples/inputs.py layer_norm build/layer_norm.npz   # small seeded inputs
    mtiasim run build/layer_norm.bin --inputs build/layer_norm.npz -o build/layer_norm.out.npz
    python examples/inputs.py layer_norm --check build/layer_norm.npz build/layer_norm.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layer_norm_bwd_dx(DX, DY, X, W, Mean, Rstd, stride, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    DY += row * stride
    DX += row * stride
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    # c1 = mean(x_hat * w * dy), c2 = mean(w * dy)
    _c1 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    _c2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(X + cols, mask=mask, other=0.)
        dy = tl.load(DY + cols, mask=mask, other=0.)
        w = tl.load(W + cols, mask=mask, other=0.)
        xhat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = w * dy
        _c1 += xhat * wdy
        _c2 += wdy
    c1 = tl.sum(_c1, axis=0) / N
    c2 = tl.sum(_c2, axis=0) / N
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(X + cols, mask=mask, other=0.)
        dy = tl.load(DY + cols, mask=mask, other=0.)
        w = tl.load(W + cols, mask=mask, other=0.)
        xhat = (x - mean) * rstd
        dx = (w * dy - (xhat * c1 + c2)) * rstd
        tl.store(DX + cols, dx, mask=mask)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, DY, X, Mean, Rstd, M, N, stride, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    dw = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    db = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for row in range(0, M):
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        x = tl.load(X + row * stride + cols, mask=mask, other=0.)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.)
        dw += dy * (x - mean) * rstd
        db += dy
    tl.store(DW + cols, dw, mask=mask)
    tl.store(DB + cols, db, mask=mask)


def reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float):
    """y, mean, rstd of the forward pass (computed in float64)."""
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd = 1.0 / np.sqrt(x64.var(axis=1) + eps)
    y = (x64 - mean[:, None]) * rstd[:, None] * w + b
    return y.astype(np.float32), mean.astype(np.float32), rstd.astype(np.float32)


def reference_bwd(dy: np.ndarray, x: np.ndarray, w: np.ndarray, mean: np.ndarray, rstd: np.ndarray):
    """dx, dw, db (float64 inside)."""
    dy64, x64 = dy.astype(np.float64), x.astype(np.float64)
    xhat = (x64 - mean[:, None]) * rstd[:, None]
    wdy = w * dy64
    c1 = (xhat * wdy).mean(axis=1, keepdims=True)
    c2 = wdy.mean(axis=1, keepdims=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return dx.astype(np.float32), (dy64 * xhat).sum(axis=0).astype(np.float32), dy64.sum(axis=0).astype(np.float32)
