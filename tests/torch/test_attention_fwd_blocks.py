"""The forward flash kernel (mtiacc/torch_backend/attention_kernels.py) runs a causal program's key blocks before its
first row without masks and the diagonal ones masked: against torch's scaled_dot_product_attention on seeded fp16
inputs, with query blocks of several key blocks, a sequence length that is not a multiple of the blocks, and L != S
(top-left causal alignment, rows that see no key), through the runtime as the torch backend launches it."""
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mtiacc.runtime.launcher import Kernel  # noqa: E402

KERNELS = Path(__file__).resolve().parents[2] / "mtiacc" / "torch_backend" / "attention_kernels.py"


@pytest.mark.parametrize("L, S, causal, bm, bn", [(256, 256, True, 64, 32), (200, 200, True, 32, 64),
                                                  (96, 160, True, 32, 32), (160, 96, True, 64, 32),
                                                  (200, 136, False, 64, 32)])
def test_forward_matches_torch(L, S, causal, bm, bn):
    h, d = 2, 32
    rng = np.random.default_rng(L * S + bm)
    q = (rng.standard_normal((1, h, L, d)) * 0.5).astype(np.float16)
    k, v = ((rng.standard_normal((1, h, S, d)) * 0.5).astype(np.float16) for _ in range(2))
    o, lse = np.zeros_like(q), np.zeros((1, h, L), np.float32)
    st = lambda x: [s // x.itemsize for s in x.strides]   # noqa: E731
    Kernel(str(KERNELS), "sdpa_fwd_kernel")[((L + bm - 1) // bm, h)](
        q, k, v, q, o, lse, 0.25, *st(q), *st(k), *st(v), 0, 0, 0, 0, *st(o), *st(lse), h, h, L, S, d,
        HAS_MASK=False, IS_CAUSAL=causal, BLOCK_M=bm, BLOCK_N=bn, BLOCK_D=d, DOT_BF16=False,
        INPUT_PRECISION="ieee")
    tq, tk, tv = (torch.tensor(x, dtype=torch.float32) for x in (q, k, v))
    mask = torch.ones(L, S, dtype=torch.bool).tril() if causal else None
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=mask, scale=0.25)
    seen = mask.any(1).numpy() if causal else np.ones(L, bool)
    ref = torch.where(torch.tensor(seen)[:, None], ref, 0.0).numpy()     # rows that see no key give 0
    np.testing.assert_allclose(o.astype(np.float32), ref, atol=2e-3, rtol=2e-3)
    want_lse = torch.logsumexp(torch.where(mask, tq @ tk.transpose(-1, -2) * 0.25, -torch.inf)
                               if causal else tq @ tk.transpose(-1, -2) * 0.25, -1).numpy()
    np.testing.assert_allclose(lse, want_lse, atol=1e-4, rtol=1e-4)
