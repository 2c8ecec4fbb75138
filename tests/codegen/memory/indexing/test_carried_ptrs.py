"""Loop-carried pointer blocks (``ptrs += step`` in a loop), 1-D and 2-D, against numpy."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("kernels.py"))
_cache = {}


def build(kernel, defines, sig, opt=2):
    key = (kernel, tuple(sorted(defines.items())), opt)
    if key not in _cache:
        opts = Options(kernel=kernel, defines={k: str(v) for k, v in defines.items()}, signature=sig,
                       opt_level=opt)
        _cache[key] = compile_kernel(KERNELS, opts)
    return _cache[key]


def launch(tmp_path, comp, data, grid):
    path = tmp_path / "k.bin"
    path.write_bytes(comp.binary)
    return run(str(path), data, grid=grid)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("rows,n", [(3, 200), (2, 64), (1, 1)])
def test_row_sum_carried_1d(tmp_path, opt, rows, n):
    comp = build("row_sum_carried", {"BLOCK": 64}, "*fp32,*fp32,i32,i32", opt)
    rng = np.random.default_rng(rows * 1000 + n)
    stride = n + 5
    x = rng.standard_normal(rows * stride).astype(np.float32)
    data = {"X": x, "Y": np.zeros(rows, np.float32), "N": np.array(n, np.int32),
            "stride": np.array(stride, np.int32)}
    out = launch(tmp_path, comp, data, [rows]).outputs["Y"]
    want = x.reshape(rows, stride)[:, :n].sum(axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_carried_loads_stay_on_the_dma_fast_path(tmp_path):
    # one contiguous transfer per iteration (4 for 200 elements in blocks of 64) plus the store,
    # not one per element as the unstructured path would move them
    comp = build("row_sum_carried", {"BLOCK": 64}, "*fp32,*fp32,i32,i32")
    x = np.ones(200, np.float32)
    data = {"X": x, "Y": np.zeros(1, np.float32), "N": np.array(200, np.int32),
            "stride": np.array(200, np.int32)}
    res = launch(tmp_path, comp, data, [1])
    assert res.outputs["Y"][0] == 200.0
    assert res.stats.dma_transfers == 5


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("n", [1, 63, 64, 130])
def test_load_and_store_pointers_carried_and_used_after_the_loop(tmp_path, opt, n):
    comp = build("scaled_copy_carried", {"BLOCK": 64}, "*fp32,*fp32,i32", opt)
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    nblocks = -(-n // 64)
    y = np.full(nblocks * 64 + 1, -1.0, np.float32)
    out = launch(tmp_path, comp, {"X": x, "Y": y, "N": np.array(n, np.int32)}, [1]).outputs["Y"]
    want = y.copy()
    want[:n] = 2 * x
    want[nblocks * 64] = 7.0   # the store after the loop goes through the carried result
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("m,n,k", [(16, 16, 8), (20, 13, 29), (5, 33, 1)])
def test_matmul_with_carried_2d_tiles(tmp_path, opt, m, n, k):
    comp = build("matmul_no_dot", {"BM": 16, "BN": 16, "BK": 8},
                 "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32", opt)
    rng = np.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    bt = rng.standard_normal((n, k)).astype(np.float32)   # B stored column-major: strides (1, k)
    c = np.zeros((m, n), np.float32)
    data = {"A": a.ravel(), "B": bt.ravel(), "C": c.ravel()}
    for name, v in zip(["M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn"],
                       [m, n, k, k, 1, 1, k, n, 1]):
        data[name] = np.array(v, np.int32)
    out = launch(tmp_path, comp, data, [-(-m // 16), -(-n // 16)]).outputs["C"].reshape(m, n)
    np.testing.assert_allclose(out, a @ bt.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opt", [0, 2])
def test_non_uniform_increment_carries_an_offset_block(tmp_path, opt):
    comp = build("gather_step_carried", {"BLOCK": 16}, "*fp32,*fp32,i32", opt)
    n = 5
    x = np.arange(16 + 2 * n, dtype=np.float32) * 0.5
    out = launch(tmp_path, comp, {"X": x, "Y": np.zeros(16, np.float32), "N": np.array(n, np.int32)},
                 [1]).outputs["Y"]
    lanes = np.arange(16)
    want = sum(x[lanes + i * (lanes % 2 + 1)] for i in range(n))
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_carried_2d_tiles_move_one_tile_per_transfer(tmp_path):
    # unit last strides specialized (as Triton does for arguments equal to 1): per program, 2
    # iterations x (a tile of A + a tile of B) + a tile of C = 5 2-D transfers (a row each: 64,
    # element by element: 768)
    comp = build("matmul_no_dot", {"BM": 16, "BN": 16, "BK": 8, "sak": 1, "sbn": 1, "scn": 1},
                 "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    data = {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(256, np.float32)}
    for name, v in zip(["M", "N", "K", "sam", "sbk", "scm"], [16, 16, 16, 16, 16, 16]):
        data[name] = np.array(v, np.int32)
    res = launch(tmp_path, comp, data, [1, 1])
    np.testing.assert_allclose(res.outputs["C"].reshape(16, 16), a @ b, rtol=1e-4, atol=1e-4)
    assert res.stats.dma_transfers == 5


@pytest.mark.parametrize("opt", [0, 2])
def test_nested_loops_advance_one_carried_pointer_block(tmp_path, opt):
    comp = build("nested_carried", {"BLOCK": 16}, "*fp32,*fp32,i32,i32", opt)
    r, c = 3, 4
    x = np.random.default_rng(3).standard_normal(r * (c * 16 + 1) + 16).astype(np.float32)
    out = launch(tmp_path, comp, {"X": x, "Y": np.zeros(16, np.float32), "R": np.array(r, np.int32),
                                  "C": np.array(c, np.int32)}, [1]).outputs["Y"]
    lanes = np.arange(16)
    want = sum(x[lanes + i * (c * 16 + 1) + j * 16] for i in range(r) for j in range(c))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("flag", [0, 1])
def test_pointer_block_chosen_by_an_if(tmp_path, opt, flag):
    comp = build("ptrs_through_if", {"BLOCK": 16}, "*fp32,*fp32,i32", opt)
    x = np.arange(17, dtype=np.float32)
    out = launch(tmp_path, comp, {"X": x, "Y": np.zeros(16, np.float32), "flag": np.array(flag, np.int32)},
                 [1]).outputs["Y"]
    np.testing.assert_array_equal(out, x[flag:flag + 16])


@pytest.mark.parametrize("opt", [0, 2])
def test_if_inside_a_loop_advances_the_carried_pointer_block(tmp_path, opt):
    comp = build("cond_advance", {"BLOCK": 16}, "*fp32,*fp32,i32", opt)
    n = 5
    x = np.random.default_rng(9).standard_normal(16 * n + n + 16).astype(np.float32)
    out = launch(tmp_path, comp, {"X": x, "Y": np.zeros(16, np.float32), "N": np.array(n, np.int32)},
                 [1]).outputs["Y"]
    lanes, want, start = np.arange(16), np.zeros(16, np.float32), 0
    for k in range(n):
        want = want + x[start + lanes]
        start += (1 if k % 2 == 0 else 0) + 16
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
