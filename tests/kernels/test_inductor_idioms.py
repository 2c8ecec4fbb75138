"""Inductor idioms (tests/kernels/inductor_idioms*.py) against numpy: seeded inputs, ragged shapes,
NaN/inf where the idiom is about them, device asserts that fire and ones that must not."""
from pathlib import Path

import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch

HERE = Path(__file__).resolve().parent
A = HERE / "inductor_idioms.py"


def _run(tmp_path, name, sig, data, grid, path=A, **defines):
    return launch(tmp_path, build(name, sig, path=path, **defines), data, grid)


def _s(v, dt=np.int32):
    return np.array(v, dt)


def _cdiv(a, b):
    return -(-a // b)


# --- embeddings: negative-index wrap and device asserts ------------------------------------------

@pytest.mark.parametrize("n_idx, XBLOCK", [(5, 256), (3, 128), (7, 512)])
def test_embedding_int64_wrap(tmp_path, n_idx, XBLOCK):
    rng = np.random.default_rng(n_idx)
    idx = rng.integers(-64, 64, n_idx).astype(np.int64)
    idx[0] = -64
    table = rng.standard_normal((64, 128)).astype(np.float32)
    xnumel = n_idx * 128
    grid = (_cdiv(xnumel, XBLOCK),)
    out = _run(tmp_path, "triton_poi_fused_embedding_0", "*i64,*fp32,*fp32,i32",
               {"in_ptr0": idx, "in_ptr1": table.ravel(), "out_ptr0": np.full(xnumel + 5, 7, np.float32),
                "xnumel": _s(xnumel)}, grid, XBLOCK=XBLOCK)
    np.testing.assert_array_equal(out["out_ptr0"][:xnumel].reshape(n_idx, 128), table[idx])
    assert (out["out_ptr0"][xnumel:] == 7).all()


@pytest.mark.parametrize("bad", [64, -65, 2**40])
def test_embedding_index_out_of_range_fires_the_assert(tmp_path, bad):
    idx = np.array([3, bad, 1], np.int64)
    with pytest.raises(Exception, match=r"index out of bounds: 0 <= tmp4 < 64") as info:
        _run(tmp_path, "triton_poi_fused_embedding_0", "*i64,*fp32,*fp32,i32",
             {"in_ptr0": idx, "in_ptr1": np.zeros(64 * 128, np.float32), "out_ptr0": np.zeros(384, np.float32),
              "xnumel": _s(384)}, (3,), XBLOCK=128)
    line = A.read_text().splitlines().index(
        '    tl.device_assert(((0 <= tmp4) & (tmp4 < 64)) | ~(xmask), "index out of bounds: 0 <= tmp4 < 64")') + 1
    assert info.value.loc.file == str(A) and info.value.loc.line == line
    assert "in program (1, 0, 0)" in info.value.render()   # the bad index is in row 1: program 1 fails


def test_embedding_masked_off_rows_do_not_assert(tmp_path):
    # idx[2] is out of range but lies past xnumel: its elements are masked off, `| ~(xmask)` holds
    idx = np.array([1, -1, 999], np.int64)
    table = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    out = _run(tmp_path, "triton_poi_fused_embedding_0", "*i64,*fp32,*fp32,i32",
               {"in_ptr0": idx, "in_ptr1": table.ravel(), "out_ptr0": np.zeros(384, np.float32),
                "xnumel": _s(256)}, (3,), XBLOCK=128)
    np.testing.assert_array_equal(out["out_ptr0"][:256].reshape(2, 128), table[[1, 63]])
    assert (out["out_ptr0"][256:] == 0).all()


@pytest.mark.parametrize("n_idx", [4, 12])
def test_embedding_without_masks(tmp_path, n_idx):
    rng = np.random.default_rng(40 + n_idx)
    idx = rng.integers(-64, 64, n_idx).astype(np.int32)
    table = rng.standard_normal((64, 32)).astype(np.float32)
    out = _run(tmp_path, "triton_poi_fused_embedding_nomask_1", "*i32,*fp32,*fp32,i32",
               {"in_ptr0": idx, "in_ptr1": table.ravel(), "out_ptr0": np.zeros(n_idx * 32, np.float32),
                "xnumel": _s(n_idx * 32)}, (n_idx // 4,), XBLOCK=128)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(n_idx, 32), table[idx])
    with pytest.raises(Exception, match=r"0 <= tmp5 < 64"):
        _run(tmp_path, "triton_poi_fused_embedding_nomask_1", "*i32,*fp32,*fp32,i32",
             {"in_ptr0": np.array([0, 0, 0, 64], np.int32), "in_ptr1": table.ravel(),
              "out_ptr0": np.zeros(128, np.float32), "xnumel": _s(128)}, (1,), XBLOCK=128)


@pytest.mark.parametrize("tokens, XBLOCK", [(5, 4), (16, 8), (3, 1)])
def test_embedding_plus_position_and_mean(tmp_path, tokens, XBLOCK):
    rng = np.random.default_rng(tokens)
    ids = rng.integers(-100, 100, tokens).astype(np.int32)
    word = rng.standard_normal((100, 48)).astype(np.float32)
    pos = rng.standard_normal((16, 48)).astype(np.float32)
    out = _run(tmp_path, "triton_per_fused_add_embedding_mean_2", "*fp32,*i32,*fp32,*fp32,*fp32,i32,i32",
               {"in_out_ptr0": np.zeros(tokens * 48, np.float32), "in_ptr0": ids, "in_ptr1": word.ravel(),
                "in_ptr2": pos.ravel(), "out_ptr0": np.zeros(tokens, np.float32),
                "xnumel": _s(tokens), "r0_numel": _s(48)}, (_cdiv(tokens, XBLOCK),), XBLOCK=XBLOCK)
    emb = word[ids] + pos[np.arange(tokens) % 16]
    np.testing.assert_array_equal(out["in_out_ptr0"].reshape(tokens, 48), emb)
    np.testing.assert_allclose(out["out_ptr0"], emb.astype(np.float64).mean(1), rtol=1e-5, atol=1e-6)


# --- masks, bools, int/float where ---------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 77, 256])
def test_isnan_isinf_bool_outputs_and_int_float_where(tmp_path, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    special = rng.choice(n, size=min(n, 12), replace=False)
    x[special] = rng.choice([np.nan, np.inf, -np.inf, -np.nan], size=len(special))
    thr = np.float32(0.25)
    out = _run(tmp_path, "triton_poi_fused_isinf_isnan_where_3", "*fp32,*fp32,*i1,*fp32,*i1,*i8,i32",
               {"in_ptr0": x, "in_ptr1": np.array([thr], np.float32), "out_ptr0": np.full(n + 3, 5, np.uint8),
                "out_ptr1": np.zeros(n, np.float32), "out_ptr2": np.zeros(n, np.bool_),
                "out_ptr3": np.zeros(n, np.int8), "xnumel": _s(n)}, (_cdiv(n, 64),), XBLOCK=64)
    nonfinite = ~np.isfinite(x)
    # an *i1 buffer given as uint8 shows the stored bytes: exactly 0 or 1, and none past the mask
    np.testing.assert_array_equal(out["out_ptr0"][:n], nonfinite.astype(np.uint8))
    assert out["out_ptr0"][n:].tolist() == [5, 5, 5]
    np.testing.assert_array_equal(out["out_ptr1"], np.where(nonfinite, 0, x))
    gt = (x > thr) & ~nonfinite
    np.testing.assert_array_equal(out["out_ptr2"], gt)
    np.testing.assert_array_equal(out["out_ptr3"], np.where(np.isnan(x), -1, gt.astype(np.int8)))


@pytest.mark.parametrize("n", [5, 130])
def test_maximum_minimum_mixed_dtypes(tmp_path, n):
    rng = np.random.default_rng(n + 1)
    h = (rng.standard_normal(n) * 4).astype(np.float16)
    f = (rng.standard_normal(n) * 4).astype(np.float32)
    f[::7] = h[::7]                        # ties between the f16 value and the f32 one
    f[3 % n] = np.nan
    i = rng.integers(-6, 7, n).astype(np.int32)
    q = rng.integers(-2**40, 2**40, n).astype(np.int64)
    q[::5] = rng.integers(-6, 7, len(q[::5]))
    out = _run(tmp_path, "triton_poi_fused_maximum_minimum_mixed_4", "*fp16,*fp32,*i32,*i64,*fp32,*fp32,*i64,*i64,i32",
               {"in_ptr0": h, "in_ptr1": f, "in_ptr2": i, "in_ptr3": q, "out_ptr0": np.zeros(n, np.float32),
                "out_ptr1": np.zeros(n, np.float32), "out_ptr2": np.zeros(n, np.int64),
                "out_ptr3": np.zeros(n, np.int64), "xnumel": _s(n)}, (_cdiv(n, 64),), XBLOCK=64)
    hf = h.astype(np.float32)
    np.testing.assert_array_equal(out["out_ptr0"], np.maximum(hf, f) + np.maximum(hf, 0))   # NaN propagates
    np.testing.assert_array_equal(out["out_ptr1"], np.minimum(i.astype(np.float32), f))
    np.testing.assert_array_equal(out["out_ptr2"], np.maximum(q, i.astype(np.int64)))
    np.testing.assert_array_equal(out["out_ptr3"], np.minimum(q, -3))


# --- looped reductions with tl.full accumulators ---------------------------------------------------

@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(5, 70, 2, 16), (4, 16, 4, 16), (3, 1, 2, 8),
                                                                (9, 33, 4, 32)])
def test_red_full_accumulators(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    rng = np.random.default_rng(xnumel * 100 + r0_numel)
    x = (rng.standard_normal((xnumel, r0_numel)) * 1.5).astype(np.float32)
    x[0, r0_numel // 2] = np.nan
    if xnumel > 2:
        x[2, 0] = -np.inf
    out = _run(tmp_path, "triton_red_fused_abs_any_count_max_sum_5", "*fp32,*fp32,*fp32,*i64,*i1,*i32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32),
                "out_ptr1": np.zeros(xnumel, np.float32), "out_ptr2": np.zeros(xnumel, np.int64),
                "out_ptr3": np.zeros(xnumel, np.bool_), "out_ptr4": np.zeros(xnumel, np.int32),
                "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)},
               (_cdiv(xnumel, XBLOCK),), XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    ad = np.abs(x.astype(np.float64))
    np.testing.assert_allclose(out["out_ptr0"], ad.sum(1), rtol=1e-5)
    np.testing.assert_array_equal(out["out_ptr1"], x.max(1))     # NaN in row 0 wins, as torch.amax
    np.testing.assert_array_equal(out["out_ptr2"], (np.isnan(x) | (x > 1)).sum(1))
    # the int1 accumulator holds one flag per column position: any, and how many positions saw an inf
    np.testing.assert_array_equal(out["out_ptr3"], np.isinf(x).any(1))
    pad = np.zeros((xnumel, _cdiv(r0_numel, R0_BLOCK) * R0_BLOCK), bool)
    pad[:, :r0_numel] = np.isinf(x)
    np.testing.assert_array_equal(out["out_ptr4"], pad.reshape(xnumel, -1, R0_BLOCK).any(1).sum(1))


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK", [(6, 32, 4), (5, 19, 2), (1, 1, 1)])
def test_per_bool_reductions(tmp_path, xnumel, r0_numel, XBLOCK):
    rng = np.random.default_rng(r0_numel)
    x = rng.integers(-2, 3, (xnumel, r0_numel)).astype(np.int32)
    x[-1] = 0                                     # a row with no nonzero
    out = _run(tmp_path, "triton_per_fused_count_nonzero_sum_6", "*i32,*i1,*i32,*i32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.ones(xnumel, np.bool_), "out_ptr1": np.zeros(xnumel, np.int32),
                "out_ptr2": np.zeros(xnumel, np.int32), "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)},
               (_cdiv(xnumel, XBLOCK),), XBLOCK=XBLOCK)
    np.testing.assert_array_equal(out["out_ptr0"], (x != 0).any(1))
    np.testing.assert_array_equal(out["out_ptr1"], (x < 0).sum(1))
    # tmp2 is not masked by r0_mask, but the load's other=0 makes padding zero
    np.testing.assert_array_equal(out["out_ptr2"], (x != 0).sum(1))


# --- int64 index arithmetic, quantize, math aliases ----------------------------------------------

@pytest.mark.parametrize("B, S, XBLOCK", [(3, 5, 256), (2, 1, 128), (1, 7, 1024)])
def test_permute_int64_index_math(tmp_path, B, S, XBLOCK):
    x = np.random.default_rng(B * 10 + S).standard_normal((B, S, 128)).astype(np.float32)
    n = x.size
    out = _run(tmp_path, "triton_poi_fused_clone_permute_i64_7", "*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(n, np.float32), "xnumel": _s(n), "S": _s(S)},
               (_cdiv(n, XBLOCK),), XBLOCK=XBLOCK)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(S, B, 128), x.transpose(1, 0, 2))


@pytest.mark.parametrize("n", [3, 100, 1000])
def test_quantize_clamped_to_int8(tmp_path, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    x[: min(n, 4)] = np.array([0.025, -0.075, 100.0, -100.0], np.float32)[: min(n, 4)]   # ties and clamps
    out = _run(tmp_path, "triton_poi_fused_quantize_per_tensor_8", "*fp32,*i8,*fp32,i32",
               {"in_ptr0": x, "out_ptr0": np.zeros(n, np.int8), "out_ptr1": np.zeros(n, np.float32),
                "xnumel": _s(n)}, (_cdiv(n, 256),), XBLOCK=256)
    scale = np.float32(0.05)
    q = np.clip(np.rint(x / scale) + 3, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out["out_ptr0"], q)
    np.testing.assert_array_equal(out["out_ptr1"], (q.astype(np.int32) - 3).astype(np.float32) * scale)


@pytest.mark.parametrize("n", [9, 300])
def test_math_aliases(tmp_path, n):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 3).astype(np.float32)
    b = (rng.standard_normal(n) * 3).astype(np.float32)
    out = _run(tmp_path, "triton_poi_fused_math_aliases_9", "*fp32,*fp32,*fp32,i32",
               {"in_ptr0": a, "in_ptr1": b, "out_ptr0": np.zeros(n, np.float32), "xnumel": _s(n)},
               (_cdiv(n, 128),), XBLOCK=128)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    t2 = np.exp(a64 * 0.5) + np.exp(-a64)
    t3 = np.sqrt(np.abs(b64)) + 1 / np.sqrt(b64 * b64 + 1)
    t4 = np.log2(b64 * b64 + 2) + np.log(np.abs(a64) + 1)
    t5 = a64 * b64 + np.floor(b64) - np.ceil(a64)
    t6 = np.sin(a64) * np.cos(b64) + np.exp2(a64 * 0.25)
    want = np.maximum(t2, t3) + np.minimum(t4, t5) + t6 + a64 / (b64 * b64 + 1)
    np.testing.assert_allclose(out["out_ptr0"], want, rtol=1e-5, atol=1e-5)


# --- inductor_idioms_b.py: split reductions, sort, cumsum, argmax ---------------------------------

B = HERE / "inductor_idioms_b.py"


@pytest.mark.parametrize("rows, N, R0_BLOCK", [(3, 100, 8), (5, 7, 4), (2, 64, 16), (1, 1, 4)])
def test_var_mean_split_over_two_kernels(tmp_path, rows, N, R0_BLOCK):
    rng = np.random.default_rng(rows * 1000 + N)
    x = (rng.standard_normal((rows, N)) * 2 + 10).astype(np.float16)
    chunk = _cdiv(N, 4)
    xnumel = rows * 4
    part = _run(tmp_path, "triton_red_fused_var_mean_0", "*fp16,*fp32,*fp32,*fp32,i32,i32,i32,i32",
                {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32), "out_ptr1": np.zeros(xnumel, np.float32),
                 "out_ptr2": np.zeros(xnumel, np.float32), "xnumel": _s(xnumel), "r0_numel": _s(chunk),
                 "N": _s(N), "CHUNK": _s(chunk)}, (_cdiv(xnumel, 4),), path=B, XBLOCK=4, R0_BLOCK=R0_BLOCK)
    xd = x.astype(np.float64)
    weights = np.array([[min(max(N - p * chunk, 0), chunk) for p in range(4)]] * rows, np.float32)
    np.testing.assert_array_equal(part["out_ptr2"].reshape(rows, 4), weights)
    for r in range(rows):
        for p in range(4):
            seg = xd[r, p * chunk:(p + 1) * chunk]
            if seg.size:
                assert part["out_ptr0"][r * 4 + p] == pytest.approx(seg.mean(), rel=1e-6)
                assert part["out_ptr1"][r * 4 + p] == pytest.approx(((seg - seg.mean()) ** 2).sum(), rel=1e-4, abs=1e-4)
            else:
                assert part["out_ptr0"][r * 4 + p] == 0 and part["out_ptr1"][r * 4 + p] == 0
    out = _run(tmp_path, "triton_per_fused_var_mean_1", "*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32",
               {"in_ptr0": part["out_ptr0"], "in_ptr1": part["out_ptr1"], "in_ptr2": part["out_ptr2"],
                "out_ptr0": np.zeros(rows, np.float32), "out_ptr1": np.zeros(rows, np.float32),
                "xnumel": _s(rows), "r0_numel": _s(4)}, (_cdiv(rows, 2),), path=B, XBLOCK=2)
    np.testing.assert_allclose(out["out_ptr0"], xd.mean(1), rtol=1e-6)
    if N > 1:
        np.testing.assert_allclose(out["out_ptr1"], xd.var(1, ddof=1), rtol=1e-4)
    else:
        assert np.isnan(out["out_ptr1"]).all()   # 0 / 0, as torch.var of one element


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(5, 13, 2, 16), (4, 32, 4, 32), (3, 1, 1, 4),
                                                                pytest.param(6, 100, 2, 128, marks=pytest.mark.slow)])
def test_sort_rows_median_descending(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    rng = np.random.default_rng(r0_numel + 7)
    x = rng.integers(-20, 20, (xnumel, r0_numel)).astype(np.float32) * 0.25   # duplicates
    out = _run(tmp_path, "triton_per_fused_sort_median_2", "*fp32,*fp32,*fp32,*fp32,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(x.size, np.float32), "out_ptr1": np.zeros(xnumel, np.float32),
                "out_ptr2": np.zeros(x.size, np.float32), "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)},
               (_cdiv(xnumel, XBLOCK),), path=B, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    s = np.sort(x, 1)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(x.shape), s)
    np.testing.assert_array_equal(out["out_ptr1"], s[:, (r0_numel - 1) // 2])
    np.testing.assert_array_equal(out["out_ptr2"].reshape(x.shape), s[:, ::-1])


@pytest.mark.parametrize("xnumel", [3, 8])
def test_sort_int32_and_cumsum_int64(tmp_path, xnumel):
    rng = np.random.default_rng(xnumel)
    x = rng.integers(-2**31, 2**31, (xnumel, 16), dtype=np.int64).astype(np.int32)
    x[0, :8] = 2**31 - 1
    out = _run(tmp_path, "triton_per_fused_sort_int_3", "*i32,*i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel * 17, np.int32), "xnumel": _s(xnumel)},
               (_cdiv(xnumel, 4),), path=B, XBLOCK=4)
    o = out["out_ptr0"].reshape(xnumel, 17)
    np.testing.assert_array_equal(o[:, :16], np.sort(x, 1))
    np.testing.assert_array_equal(o[:, 16], x.astype(np.int64).sum(1).astype(np.int32))   # wraps on the store


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(3, 20, 2, 32), (4, 8, 4, 8), (2, 1, 1, 2),
                                                                (5, 200, 1, 256)])
def test_cumsum_int64_mask_positions_reversed(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    rng = np.random.default_rng(r0_numel * 3 + xnumel)
    v = rng.integers(-2**40, 2**40, (xnumel, r0_numel), dtype=np.int64)
    f = rng.standard_normal((xnumel, r0_numel)).astype(np.float32)
    f[0, 0] = np.nan
    out = _run(tmp_path, "triton_per_fused_cumsum_i64_4", "*i64,*fp32,*i64,*i64,*i64,i32,i32",
               {"in_ptr0": v.ravel(), "in_ptr1": f.ravel(), "out_ptr0": np.zeros(v.size, np.int64),
                "out_ptr1": np.zeros(v.size, np.int64), "out_ptr2": np.zeros(v.size, np.int64),
                "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)},
               (_cdiv(xnumel, XBLOCK),), path=B, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(v.shape), np.cumsum(v, 1))
    keep = f > 0
    np.testing.assert_array_equal(out["out_ptr1"].reshape(v.shape), np.where(keep, np.cumsum(keep, 1) - 1, -1))
    np.testing.assert_array_equal(out["out_ptr2"].reshape(v.shape), np.cumsum(v[:, ::-1], 1)[:, ::-1])


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(6, 9, 2, 16), (4, 64, 4, 64), (3, 1, 2, 2)])
def test_argmax_argmin_fp16_ties(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    rng = np.random.default_rng(r0_numel)
    x = rng.integers(-3, 4, (xnumel, r0_numel)).astype(np.float16)   # many ties
    x[0] = 0.0
    if r0_numel > 2:
        x[0, 1] = -0.0                      # -0.0 ties with 0.0: first index of the tie
        x[1, r0_numel - 1] = np.nan         # NaN wins in max_with_index/min_with_index (as torch.argmax)
        x[2 % xnumel, :] = -np.inf
    out = _run(tmp_path, "triton_per_fused_argmax_argmin_fp16_5", "*fp16,*i64,*i64,*i32,*fp16,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.int64), "out_ptr1": np.zeros(xnumel, np.int64),
                "out_ptr2": np.zeros(xnumel, np.int32), "out_ptr3": np.zeros(xnumel, np.float16),
                "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)},
               (_cdiv(xnumel, XBLOCK),), path=B, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    np.testing.assert_array_equal(out["out_ptr0"], x.argmax(1))      # numpy: first max, first NaN
    np.testing.assert_array_equal(out["out_ptr1"], x.argmin(1))
    np.testing.assert_array_equal(out["out_ptr3"], x.max(1))
    # tl.argmax ignores NaN: the first index of the largest non-NaN value
    nonan = np.where(np.isnan(x), -np.inf, x)
    want = np.where(np.isnan(x).all(1), 0, nonan.argmax(1))
    np.testing.assert_array_equal(out["out_ptr2"], want)


# --- inductor_idioms_c.py: a user-written stable argsort (reshape/permute/split/join network) -----

C = HERE / "inductor_idioms_c.py"


def _argsort_ref(row, descending):
    nan = np.isnan(row)
    key = np.where(nan, np.inf, row)
    if descending:
        return sorted(range(len(row)), key=lambda i: (not nan[i], -key[i] if not nan[i] else 0.0, i))
    return list(np.argsort(key, kind="stable")) if not nan.any() else \
        sorted(range(len(row)), key=lambda i: (nan[i], key[i] if not nan[i] else 0.0, i))


@pytest.mark.parametrize("n_rows, n_cols, ROWS, LOG, desc", [(3, 7, 2, 3, False), (4, 16, 4, 4, True),
                                                             (2, 1, 1, 1, False),
                                                             pytest.param(5, 50, 2, 6, True, marks=pytest.mark.slow)])
def test_user_argsort_network(tmp_path, n_rows, n_cols, ROWS, LOG, desc):
    rng = np.random.default_rng(n_cols * 10 + desc)
    x = rng.integers(-4, 5, (n_rows, n_cols)).astype(np.float32)     # ties: stability shows
    if n_cols > 3:
        x[0, [1, 3]] = np.nan
    out = _run(tmp_path, "argsort_rows", "*fp32,*fp32,*i32,i32,i32",
               {"X": x.ravel(), "Vals": np.zeros(x.size, np.float32), "Idx": np.zeros(x.size, np.int32),
                "n_rows": _s(n_rows), "n_cols": _s(n_cols)}, (_cdiv(n_rows, ROWS),), path=C,
               ROWS=ROWS, LOG=LOG, DESCENDING=desc)
    idx = out["Idx"].reshape(x.shape)
    want = np.array([_argsort_ref(r, desc) for r in x])
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(out["Vals"].reshape(x.shape), np.take_along_axis(x, want, 1))


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(5, 37, 2, 16), (3, 8, 4, 8), (2, 1, 1, 4)])
def test_red_argmax_int64_index_accumulator(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    rng = np.random.default_rng(r0_numel * 7)
    x = rng.integers(-5, 6, (xnumel, r0_numel)).astype(np.float16)   # ties across loop iterations
    out = _run(tmp_path, "triton_red_fused_argmax_i64_6", "*fp16,*i64,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.full(xnumel, -9, np.int64), "xnumel": _s(xnumel),
                "r0_numel": _s(r0_numel)}, (_cdiv(xnumel, XBLOCK),), path=B, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    np.testing.assert_array_equal(out["out_ptr0"], x.argmax(1))


@pytest.mark.parametrize("rows, n", [(3, 50), (2, 64), (1, 1)])
def test_xblock1_logsumexp(tmp_path, rows, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((rows, n)) * 5).astype(np.float32)
    if rows > 1:
        x[1] = -np.inf                      # an all -inf row: max is -inf, replaced by 0 -> lse = -inf
    out = _run(tmp_path, "triton_per_fused_logsumexp_xblock1_7", "*fp32,*fp32,*fp32,i32,i32",
               {"in_out_ptr0": np.zeros(rows, np.float32), "in_ptr0": x.ravel(), "out_ptr0": np.zeros(x.size, np.float32),
                "xnumel": _s(rows), "r0_numel": _s(n)}, (rows,), path=B)
    xd = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = xd.max(1, keepdims=True)
        m = np.where(np.isinf(m), 0, m)
        lse = np.log(np.exp(xd - m).sum(1, keepdims=True)) + m
        np.testing.assert_allclose(out["in_out_ptr0"], lse[:, 0], rtol=1e-6)
        np.testing.assert_allclose(out["out_ptr0"].reshape(rows, n), xd - lse, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n, XBLOCK", [(100, 1), (128, 1), (3, 2)])
def test_whole_tensor_sum_scalar_store(tmp_path, n, XBLOCK):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out = _run(tmp_path, "triton_per_fused_sum_scalar_out_8", "*fp32,*fp32,*fp32,i32,i32",
               {"in_out_ptr0": np.zeros(2, np.float32), "in_ptr0": x, "out_ptr0": np.zeros(2, np.float32),
                "xnumel": _s(1), "r0_numel": _s(n)}, (1,), path=B, XBLOCK=XBLOCK)
    s = x.astype(np.float64).sum()
    assert out["out_ptr0"][0] == pytest.approx(s, rel=1e-5, abs=1e-5) and out["out_ptr0"][1] == 0
    assert out["in_out_ptr0"][0] == pytest.approx(s / n, rel=1e-5, abs=1e-6) and out["in_out_ptr0"][1] == 0


@pytest.mark.parametrize("C, XBLOCK", [(1, 256), (3, 128)])
def test_upsample_nearest_fp64_index_math(tmp_path, C, XBLOCK):
    x = np.random.default_rng(C).standard_normal((C, 5, 7)).astype(np.float32)
    n = C * 10 * 14
    out = _run(tmp_path, "triton_poi_fused_upsample_nearest_f64_9", "*fp32,*fp32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(n, np.float32), "xnumel": _s(n)},
               (_cdiv(n, XBLOCK),), path=B, XBLOCK=XBLOCK)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(C, 10, 14), x.repeat(2, 1).repeat(2, 2))


@pytest.mark.parametrize("ynumel, xnumel, YBLOCK, XBLOCK", [(37, 10, 16, 8), (16, 16, 16, 16), (5, 3, 4, 2)])
def test_tiled_transpose_with_signbit(tmp_path, ynumel, xnumel, YBLOCK, XBLOCK):
    rng = np.random.default_rng(ynumel + xnumel)
    a = rng.standard_normal((xnumel, ynumel)).astype(np.float32)
    a[0, 0] = -0.0
    b = rng.standard_normal(ynumel).astype(np.float32)
    b[0] = 0.0
    out = _run(tmp_path, "triton_poi_fused_tiled_transpose_add_10", "*fp32,*fp32,*fp32,i32,i32",
               {"in_ptr0": a.ravel(), "in_ptr1": b, "out_ptr0": np.zeros(a.size, np.float32),
                "ynumel": _s(ynumel), "xnumel": _s(xnumel)}, (_cdiv(xnumel, XBLOCK), _cdiv(ynumel, YBLOCK)),
               path=B, YBLOCK=YBLOCK, XBLOCK=XBLOCK)
    s = a + b
    want = np.where(np.signbit(s), -s, s).T
    o = out["out_ptr0"].reshape(ynumel, xnumel)
    np.testing.assert_array_equal(o, want)
    assert not np.signbit(o).any()          # -0.0 + 0.0 = 0.0; a -0.0 would be negated too


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK, desc", [(3, 6, 2, 8, False), (4, 8, 4, 8, True),
                                                                      (2, 1, 1, 2, True)])
def test_inductor_sort_with_index(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK, desc):
    """triton_helpers.sort_with_index (torch.sort's lowering) was "module ... has no attribute"."""
    rng = np.random.default_rng(r0_numel + desc)
    x = rng.integers(-3, 4, (xnumel, r0_numel)).astype(np.float32)
    if r0_numel > 4:
        x[1, 2] = np.nan
    out = _run(tmp_path, "triton_per_fused_sort_0", "*fp32,*fp32,*i64,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(x.size, np.float32), "out_ptr1": np.zeros(x.size, np.int64),
                "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)}, (_cdiv(xnumel, XBLOCK),), path=C,
               XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK, DESC=desc)
    want = np.array([_argsort_ref(r, desc) for r in x])
    np.testing.assert_array_equal(out["out_ptr1"].reshape(x.shape), want)
    np.testing.assert_array_equal(out["out_ptr0"].reshape(x.shape), np.take_along_axis(x, want, 1))


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(5, 7, 2, 8), (2, 1, 2, 2),
                                                            pytest.param(3, 16, 4, 16, marks=pytest.mark.slow)])
def test_median_through_sort_with_index(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    rng = np.random.default_rng(r0_numel * 5)
    x = np.stack([rng.permutation(r0_numel) for _ in range(xnumel)]).astype(np.float32) * 0.5 - 2
    out = _run(tmp_path, "triton_per_fused_median_1", "*fp32,*fp32,*i64,i32,i32",
               {"in_ptr0": x.ravel(), "out_ptr0": np.zeros(xnumel, np.float32), "out_ptr1": np.zeros(xnumel, np.int64),
                "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)}, (_cdiv(xnumel, XBLOCK),), path=C,
               XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    order = np.argsort(x, 1, kind="stable")[:, (r0_numel - 1) // 2]
    np.testing.assert_array_equal(out["out_ptr1"], order)
    np.testing.assert_array_equal(out["out_ptr0"], x[np.arange(xnumel), order])


@pytest.mark.parametrize("xnumel, r0_numel, XBLOCK, R0_BLOCK", [(3, 13, 2, 16), (2, 40, 1, 64)])
def test_cumsum_of_bool_and_u8_int64_to_bool(tmp_path, xnumel, r0_numel, XBLOCK, R0_BLOCK):
    """Result types as in the Triton 3.9 interpreter: both cumsums are uint32 (a 1-D version of this
    kernel gave the interpreter's values bit for bit)."""
    rng = np.random.default_rng(r0_numel)
    f = rng.standard_normal((xnumel, r0_numel)).astype(np.float32)
    q = rng.integers(-300, 300, (xnumel, r0_numel)).astype(np.int64)
    q[0, :3] = [2**40, 0, -2**33]
    out = _run(tmp_path, "triton_per_fused_cumsum_bool_u8_11", "*fp32,*i64,*u32,*u32,*i1,*fp32,i32,i32",
               {"in_ptr0": f.ravel(), "in_ptr1": q.ravel(), "out_ptr0": np.zeros(q.size, np.uint32),
                "out_ptr1": np.zeros(q.size, np.uint32), "out_ptr2": np.zeros(q.size, bool),
                "out_ptr3": np.zeros(q.size, np.float32), "xnumel": _s(xnumel), "r0_numel": _s(r0_numel)},
               (_cdiv(xnumel, XBLOCK),), path=B, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK)
    shape = q.shape
    np.testing.assert_array_equal(out["out_ptr0"].reshape(shape), np.cumsum(f > 0, 1))
    np.testing.assert_array_equal(out["out_ptr1"].reshape(shape), np.cumsum(q.astype(np.uint8).astype(np.uint32), 1))
    np.testing.assert_array_equal(out["out_ptr2"].reshape(shape), q != 0)
    np.testing.assert_array_equal(out["out_ptr3"].reshape(shape), np.where(q != 0, q.astype(np.float32), 0.5))
