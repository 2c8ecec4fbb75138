"""A Python float argument of a kernel run on the host (mtiacc/triton_backend/fallback.py): Triton compiles it to an
fp32 scalar, but its interpreter passed it on as a Python float, so the flash-attention kernel of
``torch.compile(backend="mtia")`` (``sm_scale.to(tl.float32)``) failed on the host ("'float' object has no
attribute 'to'") and a float times a bf16 block stayed bf16 where the compiled kernel computes in fp32.
Differential against torch's attention in float64 and against numpy, seeded."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402

from mtiacc.torch_backend.attention_kernels import sdpa_fwd_kernel  # noqa: E402
from mtiacc.triton_backend import fallback  # noqa: E402


def test_attention_forward_runs_on_the_host_with_its_float_scale():
    g = torch.Generator().manual_seed(29)
    b, h, length, d = 1, 2, 24, 16
    q, k, v = (torch.randn(b, h, length, d, generator=g).to(torch.bfloat16) for _ in range(3))
    out = torch.full((b, h, length, d), float("nan"), dtype=torch.bfloat16)
    lse = torch.full((b, h, length), float("nan"), dtype=torch.float32)
    scale = d ** -0.5
    args = [q, k, v, q, out, lse, scale, *q.stride(), *k.stride(), *v.stride(), 0, 0, 0, 0, *out.stride(),
            *lse.stride(), h, h, length, length, d, False, False, 16, 16, 16, False, "ieee"]
    fallback.run_on_host(sdpa_fwd_kernel.fn, (2, b * h, 1), args)
    want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(), scale=scale)
    # P rounded to bf16 before its product with V, and the output to bf16: a few bf16 ulps
    np.testing.assert_allclose(out.double().numpy(), want.numpy(), rtol=0, atol=2.0 ** -6)
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    np.testing.assert_allclose(lse.double().numpy(), torch.logsumexp(s, -1).numpy(), rtol=1e-5, atol=1e-5)


@triton.jit
def _scaled(X, Out, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Out + offs, x * s, mask=offs < n)


def test_float_argument_times_bf16_block_is_computed_in_fp32_on_the_host():
    rng = np.random.default_rng(5)
    x = torch.from_numpy(rng.standard_normal(64).astype(np.float32)).to(torch.bfloat16)
    out = torch.full((64,), float("nan"), dtype=torch.float32)
    s = 1.0 / 3.0
    fallback.run_on_host(_scaled.fn, (1, 1, 1), [x, out, s, 64, 64])
    want = x.float().numpy() * np.float32(s)          # fp32 product, as the compiled kernel's
    np.testing.assert_array_equal(out.numpy(), want)
