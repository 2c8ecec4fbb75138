"""The N-d examples (examples/transpose.py, row_argmax.py, row_cumsum.py, matmul_nodot.py) against
their numpy references, over several shapes including ragged ones."""
import importlib.util
import sys
import types

import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch
from tests.conftest import EXAMPLES

F32 = np.float32


def reference(name):
    """The example's numpy `reference` (the module is loaded with a stub `triton`: only numpy runs)."""
    stub = types.ModuleType("triton")
    stub.jit = lambda f: f
    stub.language = types.ModuleType("triton.language")
    stub.language.constexpr = object
    saved = {k: sys.modules.get(k) for k in ("triton", "triton.language")}
    sys.modules.update({"triton": stub, "triton.language": stub.language})
    try:
        spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return mod.reference


@pytest.mark.parametrize("M,N", [(16, 16), (30, 17), (1, 40), (64, 8)])
def test_transpose_example(tmp_path, M, N):
    x = np.random.default_rng(M * N).standard_normal((M, N)).astype(F32)
    data = {"X": x.ravel(), "Y": np.zeros(M * N, F32), "M": np.array(M, np.int32), "N": np.array(N, np.int32),
            "stride_xm": np.array(N, np.int32), "stride_xn": np.array(1, np.int32),
            "stride_ym": np.array(M, np.int32), "stride_yn": np.array(1, np.int32)}
    b = build("transpose_kernel", "*fp32,*fp32,i32,i32,i32,i32,i32,i32", path=EXAMPLES / "transpose.py",
              BLOCK_M=16, BLOCK_N=16)
    out = launch(tmp_path, b, data, (-(-M // 16), -(-N // 16)))["Y"]
    np.testing.assert_array_equal(out.reshape(N, M), reference("transpose")(x))


@pytest.mark.parametrize("R,N", [(4, 1000), (3, 1024), (5, 1), (2, 77)])
def test_row_argmax_example(tmp_path, R, N):
    x = np.random.default_rng(N).standard_normal((R, N)).astype(F32)
    data = {"X": x.ravel(), "OUT": np.zeros(R, np.int32), "N": np.array(N, np.int32), "stride": np.array(N, np.int32)}
    b = build("row_argmax_kernel", "*fp32,*i32,i32,i32", path=EXAMPLES / "row_argmax.py", BLOCK_N=1024)
    out = launch(tmp_path, b, data, (R,))["OUT"]
    np.testing.assert_array_equal(out, reference("row_argmax")(x))


@pytest.mark.parametrize("R,N", [(3, 256), (4, 100), (1, 1)])
def test_row_cumsum_example(tmp_path, R, N):
    x = np.random.default_rng(N).standard_normal((R, N)).astype(F32)
    data = {"X": x.ravel(), "Y": np.zeros(R * N, F32), "N": np.array(N, np.int32), "stride": np.array(N, np.int32)}
    b = build("row_cumsum_kernel", "*fp32,*fp32,i32,i32", path=EXAMPLES / "row_cumsum.py", BLOCK_N=256)
    out = launch(tmp_path, b, data, (R,))["Y"]
    np.testing.assert_array_equal(out.reshape(R, N), reference("row_cumsum")(x))


@pytest.mark.parametrize("M,N,K", [(8, 8, 16), (13, 5, 9), (16, 24, 1)])
def test_matmul_nodot_example(tmp_path, M, N, K):
    rng = np.random.default_rng(M * N * K)
    a = rng.standard_normal((M, K)).astype(F32)
    bm = rng.standard_normal((K, N)).astype(F32)
    data = {"A": a.ravel(), "B": bm.ravel(), "C": np.zeros(M * N, F32),
            "M": np.array(M, np.int32), "N": np.array(N, np.int32), "K": np.array(K, np.int32)}
    b = build("matmul_nodot_kernel", "*fp32,*fp32,*fp32,i32,i32,i32", path=EXAMPLES / "matmul_nodot.py",
              BLOCK_M=8, BLOCK_N=8, BLOCK_K=16)
    out = launch(tmp_path, b, data, (-(-M // 8), -(-N // 8)))["C"]
    np.testing.assert_allclose(out.reshape(M, N), reference("matmul_nodot")(a, bm), rtol=1e-5, atol=1e-5)
