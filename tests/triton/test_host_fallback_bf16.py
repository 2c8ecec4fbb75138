"""bf16 in a kernel run on the host (mtiacc/triton_backend/fallback.py).  Triton's interpreter keeps a bf16 block as
its bit patterns (uint16; numpy has no bf16): its ``tl.dot`` multiplied those integers, so a bf16 GEMM that fell
back to the host wrote products of order 1e11 (BERT-base in bf16 under ``torch.compile(backend="mtia")`` hit it:
its 128x128x64 GEMM tile did not fit a PE's local memory, every Linear fell back, and the model's output was off
by 1.75 against eager); and its cast to bf16 truncated (Triton's default, the chip's and torch's is
round-to-nearest-even), from fp64 to an integer.  Differential against numpy in float64 and torch's rounding,
seeded."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402

from mtiacc.triton_backend import fallback  # noqa: E402


@triton.jit
def _bf16_gemm_bias(A, W, Bias, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """``A @ W.T + bias`` as Inductor's addmm template computes a Linear: bf16 operands, fp32 accumulator."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(A + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(W + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a.to(tl.bfloat16), w.to(tl.bfloat16), out_dtype=tl.float32)
    bias = tl.load(Bias + rn, mask=rn < N, other=0.0).to(tl.float32)
    out = acc + bias[None, :]
    tl.store(C + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _bf16(x: np.ndarray):
    return torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_bf16_gemm_on_the_host_multiplies_values_not_bit_patterns(out_dtype):
    rng = np.random.default_rng(29)
    M, N, K = 40, 24, 96
    a, w = _bf16(rng.standard_normal((M, K))), _bf16(0.05 * rng.standard_normal((N, K)))
    bias = _bf16(rng.standard_normal(N))
    c = torch.full((M, N), float("nan"), dtype=out_dtype)
    fallback.run_on_host(_bf16_gemm_bias.fn, (2, 2, 1), [a, w, bias, c, M, N, K, 32, 16, 32])
    want = a.double().numpy() @ w.double().numpy().T + bias.double().numpy()
    got = c.double().numpy()
    # fp32 accumulation of exact bf16 products: only the output's rounding (fp32: ~1e-6; bf16 to nearest: half
    # an ulp, 2**-8 of the value; truncated it would be up to 2**-7) is left
    rtol = 1e-5 if out_dtype == torch.float32 else 2.0 ** -8
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-5 * np.abs(want).max())


@triton.jit
def _to_bf16(X, Out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Out + offs, x.to(tl.bfloat16), mask=offs < n)


@pytest.mark.parametrize("src_dtype", [torch.float32, torch.float64])
def test_cast_to_bf16_on_the_host_rounds_to_nearest_even(src_dtype):
    rng = np.random.default_rng(3)
    x = torch.from_numpy(rng.standard_normal(200) * 10.0 ** rng.integers(-3, 4, 200)).to(src_dtype)
    # ties (exactly half an ulp of bf16: odd and even last bits), infinities, a NaN, zeros
    x[:6] = torch.tensor([1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, float("inf"), float("-inf"), -0.0, 0.0])
    x[6] = float("nan")
    out = torch.zeros(256, dtype=torch.bfloat16)
    fallback.run_on_host(_to_bf16.fn, (1, 1, 1), [x, out, 200, 256])
    want = x.to(torch.float32).to(torch.bfloat16)
    assert torch.isnan(out[6])
    keep = torch.arange(200) != 6
    assert torch.equal(out[:200][keep].view(torch.int16), want[keep].view(torch.int16))

