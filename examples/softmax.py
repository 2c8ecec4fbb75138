"""Fused softmax: one row per program; the row is padded with -inf so the padding neither wins the
max nor adds to the sum (exp(-inf) = 0).

    mkdir -p build
    mtiacc examples/softmax.py -D BLOCK_SIZE=1024 --signature '*fp32,*fp32,i32,i32,i32' --grid 'input_ptr.shape[0]' \\
        -o build/softmax.bin
    python examples/inputs.py softmax build/softmax.npz   # small seeded inputs
    mtiasim run build/softmax.bin --inputs build/softmax.npz -o build/softmax.out.npz
    python examples/inputs.py softmax --check build/softmax.npz build/softmax.out.npz   # against numpy
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def reference(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z.astype(np.float64))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
