"""Tuple arguments (Triton 3.x): tuples of tensors and scalars, nested, indexed with constant indices, unpacked,
iterated with ``tl.static_range(len(t))``; an element equal to 1 specialized to a constant as Triton does."""
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


@triton.jit
def masked_axpy_kernel(ptrs, sizes, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(ptrs[0] + offs, mask=offs < sizes[0], other=0.0)
    b = tl.load(ptrs[1] + offs, mask=offs < sizes[1], other=0.0)
    tl.store(out_ptr + offs, a + b * sizes[2], mask=offs < sizes[0])


@triton.jit
def sum_of_kernel(ins, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.static_range(len(ins)):
        acc += tl.load(ins[i] + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, acc, mask=offs < n)


@triton.jit
def nested_tuple_kernel(pair, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x_ptr, scale = pair[0]
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * scale + pair[-1])


@pytest.mark.parametrize("factor", [3, 1])          # 1: Triton makes that element a constant
def test_a_tuple_of_tensors_and_one_of_ints(factor):
    torch.manual_seed(0)
    x, y = torch.rand(100), torch.rand(100)
    out = torch.full((100,), -1.0)
    masked_axpy_kernel[(4,)]((x, y), (90, 70, factor), out, BLOCK=32)
    i = torch.arange(100)
    ref = torch.where(i < 70, x + y * factor, x)
    torch.testing.assert_close(out[:90], ref[:90])
    assert (out[90:] == -1).all()


def test_a_tuple_iterated_with_static_range_over_its_length():
    torch.manual_seed(1)
    xs = tuple(torch.rand(50) for _ in range(3))
    out = torch.empty(50)
    sum_of_kernel[(2,)](xs, out, 50, BLOCK=32)
    torch.testing.assert_close(out, xs[0] + xs[1] + xs[2])
    two = torch.empty(50)                               # another length: another compile
    sum_of_kernel[(2,)](xs[:2], two, 50, BLOCK=32)
    torch.testing.assert_close(two, xs[0] + xs[1])


def test_a_nested_tuple_unpacked_in_the_kernel():
    x = torch.rand(16)
    out = torch.empty(16)
    nested_tuple_kernel[(1,)](((x, 3), 2.5), out, BLOCK=16)
    torch.testing.assert_close(out, x * 3 + 2.5)
