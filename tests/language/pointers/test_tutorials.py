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
