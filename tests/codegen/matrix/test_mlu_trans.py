"""Transposes on the memory layout unit: a K-major operand of tl.dot, a transposed result, an f32 ``b.T``;
against numpy (seeded inputs), and what the assembly and the statistics show."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.matrix.numerics import asm, bound, build, operand
from tests.codegen.matrix.test_dot_numerics import check


@pytest.mark.parametrize("kind,use", [("f16", 0), ("bf16", 1)])
def test_kmajor_operand_on_the_mlu(kind, use):
    M, N, K = 32, 64, 128
    rng = np.random.default_rng(21 + use)
    at, atv = operand(rng, (K, M), kind)
    b, bv = operand(rng, (K, N), kind)
    ty = "*fp16" if kind == "f16" else "*bf16"
    binary = build("dot_kmajor", f"{ty},{ty},*fp32,i32,i32,i32", BM=M, BN=N, BK=32, USE=use)
    res = run(binary, {"AT": at, "B": b, "C": np.zeros(M * N, np.float32), "M": np.array(M, np.int32),
                       "N": np.array(N, np.int32), "K": np.array(K, np.int32)}, grid=(1,))
    want = atv.T @ bv
    if use:
        check(res.outputs["C"].reshape(N, M), 2 * want.T, 2 * bound(atv.T, bv, kind).T)
    else:
        check(res.outputs["C"].reshape(M, N), want, bound(atv.T, bv, kind))
    units = res.stats.units()
    assert units["mlu"]["busy_cycles"] >= (K // 32) * 32 * M * 2 / 64     # every k-step's tile went through it


def test_f32_transposed_b_on_the_mlu():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((32, 64)).astype(np.float32)
    bt = rng.standard_normal((64, 64)).astype(np.float32)
    binary = build("dot_bt_ieee", "*fp32,*fp32,*fp32", BM=32, BN=64, BK=64)
    res = run(binary, {"A": a, "BT": bt, "C": np.zeros((32, 64), np.float32)}, grid=(1,))
    av, bv = a.astype(np.float64), bt.T.astype(np.float64)
    check(res.outputs["C"], av @ bv, bound(av, bv, "f32", "ieee"))
    assert res.stats.units()["mlu"]["busy_cycles"] == 64 * 64 * 4 / 64


def test_the_transpose_is_an_mlu_command_not_a_strided_copy():
    text = asm("dot_kmajor", "*fp16,*fp16,*fp32,i32,i32,i32", BM=32, BN=64, BK=32, USE=0)
    assert "mtia.mlu.trans.e16" in text and "vlse" not in text
