"""Pointer blocks carried through `while` loops and run-time `if`s (and `for` loops that yield them
in a way the offset rewrite does not cover), 1-D and 2-D, against numpy.

carried_ptrs rewrites a `while` that advances its pointer block by an addptr chain into a carried
offset, and an `if` choosing between tensors (`X + offs` / `Z + offs + 1`) into a scalar base (loads
stay on the DMA path: the tests count transfers); anything else is carried as data, 64-bit addresses
in local memory, and moves element by element (gather/scatter)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("while_kernels.py"))
_cache = {}


def launch(tmp_path, kernel, defines, sig, data, grid, opt=2):
    key = (kernel, tuple(sorted(defines.items())), opt)
    if key not in _cache:
        opts = Options(kernel=kernel, defines={k: str(v) for k, v in defines.items()}, signature=sig,
                       opt_level=opt)
        _cache[key] = compile_kernel(KERNELS, opts)
    path = tmp_path / "k.bin"
    path.write_bytes(_cache[key].binary)
    return run(str(path), data, grid=grid)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("n", [0, 1, 64, 200])
def test_while_row_sum_1d(tmp_path, opt, n):
    rows, stride = 3, n + 3
    x = np.random.default_rng(n).standard_normal(rows * stride + 1).astype(np.float32)
    data = {"X": x, "Y": np.full(rows, -1.0, np.float32), "N": np.array(n, np.int32),
            "stride": np.array(stride, np.int32)}
    res = launch(tmp_path, "while_row_sum", {"BLOCK": 64}, "*fp32,*fp32,i32,i32", data, [rows], opt)
    want = np.array([x[i * stride:i * stride + n].sum() for i in range(rows)], np.float32)
    np.testing.assert_allclose(res.outputs["Y"], want, rtol=1e-5, atol=1e-5)


def test_while_loads_stay_on_the_dma_fast_path(tmp_path):
    # 200 elements in blocks of 64: 4 contiguous transfers and the store (element by element: 201)
    data = {"X": np.ones(200, np.float32), "Y": np.zeros(1, np.float32), "N": np.array(200, np.int32),
            "stride": np.array(200, np.int32)}
    res = launch(tmp_path, "while_row_sum", {"BLOCK": 64}, "*fp32,*fp32,i32,i32", data, [1])
    assert res.outputs["Y"][0] == 200.0
    assert res.stats.dma_transfers == 5


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("m,n", [(5, 37), (8, 8), (3, 0), (1, 1)])
def test_while_2d_tile(tmp_path, opt, m, n):
    stride = n + 3
    x = np.random.default_rng(m * 100 + n).standard_normal(m * stride + 8).astype(np.float32)
    data = {"X": x, "Y": np.full(64, -1.0, np.float32), "M": np.array(m, np.int32),
            "N": np.array(n, np.int32), "stride": np.array(stride, np.int32)}
    res = launch(tmp_path, "while_tile_2d", {"BM": 8, "BN": 8}, "*fp32,*fp32,i32,i32,i32", data, [1], opt)
    want = np.zeros((8, 8), np.float32)
    for i in range(m):
        for j in range(n):
            want[i, j % 8] += x[i * stride + j]
    np.testing.assert_allclose(res.outputs["Y"].reshape(8, 8), want, rtol=1e-5, atol=1e-5)
    if (m, n) == (5, 37):  # 5 iterations x a tile of 5 rows in, 8 rows out: one 2-D transfer per tile
        assert res.stats.dma_transfers == 6


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("n", [0, 5, 64, 70])
def test_while_load_and_store_pointers_used_after_the_loop(tmp_path, opt, n):
    x = np.random.default_rng(n).standard_normal(max(n, 1)).astype(np.float32)
    nblocks = -(-n // 64)
    y = np.full(nblocks * 64 + 1, -1.0, np.float32)
    res = launch(tmp_path, "while_copy_after", {"BLOCK": 64}, "*fp32,*fp32,i32",
                 {"X": x, "Y": y, "N": np.array(n, np.int32)}, [1], opt)
    want = y.copy()
    want[:n] = 2 * x[:n]
    want[nblocks * 64] = 7.0   # the store after the loop goes through the carried result
    np.testing.assert_array_equal(res.outputs["Y"], want)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("kernel", ["while_gather_step", "for_gather_step"])
@pytest.mark.parametrize("n", [0, 1, 4])
def test_pointer_block_yielded_by_a_where_is_carried_as_data(tmp_path, opt, kernel, n):
    x = np.random.default_rng(n).standard_normal(16 + 2 * n).astype(np.float32)
    res = launch(tmp_path, kernel, {"BLOCK": 16}, "*fp32,*fp32,i32",
                 {"X": x, "Y": np.full(16, -1.0, np.float32), "N": np.array(n, np.int32)}, [1], opt)
    lanes = np.arange(16)
    want = sum((x[lanes + i * (lanes % 2 + 1)] for i in range(n)), np.zeros(16, np.float32))
    if kernel == "for_gather_step":  # masked: lanes 12.. load 0
        want = np.where(lanes < 12, want, 0)
    np.testing.assert_allclose(res.outputs["Y"], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("flag", [0, 1])
def test_if_chooses_between_two_tensors_1d(tmp_path, opt, flag):
    x = np.arange(32, dtype=np.float32)
    res = launch(tmp_path, "if_two_bases", {"BLOCK": 16}, "*fp32,*fp32,*fp32,i32",
                 {"X": x, "Z": 10 * x, "Y": np.zeros(16, np.float32), "flag": np.array(flag, np.int32)},
                 [1], opt)
    want = np.where(np.arange(16) < 10, x[:16] if flag else 10 * x[1:17], -1.0)
    np.testing.assert_array_equal(res.outputs["Y"], want)
    assert res.stats.dma_transfers == 2   # the if yields the scalar base: one load, one store


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("flag", [0, 1])
def test_if_between_two_strides_is_carried_as_data(tmp_path, opt, flag):
    x = np.arange(32, dtype=np.float32)
    res = launch(tmp_path, "if_two_strides", {"BLOCK": 16}, "*fp32,*fp32,i32",
                 {"X": x, "Y": np.zeros(16, np.float32), "flag": np.array(flag, np.int32)}, [1], opt)
    lanes = np.arange(16)
    want = np.where(lanes < 10, x[np.minimum(lanes * (1 if flag else 2), 31)], -1.0)
    np.testing.assert_array_equal(res.outputs["Y"], want)
    # gathered, then one store: at stride 1 the 10 active elements are a prefix at consecutive addresses (one
    # DMA, checked at run time), at stride 2 one DMA each
    assert res.stats.dma_transfers == (2 if flag else 11)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("flag", [0, 1])
def test_if_chooses_between_two_tensors_2d(tmp_path, opt, flag):
    x = np.random.default_rng(flag).standard_normal(40).astype(np.float32)
    z = np.random.default_rng(flag + 7).standard_normal(40).astype(np.float32)
    res = launch(tmp_path, "if_two_bases_2d", {"B": 4}, "*fp32,*fp32,*fp32,i32,i32",
                 {"X": x, "Z": z, "Y": np.zeros(16, np.float32), "stride": np.array(5, np.int32),
                  "flag": np.array(flag, np.int32)}, [1], opt)
    idx = np.arange(4)[:, None] * 5 + np.arange(4)[None, :]
    np.testing.assert_array_equal(res.outputs["Y"].reshape(4, 4), x[idx] if flag else z[idx + 3])
    assert res.stats.dma_transfers == 2   # one 2-D transfer in and out (a row each: 8, gathered: 16 + 4)
