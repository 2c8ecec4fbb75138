"""Autotuned kernels for tests/triton/test_parallel_tuning.py (at module level: mtiacc compiles them from this
file)."""
import triton
import triton.language as tl

BLOCKS = (64, 256, 1024, 1 << 20)     # the last does not fit a PE's local memory: Triton refuses it


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in BLOCKS], key=["n"])
@triton.jit
def tuned_axpy(x_ptr, y_ptr, out_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in BLOCKS[:3]], key=["n"], restore_value=["x_ptr"])
@triton.jit
def tuned_add_in_place(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
