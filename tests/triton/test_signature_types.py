"""Through the backend the element types are Triton's signature's, never worked out again from the tensors: a
tensor viewed as another element type (``x.view(torch.int32)``), or passed to a pointer annotated with another
type, is read by its bits, as Triton's compiled kernel reads them on a GPU."""
import numpy as np
import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

import triton.language as tl  # noqa: E402

from mtiacc.runtime import load  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


def _floats():
    return torch.tensor([1.0, 2.0, -4.0, 0.5, -0.0, 3.0e38, 1.0e-40, -7.25])


@triton.jit
def neg_kernel(X, Z, N: tl.constexpr):
    off = tl.arange(0, N)
    tl.store(Z + off, -tl.load(X + off))


def test_a_float_tensor_viewed_as_int32_is_negated_as_integers():
    x = _floats().view(torch.int32)
    z = torch.zeros_like(x)
    compiled = neg_kernel[(1,)](x, z, 8)
    assert compiled.src.signature["X"] == "*i32"
    np.testing.assert_array_equal(z.numpy(), -x.numpy())


def test_a_float_tensor_viewed_as_bfloat16_flips_each_halfs_sign_bit():
    x = _floats().view(torch.bfloat16)
    z = torch.zeros_like(x)
    neg_kernel[(1,)](x, z, 16)
    bits = x.view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(z.view(torch.int16).numpy().view(np.uint16), bits ^ 0x8000)


@triton.jit
def exponent_kernel(X: "*i32", Z, N: tl.constexpr):
    off = tl.arange(0, N)
    tl.store(Z + off, (tl.load(X + off) >> 23) & 0xFF)


@triton.jit
def exponent_ptr_type_kernel(X: tl.pointer_type(tl.int32), Z, N: tl.constexpr):
    off = tl.arange(0, N)
    tl.store(Z + off, (tl.load(X + off) >> 23) & 0xFF)


@pytest.mark.parametrize("kernel", [exponent_kernel, exponent_ptr_type_kernel])
def test_a_float_tensor_passed_to_an_int32_pointer_is_read_by_its_bits(kernel):
    x = _floats()
    z = torch.zeros(8, dtype=torch.int32)
    compiled = kernel[(1,)](x, z, 8)
    assert compiled.src.signature["X"] == "*i32"       # Triton's type: the annotation's, not the tensor's
    np.testing.assert_array_equal(z.numpy(), (x.view(torch.int32).numpy() >> 23) & 0xFF)


@triton.jit
def flag_kernel(X: tl.const, Z, flag, N: tl.constexpr):
    off = tl.arange(0, N)
    x = tl.load(X + off)
    tl.store(Z + off, tl.where(flag, x, -x))


def test_the_launcher_takes_its_types_from_tritons_signature():
    """``*kfp32`` (a ``tl.const`` pointer) and ``u1`` (a bool) are Triton's spellings of mtiacc's ``*fp32`` and
    ``i1``; the constexpr is no type."""
    x = _floats()
    z = torch.zeros_like(x)
    compiled = flag_kernel[(1,)](x, z, False, 8)
    assert compiled.src.signature == {"X": "*kfp32", "Z": "*fp32", "flag": "u1", "N": "constexpr"}
    assert compiled.run.types == {"X": "*fp32", "Z": "*fp32", "flag": "i1"}
    np.testing.assert_array_equal(z.numpy(), -x.numpy())


def test_types_given_to_the_runtime_are_the_kernels_and_arrays_are_read_by_their_bits():
    """What the backend relies on: ``Kernel.prepare(types=...)`` compiles for those types and passes an array of
    another element type by its bits (the kernel here has no annotation to say so)."""
    kernel = load(__file__, "neg_kernel")
    x = _floats().numpy()
    z = np.zeros(8, np.int32)
    prepared = kernel.prepare(x, z, 8, grid=(1,), types={"X": "*i32", "Z": "*i32"})
    assert prepared.signature == "*i32,*i32"
    prepared.execute()
    np.testing.assert_array_equal(z, -x.view(np.int32))
