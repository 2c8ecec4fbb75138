"""Tensors passed through ``triton.reinterpret`` with an element type torch has not (fp8e4b15): the kernel sees
the bytes as that type, as in Triton's test_core.py (test_abs_fp8)."""
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
