"""Tutorial 02's fused softmax with the precise exponential, ``libdevice.exp`` (the vector library's 1 ULP) in
place of ``tl.exp`` (approximate, as on Triton's GPU backends: the SIMD engine's 2 ULP).  Used by
benchmarks/bench_roofline.py to show what the precise spelling costs."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = libdevice.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)
