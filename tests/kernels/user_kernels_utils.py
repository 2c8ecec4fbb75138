"""Helpers imported by tests/kernels/user_kernels.py with `from .user_kernels_utils import ...`,
the way a kernel author splits a project into modules."""
import triton
import triton.language as tl


@triton.jit
def row_offsets(row, stride, BLOCK: tl.constexpr):
    """The column offsets of one row and the row's base offset (int64, for big tensors)."""
    cols = tl.arange(0, BLOCK)
    return row.to(tl.int64) * stride, cols


@triton.jit
def leaky(x, slope):
    return tl.where(x >= 0, x, x * slope)


@triton.jit
def clamp_to_u8(x):
    # round half to even, as numpy's rint does, then clamp into 0..255
    y = tl.minimum(tl.maximum(x, 0.0), 255.0)
    return libdevice_rint(y).to(tl.uint8)


@triton.jit
def libdevice_rint(x):
    # x + 1.5 * 2**23 - 1.5 * 2**23 rounds to an integer (ties to even) for 0 <= x < 2**22
    magic = 12582912.0
    return (x + magic) - magic
