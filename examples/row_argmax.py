"""Row argmax: the index of the first maximum of each row (one row per program, -inf padding).

    mkdir -p build
    mtiacc examples/row_argmax.py -D BLOCK_N=1024 --signature '*fp32,*i32,i32,i32' --grid 'X.shape[0]' \\
        -o build/row_argmax.bin
    python examples/inputs.py row_argmax build/row_argmax.npz   # small seeded inputs
    mtiasim run build/row_argmax.bin --inputs build/row_argmax.npz -o build/row_argmax.out.npz
    python examples/inputs.py row_argmax --check build/row_argmax.npz build/row_argmax.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_argmax_kernel(X, OUT, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=-3.0e38)
    # A one-element block store (scalar stores are not supported by codegen yet).
    one = tl.arange(0, 1)
    tl.store(OUT + row + one, tl.argmax(x, axis=0) + one * 0)


def reference(x: np.ndarray) -> np.ndarray:
    return x.argmax(axis=1).astype(np.int32)
