"""Triton's tutorial kernels that use tensor descriptors, compiled unmodified, against numpy."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = Path(__file__).parent / "kernels"


def _build(tmp_path, name, kernel, signature, defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()}, signature=signature, kernel=kernel)
    out = tmp_path / f"{kernel}.bin"
    out.write_bytes(compile_kernel(str(KERNELS / name), opts).binary)
    return out


@pytest.mark.parametrize("subtile", [False, True])
def test_tutorial09_descriptor_persistent(tmp_path, subtile):
    rng = np.random.default_rng(9)
    M, N, K = 45, 38, 40          # ragged edges on every axis
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)   # b is transposed, as in the tutorial
    c = np.zeros((M, N), np.float16)
    num_sms = 3
    binary = _build(tmp_path, "tutorial09_descriptor_persistent.py", "matmul_kernel_descriptor_persistent",
                    "*fp16, *fp16, *fp16, i32, i32, i32",
                    dict(BLOCK_SIZE_M=16, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=2,
                         EPILOGUE_SUBTILE=subtile, NUM_SMS=num_sms, WARP_SPECIALIZE=False, FLATTEN=True))
    r = run(str(binary), {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": np.int32(M), "N": np.int32(N),
                          "K": np.int32(K)}, grid=(num_sms,))
    want = (a.astype(np.float32) @ b.astype(np.float32).T).astype(np.float16)
    np.testing.assert_allclose(r.outputs["c_ptr"].reshape(M, N).astype(np.float32), want.astype(np.float32),
                               rtol=2e-2, atol=2e-2)


def _attention(q, k, v, sm_scale, causal):
    s = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    p = np.exp(s - m)
    l_ = p.sum(-1, keepdims=True)
    out = np.einsum("zhmn,zhnd->zhmd", p / l_, v.astype(np.float64))
    lse2 = (m[..., 0] + np.log(l_[..., 0])) / np.log(2)
    return out, lse2


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("N_CTX,D,BLOCK_M,BLOCK_N", [(64, 16, 16, 16), (256, 64, 128, 64), (256, 128, 128, 64)])
def test_tutorial06_attn_fwd(tmp_path, causal, N_CTX, D, BLOCK_M, BLOCK_N):
    """Small blocks, and the benchmark's (128 x 64, head dim 64 and 128: the softmax tile's rows two at a time, its
    maximum a column at a time, on the SIMD engine's ALUs; the next tile's Q K^T issued early, its commands left
    running by mtia.dpe.wait N)."""
    rng = np.random.default_rng(6)
    Z, H = 1, 2
    q, k, v = (rng.standard_normal((Z, H, N_CTX, D)).astype(np.float16) for _ in range(3))
    o = np.zeros_like(q)
    m = np.zeros((Z * H, N_CTX), np.float32)
    sm_scale = 0.5
    binary = _build(tmp_path, "tutorial06_attn_fwd.py", "_attn_fwd",
                    "fp32, *fp32, i32, i32, *fp16, *fp16, *fp16, *fp16, i32",
                    dict(HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, FP8_OUTPUT=False,
                         STAGE=3 if causal else 1, warp_specialize=False, IS_HOPPER=False))
    r = run(str(binary), {"sm_scale": np.float32(sm_scale), "M": m, "Z": np.int32(Z), "H": np.int32(H),
                          "desc_q": q, "desc_k": k, "desc_v": v, "desc_o": o, "N_CTX": np.int32(N_CTX)},
            grid=(N_CTX // BLOCK_M, Z * H))
    want, lse2 = _attention(q, k, v, sm_scale, causal)
    np.testing.assert_allclose(r.outputs["desc_o"].reshape(q.shape).astype(np.float64), want, atol=2e-2)
    np.testing.assert_allclose(r.outputs["M"].reshape(Z * H, N_CTX), lse2.reshape(Z * H, N_CTX), atol=1e-3)


@pytest.mark.parametrize("causal", [False, True])
def test_tutorial06_attn_fwd_through_block_pointers(causal, tmp_path, monkeypatch):
    import mtiacc
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(16)
    Z, H, N_CTX, D = 1, 2, 64, 32
    q, k, v = ((0.5 * rng.standard_normal((Z, H, N_CTX, D))).astype(np.float16) for _ in range(3))
    o = np.zeros_like(q)
    m = np.zeros((Z * H, N_CTX), np.float32)
    sm_scale = 0.5
    strides = [s // 2 for a in (q, k, v, o) for s in a.strides]
    kernel = mtiacc.load(str(KERNELS / "tutorial06_block_ptr.py"), "_attn_fwd")
    kernel[(N_CTX // 32, Z * H)](q, k, v, sm_scale, m, o, *strides, Z, H, N_CTX,
                                 HEAD_DIM=D, BLOCK_M=32, BLOCK_N=16, CAUSAL=causal)
    want, lse2 = _attention(q, k, v, sm_scale, causal)
    np.testing.assert_allclose(o.astype(np.float64), want, atol=2e-2)
    np.testing.assert_allclose(m, lse2.reshape(Z * H, N_CTX), atol=1e-3)
