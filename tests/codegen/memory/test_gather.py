"""Gather/scatter: loads and stores through data-dependent pointer blocks, differential vs numpy."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.memory.common import build, simulate


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("n_idx", [24, 21])
def test_embedding_bag_sums_gathered_rows(opt, n_idx):
    rows, d, bag = 50, 16, 8
    rng = np.random.default_rng(n_idx + opt)
    table = rng.standard_normal((rows, d)).astype(np.float32)
    idx = rng.integers(0, rows, n_idx).astype(np.int32)
    n_bags = -(-n_idx // bag)
    out = simulate(build("embedding_bag", "*fp32,*i32,*fp32,i32", opt, D=d, BAG=bag),
                   {"table_ptr": table.ravel(), "idx_ptr": idx, "out_ptr": np.zeros(n_bags * d, np.float32),
                    "n_idx": np.array(n_idx, np.int32)}, grid=(n_bags,))["out_ptr"].reshape(n_bags, d)
    padded = np.concatenate([idx, np.zeros(n_bags * bag - n_idx, np.int32)])  # masked indices read row 0
    gathered = table[padded].reshape(n_bags, bag, d)
    expected = gathered.sum(axis=1, dtype=np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    assert not np.array_equal(out[0], table[:bag].sum(axis=0))  # really indexed


@pytest.mark.parametrize("dtype,np_t", [("fp32", np.float32), ("i16", np.int16), ("fp16", np.float16),
                                        ("i64", np.int64)])
def test_gather_1d_with_mask_and_other(dtype, np_t):
    n, size = 200, 97
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(size) * 50).astype(np_t)
    idx = rng.integers(-5, size, n).astype(np.int32)  # negative indices are masked off
    out = simulate(build("gather_1d", f"*{dtype},*i32,*{dtype},i32", BLOCK=64),
                   {"x_ptr": x, "idx_ptr": idx, "out_ptr": np.zeros(n, np_t), "N": np.array(n, np.int32)},
                   grid=(4,))["out_ptr"]
    expected = np.where(idx >= 0, x[np.maximum(idx, 0)], np_t(-7))
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("opt", [0, 2])
def test_scatter_1d_permutation(opt):
    n = 150
    rng = np.random.default_rng(3)
    x = rng.standard_normal(n).astype(np.float32)
    perm = rng.permutation(n).astype(np.int32)
    out = simulate(build("scatter_1d", "*fp32,*i32,*fp32,i32", opt, BLOCK=64),
                   {"x_ptr": x, "idx_ptr": perm, "out_ptr": np.full(n, 99, np.float32),
                    "N": np.array(n, np.int32)}, grid=(3,))["out_ptr"]
    expected = np.empty(n, np.float32)
    expected[perm] = x * 2
    np.testing.assert_array_equal(out, expected)


def test_scatter_rows_2d():
    r, d, dest_rows = 13, 8, 20
    rng = np.random.default_rng(9)
    x = rng.standard_normal((r, d)).astype(np.float32)
    dest = rng.choice(dest_rows, r, replace=False).astype(np.int32)
    init = np.full((dest_rows, d), -1, np.float32)
    out = simulate(build("scatter_rows", "*fp32,*i32,*fp32,i32", D=d, BLOCK=4),
                   {"x_ptr": x.ravel(), "idx_ptr": dest, "out_ptr": init.ravel().copy(),
                    "R": np.array(r, np.int32)}, grid=(4,))["out_ptr"].reshape(dest_rows, d)
    expected = init.copy()
    expected[dest] = x
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("case", ["runs", "prefix", "suffix", "permuted"])
def test_row_gather_moves_consecutive_rows_whole(case):
    """A 2-D gather/scatter checks each row at run time: active elements that are a prefix of the row (all,
    some or none) at consecutive addresses move as one DMA (or none), other rows one element at a time;
    all give numpy's answer."""
    R, BR, BC = 24, 8, 16
    C = 12 if case == "prefix" else BC
    lo = 4 if case == "suffix" else 0
    rng = np.random.default_rng(11)
    x = rng.standard_normal((30, C)).astype(np.float32)
    src = rng.integers(-1, 30, R).astype(np.int32)
    src[:3] = -1                                  # whole padding rows
    cidx = np.arange(BC, dtype=np.int32)
    if case == "permuted":
        cidx = rng.permutation(BC).astype(np.int32)
    binary = build("row_gather", "*fp32,*i32,*i32,*fp32,i32,i32,i32", BR=BR, BC=BC)
    res = run(binary, {"x_ptr": x.ravel(), "src_ptr": src, "cidx_ptr": cidx,
                       "out_ptr": np.zeros(R * BC, np.float32), "R": np.array(R, np.int32),
                       "C": np.array(C, np.int32), "LO": np.array(lo, np.int32)}, grid=(R // BR,))
    out = res.outputs["out_ptr"].reshape(R, BC)
    cols = np.arange(BC)
    active = (src[:, None] >= 0) & (cols[None, :] < C) & (cols[None, :] >= lo)
    gathered = np.where(active, x[np.maximum(src, 0)][:, np.minimum(cidx, C - 1)], np.float32(-3.0))
    expected = np.empty((R, BC), np.float32)
    expected[:, cidx] = gathered + 1
    np.testing.assert_array_equal(out, expected)
    active_rows = int((src >= 0).sum())
    loads_in = 2 * (R // BR)                       # the src and cidx loads, one DMA each per program
    if case in ("runs", "prefix"):   # one DMA per active row in, one per row out
        assert res.stats.dma_transfers == loads_in + active_rows + R
    else:                            # an element at a time
        assert res.stats.dma_transfers >= loads_in + int(active.sum()) + (R if case == "suffix" else R * BC)
