"""Kernels for tests/codegen/select/debug: tl.device_print and tl.device_assert (compiled from this file)."""
import triton
import triton.language as tl


@triton.jit
def print_values(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_print("x: ", x)
    tl.device_print("pid", pid, n)
    tl.device_print("sum", tl.sum(x, axis=0))


@triton.jit
def print_2d(x_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.device_print("v ", x, r[:, None] * 10 + c[None, :])


@triton.jit
def checked_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=-1)
    tl.device_assert(x >= 0, "negative input", mask=m)
    tl.store(y_ptr + offs, x, mask=m)


@triton.jit
def scalar_assert(x_ptr, n):
    pid = tl.program_id(0)
    tl.device_assert(pid < n, "pid out of range")
    tl.store(x_ptr + pid, pid)


@triton.jit
def bad_prefix(x_ptr):
    tl.device_print(x_ptr, 1)
