"""Pointer arguments whose Triton type is not the tensor's torch dtype: ``triton.reinterpret`` to a type torch has
not (fp8e4b15; the kernel sees the bytes as that type, as in test_core.py's test_abs_fp8), and pointers annotated
``tl.const`` (``*kfp32``, test_const)."""
import numpy as np
import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

import triton.language as tl  # noqa: E402

from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


@triton.jit
def abs_kernel(X, Z, SIZE: tl.constexpr):
    off = tl.arange(0, SIZE)
    tl.store(Z + off, tl.abs(tl.load(X + off)))


def test_abs_of_fp8e4b15_clears_the_sign_bit():
    x = torch.tensor(range(-128, 128), dtype=torch.int8)     # every byte; fp8e4b15 has no NaN or infinity
    z = torch.empty_like(x)
    abs_kernel[(1,)](triton.reinterpret(x, tl.float8e4b15), triton.reinterpret(z, tl.float8e4b15), 256)
    np.testing.assert_array_equal(z.numpy().view(np.uint8), x.numpy().view(np.uint8) & 0x7F)


@triton.jit
def copy_const_kernel(in_ptr: tl.const, out, n: tl.int32, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(in_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


def test_a_pointer_annotated_const_is_passed():
    """``tl.const`` pointers (Triton's signature says ``*kfp32``) load as any pointer (test_core's test_const)."""
    x = torch.randn(100, generator=torch.Generator().manual_seed(5))
    out = torch.zeros(100)
    copy_const_kernel[(1,)](x, out, 100, BLOCK=128)
    np.testing.assert_array_equal(out.numpy(), x.numpy() * 2.0)
