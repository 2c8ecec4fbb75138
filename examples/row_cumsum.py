"""Row cumsum: the inclusive running sum of each row (one row per program).

    mkdir -p build
    mtiacc examples/row_cumsum.py -D BLOCK_N=256 --signature '*fp32,*fp32,i32,i32' --grid 'X.shape[0]' \\
        -o build/row_cumsum.bin
    python examples/inputs.py row_cumsum build/row_cumsum.npz   # small seeded inputs
    mtiasim run build/row_cumsum.bin --inputs build/row_cumsum.npz -o build/row_cumsum.out.npz
    python examples/inputs.py row_cumsum --check build/row_cumsum.npz build/row_cumsum.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_cumsum_kernel(X, Y, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=0.0)
    tl.store(Y + row * stride + cols, tl.cumsum(x, axis=0), mask=cols < N)


def reference(x: np.ndarray) -> np.ndarray:
    return np.cumsum(x, axis=1, dtype=np.float32)   # sequential in float32, as the kernel adds
