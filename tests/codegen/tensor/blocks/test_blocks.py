"""N-d blocks end to end: broadcasting, 2-D tiles with runtime strides and masks, reductions, scans,
shape ops; compiled from Triton source, run on mtiasim, compared with numpy (seeded inputs)."""
import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch

F32 = np.float32


def rng(seed):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("M,N,BM,BN", [(5, 7, 4, 8), (16, 16, 8, 16), (1, 1, 2, 2), (33, 20, 16, 32)])
def test_add_row_vector_to_matrix(tmp_path, M, N, BM, BN):
    stride = N + 3
    x = rng(M * N).standard_normal((M, stride)).astype(F32)
    r = rng(1).standard_normal(N).astype(F32)
    data = {"X": x.ravel(), "R": r, "Y": np.full(M * N, 7, F32),
            "M": np.array(M, np.int32), "N": np.array(N, np.int32), "stride": np.array(stride, np.int32)}
    b = build("add_row", "*fp32,*fp32,*fp32,i32,i32,i32", BM=BM, BN=BN)
    out = launch(tmp_path, b, data, (-(-M // BM),))
    np.testing.assert_array_equal(out["Y"].reshape(M, N), x[:, :N] + r[None, :])


@pytest.mark.parametrize("M,N,BM,BN", [(6, 5, 8, 8), (8, 200, 8, 256), (3, 1, 4, 4), (17, 33, 16, 64)])
def test_row_reductions_with_masks(tmp_path, M, N, BM, BN):
    stride = N + 1
    x = rng(M + N).standard_normal((M, stride)).astype(F32)
    x[0, N // 2] = x[0, 0] = 5.0   # a tie: the first index wins
    data = {"X": x.ravel(), "M": np.array(M, np.int32), "N": np.array(N, np.int32),
            "stride": np.array(stride, np.int32)}
    for k in ("S", "MX", "MN"):
        data[k] = np.zeros(M, F32)
    for k in ("AMX", "AMN"):
        data[k] = np.zeros(M, np.int32)
    b = build("row_reduce", "*fp32,*fp32,*fp32,*fp32,*i32,*i32,i32,i32,i32", BM=BM, BN=BN)
    out = launch(tmp_path, b, data, (-(-M // BM),))
    v = x[:, :N]
    np.testing.assert_allclose(out["S"], v.sum(1, dtype=np.float64), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out["MX"], v.max(1))
    np.testing.assert_array_equal(out["MN"], v.min(1))
    np.testing.assert_array_equal(out["AMX"], v.argmax(1))
    np.testing.assert_array_equal(out["AMN"], v.argmin(1))


@pytest.mark.parametrize("M,N,BM,BN", [(5, 6, 8, 8), (16, 3, 16, 4), (31, 40, 32, 64)])
def test_column_reductions_and_keep_dims(tmp_path, M, N, BM, BN):
    x = rng(M * 7 + N).integers(-4, 5, (M, N)).astype(F32)   # many ties
    data = {"X": x.ravel(), "S": np.zeros(N, F32), "MX": np.zeros(N, F32),
            "AMX": np.zeros(N, np.int32), "AMN": np.zeros(N, np.int32),
            "M": np.array(M, np.int32), "N": np.array(N, np.int32)}
    b = build("col_reduce", "*fp32,*fp32,*fp32,*i32,*i32,i32,i32", BM=BM, BN=BN)
    out = launch(tmp_path, b, data, (1,))
    np.testing.assert_array_equal(out["S"], x.sum(0))
    np.testing.assert_array_equal(out["MX"], x.max(0))
    np.testing.assert_array_equal(out["AMX"], x.argmax(0))
    np.testing.assert_array_equal(out["AMN"], x.argmin(0))


@pytest.mark.parametrize("N,BM,BN", [(64, 8, 8), (37, 8, 8), (500, 16, 32), (1, 2, 4)])
def test_full_reductions_to_scalars(tmp_path, N, BM, BN):
    x = rng(N).integers(-1000, 1000, BM * BN).astype(np.int32)
    data = {"X": x, "OUT": np.zeros(8, np.int32), "N": np.array(N, np.int32)}
    b = build("full_reduce", "*i32,*i32,i32", BM=BM, BN=BN)
    out = launch(tmp_path, b, data, (1,))["OUT"]
    v = np.where(np.arange(BM * BN) < N, x, 0)
    assert list(out[:5]) == [v.sum(), v.max(), x[:N].min(), np.bitwise_xor.reduce(v), v.argmax()]


@pytest.mark.parametrize("M,N,BM,BN", [(16, 16, 8, 8), (13, 7, 8, 4), (40, 3, 16, 4), (5, 70, 8, 32)])
def test_strided_transpose(tmp_path, M, N, BM, BN):
    sxm, sxn = N + 2, 1
    x = rng(M * N).standard_normal((M, sxm)).astype(F32)
    data = {"X": x.ravel(), "Y": np.full(N * M, -5, F32), "M": np.array(M, np.int32),
            "N": np.array(N, np.int32), "sxm": np.array(sxm, np.int32), "sxn": np.array(sxn, np.int32),
            "sym": np.array(M, np.int32), "syn": np.array(1, np.int32)}
    b = build("transpose", "*fp32,*fp32,i32,i32,i32,i32,i32,i32", BM=BM, BN=BN)
    out = launch(tmp_path, b, data, (-(-M // BM), -(-N // BN)))
    np.testing.assert_array_equal(out["Y"].reshape(N, M), x[:, :N].T)


@pytest.mark.parametrize("M,N,BM,BN", [(4, 8, 4, 8), (5, 13, 8, 16), (1, 1, 1, 2)])
def test_scans(tmp_path, M, N, BM, BN):
    x = rng(M * N).uniform(0.5, 1.5, (M, N)).astype(F32)
    data = {"X": x.ravel(), "M": np.array(M, np.int32), "N": np.array(N, np.int32)}
    for k in ("CS", "CP", "RCS", "CS0"):
        data[k] = np.zeros(M * N, F32)
    b = build("scans", "*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32", BM=BM, BN=BN)
    out = launch(tmp_path, b, data, (1,))
    np.testing.assert_array_equal(out["CS"].reshape(M, N), np.cumsum(x, 1, dtype=F32))
    np.testing.assert_array_equal(out["CP"].reshape(M, N), np.cumprod(x, 1, dtype=F32))
    np.testing.assert_array_equal(out["RCS"].reshape(M, N), np.cumsum(x[:, ::-1], 1, dtype=F32)[:, ::-1])
    np.testing.assert_array_equal(out["CS0"].reshape(M, N), np.cumsum(x, 0, dtype=F32))


@pytest.mark.parametrize("BA,BB,BC", [(2, 4, 8), (4, 2, 2), (1, 8, 4)])
def test_3d_shapes_round_trip(tmp_path, BA, BB, BC):
    n = BA * BB * BC
    x = rng(n).integers(-50, 50, n).astype(F32)
    data = {"X": x, "Y": np.zeros(n, F32), "Z": np.zeros(n, F32)}
    b = build("shapes3d", "*fp32,*fp32,*fp32", BA=BA, BB=BB, BC=BC)
    out = launch(tmp_path, b, data, (1,))
    t = x.reshape(BA, BB, BC)
    np.testing.assert_array_equal(out["Y"], t.transpose(2, 0, 1).ravel())
    np.testing.assert_array_equal(out["Z"], np.broadcast_to(t.sum(2, keepdims=True), t.shape).ravel())


@pytest.mark.parametrize("M,N,K,BM,BN,BK", [(4, 4, 4, 4, 4, 4), (5, 7, 3, 8, 8, 4), (16, 8, 32, 16, 8, 32)])
def test_matmul_without_dot(tmp_path, M, N, K, BM, BN, BK):
    a = rng(M).standard_normal((M, K)).astype(F32)
    bm = rng(N).standard_normal((K, N)).astype(F32)
    data = {"A": a.ravel(), "B": bm.ravel(), "C": np.zeros(M * N, F32),
            "M": np.array(M, np.int32), "N": np.array(N, np.int32), "K": np.array(K, np.int32)}
    b = build("matmul_nodot", "*fp32,*fp32,*fp32,i32,i32,i32", BM=BM, BN=BN, BK=BK)
    out = launch(tmp_path, b, data, (1,))
    np.testing.assert_allclose(out["C"].reshape(M, N), a.astype(np.float64) @ bm, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("N", [8, 5])
def test_general_mask_takes_other(tmp_path, N):
    x = rng(N).standard_normal((N, N)).astype(F32)
    data = {"X": x.ravel(), "Y": np.zeros(64, F32), "N": np.array(N, np.int32)}
    b = build("general_mask", "*fp32,*fp32,i32", BM=8, BN=8)
    out = launch(tmp_path, b, data, (1,))["Y"].reshape(8, 8)
    want = np.full((8, 8), -1, F32)
    for i in range(N):
        want[i, :i + 1] = x[i, :i + 1]
    np.testing.assert_array_equal(out, want)
