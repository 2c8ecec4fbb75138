"""K loops: the accumulator kept in the engine, the loop pipelined (remainders included), Triton's tutorial 03."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.matrix.numerics import U16, bound, build, operand

PLAIN_SIG = "*bf16,*bf16,*fp32,i32,i32,i32"
TUTORIAL_SIG = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32"


@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("k", [64, 128, 160, 224])
def test_plain_k_loop(stages, k):
    m, n, bm, bn, bk = 64, 64, 32, 64, 32
    rng = np.random.default_rng(k + stages)
    a, av = operand(rng, (m, k), "bf16")
    b, bv = operand(rng, (k, n), "bf16")
    binary = build("matmul_plain", PLAIN_SIG, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, STAGES=stages)
    out = run(binary, {"a_ptr": a, "b_ptr": b, "c_ptr": np.zeros((m, n), np.float32), "M": np.array(m, np.int32),
                       "N": np.array(n, np.int32), "K": np.array(k, np.int32)}, grid=(m // bm, n // bn)).outputs["c_ptr"]
    want = av @ bv
    # each iteration adds a 32-deep tile sum to the accumulator: the bound of one long dot
    assert np.all(np.abs(out - want) <= bound(av, bv, "bf16"))


@pytest.mark.parametrize("shape", [(64, 64, 64), (96, 80, 100)])
def test_tutorial_matmul(shape):
    m, n, k = shape
    rng = np.random.default_rng(m * n + k)
    a, av = operand(rng, (m, k), "f16")
    b, bv = operand(rng, (k, n), "f16")
    binary = build("matmul_kernel", TUTORIAL_SIG, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32,
                   GROUP_SIZE_M=2, ACTIVATION='"leaky_relu"')
    grid = (-(-m // 32) * -(-n // 32),)
    ints = dict(M=m, N=n, K=k, stride_am=k, stride_ak=1, stride_bk=n, stride_bn=1, stride_cm=n, stride_cn=1)
    data = {"a_ptr": a, "b_ptr": b, "c_ptr": np.zeros((m, n), np.float16),
            **{name: np.array(v, np.int32) for name, v in ints.items()}}
    out = run(binary, data, grid=grid).outputs["c_ptr"].astype(np.float64)
    acc = av @ bv
    want = np.where(acc >= 0, acc, 0.01 * acc)
    tol = bound(av, bv, "f16") * 1.01 + U16 * np.abs(want) + 2.0 ** -24
    assert np.all(np.abs(out - want) <= tol)
