r"""Matrix multiply without tl.dot: C = A @ B by a broadcast multiply and tl.sum over k.

One BLOCK_M x BLOCK_N tile of C per program; the whole k extent in one BLOCK_K tile (K <= BLOCK_K).

    mkdir -p build
    mtiacc examples/matmul_nodot.py -D BLOCK_M=8 -D BLOCK_N=8 -D BLOCK_K=16 \
        --signature '*fp32,*fp32,*fp32,i32,i32,i32' --grid 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' \
        -o build/matmul_nodot.bin
    python examples/inputs.py matmul_nodot build/matmul_nodot.npz   # small seeded inputs
    mtiasim run build/matmul_nodot.bin --inputs build/matmul_nodot.npz -o build/matmul_nodot.out.npz
    python examples/inputs.py matmul_nodot --check build/matmul_nodot.npz build/matmul_nodot.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def matmul_nodot_kernel(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(A + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(B + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.astype(np.float64) @ b).astype(np.float32)
