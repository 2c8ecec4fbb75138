"""Tiles move by 2-D DMA (``mtia.dma.in2d`` / ``out2d``): one transfer per 2-D slab instead of one per row
(``memory/tiles.py``, ``memory/split_tiles.py``); the asm, and the numerics with masks against numpy."""
import re
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("tiles2d_kernels.py"))
_cache = {}


def compile_(kernel, sig, opt=2, **defines):
    key = (kernel, sig, opt, tuple(sorted(defines.items())))
    if key not in _cache:
        _cache[key] = compile_kernel(KERNELS, Options(kernel=kernel, signature=sig, opt_level=opt,
                                                      defines={k: str(v) for k, v in defines.items()}))
    return _cache[key]


def ops(asm):
    return re.findall(r"^\s+(mtia\.dma\.[a-z0-9]+)", asm, re.M)


def i32(v):
    return np.array(v, np.int32)


COPY_SIG = "*fp32,*fp32,i32,i32,i32,i32"


# --------------------------------------------------------------------------- the asm

@pytest.mark.parametrize("mask", [0, 1])
def test_a_tile_is_one_2d_transfer_each_way_without_a_row_loop(mask):
    asm = compile_("tile_copy", COPY_SIG, MASK=mask, BM=8, BN=16).asm_text
    dma = ops(asm)
    assert dma.count("mtia.dma.in2d") == 1 and dma.count("mtia.dma.out2d") == 1
    assert "mtia.dma.in" not in dma and "mtia.dma.out" not in dma     # no 1-D transfer per row
    assert ".Lnest" not in asm                                      # and no loop over the rows
    assert dma.count("mtia.dma.cfg") == 6                           # rows, DRAM and local strides, each way


def test_a_general_mask_still_moves_the_active_elements_one_by_one():
    asm = compile_("tile_copy", COPY_SIG, MASK=2, BM=8, BN=16).asm_text
    dma = ops(asm)
    assert "mtia.dma.in2d" not in dma and "mtia.dma.out2d" not in dma
    assert "mtia.dma.in" in dma and "mtia.dma.out" in dma


def test_a_runtime_column_stride_branches_between_slabs_and_one_element_rows():
    asm = compile_("tile_transpose", "*fp32,*fp32,i32,i32,i32,i32,i32", BM=8, BN=16).asm_text
    dma = ops(asm)
    assert dma.count("mtia.dma.in2d") == 2 and "mtia.dma.in" not in dma   # the two paths of the load
    assert ".Lstrided" in asm


def test_a_3d_block_is_one_2d_transfer_per_slab():
    asm = compile_("tile_3d", "*fp32,*fp32,i32,i32,i32,i32,i32", BB=4, BM=8, BN=16).asm_text
    assert ops(asm).count("mtia.dma.in2d") == 1
    assert asm.count(".Lnest") >= 1      # a loop over the batch axis around it


def test_split_tiles_rows_at_a_uniform_stride_are_one_2d_transfer():
    asm = compile_("split_tile", "*fp32,*fp32,i32,i32", XN=200, YN=256, YBLOCK=32, XBLOCK=4).asm_text
    dma = ops(asm)
    assert dma.count("mtia.dma.in2d") == 1 and dma.count("mtia.dma.out2d") == 1
    assert "mtia.dma.in" not in dma and "mtia.dma.out" not in dma


# --------------------------------------------------------------------------- numerics against numpy

def copy_case(opt, mask, m, n, seed, bm=8, bn=16):
    rng = np.random.default_rng(seed)
    sxm, sym = n + 5, n + 3
    x = rng.standard_normal(max(m * sxm, 1) + 64).astype(np.float32)
    y0 = np.full(max(m * sym, 1) + 64, -1.0, np.float32)
    grid = [max(-(-m // bm), 1), max(-(-n // bn), 1)]
    art = compile_("tile_copy", COPY_SIG, opt, MASK=mask, BM=bm, BN=bn)
    res = run(art.binary, {"X": x, "Y": y0.copy(), "M": i32(m), "N": i32(n), "sxm": i32(sxm), "sym": i32(sym)},
              grid=grid)
    want = y0.copy()
    for r in range(grid[0] * bm):
        for c in range(grid[1] * bn):
            on = mask == 0 or (r < m and c < n and (mask == 1 or c % 2 == 0))
            if on:
                want[r * sym + c] = x[r * sxm + c] * 2
    return res, want


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("mask,m,n", [(1, 20, 29), (1, 8, 16), (1, 3, 0), (1, 0, 5), (2, 13, 21), (2, 8, 16)])
def test_masked_tile_copy_against_numpy(opt, mask, m, n):
    res, want = copy_case(opt, mask, m, n, seed=m * 37 + n + mask)
    np.testing.assert_array_equal(res.outputs["Y"], want)


@pytest.mark.parametrize("opt", [0, 2])
def test_unmasked_tile_copy_against_numpy(opt):
    res, want = copy_case(opt, 0, 16, 32, seed=3)
    np.testing.assert_array_equal(res.outputs["Y"], want)
    assert res.stats.dma_transfers == 2 * 2 * 2     # 4 programs, a transfer in and out each


def test_masked_off_elements_of_a_load_take_other():
    # a (4, 8, 16) block loaded through a box mask and stored whole: the elements off the box are `other`
    b, m, n = 3, 5, 11
    rng = np.random.default_rng(7)
    x = rng.standard_normal(64 * 4).astype(np.float32)
    art = compile_("tile_3d", "*fp32,*fp32,i32,i32,i32,i32,i32", BB=4, BM=8, BN=16)
    res = run(art.binary, {"X": x, "Y": np.zeros(4 * 8 * 16, np.float32), "B": i32(b), "M": i32(m),
                           "N": i32(n), "sxb": i32(64), "sxm": i32(12)}, grid=[1])
    want = np.full((4, 8, 16), 3.0, np.float32)
    for i in range(b):
        for r in range(m):
            want[i, r, :n] = x[i * 64 + r * 12:i * 64 + r * 12 + n]
    np.testing.assert_array_equal(res.outputs["Y"].reshape(4, 8, 16), want)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("sxn", [1, 3])
def test_runtime_column_stride_load_against_numpy(opt, sxn):
    m, n = 19, 27
    sxm = n * sxn + 2
    x = np.random.default_rng(sxn).standard_normal(m * sxm + 8).astype(np.float32)
    art = compile_("tile_transpose", "*fp32,*fp32,i32,i32,i32,i32,i32", opt, BM=8, BN=16)
    res = run(art.binary, {"X": x, "Y": np.full(m * 32, 9.0, np.float32), "M": i32(m), "N": i32(n),
                           "sxm": i32(sxm), "sxn": i32(sxn), "sym": i32(32)}, grid=[3, 2])
    want = np.full((m, 32), 9.0, np.float32)
    for r in range(m):
        want[r, :n] = x[r * sxm + np.arange(n) * sxn]
    np.testing.assert_array_equal(res.outputs["Y"].reshape(m, 32), want)
    if sxn != 1:   # one-element rows along the longer axis (16 columns), one transfer per active row
        assert res.stats.dma_transfers == 2 * m + 6      # + a 2-D store per program


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("syn", [1, 4, 0])
def test_runtime_column_stride_store_against_numpy(opt, syn):
    # syn 0: every column of a row lands on one address; the last column written wins, as element by element
    m, n = 11, 21
    sxm = 24
    sym = max(n * syn, 1) + 3
    x = np.random.default_rng(syn).standard_normal(m * sxm).astype(np.float32)
    y = np.full(m * sym + n * syn + 8, -2.0, np.float32)
    art = compile_("tile_scatter_t", "*fp32,*fp32,i32,i32,i32,i32,i32", opt, BM=8, BN=16)
    res = run(art.binary, {"X": x, "Y": y.copy(), "M": i32(m), "N": i32(n), "sxm": i32(sxm), "sym": i32(sym),
                           "syn": i32(syn)}, grid=[2, 2])
    want = y.copy()
    for r in range(m):
        for c in range(n):
            want[r * sym + c * syn] = x[r * sxm + c] + 1
    np.testing.assert_array_equal(res.outputs["Y"], want)


@pytest.mark.parametrize("opt", [0, 2])
def test_split_tile_transposed_store_against_numpy(opt):
    yn, xn = 70, 45
    src = np.random.default_rng(2).standard_normal(yn * 50).astype(np.float32)
    art = compile_("split_tile", "*fp32,*fp32,i32,i32", opt, XN=50, YN=80, YBLOCK=32, XBLOCK=4)
    out = np.full(80 * 50, -3.0, np.float32)
    res = run(art.binary, {"in_ptr0": src, "out_ptr0": out.copy(), "ynumel": i32(yn), "xnumel": i32(xn)},
              grid=[-(-xn // 4), -(-yn // 32)])
    want = out.reshape(50, 80).copy()
    want[:xn, :yn] = src.reshape(yn, 50)[:, :xn].T + 1
    np.testing.assert_array_equal(res.outputs["out_ptr0"], want.ravel())
