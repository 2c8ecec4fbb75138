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
    """256 KiB of accumulator (2,048 engine rows) beside 32 KiB tiles of A and B: the local-memory plan, which
    counts what codegen allocates (the accumulator's blocks and the tiles the engine reads), finds that it fits
    neither the engine nor local memory even in one stage, so the loop runs once per band of 128 columns with each
    band's accumulator in the engine (band-accumulators, the ladder's cheaper rung for this loop)."""
    K = 64
    comp = compile_kernel(KERNELS, Options(kernel="acc256", signature="*fp32,*fp32,*fp32,i32",
                                           defines={"BLOCK": "256", "BK": "32"}))
    assert [r.kind for r in comp.remarks] == ["band-accumulators"]
    assert "runs once per band of 256 rows and 128 columns" in comp.remarks[0].message
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


@pytest.mark.parametrize("level", [0, 2, 3])
def test_softmax_of_a_256_kib_row(level):
    """Triton's fused softmax with BLOCK_SIZE 65536: the row (256 KiB of fp32) and exp(row - max) do not fit side by
    side; the exponentials are written over the row, which they read last."""
    from tests.conftest import EXAMPLES
    comp = compile_kernel(str(EXAMPLES / "softmax.py"), Options(signature="*fp32,*fp32,i32,i32,i32",
                                                                defines={"BLOCK_SIZE": "65536"}, opt_level=level))
    rows, n = 2, 40000
    x = np.random.default_rng(level).standard_normal((rows, n)).astype(np.float32)
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    res = run(comp.binary, {"output_ptr": np.zeros(rows * n, np.float32), "input_ptr": x.ravel(),
                            "input_row_stride": i32(n), "output_row_stride": i32(n), "n_cols": i32(n)}, grid=(rows,))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.outputs["output_ptr"].reshape(rows, n), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-9)
