"""Scaled dot-product attention on the chip in the default mode: mtiacc/torch_backend/attention.py (the lowerings)
and attention_kernels.py (the flash-attention kernels), against eager PyTorch with seeded inputs."""
import pytest
import torch
import torch.nn.functional as F

from mtiacc.torch_backend import attention, report


def _chip_attention_only(rep, names):
    """Every layer ran on the chip, nothing was left to aten, and the attention kernels ``names`` ran there."""
    assert rep["aten_ops"] == [] and rep["host_layers"] == [], (rep["aten_ops"], rep["host_layers"])
    ran = {k["name"] for k in rep["kernels"] if k["on_chip"] and k["launches"] > 0}
    assert set(names) <= ran, ran


def test_forward_causal_boolean_mask_gqa_fp16_matches_eager():
    """8 query heads on 2 key/value heads (GQA), a causal mask and a boolean mask with rows masked out whole
    (those rows give 0, as eager's flash attention does), 40 queries over 40 keys: more than one block each."""
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 8, 40, 32, generator=g, dtype=torch.float16)
    k, v = (torch.randn(1, 2, 40, 32, generator=g, dtype=torch.float16) for _ in range(2))
    mask = torch.rand(40, 40, generator=g) > 0.3
    mask[5] = False

    def f(q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=False, enable_gqa=True), \
            F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

    with torch.no_grad():
        got, want = torch.compile(f, backend="mtia")(q, k, v, mask), f(q, k, v, mask)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=2e-3, atol=2e-3)
    assert torch.count_nonzero(got[0][0, :, 5]) == 0
    _chip_attention_only(report(), ["sdpa_fwd_kernel"])


def test_training_additive_mask_gqa_causal_fp32_gradients_match_eager():
    """Forward and backward of a causal attention with an additive (batch, 1, L, S) mask broadcast over the
    heads, 4 query heads on 2 key/value heads, 24 queries over 20 keys, fp32 (the default "highest" precision:
    bf16x6 dots)."""
    g = torch.Generator().manual_seed(1)
    q = torch.randn(2, 4, 24, 16, generator=g)
    k, v = (torch.randn(2, 2, 20, 16, generator=g) for _ in range(2))
    bias = torch.randn(2, 1, 24, 20, generator=g)
    grad = torch.randn(2, 4, 24, 16, generator=g)

    def f(q, k, v, bias):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias, is_causal=False, enable_gqa=True,
                                              scale=0.3)

    ours = [x.clone().requires_grad_() for x in (q, k, v)]
    ref = [x.clone().requires_grad_() for x in (q, k, v)]
    out = torch.compile(f, backend="mtia")(*ours, bias)
    out.backward(grad)
    want = f(*ref, bias)
    want.backward(grad)
    torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)
    for a, b in zip(ours, ref):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-5)
    _chip_attention_only(report(), ["sdpa_fwd_kernel", "sdpa_bwd_delta_kernel", "sdpa_bwd_dkdv_kernel",
                                    "sdpa_bwd_dq_kernel"])


@pytest.mark.slow      # the training test above runs the backward kernels in the suite
def test_causal_backward_matches_eager():
    """The causal backward (its loops start and stop at the diagonal), MQA: one key/value head for 2 heads."""
    g = torch.Generator().manual_seed(2)
    q = torch.randn(1, 2, 36, 16, generator=g, dtype=torch.bfloat16)
    k, v = (torch.randn(1, 1, 36, 16, generator=g, dtype=torch.bfloat16) for _ in range(2))

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

    ours = [x.clone().requires_grad_() for x in (q, k, v)]
    ref = [x.float().requires_grad_() for x in (q, k, v)]
    torch.compile(f, backend="mtia")(*ours).sum().backward()
    f(*ref).sum().backward()
    for a, b in zip(ours, ref):
        torch.testing.assert_close(a.grad.float(), b.grad, rtol=3e-2, atol=3e-2)
    _chip_attention_only(report(), ["sdpa_fwd_kernel", "sdpa_bwd_dkdv_kernel", "sdpa_bwd_dq_kernel"])


@pytest.mark.parametrize("l,s,d", [(8, 8, 16), (128, 128, 64), (4096, 4096, 128), (1, 4096, 64)])
def test_cost_model_blocks_fit_and_are_clamped(l, s, d):
    """The cost model's blocks: clamped to the problem, fitting a PE's local memory, the fastest estimate of those."""
    from mtiacc.torch_backend.gemm_search import chip
    lmem, bd = chip().local_memory_bytes, max(16, attention._pow2(d))
    blocks = attention.choose_blocks(16, l, s, d, dtype_bytes=2)
    assert 16 <= blocks.block_m <= max(16, attention._pow2(l)) and 16 <= blocks.block_n <= max(16, attention._pow2(s))
    assert attention._footprint(*blocks, bd, 2) <= lmem
    ranked = sorted(attention.estimate(16, l, s, d, attention.Blocks(m, n), dtype_bytes=2)
                    for m in (16, 32, 64, 128) for n in (16, 32, 64, 128)
                    if m <= max(16, attention._pow2(l)) and n <= max(16, attention._pow2(s))
                    and attention._footprint(m, n, bd, 2) <= lmem)
    assert attention.estimate(16, l, s, d, blocks, dtype_bytes=2) == ranked[0]


@pytest.mark.slow      # Inductor's GEMM, softmax and dropout kernels, each tested in the suite on its own
def test_dropout_takes_the_math_path_on_the_chip():
    """dropout_p > 0: PyTorch's CPU dispatch runs the math path (no fused operation), which Inductor compiles to
    GEMMs, softmax and dropout kernels, every layer on the chip; only Inductor's seed for its random numbers
    (one ``randint`` per graph) is drawn on the host."""
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(1, 2, 16, 16, generator=g, dtype=torch.float16) for _ in range(3))

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)

    torch.manual_seed(0)
    with torch.no_grad():
        out = torch.compile(f, backend="mtia")(q, k, v)
    assert out.shape == q.shape and torch.isfinite(out).all()
    rep = report()
    assert [e["name"] for e in rep["aten_ops"]] == ["randint"] and rep["host_layers"] == [], rep["host_layers"]
    assert rep["layers_on_chip"] == rep["layers_total"] > 0
    assert not any(k["name"].startswith("sdpa_") for k in rep["kernels"])
