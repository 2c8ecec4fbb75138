"""Kernels for tests/codegen/memory/indexing/test_runtime_stride.py: 1-D accesses with a run-time stride."""
import triton
import triton.language as tl


@triton.jit
def strided_scale(X, Y, N, sx, sy, BLOCK: tl.constexpr):
    """y[i * sy] = 2 x[i * sx] + 1 for i < N, both strides run-time arguments (as Inductor writes
    non-contiguous inputs)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs * sx, mask=m, other=0.0)
    tl.store(Y + offs * sy, x * 2.0 + 1.0, mask=m)


@triton.jit
def strided_sum(X, Y, N, stride, BLOCK: tl.constexpr):
    """Unmasked run-time-strided loads of a whole block, then a reduction (other lanes unused)."""
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, N, BLOCK):
        acc += tl.load(X + (k + offs) * stride)
    tl.store(Y + tl.program_id(0), tl.sum(acc, axis=0))
