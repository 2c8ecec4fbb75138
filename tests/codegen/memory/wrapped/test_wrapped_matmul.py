"""GEMM-shaped kernels through the ``wrapped-tiles`` plan, against numpy: Triton's tutorial 03 (run-time
M, N, K and strides, grouped program ids, carried pointers, ragged K masks, transposed operands) and
Inductor's bmm template (constant sizes and strides, a batch term), ``tl.dot`` replaced by the operand
tiles' row and column sums (``acc[m, n] = sum_k A[m, k] + sum_k B[k, n]`` summed over the K blocks)."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.memory.wrapped.test_wrapped_tiles import build, i32, values

SIG = "*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32"
BLOCKS = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=4)


def bf16_to_f32(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def tutorial(opt, m, n, k, a_t=False, b_t=False, seed=0):
    rng = np.random.default_rng(seed)
    a, b = values("bf16", m * k, rng).reshape(m, k), values("bf16", k * n, rng).reshape(k, n)
    sa, sb = ((1, m) if a_t else (k, 1)), ((1, k) if b_t else (n, 1))
    data = {"a_ptr": np.ascontiguousarray(a.T if a_t else a).ravel(),
            "b_ptr": np.ascontiguousarray(b.T if b_t else b).ravel(), "c_ptr": np.zeros(m * n, np.float32)}
    for name, v in zip(["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"],
                       [m, n, k, *sa, *sb, n, 1]):
        data[name] = i32(v)
    grid = -(-m // BLOCKS["BLOCK_SIZE_M"]) * -(-n // BLOCKS["BLOCK_SIZE_N"])
    res = run(build("matmul_tutorial", SIG, opt, **BLOCKS), data, grid=(grid,))
    fa, fb = bf16_to_f32(a), bf16_to_f32(b)
    expect = fa.sum(axis=1, dtype=np.float64)[:, None] + fb.sum(axis=0, dtype=np.float64)[None, :]
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(m, n), expect, rtol=1e-5, atol=1e-4)
    return res, grid


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("m,n,k", [(64, 64, 32), (50, 70, 45), (20, 9, 17), (100, 33, 16)])
def test_tutorial_matmul(opt, m, n, k):
    tutorial(opt, m, n, k, seed=m + n + k + opt)


@pytest.mark.parametrize("a_t,b_t", [(True, False), (False, True), (True, True)])
def test_tutorial_matmul_transposed_operands(a_t, b_t):
    tutorial(2, 40, 36, 30, a_t, b_t, seed=3 + a_t + 2 * b_t)


def test_tutorial_moves_runs_not_elements():
    # per program and K step: one 2-D DMA for a's 32 rows, one for b's 32 columns (M, N multiples of
    # the blocks: one run each), and the C tile's rows
    res, grid = tutorial(2, 64, 64, 64, seed=9)
    k_steps = 64 // 16
    assert res.stats.dma_transfers <= grid * (2 * k_steps + 32)


@pytest.mark.parametrize("opt", [0, 3])
def test_bmm_template(opt):
    m, n, k, batches = 48, 40, 32, 3
    rng = np.random.default_rng(opt)
    a = values("fp32", batches * m * k, rng)
    b = values("fp32", batches * k * n, rng)
    res = run(build("bmm_template", "*fp32,*fp32,*fp32", opt, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16),
              {"arg_A": a, "arg_B": b, "out_ptr0": np.zeros(batches * m * n, np.float32)}, grid=(2, batches, 2))
    fa, fb = a.reshape(batches, m, k), b.reshape(batches, k, n)
    expect = fa.sum(axis=2)[:, :, None] + fb.sum(axis=1)[:, None, :]
    np.testing.assert_allclose(res.outputs["out_ptr0"].reshape(batches, m, n), expect, rtol=1e-5, atol=1e-4)
