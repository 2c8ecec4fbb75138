"""Kernels written as users write them (tests/kernels/user_kernels*.py), each against numpy with seeded
inputs on several shapes, ragged ones included, compiled and run as the CLI does."""
from pathlib import Path

import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch
from tests.numerics import fma

HERE = Path(__file__).resolve().parent
A = HERE / "user_kernels.py"
B = HERE / "user_kernels_b.py"


def _run(tmp_path, path, name, sig, data, grid, **defines):
    return launch(tmp_path, build(name, sig, path=path, **defines), data, grid)


def _i32(v):
    return np.array(v, np.int32)


def _bf16(x):
    """f32 -> bf16 bits, round to nearest even."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def _f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


# --- tutorial-style row kernels -----------------------------------------------------------------

@pytest.mark.parametrize("rows, cols, stride", [(3, 37, 40), (2, 16, 16), (1, 5, 5), (4, 100, 128)])
def test_online_softmax(tmp_path, rows, cols, stride):
    rng = np.random.default_rng(rows * 1000 + cols)
    x = (rng.standard_normal((rows, stride)) * 4).astype(np.float32)
    out = _run(tmp_path, A, "online_softmax", "*fp32,*fp32,i32,i32,i32",
               {"X": x.ravel(), "Y": np.full(rows * stride, -7, np.float32), "n_cols": _i32(cols),
                "x_stride": _i32(stride), "y_stride": _i32(stride)}, (rows,), BLOCK=16)
    y = out["Y"].reshape(rows, stride)
    e = np.exp(x[:, :cols].astype(np.float64) - x[:, :cols].max(1, keepdims=True))
    np.testing.assert_allclose(y[:, :cols], e / e.sum(1, keepdims=True), rtol=2e-6, atol=1e-9)
    assert (y[:, cols:] == -7).all()


@pytest.mark.parametrize("rows, N, BS", [(3, 50, 16), (2, 64, 32), (1, 7, 8)])
def test_layer_norm_loop(tmp_path, rows, N, BS):
    rng = np.random.default_rng(N)
    x = (rng.standard_normal((rows, N)) * 3 + 5).astype(np.float32)
    w = rng.uniform(0.5, 1.5, N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    out = _run(tmp_path, A, "layer_norm_fwd", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
               {"X": x.ravel(), "Y": np.zeros(rows * N, np.float32), "W": w, "B": b,
                "Mean": np.zeros(rows, np.float32), "Rstd": np.zeros(rows, np.float32),
                "stride": _i32(N), "N": _i32(N), "eps": np.array(1e-5, np.float32)}, (rows,), BLOCK_SIZE=BS)
    xd = x.astype(np.float64)
    mean = xd.mean(1)
    rstd = 1 / np.sqrt(xd.var(1) + 1e-5)
    np.testing.assert_allclose(out["Mean"], mean, rtol=1e-6)
    np.testing.assert_allclose(out["Rstd"], rstd, rtol=1e-5)
    want = (xd - mean[:, None]) * rstd[:, None] * w + b
    np.testing.assert_allclose(out["Y"].reshape(rows, N), want, rtol=1e-5, atol=1e-5)


def _grouped_order(M, N, BM, BN, G):
    """pid -> (pid_m, pid_n) as the grouped ordering defines it."""
    npm, npn = -(-M // BM), -(-N // BN)
    res = {}
    for pid in range(npm * npn):
        group = pid // (G * npn)
        first = group * G
        size = min(npm - first, G)
        res[pid] = (first + (pid % (G * npn)) % size, (pid % (G * npn)) // size)
    return res


@pytest.mark.parametrize("M, N, G", [(10, 21, 2), (16, 16, 3), (5, 8, 4)])
def test_grouped_program_ids(tmp_path, M, N, G):
    BM, BN = 4, 8
    rng = np.random.default_rng(M * N)
    a = rng.standard_normal((M, N + 3)).astype(np.float32)
    s = rng.standard_normal(M).astype(np.float32)
    order = _grouped_order(M, N, BM, BN, G)
    out = _run(tmp_path, A, "grouped_tile_scale", "*fp32,*fp32,*fp32,i32,i32,i32,i32",
               {"A": a.ravel(), "Out": np.zeros(M * (N + 1), np.float32), "RowScale": s,
                "M": _i32(M), "N": _i32(N), "stride_am": _i32(N + 3), "stride_om": _i32(N + 1)},
               (len(order),), BLOCK_M=BM, BLOCK_N=BN, GROUP_M=G)
    want = np.zeros((M, N + 1), np.float32)
    for pid, (pm, pn) in order.items():
        r, c = slice(pm * BM, min(M, pm * BM + BM)), slice(pn * BN, min(N, pn * BN + BN))
        want[r, c] = fma(a[r, c], s[r, None], np.float32(pid))   # contract-fma
    np.testing.assert_array_equal(out["Out"].reshape(M, N + 1), want)


def _swizzle(i, j, ni, nj, g):
    ij = i * nj + j
    size_g = g * nj
    group_id = ij // size_g
    off_i = group_id * g
    size_g = min(ni - off_i, g)
    ij = ij % (g * nj)
    return off_i + ij % size_g, ij // size_g


@pytest.mark.parametrize("M, N, G", [(12, 24, 2), (9, 17, 3)])
def test_swizzle2d_launch(tmp_path, M, N, G):
    BM, BN = 4, 8
    gi, gj = -(-M // BM), -(-N // BN)
    a = np.random.default_rng(M).standard_normal((M, N)).astype(np.float32)
    out = _run(tmp_path, A, "swizzled_copy", "*fp32,*fp32,*i32,i32,i32",
               {"A": a.ravel(), "Out": np.zeros(M * N, np.float32), "Tag": np.full(gi * gj, -1, np.int32),
                "M": _i32(M), "N": _i32(N)}, (gi, gj), BLOCK_M=BM, BLOCK_N=BN, GROUP=G)
    np.testing.assert_array_equal(out["Out"], (a * 2).ravel())
    tag = np.full(gi * gj, -1, np.int32)
    for i in range(gi):
        for j in range(gj):
            si, sj = _swizzle(i, j, gi, gj, G)
            tag[si * gj + sj] = i * gj + j
    np.testing.assert_array_equal(out["Tag"], tag)
    assert sorted(tag) == list(range(gi * gj))   # a permutation of the tiles


# --- Inductor-style -----------------------------------------------------------------------------

@pytest.mark.parametrize("rows", [4, 3, 7])
def test_inductor_bias_relu(tmp_path, rows):
    n = rows * 64
    rng = np.random.default_rng(rows)
    x = rng.standard_normal(n).astype(np.float32)
    bias = rng.standard_normal(64).astype(np.float32)
    out = _run(tmp_path, A, "triton_poi_fused_add_relu_0", "*fp32,*fp32,*fp32,i32",
               {"in_ptr0": x, "in_ptr1": bias, "out_ptr0": np.full(n, 9, np.float32), "xnumel": _i32(n)},
               (-(-n // 128),), XBLOCK=128)
    np.testing.assert_array_equal(out["out_ptr0"], np.maximum(x.reshape(rows, 64) + bias, 0).ravel())


@pytest.mark.parametrize("n", [64, 100, 1])
def test_inductor_int_relu(tmp_path, n):
    x = np.random.default_rng(n).integers(-1000, 1000, n).astype(np.int32)
    out = _run(tmp_path, A, "triton_poi_fused_int_relu_1", "*i32,*fp32,i32",
               {"in_ptr0": x, "out_ptr0": np.zeros(n, np.float32), "xnumel": _i32(n)}, (-(-n // 64),), XBLOCK=64)
    np.testing.assert_array_equal(out["out_ptr0"], np.maximum(x, 0).astype(np.float32) * 0.5)


@pytest.mark.parametrize("xnumel, rnumel", [(5, 40), (4, 16), (3, 1)])
def test_inductor_red_sum_max(tmp_path, xnumel, rnumel):
    x = np.random.default_rng(rnumel).standard_normal((xnumel, rnumel)).astype(np.float32) - 2
    out = _run(tmp_path, A, "triton_red_fused_sum_max_0", "*fp32,*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32),
                "out_ptr1": np.zeros(xnumel, np.float32), "xnumel": _i32(xnumel), "rnumel": _i32(rnumel)},
               (-(-xnumel // 2),), XBLOCK=2, RBLOCK=16)
    np.testing.assert_allclose(out["out_ptr0"], x.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out["out_ptr1"], x.max(1))   # all negative-ish: masked lanes must not win


@pytest.mark.parametrize("xnumel, rnumel", [(5, 40), (2, 16), (3, 3)])
def test_inductor_welford_reduce(tmp_path, xnumel, rnumel):
    x = (np.random.default_rng(rnumel).standard_normal((xnumel, rnumel)) + 10).astype(np.float32)
    out = _run(tmp_path, A, "triton_red_fused_var_mean_1", "*fp32,*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32),
                "out_ptr1": np.zeros(xnumel, np.float32), "xnumel": _i32(xnumel), "rnumel": _i32(rnumel)},
               (-(-xnumel // 2),), XBLOCK=2, RBLOCK=16)
    np.testing.assert_allclose(out["out_ptr0"], x.astype(np.float64).mean(1), rtol=1e-6)
    np.testing.assert_allclose(out["out_ptr1"], x.astype(np.float64).var(1), rtol=1e-4)


@pytest.mark.parametrize("rows", [1, 3])
def test_welford_combine_halves(tmp_path, rows):
    x = (np.random.default_rng(rows).standard_normal((rows, 32)) * 2 + 1).astype(np.float32)
    out = _run(tmp_path, A, "welford_two_halves", "*fp32,*fp32,*fp32",
               {"X": x.ravel(), "Mean": np.zeros(rows, np.float32), "Var": np.zeros(rows, np.float32)},
               (rows,), N=32, HALF=16)
    np.testing.assert_allclose(out["Mean"], x.astype(np.float64).mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["Var"], x.astype(np.float64).var(1), rtol=1e-5)


@pytest.mark.parametrize("xnumel, rnumel", [(6, 64), (5, 48), (1, 3)])
def test_inductor_persistent_rms_norm(tmp_path, xnumel, rnumel):
    rng = np.random.default_rng(rnumel)
    x = rng.standard_normal((xnumel, rnumel)).astype(np.float32)
    w = rng.uniform(0.5, 2, rnumel).astype(np.float32)
    out = _run(tmp_path, A, "triton_per_fused_rms_norm_2", "*fp32,*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "in_ptr1": w, "out_ptr0": np.zeros(xnumel * rnumel, np.float32),
                "xnumel": _i32(xnumel), "rnumel": _i32(rnumel)}, (-(-xnumel // 4),), XBLOCK=4)
    xd = x.astype(np.float64)
    want = xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(out["out_ptr0"].reshape(xnumel, rnumel), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("xnumel, rnumel", [(5, 40), (4, 16), (2, 7)])
def test_inductor_red_argmax(tmp_path, xnumel, rnumel):
    x = np.random.default_rng(rnumel).integers(-3, 3, (xnumel, rnumel)).astype(np.float32) - 5
    out = _run(tmp_path, A, "triton_red_fused_argmax_3", "*fp32,*i64,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.full(xnumel, -1, np.int64),
                "xnumel": _i32(xnumel), "rnumel": _i32(rnumel)}, (-(-xnumel // 2),), XBLOCK=2, RBLOCK=16)
    np.testing.assert_array_equal(out["out_ptr0"], x.argmax(1))


@pytest.mark.parametrize("rows", [8, 5])
def test_inductor_embedding_i64(tmp_path, rows):
    rng = np.random.default_rng(rows)
    idx = rng.integers(-10, 10, rows).astype(np.int64)
    table = rng.standard_normal((10, 16)).astype(np.float32)
    n = rows * 16
    out = _run(tmp_path, A, "triton_poi_fused_index_i64_4", "*i64,*fp32,*fp32,i32",
               {"in_ptr0": idx, "in_ptr1": table.ravel(), "out_ptr0": np.zeros(n, np.float32), "xnumel": _i32(n)},
               (-(-n // 64),), XBLOCK=64)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(rows, 16), table[idx])


# --- dtypes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [64, 77, 3])
def test_bool_and_int8_masks(tmp_path, n):
    rng = np.random.default_rng(n)
    a = rng.integers(-3, 4, n).astype(np.float32)
    b = rng.integers(-3, 4, n).astype(np.float32)
    out = _run(tmp_path, A, "compare_masks", "*fp32,*fp32,*i1,*i8,i32",
               {"A": a, "B": b, "OutBool": np.zeros(n + 2, np.bool_), "OutI8": np.full(n + 2, 9, np.int8), "n": _i32(n)},
               (-(-n // 64),), BLOCK=64)
    np.testing.assert_array_equal(out["OutBool"][:n], a > b)
    assert not out["OutBool"][n:].any()
    want = ((a > b) & (a > 0)).astype(np.int8) + (a == b).astype(np.int8) * 2
    np.testing.assert_array_equal(out["OutI8"][:n], want)
    np.testing.assert_array_equal(out["OutI8"][n:], [9, 9])


@pytest.mark.parametrize("pixels", [30, 64, 5])
def test_uint8_brightness_contrast(tmp_path, pixels):
    rng = np.random.default_rng(pixels)
    img = rng.integers(0, 256, pixels * 3).astype(np.uint8)
    alpha, beta = np.float32(1.7), np.float32(-20.5)
    out = _run(tmp_path, A, "brightness_contrast_u8", "*u8,*u8,i32,fp32,fp32",
               {"Img": img, "Out": np.zeros(pixels * 3, np.uint8), "n_pixels": _i32(pixels),
                "alpha": np.array(alpha), "beta": np.array(beta)}, (-(-pixels * 3 // 64),), BLOCK=64)
    y = fma(img.astype(np.float32), alpha, beta) + np.where(np.arange(pixels * 3) % 3 == 0, 10, 0).astype(np.float32)
    np.testing.assert_array_equal(out["Out"], np.rint(np.clip(y, 0, 255)).astype(np.uint8))


@pytest.mark.parametrize("n", [64, 50])
def test_uint8_saturating_add_absdiff(tmp_path, n):
    rng = np.random.default_rng(n)
    a = rng.integers(0, 256, n).astype(np.uint8)
    b = rng.integers(0, 256, n).astype(np.uint8)
    out = _run(tmp_path, A, "saturating_add_u8", "*u8,*u8,*u8,i32",
               {"A": a, "B": b, "Out": np.zeros(2 * n, np.uint8), "n": _i32(n)}, (-(-n // 64),), BLOCK=64)
    np.testing.assert_array_equal(out["Out"][:n], np.minimum(a.astype(int) + b, 255))
    np.testing.assert_array_equal(out["Out"][n:], np.abs(a.astype(int) - b))


@pytest.mark.parametrize("rows, cols", [(2, 40), (3, 16), (1, 3)])
def test_bf16_rms_scale(tmp_path, rows, cols):
    rng = np.random.default_rng(cols)
    x = _bf16(rng.standard_normal((rows, cols)) * 3)
    w = _bf16(rng.uniform(0.5, 2, cols))
    out = _run(tmp_path, A, "bf16_row_scale", "*bf16,*bf16,*bf16,*fp32,i32,i32",
               {"X": x.ravel(), "W": w, "Y": np.zeros(rows * cols, np.uint16), "S": np.zeros(rows, np.float32),
                "n_cols": _i32(cols), "stride": _i32(cols)}, (rows,), BLOCK=16)
    xf = _f32(x).astype(np.float64)
    rms = np.sqrt((xf * xf).mean(1) + 1e-5)
    np.testing.assert_allclose(out["S"], rms, rtol=1e-6)
    want = (_f32(x) / out["S"][:, None] * _f32(w)).astype(np.float32)
    np.testing.assert_array_equal(out["Y"].reshape(rows, cols), _bf16(want))


# --- user_kernels_b: 3-D blocks, while loops, static_range, scatter, ... ------------------------

@pytest.mark.parametrize("batch", [4, 3, 1])
def test_batched_outer_sum_3d(tmp_path, batch):
    M, N = 4, 8
    rng = np.random.default_rng(batch)
    a = rng.integers(-4, 5, (batch, M)).astype(np.float32)
    b = rng.integers(-4, 5, (batch, N)).astype(np.float32)
    out = _run(tmp_path, B, "batched_outer_sum", "*fp32,*fp32,*fp32,i32",
               {"A": a.ravel(), "B": b.ravel(), "Out": np.zeros(batch * M, np.float32), "BATCH": _i32(batch)},
               (-(-batch // 2),), M=M, N=N, BB=2)
    w = np.arange(M)[:, None] + np.arange(N)[None, :]
    want = (a[:, :, None] * b[:, None, :] * w[None]).sum(2)
    np.testing.assert_array_equal(out["Out"].reshape(batch, M), want)


@pytest.mark.parametrize("lengths", [(5, 0, 17, 8), (1,), (0, 0, 33)])
def test_segment_sum_while(tmp_path, lengths):
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    x = np.random.default_rng(len(lengths)).integers(-9, 10, max(1, offsets[-1])).astype(np.float32)
    out = _run(tmp_path, B, "segment_sum_while", "*fp32,*i32,*fp32",
               {"X": x, "Offsets": offsets, "Out": np.full(2 * len(lengths), -1, np.float32)},
               (len(lengths),), BLOCK=8)
    got = out["Out"].reshape(-1, 2)
    for s, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
        assert got[s, 0] == x[lo:hi].sum()
        np.testing.assert_allclose(got[s, 1], x[lo:hi].mean() if hi > lo else 0.0, rtol=1e-6)


@pytest.mark.parametrize("n", [32, 45])
def test_newton_sqrt_while(tmp_path, n):
    x = np.random.default_rng(n).uniform(0.1, 1e4, n).astype(np.float32)
    x[0] = 1.0
    grid = -(-n // 32)
    out = _run(tmp_path, B, "newton_sqrt_while", "*fp32,*fp32,*i32,i32",
               {"X": x, "Y": np.zeros(n, np.float32), "Iters": np.full(grid, -1, np.int32), "n": _i32(n)},
               (grid,), BLOCK=32)
    np.testing.assert_allclose(out["Y"], np.sqrt(x.astype(np.float64)), rtol=1e-6)
    # a numpy replay of the same iteration in f32 gives the same trip counts
    for p in range(grid):
        xs = np.ones(32, np.float32)
        xs[:min(32, n - p * 32)] = x[p * 32:(p + 1) * 32]
        y = np.maximum(xs, np.float32(1))
        it = 0
        while (np.abs(y * y - xs) / xs).max() > np.float32(1e-6) and it < 50:
            y = np.float32(0.5) * (y + xs / y)
            it += 1
        assert out["Iters"][p] == it
        assert 3 <= it < 50


@pytest.mark.parametrize("n", [32, 70, 2])
def test_fir_static_range(tmp_path, n):
    rng = np.random.default_rng(n)
    x = rng.integers(-5, 6, n).astype(np.float32)
    taps = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    out = _run(tmp_path, B, "fir_static_range", "*fp32,*fp32,*fp32,i32",
               {"X": x, "Taps": taps, "Y": np.zeros(n, np.float32), "n": _i32(n)}, (-(-n // 32),),
               NTAPS=4, BLOCK=32)
    np.testing.assert_array_equal(out["Y"], np.convolve(x, taps)[:n])


@pytest.mark.parametrize("n", [32, 13])
def test_horner_static_range(tmp_path, n):
    x = np.random.default_rng(n).integers(-4, 5, n).astype(np.float32) * 0.5
    out = _run(tmp_path, B, "horner_static_range", "*fp32,*fp32,i32",
               {"X": x, "Y": np.zeros(n, np.float32), "n": _i32(n)}, (-(-n // 32),),
               C0=1, C1=-2, C2=0.5, C3=3, BLOCK=32)
    np.testing.assert_array_equal(out["Y"], ((3 * x + 0.5) * x - 2) * x + 1)


@pytest.mark.parametrize("n, n_out", [(32, 40), (50, 64), (7, 11)])
def test_scatter_computed_index(tmp_path, n, n_out):
    rng = np.random.default_rng(n)
    idx = rng.permutation(n_out)[:n].astype(np.int32) if n <= n_out else None
    idx[::5] = -1 - idx[::5]                                     # negative: masked off
    idx[3::7] = n_out + idx[3::7]                                # too large: masked off
    src = rng.standard_normal(n).astype(np.float32)
    out = _run(tmp_path, B, "scatter_by_index", "*fp32,*i32,*fp32,i32,i32",
               {"Src": src, "Idx": idx, "Out": np.full(n_out, 5, np.float32), "n": _i32(n), "n_out": _i32(n_out)},
               (-(-n // 32),), BLOCK=32)
    want = np.full(n_out, 5, np.float32)
    ok = (idx >= 0) & (idx < n_out)
    want[(idx[ok] * 3 + 1) % n_out] = src[ok] * 2
    np.testing.assert_array_equal(out["Out"], want)


@pytest.mark.parametrize("M, K", [(8, 40), (5, 16), (3, 1)])
def test_matvec_rows(tmp_path, M, K):
    rng = np.random.default_rng(M * K)
    a = rng.integers(-3, 4, (M, K + 1)).astype(np.float32)
    x = rng.integers(-3, 4, K).astype(np.float32)
    out = _run(tmp_path, B, "matvec_rows", "*fp32,*fp32,*fp32,i32,i32,i32",
               {"A": a.ravel(), "X": x, "Y": np.zeros(M, np.float32), "M": _i32(M), "K": _i32(K),
                "stride_am": _i32(K + 1)}, (-(-M // 4),), BLOCK_M=4, BLOCK_K=16)
    y = a[:, :K] @ x
    np.testing.assert_allclose(out["Y"], np.where(y >= 0, y, y * np.float32(0.1)), rtol=1e-6)


@pytest.mark.parametrize("n", [64, 100])
def test_gelu_tanh_fp16(tmp_path, n):
    x = (np.random.default_rng(n).standard_normal(n) * 3).astype(np.float16)
    out = _run(tmp_path, B, "gelu_tanh_fp16", "*fp16,*fp16,i32",
               {"X": x, "Y": np.zeros(n, np.float16), "n": _i32(n)}, (-(-n // 64),), BLOCK=64)
    xd = x.astype(np.float64)
    want = 0.5 * xd * (1 + np.tanh(0.7978845608028654 * (xd + 0.044715 * xd ** 3)))
    np.testing.assert_allclose(out["Y"].astype(np.float64), want, rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize("rows, cols", [(3, 20), (2, 32), (1, 1)])
def test_row_cumsum_normalize(tmp_path, rows, cols):
    x = np.random.default_rng(cols).integers(1, 9, (rows, cols)).astype(np.float32)
    out = _run(tmp_path, B, "row_cumsum_normalize", "*fp32,*fp32,i32",
               {"X": x.ravel(), "Y": np.zeros(rows * cols, np.float32), "n_cols": _i32(cols)}, (rows,), BLOCK=32)
    want = np.cumsum(x, 1) / x.sum(1, keepdims=True)
    np.testing.assert_array_equal(out["Y"].reshape(rows, cols), want.astype(np.float32))


@pytest.mark.parametrize("n", [32, 40])
def test_device_assert_passes_and_fails(tmp_path, n):
    rng = np.random.default_rng(n)
    x = rng.integers(-100, 100, n).astype(np.int32)
    d = rng.integers(1, 7, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    binary = build("checked_div", "*i32,*i32,*i32,i32", path=B, BLOCK=32)
    data = {"X": x, "D": d, "Y": np.zeros(n, np.int32), "n": _i32(n)}
    out = launch(tmp_path, binary, data, (-(-n // 32),))
    np.testing.assert_array_equal(out["Y"], np.trunc(x / d).astype(np.int32))   # C division, as Triton
    d[n - 1] = 0
    with pytest.raises(Exception, match="divisor must be non-zero"):
        launch(tmp_path, binary, {**data, "D": d}, (-(-n // 32),))


@pytest.mark.parametrize("M, N", [(8, 16), (10, 13)])
def test_transpose_tiles_i64(tmp_path, M, N):
    x = np.random.default_rng(M).standard_normal((M, N + 2)).astype(np.float32)
    out = _run(tmp_path, B, "transpose_tiles_i64", "*fp32,*fp32,i32,i32,i32,i32",
               {"X": x.ravel(), "Y": np.zeros(N * (M + 1), np.float32), "M": _i32(M), "N": _i32(N),
                "stride_xm": _i32(N + 2), "stride_yn": _i32(M + 1)}, (-(-M // 4), -(-N // 8)),
               BLOCK_M=4, BLOCK_N=8)
    np.testing.assert_array_equal(out["Y"].reshape(N, M + 1)[:, :M], x[:, :N].T)


@pytest.mark.parametrize("q_len, seq_len", [(3, 20), (2, 8), (1, 5)])
def test_attention_row_online_softmax(tmp_path, q_len, seq_len):
    D = 16
    rng = np.random.default_rng(seq_len)
    q = rng.standard_normal((q_len, D)).astype(np.float32)
    k = rng.standard_normal((seq_len, D)).astype(np.float32)
    v = rng.standard_normal((seq_len, D)).astype(np.float32)
    scale = np.float32(0.25)
    out = _run(tmp_path, B, "attention_row", "*fp32,*fp32,*fp32,*fp32,*fp32,i32,fp32",
               {"Q": q.ravel(), "K": k.ravel(), "V": v.ravel(), "O": np.zeros(q_len * D, np.float32),
                "L": np.zeros(q_len, np.float32), "seq_len": _i32(seq_len), "scale": np.array(scale)},
               (q_len,), D=D, BLOCK_N=8)
    s = (q.astype(np.float64) * scale) @ k.T.astype(np.float64)
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(out["O"].reshape(q_len, D), (p / p.sum(1, keepdims=True)) @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["L"], s.max(1) + np.log(p.sum(1)), rtol=1e-6)


# --- user_kernels_c: persistent loops, early exits, hashing, constexpr flags, strides, bits -------

C = HERE / "user_kernels_c.py"


@pytest.mark.parametrize("rows, cols, progs", [(10, 20, 4), (3, 32, 8), (7, 5, 1)])
def test_persistent_grid_stride(tmp_path, rows, cols, progs):
    x = np.random.default_rng(rows).standard_normal((rows, cols)).astype(np.float32)
    out = _run(tmp_path, C, "persistent_scale_rows", "*fp32,*fp32,i32,i32",
               {"X": x.ravel(), "Y": np.zeros(rows * cols, np.float32), "n_rows": _i32(rows), "n_cols": _i32(cols)},
               (progs,), BLOCK=32)
    want = x / (np.abs(x).max(1, keepdims=True) + np.float32(1e-6))
    np.testing.assert_allclose(out["Y"].reshape(rows, cols), want, rtol=1e-6)


@pytest.mark.parametrize("rows, cols, grid", [(3, 20, 5), (1, 32, 1)])
def test_early_return_and_scalar_mask(tmp_path, rows, cols, grid):
    x = np.random.default_rng(cols).standard_normal((rows, cols)).astype(np.float32)
    out = _run(tmp_path, C, "early_exit_copy", "*fp32,*fp32,i32,i32",
               {"X": x.ravel(), "Y": np.full((rows + 1) * cols + 3, 4, np.float32), "n_rows": _i32(rows),
                "n_cols": _i32(cols)}, (grid,), BLOCK=32)
    y = out["Y"]
    np.testing.assert_array_equal(y[:rows * cols], (x + 1).ravel())
    np.testing.assert_array_equal(y[rows * cols:(rows + 1) * cols], x[0] * 10)
    np.testing.assert_array_equal(y[(rows + 1) * cols:], [4, 4, 4])


def _hash_u32(v):
    h = (v.astype(np.uint64) * 747796405 + 2891336453) & 0xFFFFFFFF
    h = (((h >> ((h >> 28) + 4)) ^ h) * 277803737) & 0xFFFFFFFF
    return (h >> 22) ^ h


@pytest.mark.parametrize("n, seed", [(128, 7), (100, -3), (5, 123456789)])
def test_hash_dropout_u32_wraparound(tmp_path, n, seed):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    p = np.float32(0.7)
    grid = -(-n // 64)
    out = _run(tmp_path, C, "hash_keep_mask", "*i32,*fp32,*fp32,*i32,i32,fp32",
               {"Seeds": np.array([seed], np.int32), "X": x, "Y": np.zeros(n, np.float32),
                "Kept": np.full(grid, -1, np.int32), "n": _i32(n), "p_keep": np.array(p)}, (grid,), BLOCK=64)
    offs = np.arange(grid * 64, dtype=np.int64)
    h = _hash_u32((offs + seed) & 0xFFFFFFFF)
    r = h.astype(np.float32) * np.float32(1.0 / 4294967296.0)
    keep = r < p
    np.testing.assert_array_equal(out["Y"], np.where(keep[:n], x / p, 0).astype(np.float32))
    kept = (keep & (offs < n)).reshape(grid, 64).sum(1)
    np.testing.assert_array_equal(out["Kept"], kept)
    assert 0 < kept.sum() < n   # the hash mixes: some kept, some dropped


@pytest.mark.parametrize("bias, res, act", [(True, False, "relu"), (False, True, "sigmoid"), (True, True, "none")])
def test_constexpr_flags_and_string_activation(tmp_path, bias, res, act):
    M, N, stride = 6, 13, 16
    rng = np.random.default_rng(M + N)
    x = rng.standard_normal((M, stride)).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    r = rng.standard_normal((M, stride)).astype(np.float32)
    out = _run(tmp_path, C, "linear_epilogue", "*fp32,*fp32,*fp32,*fp32,i32,i32,i32",
               {"X": x.ravel(), "Bias": b, "Res": r.ravel(), "Y": np.zeros(M * stride, np.float32),
                "M": _i32(M), "N": _i32(N), "stride": _i32(stride)}, (-(-M // 4), -(-N // 8)),
               HAS_BIAS=bias, HAS_RES=res, ACT=f'"{act}"', BLOCK_M=4, BLOCK_N=8)
    want = x[:, :N].astype(np.float64) + (b if bias else 0)
    if act == "relu":
        want = np.maximum(want, 0)
    elif act == "sigmoid":
        want = 1 / (1 + np.exp(-want))
    if res:
        want = want + r[:, :N]
    got = out["Y"].reshape(M, stride)
    np.testing.assert_allclose(got[:, :N], want, rtol=1e-6, atol=1e-7)
    assert (got[:, N:] == 0).all()


@pytest.mark.parametrize("M, N, order", [(20, 12, "C"), (20, 12, "F"), (5, 3, "F")])
def test_strided_column_sums(tmp_path, M, N, order):
    x = np.random.default_rng(M * N).integers(-9, 10, (M, N)).astype(np.float32)
    flat = x.ravel(order=order)
    sm, sn = (N, 1) if order == "C" else (1, M)
    out = _run(tmp_path, C, "col_major_colsum", "*fp32,*fp32,i32,i32,i32,i32",
               {"X": flat, "Out": np.zeros(N, np.float32), "M": _i32(M), "N": _i32(N),
                "stride_m": _i32(sm), "stride_n": _i32(sn)}, (-(-N // 8),), BLOCK_M=8, BLOCK_N=8)
    np.testing.assert_array_equal(out["Out"], x.sum(0))


@pytest.mark.parametrize("n", [32, 40])
def test_bitcast_tricks(tmp_path, n):
    x = (np.random.default_rng(n).standard_normal(n) * 1000).astype(np.float32)
    x[:4] = [0.0, -0.0, 1e-40, -np.inf]
    out = _run(tmp_path, C, "bit_tricks", "*fp32,*fp32,*i32,i32",
               {"X": x, "Y": np.zeros(n, np.float32), "E": np.zeros(n, np.int32), "n": _i32(n)},
               (-(-n // 32),), BLOCK=32)
    np.testing.assert_array_equal(out["Y"], np.abs(x) * np.where(np.signbit(x), -1, 1).astype(np.float32))
    np.testing.assert_array_equal(out["E"], ((x.view(np.int32) >> 23) & 0xFF) - 127)


@pytest.mark.parametrize("lengths", [(20, 3, 8), (1,), (9, 0, 16)])
def test_ragged_rows_i64_bounds(tmp_path, lengths):
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    x = np.random.default_rng(len(lengths)).integers(-5, 5, max(1, ptr[-1])).astype(np.float32)
    out = _run(tmp_path, C, "ragged_rows_i64_bounds", "*fp32,*i64,*i64",
               {"X": x, "RowPtr": ptr, "Out": np.full(len(lengths), 99, np.int64)}, (len(lengths),), BLOCK=8)
    want = [x[lo:hi].argmax() if hi > lo else -1 for lo, hi in zip(ptr[:-1], ptr[1:])]
    np.testing.assert_array_equal(out["Out"], want)


@pytest.mark.parametrize("rows, cols", [(2, 20), (3, 32)])
def test_fp16_masked_minus_inf(tmp_path, rows, cols):
    x = (np.random.default_rng(cols).standard_normal((rows, cols)) * 4 - 30).astype(np.float16)
    out = _run(tmp_path, C, "fp16_masked_max_norm", "*fp16,*fp16,i32",
               {"X": x.ravel(), "Y": np.zeros(rows * cols, np.float16), "n_cols": _i32(cols)}, (rows,), BLOCK=32)
    xf = x.astype(np.float32)
    want = np.exp(xf - xf.max(1, keepdims=True)).astype(np.float16)
    np.testing.assert_allclose(out["Y"].reshape(rows, cols).astype(np.float32), want.astype(np.float32),
                               rtol=1e-3)


def test_permute_reshape_3d(tmp_path):
    x = np.random.default_rng(0).standard_normal((2, 4, 8)).astype(np.float32)
    out = _run(tmp_path, C, "permute_3d", "*fp32,*fp32", {"X": x.ravel(), "Y": np.zeros(64, np.float32)},
               (1,), A=2, B=4, C=8)
    want = (x + np.arange(2, dtype=np.float32)[:, None, None]).transpose(2, 0, 1)
    np.testing.assert_array_equal(out["Y"], want.ravel())


@pytest.mark.parametrize("N", [16, 21, 3])
def test_argmin_axis0(tmp_path, N):
    x = np.random.default_rng(N).integers(-2, 3, (8, N)).astype(np.float32)
    out = _run(tmp_path, C, "argmin_axis0", "*fp32,*i32,i32",
               {"X": x.ravel(), "Out": np.full(N, -1, np.int32), "N": _i32(N)}, (-(-N // 16),), M=8, BLOCK_N=16)
    np.testing.assert_array_equal(out["Out"], x.argmin(0))


# --- user_kernels_d: tl.range options, None pointers, Inductor's mask=None / scans / 2-D tiles ----

D = HERE / "user_kernels_d.py"


@pytest.mark.parametrize("rows, cols, progs", [(9, 30, 4), (2, 32, 2), (5, 1, 8)])
def test_softmax_persistent_num_stages(tmp_path, rows, cols, progs):
    x = (np.random.default_rng(rows).standard_normal((rows, 32)) * 3).astype(np.float32)
    out = _run(tmp_path, D, "softmax_persistent_stages", "*fp32,*fp32,i32,i32,i32",
               {"X": x.ravel(), "Y": np.zeros(rows * 32, np.float32), "n_rows": _i32(rows), "n_cols": _i32(cols),
                "stride": _i32(32)}, (progs,), BLOCK=32, num_stages=3)
    xd = x[:, :cols].astype(np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    np.testing.assert_allclose(out["Y"].reshape(rows, 32)[:, :cols], e / e.sum(1, keepdims=True), rtol=2e-6)


@pytest.mark.parametrize("with_bias", [True, False])
def test_optional_pointer_none(tmp_path, with_bias):
    n = 40
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    if with_bias:
        out = _run(tmp_path, D, "optional_bias", "*fp32,*fp32,*fp32,i32",
                   {"X": x, "Bias": b, "Y": np.zeros(n, np.float32), "n": _i32(n)}, (2,), BLOCK=32)
        np.testing.assert_array_equal(out["Y"], (x + b) * 2)
    else:
        out = _run(tmp_path, D, "optional_bias", "*fp32,*fp32,i32",
                   {"X": x, "Y": np.zeros(n, np.float32), "n": _i32(n)}, (2,), BLOCK=32, Bias=None)
        np.testing.assert_array_equal(out["Y"], x * 2)


def test_inductor_mask_none_all_true(tmp_path):
    n = 96
    x = (np.random.default_rng(1).standard_normal(n) * 4).astype(np.float32)
    x[5] = np.nan
    out = _run(tmp_path, D, "triton_poi_fused_mul_sigmoid_0", "*fp32,*fp32,i32",
               {"in_ptr0": x, "out_ptr0": np.full(n, 3, np.float32), "xnumel": _i32(n)}, (3,), XBLOCK=32)
    xd = x.astype(np.float64)
    want = np.where(np.isnan(x), 0, np.abs(xd / (1 + np.exp(-xd))))
    np.testing.assert_allclose(out["out_ptr0"], want, rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("xnumel, rnumel", [(4, 32), (3, 20), (1, 1)])
def test_inductor_scan_helper(tmp_path, xnumel, rnumel):
    x = np.random.default_rng(rnumel).integers(-5, 6, (xnumel, rnumel)).astype(np.float32)
    out = _run(tmp_path, D, "triton_per_fused_cumsum_1", "*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel * rnumel, np.float32), "xnumel": _i32(xnumel),
                "rnumel": _i32(rnumel)}, (-(-xnumel // 2),), XBLOCK=2)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(xnumel, rnumel), np.cumsum(x, 1))


@pytest.mark.parametrize("xnumel, ynumel", [(8, 16), (5, 11), (1, 3)])
def test_inductor_2d_tiled_transpose(tmp_path, xnumel, ynumel):
    x = np.random.default_rng(xnumel).standard_normal((xnumel, ynumel)).astype(np.float32)
    out = _run(tmp_path, D, "triton_poi_fused_clone_transpose_2", "*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel * ynumel, np.float32), "ynumel": _i32(ynumel),
                "xnumel": _i32(xnumel)}, (-(-xnumel // 4), -(-ynumel // 8)), YBLOCK=8, XBLOCK=4)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(ynumel, xnumel), x.T * 3)


@pytest.mark.parametrize("xnumel, rnumel", [(5, 20), (4, 8), (3, 3)])
def test_inductor_red_any_prod(tmp_path, xnumel, rnumel):
    x = np.random.default_rng(rnumel).uniform(-3, 2.2, (xnumel, rnumel)).astype(np.float32)
    out = _run(tmp_path, D, "triton_red_fused_any_prod_3", "*fp32,*i1,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.bool_), "out_ptr1": np.zeros(xnumel, np.float32),
                "xnumel": _i32(xnumel), "rnumel": _i32(rnumel)}, (-(-xnumel // 2),), XBLOCK=2, RBLOCK=8)
    np.testing.assert_array_equal(out["out_ptr0"], (x > 2).any(1))
    np.testing.assert_allclose(out["out_ptr1"], np.prod(1 + x.astype(np.float64) * 0.125, 1), rtol=1e-5)


@pytest.mark.parametrize("n", [32, 50])
def test_int8_abs_min_max_sum(tmp_path, n):
    x = np.random.default_rng(n).integers(-128, 128, n).astype(np.int8)
    x[0] = -128
    grid = -(-n // 32)
    out = _run(tmp_path, D, "int8_abs_minmax", "*i8,*i8,i32",
               {"X": x, "Out": np.zeros(n + 4 * grid, np.int8), "n": _i32(n)}, (grid,), BLOCK=32)
    got = out["Out"]
    np.testing.assert_array_equal(got[:n], np.abs(x))           # numpy wraps -128 too
    for p in range(grid):
        seg = x[p * 32:(p + 1) * 32].astype(np.int32)
        s = seg.sum()
        np.testing.assert_array_equal(got[n + 4 * p:n + 4 * p + 4],
                                      np.array([seg.max(), seg.min(), s & 0x7F, s >> 8]).astype(np.int8))


@pytest.mark.parametrize("n_rows, progs", [(5, 2), (4, 1), (1, 3)])
def test_nested_loops_static_inner(tmp_path, n_rows, progs):
    K = 20
    x = np.random.default_rng(n_rows).integers(-4, 5, (progs, n_rows, K)).astype(np.float32)
    out = _run(tmp_path, D, "nested_loops_static_inner", "*fp32,*fp32,i32",
               {"X": x.ravel(), "Y": np.zeros(progs, np.float32), "n_rows": _i32(n_rows)}, (progs,), K=K, BLOCK=8)
    weights = np.where(np.arange(n_rows) % 2 == 0, 1, 2).astype(np.float32)
    np.testing.assert_array_equal(out["Y"], (x.sum(2) * weights).sum(1))


@pytest.mark.parametrize("n, block", [(64, 32), (50, 32), (128, 64)])
def test_autotune_heuristics_decorators_and_module_helper(tmp_path, n, block):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out = _run(tmp_path, D, "autotuned_leaky", "*fp32,*fp32,i32,fp32",
               {"X": x, "Y": np.zeros(n, np.float32), "n": _i32(n), "slope": np.array(0.25, np.float32)},
               (-(-n // block),), BLOCK=block, EVEN=n % block == 0)
    np.testing.assert_array_equal(out["Y"], np.where(x >= 0, x, x * np.float32(0.25)))


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("n", [16, 11])
def test_bool_arithmetic_wraps(tmp_path, opt, n):
    """Found writing these kernels: `a + b` of two i1 blocks stopped codegen ("'arith.addi' on i1 blocks
    is not supported yet"); Triton keeps it int1 (1 + 1 wraps to 0)."""
    rng = np.random.default_rng(n)
    a = rng.integers(0, 2, n).astype(np.int32)
    b = rng.integers(0, 2, n).astype(np.int32)
    a[:2], b[:2] = 1, 1
    binary = build("bool_arith", "*i32,*i32,*i32,i32", opt_level=opt, path=D, BLOCK=16)
    out = launch(tmp_path, binary, {"A": a, "B": b, "Out": np.zeros(4 * n + 2, np.int32), "n": _i32(n)}, (1,))["Out"]
    np.testing.assert_array_equal(out[:n], a ^ b)
    np.testing.assert_array_equal(out[n:2 * n], a & b)
    np.testing.assert_array_equal(out[2 * n:3 * n], a ^ b)
    np.testing.assert_array_equal(out[3 * n:4 * n], a + 1 + b)
    np.testing.assert_array_equal(out[4 * n:], [a[0] ^ b[0], a[0] & b[0]])


def test_fp16_div_mod_compute_in_f32(tmp_path):
    """Triton 3.9 computes `/` and `%` with fp16 operands in f32, with an f32 result (no fp16 rounding)."""
    n = 16
    h = (np.random.default_rng(3).standard_normal(n) * 10).astype(np.float16)
    out = _run(tmp_path, D, "half_div_mod", "*fp16,*fp32,i32",
               {"H": h, "Out": np.zeros(2 * n, np.float32), "n": _i32(n)}, (1,), BLOCK=16)["Out"]
    hf = h.astype(np.float32)
    np.testing.assert_array_equal(out[:n], hf / np.float32(3))
    np.testing.assert_array_equal(out[n:], np.fmod(hf, np.float32(1.5)))


# --- bigger shapes (slow) -----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("rows, cols, block", [(8, 1000, 256), (3, 4099, 1024), (16, 129, 64)])
def test_row_kernels_big(tmp_path, rows, cols, block):
    rng = np.random.default_rng(cols)
    x = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    w = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    sm = _run(tmp_path, A, "online_softmax", "*fp32,*fp32,i32,i32,i32",
              {"X": x.ravel(), "Y": np.zeros(rows * cols, np.float32), "n_cols": _i32(cols), "x_stride": _i32(cols),
               "y_stride": _i32(cols)}, (rows,), BLOCK=block)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    np.testing.assert_allclose(sm["Y"].reshape(rows, cols), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-10)
    ln = _run(tmp_path, A, "layer_norm_fwd", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
              {"X": x.ravel(), "Y": np.zeros(rows * cols, np.float32), "W": w, "B": b,
               "Mean": np.zeros(rows, np.float32), "Rstd": np.zeros(rows, np.float32), "stride": _i32(cols),
               "N": _i32(cols), "eps": np.array(1e-5, np.float32)}, (rows,), BLOCK_SIZE=block)
    want = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(ln["Y"].reshape(rows, cols), want, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("q_len, seq_len, D, BN", [(16, 128, 64, 32), (5, 77, 32, 16)])
def test_attention_row_big(tmp_path, q_len, seq_len, D, BN):
    rng = np.random.default_rng(seq_len)
    q, k, v = (rng.standard_normal((n, D)).astype(np.float32) for n in (q_len, seq_len, seq_len))
    out = _run(tmp_path, B, "attention_row", "*fp32,*fp32,*fp32,*fp32,*fp32,i32,fp32",
               {"Q": q.ravel(), "K": k.ravel(), "V": v.ravel(), "O": np.zeros(q_len * D, np.float32),
                "L": np.zeros(q_len, np.float32), "seq_len": _i32(seq_len), "scale": np.array(0.125, np.float32)},
               (q_len,), D=D, BLOCK_N=BN)
    s = q.astype(np.float64) @ k.T.astype(np.float64) * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(out["O"].reshape(q_len, D), (p / p.sum(1, keepdims=True)) @ v, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("xnumel, rnumel, X, R", [(64, 500, 4, 128), (10, 2048, 2, 256)])
def test_inductor_reductions_big(tmp_path, xnumel, rnumel, X, R):
    x = (np.random.default_rng(rnumel).standard_normal((xnumel, rnumel)) + 3).astype(np.float32)
    data = {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32), "out_ptr1": np.zeros(xnumel, np.float32),
            "xnumel": _i32(xnumel), "rnumel": _i32(rnumel)}
    wf = _run(tmp_path, A, "triton_red_fused_var_mean_1", "*fp32,*fp32,*fp32,i32,i32", data, (-(-xnumel // X),),
              XBLOCK=X, RBLOCK=R)
    np.testing.assert_allclose(wf["out_ptr0"], x.astype(np.float64).mean(1), rtol=1e-5)
    np.testing.assert_allclose(wf["out_ptr1"], x.astype(np.float64).var(1), rtol=1e-4)
    sm = _run(tmp_path, A, "triton_red_fused_sum_max_0", "*fp32,*fp32,*fp32,i32,i32", data, (-(-xnumel // X),),
              XBLOCK=X, RBLOCK=R)
    np.testing.assert_allclose(sm["out_ptr0"], x.astype(np.float64).sum(1), rtol=1e-4)
    np.testing.assert_array_equal(sm["out_ptr1"], x.max(1))
