"""``tl.sum(x[:, :, None] * y[None, :, :], axis=1)`` as a dot (opt/canonicalize.py; tests/filecheck/broadcast_mul_reduce.py
pins the rewrite): Triton's own test kernel (test_core.py's ``test_dot_mulbroadcasted``, a K loop accumulating), at a
size whose product block would not fit in local memory, and one small enough to stay a reduction, against numpy."""
import numpy as np
import pytest

from tests.language.harness import launch

SRC = '''
import triton
import triton.language as tl


@triton.jit
def kernel(Z, X, Y, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    pidn = tl.program_id(1)
    pidm = tl.program_id(0)
    offm = tl.arange(0, BM)[:, None]
    offn = tl.arange(0, BN)[None, :]
    offak = tl.arange(0, BK)[None, :]
    offbk = tl.arange(0, BK)[:, None]
    acc = tl.full((BM, BN), 0.0, tl.float32)
    for ridx5 in range(0, K // BK):
        x = tl.load(X + ((pidm * K * BM) + (offm * K) + (ridx5 * BK) + offak))
        y = tl.load(Y + ((pidn * BN) + (offbk * N) + (ridx5 * N * BK) + offn))
        t = tl.sum(tl.expand_dims(x, axis=2) * tl.expand_dims(y, axis=0), axis=1)
        acc = t + acc
    tl.store(Z + ((pidm * BM * N) + (pidn * BN) + (offm * N) + offn), acc)
'''


@pytest.mark.parametrize("sizes", [(256, 64, 96, 128, 32, 32),    # 128 x 32 x 32 products: 512 KiB
                                   (32, 16, 16, 16, 8, 8)])       # 8 wide: stays a reduction
def test_sum_of_broadcast_products_matches_numpy(sizes):
    M, N, K, BM, BN, BK = sizes
    rng = np.random.default_rng(M + K)
    x = (rng.standard_normal((M, K)) * 0.1).astype(np.float32)
    y = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    defines = tuple((k, str(v)) for k, v in dict(M=M, N=N, K=K, BM=BM, BN=BN, BK=BK).items())
    out = launch(SRC, "*fp32,*fp32,*fp32", {"Z": np.zeros(M * N, np.float32), "X": x.ravel(), "Y": y.ravel()},
                 grid=(M // BM, N // BN), defines=defines).outputs["Z"]
    np.testing.assert_allclose(out.reshape(M, N), x.astype(np.float64) @ y.astype(np.float64), rtol=1e-5, atol=1e-6)
