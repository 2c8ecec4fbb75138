"""Blocks that fill a PE's local memory compile (the local-memory plan's ladder: fewer pipeline stages; an f32
operand's buffer freed once split, a loop's accumulator written in place) and compute what numpy does."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("big_blocks.py"))
MM_SIG = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32"


def test_a_256x256_fp32_accumulator():
    """256 KiB of accumulator (2,048 engine rows: it stays in local memory) beside 32 KiB tiles of A and B."""
    K = 64
    comp = compile_kernel(KERNELS, Options(kernel="acc256", signature="*fp32,*fp32,*fp32,i32",
                                           defines={"BLOCK": "256", "BK": "32"}))
    assert comp.remarks and "pipelined in 1 stage(s) instead of 4" in comp.remarks[0].message
    rng = np.random.default_rng(256)
    a = rng.standard_normal((256, K)).astype(np.float32)
    b = rng.standard_normal((K, 256)).astype(np.float32)
    res = run(comp.binary, {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(256 * 256, np.float32),
                            "K": np.array(K, np.int32)}, grid=(1,))
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(res.outputs["C"].reshape(256, 256), want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("config,stages", [(0, 3), (1, 4)])
def test_tutorial_matmul_with_128x256x128_tiles(config, stages):
    M, N, K = 128, 256, 256
    comp = compile_kernel(KERNELS, Options(kernel="matmul", signature=MM_SIG, config=config))
    assert comp.frontend.tuning["config"]["num_stages"] == stages
    rng = np.random.default_rng(stages)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    res = run(comp.binary, {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(M * N, np.float16),
                            "M": i32(M), "N": i32(N), "K": i32(K), "stride_am": i32(K), "stride_ak": i32(1),
                            "stride_bk": i32(N), "stride_bn": i32(1), "stride_cm": i32(N), "stride_cn": i32(1)},
              grid=(1,))
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(M, N).astype(np.float64), want.astype(np.float64),
                               rtol=2e-3, atol=2e-2)
