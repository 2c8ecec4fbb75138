"""2-D tiles whose column stride is a run-time argument, and 1-D blocks ``X + offs * stride``: one 2-D
DMA per tile (one DMA per block) when the stride is 1 at run time, 2-D DMAs of one-element rows otherwise
(a branch on the stride's value), against numpy."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("kernels.py"))
SIG = "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32"
_cache = {}


def build(opt):
    if opt not in _cache:
        opts = Options(kernel="matmul_no_dot", defines={"BM": "16", "BN": "16", "BK": "8"},
                       signature=SIG, opt_level=opt)
        _cache[opt] = compile_kernel(KERNELS, opts)
    return _cache[opt]


def matmul(tmp_path, opt, m, n, k, a_t, b_t, c_t, seed):
    """C = A @ B with every stride an argument; ``x_t`` stores that matrix transposed in memory."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    mem_a = a.T if a_t else a
    mem_b = b.T if b_t else b
    sa = (1, m) if a_t else (k, 1)
    sb = (1, k) if b_t else (n, 1)
    sc = (1, m) if c_t else (n, 1)
    data = {"A": np.ascontiguousarray(mem_a).ravel(), "B": np.ascontiguousarray(mem_b).ravel(),
            "C": np.zeros(m * n, np.float32)}
    for name, v in zip(["M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn"],
                       [m, n, k, *sa, *sb, *sc]):
        data[name] = np.array(v, np.int32)
    path = tmp_path / "k.bin"
    path.write_bytes(build(opt).binary)
    res = run(str(path), data, grid=[-(-m // 16), -(-n // 16)])
    c = res.outputs["C"].reshape((n, m)).T if c_t else res.outputs["C"].reshape(m, n)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    return res


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (20, 13, 29)])
@pytest.mark.parametrize("a_t,b_t,c_t", [(False, False, False), (True, True, True),
                                         (False, True, False), (True, False, True)])
def test_runtime_strides_against_numpy(tmp_path, opt, m, n, k, a_t, b_t, c_t):
    matmul(tmp_path, opt, m, n, k, a_t, b_t, c_t, seed=m * n * k + 4 * a_t + 2 * b_t + c_t)


def test_unit_runtime_stride_moves_one_tile_per_transfer(tmp_path):
    # per program: 2 iterations x (a tile of A + a tile of B) + a tile of C = 5 2-D transfers,
    # as many as with the unit strides specialized at compile time (a row each: 64)
    assert matmul(tmp_path, 2, 16, 16, 16, False, False, False, seed=1).stats.dma_transfers == 5


def test_non_unit_runtime_stride_moves_rows_of_one_element(tmp_path):
    # all three matrices transposed in memory: loads along their longest axis, 2 x (8 + 8), the store
    # along its last axis, 16: 48 2-D transfers (element by element: 768)
    assert matmul(tmp_path, 2, 16, 16, 16, True, True, True, seed=2).stats.dma_transfers == 48


def test_mixed_strides_pick_a_path_per_access(tmp_path):
    # A by tiles (2 x 1), B transposed (2 x 8 columns of 16 one-element rows), C by tiles (1)
    assert matmul(tmp_path, 2, 16, 16, 16, False, True, False, seed=3).stats.dma_transfers == 19


# --------------------------------------------------------------------------- 1-D: X + offs * stride

STRIDED = str(Path(__file__).with_name("stride_kernels.py"))


def build_1d(kernel, sig, opt):
    key = (kernel, opt)
    if key not in _cache:
        opts = Options(kernel=kernel, defines={"BLOCK": "64"}, signature=sig, opt_level=opt)
        _cache[key] = compile_kernel(STRIDED, opts)
    return _cache[key]


def strided_scale(tmp_path, opt, n, sx, sy):
    x = np.random.default_rng(n * 10 + sx).standard_normal(max(n * sx, 1)).astype(np.float32)
    y = np.full(max(n * sy, 1), -5.0, np.float32)
    path = tmp_path / "k.bin"
    path.write_bytes(build_1d("strided_scale", "*fp32,*fp32,i32,i32,i32", opt).binary)
    res = run(str(path), {"X": x, "Y": y, "N": np.array(n, np.int32), "sx": np.array(sx, np.int32),
                          "sy": np.array(sy, np.int32)}, grid=[-(-n // 64) or 1])
    want = y.copy()
    want[:n * sy:sy] = x[:n * sx:sx] * 2 + 1
    np.testing.assert_array_equal(res.outputs["Y"], want)
    return res


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("n", [1, 64, 150])
@pytest.mark.parametrize("sx,sy", [(1, 1), (3, 1), (1, 3), (3, 2)])
def test_1d_runtime_stride_against_numpy(tmp_path, opt, n, sx, sy):
    strided_scale(tmp_path, opt, n, sx, sy)


def test_1d_unit_runtime_stride_moves_one_transfer_per_block(tmp_path):
    # 150 elements in 3 programs of 64 (the last masked to 22): 3 loads + 3 stores (was 300)
    assert strided_scale(tmp_path, 2, 150, 1, 1).stats.dma_transfers == 6


def test_1d_non_unit_runtime_stride_moves_a_2d_transfer_per_block(tmp_path):
    # loads by one 2-D transfer of one-element rows per block (3), stores by block (3); then both 2-D
    # (element by element: 153, 300)
    assert strided_scale(tmp_path, 2, 150, 3, 1).stats.dma_transfers == 6
    assert strided_scale(tmp_path, 2, 150, 3, 2).stats.dma_transfers == 6


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("stride", [1, 3])
def test_1d_runtime_stride_unmasked_in_a_loop(tmp_path, opt, stride):
    n = 128
    x = np.random.default_rng(stride).standard_normal(n * stride).astype(np.float32)
    path = tmp_path / "k.bin"
    path.write_bytes(build_1d("strided_sum", "*fp32,*fp32,i32,i32", opt).binary)
    res = run(str(path), {"X": x, "Y": np.zeros(1, np.float32), "N": np.array(n, np.int32),
                          "stride": np.array(stride, np.int32)}, grid=[1])
    np.testing.assert_allclose(res.outputs["Y"][0], x[::stride].sum(), rtol=1e-5, atol=1e-4)
    # a block per transfer, 1-D or 2-D; at -O2 the loop is pipelined (pipeline-loads) and the prefetch its last
    # trip would make past the end is guarded off: no transfer more than at -O0
    assert res.stats.dma_transfers == 2 + 1
