"""RMSNorm: y = x / sqrt(mean(x^2) + eps) * w, one row per program, the row read in BLOCK_SIZE
chunks (so any N works).

    mkdir -p build
    mtiacc examples/rms_norm.py -D BLOCK_SIZE=256 --signature '*fp32,*fp32,*fp32,i32,i32,fp32' --grid 'X.shape[0]' \\
        -o build/rms_norm.bin
    python examples/inputs.py rms_norm build/rms_norm.npz   # small seeded inputs
    mtiasim run build/rms_norm.bin --inputs build/rms_norm.npz -o build/rms_norm.out.npz
    python examples/inputs.py rms_norm --check build/rms_norm.npz build/rms_norm.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(X, Y, W, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    _sum_sq = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _sum_sq += x * x
    rrms = tl.rsqrt(tl.sum(_sum_sq, axis=0) / N + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        tl.store(Y + cols, x * rrms * w, mask=mask)


def reference(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    x64 = x.astype(np.float64)
    rms = np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps)
    return (x64 / rms * w).astype(np.float32)
