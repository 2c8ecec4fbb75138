"""A Triton launch passing one tensor for two pointer parameters goes through mtiacc's launcher, which compiles the
variant that holds them together (``may_alias``, tests/runtime/test_aliased_launch.py): the load of ``x_ptr``
after the store to ``y_ptr`` reads what was stored, at the default -O3 (where ``persistent-programs`` would fetch
it above the store if the two were held apart)."""
import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402
from tests.triton import kernels as K  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


def test_one_tensor_for_two_parameters_reads_what_was_stored():
    gen = torch.Generator().manual_seed(0)
    a = torch.zeros(16 * 128)
    z = torch.randn(16 * 128, generator=gen)
    z0 = z.clone()
    K.store_then_load_kernel[(128,)](a, a, z, BLOCK=16)
    assert torch.equal(a, z0 + 1)
    assert torch.equal(z, (z0 + 1) * 2)
