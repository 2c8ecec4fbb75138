"""Strided 2-D transpose: Y = X.T, one BLOCK_M x BLOCK_N tile per program, runtime strides.

    mkdir -p build
    mtiacc examples/transpose.py -D BLOCK_M=16 -D BLOCK_N=16 --signature '*fp32,*fp32,i32,i32,i32,i32,i32,i32' \\
        --grid 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' -o build/transpose.bin
    python examples/inputs.py transpose build/transpose.npz   # small seeded inputs
    mtiasim run build/transpose.bin --inputs build/transpose.npz -o build/transpose.out.npz
    python examples/inputs.py transpose --check build/transpose.npz build/transpose.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(X, Y, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tile = tl.load(X + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask)
    tl.store(Y + rn[:, None] * stride_ym + rm[None, :] * stride_yn, tl.trans(tile), mask=tl.trans(mask))


def reference(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.T)
