"""Host tensor descriptors (``triton.tools.tensor_descriptor.TensorDescriptor.from_tensor``) of rank 1 to 4 and
tuple constexprs (``shape: tl.constexpr`` given a tuple) through the Triton backend, as test_core.py's
test_cat_nd passes them: the result against torch.cat; and the descriptors mtiacc refuses, with the reason."""
import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from mtiacc.diagnostics import UserError  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


@triton.jit
def cat_kernel(x_desc, y_desc, z_desc, dim: tl.constexpr, shape: tl.constexpr):
    rank: tl.constexpr = len(shape)
    x = x_desc.load([0] * rank)
    y = y_desc.load([0] * rank)
    z_desc.store([0] * rank, tl.cat(x, y, dim=dim))


@pytest.mark.parametrize("shape, dim", [((16,), 0), ((4, 8), 1), ((2, 4, 8), 1), ((2, 2, 4, 8), 0)])
def test_cat_through_descriptors_matches_torch(shape, dim):
    g = torch.Generator().manual_seed(len(shape))
    x, y = torch.rand(shape, generator=g), torch.rand(shape, generator=g)
    want = torch.cat([x, y], dim=dim)
    z = torch.empty_like(want)
    cat_kernel[(1,)](TensorDescriptor.from_tensor(x, block_shape=list(shape)),
                     TensorDescriptor.from_tensor(y, block_shape=list(shape)),
                     TensorDescriptor.from_tensor(z, block_shape=list(want.shape)), dim=dim, shape=shape)
    torch.testing.assert_close(z, want, atol=0, rtol=0)


@triton.jit
def copy_kernel(x_desc, y_desc, B: tl.constexpr):
    y_desc.store([0], x_desc.load([0]))


def test_a_descriptor_over_part_of_its_tensor_is_refused():
    x, y = torch.rand(64), torch.zeros(64)
    part = TensorDescriptor(x, [32], [1], [16])
    with pytest.raises(UserError) as info:
        copy_kernel[(1,)](part, TensorDescriptor.from_tensor(y, block_shape=[16]), B=16)
    assert "a TensorDescriptor of shape [32] and strides [1] over a tensor of shape [64]" in str(info.value)
