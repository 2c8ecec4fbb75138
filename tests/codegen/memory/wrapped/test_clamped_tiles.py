"""The ``wrapped-tiles`` plan's clamped form, differential against numpy (seeded): tiles whose rows (or
columns, or outer axis) are ``where(u + arange < R, u + arange, C)`` (Triton's tutorial 09), dumped
densely: ragged R (positions past it read row C, row 0 in the tutorial), ``u >= R`` (every position reads
row C), negative ``u``, R beyond the block, the ``>=`` and swapped-comparison spellings, strides other than
1 on the last axis, prefix masks with ``other``; and tutorial 09's persistent matmul (``tl.dot`` replaced by
sums), alone and mixed with tutorial 03's wrapped ``% M``, and with ``tl.dot`` at its 128x128x64 tiles."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.memory.wrapped.test_wrapped_matmul import bf16_to_f32
from tests.codegen.memory.wrapped.test_wrapped_tiles import NP, build, i32, minus_one, values


def clamped(u, n, R, C):
    x = u + np.arange(n)
    return np.where(x < R, x, C)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
@pytest.mark.parametrize("M,u0,C,kvalid,transposed,ge", [
    (40, 0, 0, 8, False, False),     # ragged M: the last program's rows past 40 read row 0
    (37, 3, 0, 5, False, True),      # the `>=` spelling, ragged columns
    (10, 0, 2, 8, False, False),     # R below the block: programs 1, 2 read row C only (u >= R)
    (100, 0, 0, 8, False, False),    # R beyond every row: one run per program
    (12, -20, 5, 6, False, False),   # negative u: negative rows, then row C
    (9, 4, 0, 0, False, False),      # every column masked off
    (21, 1, 3, 3, True, False),      # columns of stride R (a transposed operand): one DMA per column
])
def test_clamped_rows(opt, dtype, M, u0, C, kvalid, transposed, ge):
    br, bc, grid = 16, 8, 3
    rng = np.random.default_rng(M * 7 + u0 + C + opt)
    base_rows = 24
    rows_x = base_rows + max(M, C + 1, u0 + grid * br)
    x = values(dtype, rows_x * bc, rng)
    sr, sc = (1, rows_x) if transposed else (bc, 1)
    out = run(build("clamp_rows", f"*{dtype},*{dtype},i32,i32,i32,i32,i32,i32,i32", opt, BR=br, BC=bc, GE=int(ge)),
              {"X": x, "Out": np.zeros(grid * br * bc, NP[dtype]), "base": i32(base_rows * sr), "M": i32(M),
               "sr": i32(sr), "sc": i32(sc), "u0": i32(u0), "C": i32(C), "kvalid": i32(kvalid)},
              grid=(grid,)).outputs["Out"]
    rows = clamped(u0, grid * br, M, C)
    expect = x[base_rows * sr + rows[:, None] * sr + np.arange(bc)[None, :] * sc]
    expect[:, kvalid:] = minus_one(dtype)
    np.testing.assert_array_equal(out.reshape(grid * br, bc), expect)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("N,u0,C,kvalid,sc", [(20, 0, 0, 8, 1), (23, 5, 1, 3, 1), (6, -9, 0, 8, 1),
                                              (3, 20, 2, 8, 1), (11, 4, 0, 5, 3)])
def test_clamped_columns(opt, N, u0, C, kvalid, sc):
    bk, bn, grid = 8, 16, 2
    rng = np.random.default_rng(N + abs(u0) + 100 * opt)
    base_cols = 16
    width = (base_cols + max(N, C + 1, u0 + grid * bn)) * sc
    x = values("fp32", bk * width, rng)
    out = run(build("clamp_cols", "*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32", opt, BK=bk, BN=bn),
              {"X": x, "Out": np.zeros(grid * bk * bn, np.float32), "base": i32(base_cols * sc), "N": i32(N),
               "sr": i32(width), "sc": i32(sc), "u0": i32(u0), "C": i32(C), "kvalid": i32(kvalid)},
              grid=(grid,)).outputs["Out"]
    for pid in range(grid):
        cols = clamped(u0 + pid * bn, bn, N, C)
        expect = x[base_cols * sc + np.arange(bk)[:, None] * width + cols[None, :] * sc]
        expect[kvalid:, :] = -1.0
        np.testing.assert_array_equal(out[pid * bk * bn:(pid + 1) * bk * bn].reshape(bk, bn), expect)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("R,u0,C", [(6, 0, 0), (3, 1, 1), (20, -3, 0)])
def test_clamped_outer_axis(opt, R, u0, C):
    bq, br, bc, grid = 4, 8, 8, 2
    rng = np.random.default_rng(R + u0 + C + opt)
    sr, sq, base_q = bc + 2, (bc + 2) * br, 4
    x = values("fp32", (base_q + max(R, C + 1, u0 + grid * bq)) * sq, rng)
    out = run(build("clamp_3d", "*fp32,*fp32,i32,i32,i32,i32,i32,i32", opt, BQ=bq, BR=br, BC=bc),
              {"X": x, "Out": np.zeros(grid * bq * br * bc, np.float32), "base": i32(base_q * sq), "R": i32(R),
               "sq": i32(sq), "sr": i32(sr), "u0": i32(u0), "C": i32(C)}, grid=(grid,)).outputs["Out"]
    q = clamped(u0, grid * bq, R, C)
    expect = x[base_q * sq + q[:, None, None] * sq + np.arange(br)[None, :, None] * sr + np.arange(bc)[None, None, :]]
    np.testing.assert_array_equal(out.reshape(grid * bq, br, bc), expect)


SIG = "*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32"
BLOCKS = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=4, NUM_SMS=3)


def persistent(opt, m, n, k, mixed=False, b_t=False, seed=0):
    rng = np.random.default_rng(seed)
    a, b = values("bf16", m * k, rng).reshape(m, k), values("bf16", k * n, rng).reshape(k, n)
    sb = (1, k) if b_t else (n, 1)
    data = {"a_ptr": a.ravel(), "b_ptr": np.ascontiguousarray(b.T if b_t else b).ravel(),
            "c_ptr": np.zeros(m * n, np.float32)}
    for name, v in zip(["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"],
                       [m, n, k, k, 1, *sb, n, 1]):
        data[name] = i32(v)
    res = run(build("matmul_persistent", SIG, opt, MIXED=int(mixed), DOT=0, **BLOCKS), data, grid=(BLOCKS["NUM_SMS"],))
    fa, fb = bf16_to_f32(a), bf16_to_f32(b)
    expect = fa.sum(axis=1, dtype=np.float64)[:, None] + fb.sum(axis=0, dtype=np.float64)[None, :]
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(m, n), expect, rtol=1e-5, atol=1e-4)
    return res


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("m,n,k", [(64, 64, 32), (50, 70, 45), (20, 9, 17), (100, 33, 16)])
def test_persistent_matmul(opt, m, n, k):
    persistent(opt, m, n, k, seed=m + n + k + opt)


@pytest.mark.parametrize("m,n,k,b_t", [(50, 70, 45, False), (37, 19, 30, True)])
def test_persistent_matmul_mixed_with_wrapped(m, n, k, b_t):
    # a's rows `% M` (tutorial 03), b's columns clamped (tutorial 09): one kernel, both forms
    persistent(2, m, n, k, mixed=True, b_t=b_t, seed=m * n)


def test_persistent_moves_runs_not_elements():
    # per tile and K step: one 2-D DMA for a's rows and one for b's columns (M, N multiples of the
    # blocks: no repeated row), and the C tile's rows
    m = n = k = 64
    res = persistent(2, m, n, k, seed=9)
    tiles, k_steps = (m // 32) * (n // 32), k // 16
    assert res.stats.dma_transfers <= tiles * (2 * k_steps + 32)


def test_repeated_row_is_one_dma():
    # rows 0..9 then row 0 six times: two 2-D DMAs in program 0, one in programs 1 and 2 (row 0 only),
    # plus one DMA out per program
    br, bc, grid, m = 16, 8, 3, 10
    x = values("fp32", (m + 1) * bc, np.random.default_rng(1))
    res = run(build("clamp_rows", "*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32", 2, BR=br, BC=bc, GE=0),
              {"X": x, "Out": np.zeros(grid * br * bc, np.float32), "base": i32(0), "M": i32(m), "sr": i32(bc),
               "sc": i32(1), "u0": i32(0), "C": i32(0), "kvalid": i32(bc)}, grid=(grid,))
    rows = clamped(0, grid * br, m, 0)
    np.testing.assert_array_equal(res.outputs["Out"].reshape(grid * br, bc), x.reshape(m + 1, bc)[rows])
    assert res.stats.dma_transfers == (2 + 1 + 1) + grid


@pytest.mark.parametrize("m,n,k", [(200, 150, 100), (128, 256, 128)])
def test_persistent_matmul_dot_full_tiles(m, n, k):
    # tutorial 09 as written (tl.dot, 128x128x64 tiles, two persistent programs): the operand tiles fit in
    # local memory (no materialized pointer blocks); ragged M, N, K
    blocks = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_SMS=2)
    rng = np.random.default_rng(m + n + k)
    a, b = values("bf16", m * k, rng).reshape(m, k), values("bf16", k * n, rng).reshape(k, n)
    data = {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(m * n, np.float32)}
    for name, v in zip(["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"],
                       [m, n, k, k, 1, n, 1, n, 1]):
        data[name] = i32(v)
    res = run(build("matmul_persistent", SIG, 2, MIXED=0, DOT=1, **blocks), data, grid=(blocks["NUM_SMS"],))
    expect = bf16_to_f32(a).astype(np.float64) @ bf16_to_f32(b).astype(np.float64)
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(m, n), expect, rtol=1e-5, atol=1e-4)
