"""Kernels the Triton backend tests launch (at module level: mtiacc compiles them from this file)."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, stride_xm, stride_xn, stride_om, n_cols, scale,
                      BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask)
    tl.store(out_ptr + row * stride_om + cols, x * scale, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 64}), triton.Config({"BLOCK_SIZE": 256}),
                          triton.Config({"BLOCK_SIZE": 1024})], key=["n"])
@triton.jit
def tuned_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def rejected_kernel(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    seed = tl.load(x_ptr + offs, mask=offs < n)
    r = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [seed], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr + offs, r, mask=offs < n)


@triton.jit
def axpb_kernel(x_ptr, a_ptr, b_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * tl.load(a_ptr + offs) + tl.load(b_ptr + offs))


@triton.jit
def store_then_load_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(z_ptr + offs) + 1)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x * 2)
