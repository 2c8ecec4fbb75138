"""The ``wrapped-tiles`` plan, differential against numpy: tiles whose rows (or columns, or both, or an
axis of a 3-D tile) are ``(u + arange) % R``, dumped densely; R smaller than the block (several wraps), not
a multiple of it, negative ``u`` and ``R`` (C's remainder), ragged prefix masks with ``other``, strides
other than 1 on the last axis, a constant R; and wrapped stores under a box mask."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("kernels.py"))
_cache = {}
NP = {"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16}


def build(kernel, signature, opt=2, **defines):
    key = (kernel, signature, opt, tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=kernel, signature=signature, opt_level=opt,
                       defines={k: str(v) for k, v in defines.items()})
        ir = compile_kernel(KERNELS, opts, stop_after="ir").ir_text
        assert 'access = "wrapped-tiles"' in ir
        assert 'access = "gather"' not in ir and 'access = "scatter"' not in ir
        _cache[key] = compile_kernel(KERNELS, opts).binary
    return _cache[key]


def values(dtype, n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    if dtype == "bf16":
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    return x.astype(NP[dtype])


def minus_one(dtype):
    return np.array([-1.0], np.float32).view(np.uint32)[0] >> 16 if dtype == "bf16" else NP[dtype](-1.0)


def i32(v):
    return np.array(v, np.int32)


def crem(x, r):
    """C's (Triton's) integer remainder: the sign of the dividend."""
    return np.fmod(x, r)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
@pytest.mark.parametrize("R,u0,kvalid,transposed", [
    (5, 0, 8, False),      # R < block: the 16 rows wrap three times
    (37, 3, 5, False),     # R not a multiple of the block, ragged columns
    (100, 0, 0, False),    # every column masked off
    (7, -20, 6, False),    # negative u: C's remainder, runs of negative rows
    (-6, 9, 8, False),     # negative R
    (13, 2, 3, True),      # columns of stride R (a transposed operand): one 2-D DMA per column
])
def test_wrapped_rows(opt, dtype, R, u0, kvalid, transposed):
    br, bc, grid = 16, 8, 3
    a = abs(R)
    rng = np.random.default_rng(abs(R) * 31 + u0 + opt)
    rows_x = 2 * a + 1
    x = values(dtype, rows_x * bc, rng)
    sr, sc = (1, rows_x) if transposed else (bc, 1)
    out = run(build("wrap_rows", f"*{dtype},*{dtype},i32,i32,i32,i32,i32,i32", opt, BR=br, BC=bc),
              {"X": x, "Out": np.zeros(grid * br * bc, NP[dtype]), "base": i32(a * sr), "R": i32(R),
               "sr": i32(sr), "sc": i32(sc), "u0": i32(u0), "kvalid": i32(kvalid)}, grid=(grid,)).outputs["Out"]
    rows = crem(u0 + np.arange(grid * br), R)
    cols = np.arange(bc)
    expect = x[a * sr + rows[:, None] * sr + cols[None, :] * sc]
    expect[:, kvalid:] = minus_one(dtype)
    np.testing.assert_array_equal(out.reshape(grid * br, bc), expect)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("R,u0,kvalid,sc", [(6, 0, 8, 1), (23, 5, 3, 1), (9, -11, 8, 1), (11, 4, 5, 3)])
def test_wrapped_columns(opt, R, u0, kvalid, sc):
    bk, bn, grid = 8, 16, 2
    rng = np.random.default_rng(R + abs(u0) + 100 * opt)
    width = (2 * R + 1) * sc
    x = values("fp32", bk * width, rng)
    out = run(build("wrap_cols", "*fp32,*fp32,i32,i32,i32,i32,i32", opt, BK=bk, BN=bn),
              {"X": x, "Out": np.zeros(grid * bk * bn, np.float32), "R": i32(R), "sr": i32(width), "sc": i32(sc),
               "u0": i32(u0), "kvalid": i32(kvalid)}, grid=(grid,)).outputs["Out"]
    for pid in range(grid):
        cols = crem(u0 + pid * bn + np.arange(bn), R)
        expect = x[R * sc + np.arange(bk)[:, None] * width + cols[None, :] * sc]
        expect[kvalid:, :] = -1.0
        np.testing.assert_array_equal(out[pid * bk * bn:(pid + 1) * bk * bn].reshape(bk, bn), expect)


@pytest.mark.parametrize("R1,R2,u1,u2", [(5, 3, 0, 1), (19, 40, -7, 2)])
def test_wrapped_rows_and_columns(R1, R2, u1, u2):
    br, bc, grid = 8, 16, 3
    rng = np.random.default_rng(R1 * R2)
    sr = 2 * R2 + 1
    x = values("fp32", (2 * R1 + 1) * sr, rng)
    out = run(build("wrap_both", "*fp32,*fp32,i32,i32,i32,i32,i32,i32", BR=br, BC=bc),
              {"X": x, "Out": np.zeros(grid * br * bc, np.float32), "R1": i32(R1), "R2": i32(R2), "sr": i32(sr),
               "sc": i32(1), "u1": i32(u1), "u2": i32(u2)}, grid=(grid,)).outputs["Out"]
    for pid in range(grid):
        rows = crem(u1 + pid * br + np.arange(br), R1)
        cols = crem(u2 + pid * bc + np.arange(bc), R2)
        expect = x[R1 * sr + R2 + rows[:, None] * sr + cols[None, :]]
        np.testing.assert_array_equal(out[pid * br * bc:(pid + 1) * br * bc].reshape(br, bc), expect)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("R,u0,M,kvalid", [(40, 0, 40, 8), (10, 3, 30, 5), (7, -9, 12, 8), (29, 0, 5, 0)])
def test_wrapped_store_under_a_box_mask(opt, R, u0, M, kvalid):
    br, bc, grid = 16, 8, 2
    rng = np.random.default_rng(R + M + opt)
    sr = bc + 3
    x = values("fp32", (2 * R + 1) * sr, rng)
    y0 = values("fp32", x.size, rng)
    res = run(build("wrap_copy", "*fp32,*fp32,i32,i32,i32,i32,i32", opt, BR=br, BC=bc),
              {"X": x, "Y": y0.copy(), "R": i32(R), "sr": i32(sr), "u0": i32(u0), "M": i32(M),
               "kvalid": i32(kvalid)}, grid=(grid,))
    expect = y0.copy()
    for pid in range(grid):
        offs = u0 + pid * br + np.arange(br)
        for o in offs[offs < M]:
            at = R * sr + crem(o, R) * sr + np.arange(min(kvalid, bc))
            expect[at] = x[at] * np.float32(2.0) + np.float32(1.0)
    np.testing.assert_array_equal(res.outputs["Y"], expect)


@pytest.mark.parametrize("R", [32, 20])
def test_constant_modulus(R):
    br, bc, sr, grid = 16, 8, 12, 4
    rng = np.random.default_rng(R)
    x = values("fp32", R * sr, rng)
    out = run(build("wrap_const", "*fp32,*fp32", BR=br, BC=bc, R=R, SR=sr),
              {"X": x, "Out": np.zeros(grid * br * bc, np.float32)}, grid=(grid,)).outputs["Out"]
    rows = np.arange(grid * br) % R
    np.testing.assert_array_equal(out.reshape(grid * br, bc), x[rows[:, None] * sr + np.arange(bc)[None, :]])


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("axis,R,u0,kvalid", [(0, 3, 1, 8), (1, 5, -2, 6), (1, 40, 7, 8), (2, 6, 0, 8),
                                              (2, 11, 3, 5)])
def test_batched_3d(opt, axis, R, u0, kvalid):
    bq, br, bc, grid, batches = 4, 8, 8, 2, 2
    rng = np.random.default_rng(axis * 100 + R + opt)
    dims = [bq, br, bc]
    dims[axis] = 2 * R + 1
    strides = [dims[1] * dims[2], dims[2], 1]
    sb = dims[0] * strides[0]
    x = values("fp32", batches * sb, rng)
    out = run(build("wrap_3d", "*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32", opt, BQ=bq, BR=br, BC=bc, AXIS=axis),
              {"X": x, "Out": np.zeros(batches * grid * bq * br * bc, np.float32), "R": i32(R),
               "sq": i32(strides[0]), "sr": i32(strides[1]), "sc": i32(strides[2]), "sb": i32(sb), "u0": i32(u0),
               "kvalid": i32(kvalid)}, grid=(grid, batches)).outputs["Out"].reshape(batches, grid, bq, br, bc)
    for q in range(batches):
        for pid in range(grid):
            idx = [np.arange(bq), np.arange(br), np.arange(bc)]
            idx[axis] = R + crem(u0 + pid * (bq, br, bc)[axis] + idx[axis], R)
            off = (idx[0][:, None, None] * strides[0] + idx[1][None, :, None] * strides[1]
                   + idx[2][None, None, :] * strides[2])
            expect = x[q * sb + off]
            expect[:, :, kvalid:] = -1.0
            np.testing.assert_array_equal(out[q, pid], expect)
