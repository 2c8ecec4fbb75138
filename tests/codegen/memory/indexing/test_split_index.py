"""Loads and stores indexed with ``//`` and ``%`` of the flat index (TorchInductor's pointwise idioms:
``x0 + 64*x1``, a bias ``x % 64``, per-row scalars ``x // 64``, ``(x // 49) % 64``, transposes),
moved by runs (memory/runs.py), differential against numpy: ragged ``xnumel``, ``C`` not dividing
``XBLOCK`` and ``XBLOCK`` not a multiple of ``C``, int32 and int64 indices, prefix / no / all-true
masks, ``other``; transfer counts show which path ran."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.numerics import fma

KERNELS = str(Path(__file__).with_name("split_kernels.py"))
_cache = {}


def build(kernel, sig, **defines):
    key = (kernel, sig, tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=kernel, defines={k: str(v) for k, v in defines.items()}, signature=sig,
                       opt_level=2)
        _cache[key] = compile_kernel(KERNELS, opts)
    return _cache[key]


def launch(tmp_path, art, data, grid):
    path = tmp_path / "k.bin"
    path.write_bytes(art.binary)
    return run(str(path), data, grid=grid)


def index(x, kind, c, d):
    """The kernels' _index in numpy (x >= 0, where floor and truncating division agree)."""
    x0, x1 = x % c, x // c
    return {0: x0, 1: x1, 2: x0 + d * x1, 3: (x // c) % d + 2, 4: x1 + d * x0, 5: (c - 1 - x0) + c * x1,
            6: x0 + c * x1, 7: x % 3 + 3 * (x // 2),
            8: x0 + c * ((x // c) % 2) + 2 * c * (x // (2 * c))}[kind]


# (C, D, XBLOCK, xnumel, int64 indices, mask kind): C = 48 with XBLOCK = 64 neither divides the other
CONFIGS = [(48, 5, 64, 1000, 0, 1), (64, 3, 128, 777, 1, 1), (16, 40, 64, 512, 0, 0), (100, 7, 64, 640, 1, 2)]


@pytest.mark.parametrize("kind", range(9))
@pytest.mark.parametrize("c,d,xblock,n,i64,mask", CONFIGS)
def test_split_loads_against_numpy(tmp_path, kind, c, d, xblock, n, i64, mask):
    art = build("load_split", "*fp32,*fp32,i32", KIND=kind, C=c, D=d, I64=i64, MASK=mask, XBLOCK=xblock)
    grid = -(-n // xblock)
    if mask != 1:
        assert n % xblock == 0
    else:
        grid += 1  # a program with every element masked off
    x = np.arange(n)
    idx = index(x, kind, c, d)
    rng = np.random.default_rng(kind * 100 + c + mask)
    src = rng.standard_normal(int(idx.max()) + 1).astype(np.float32)
    out = np.full(grid * xblock, 7.0, np.float32)
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": out, "xnumel": np.array(n, np.int32)}, [grid])
    expect = np.full(grid * xblock, -1.0, np.float32)
    expect[:n] = src[idx]
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)


@pytest.mark.parametrize("kind", range(9))
@pytest.mark.parametrize("c,d,xblock,n,i64", [(48, 5, 64, 1000, 1), (64, 3, 256, 4000, 0)])
def test_split_stores_against_numpy(tmp_path, kind, c, d, xblock, n, i64):
    art = build("store_split", "*fp32,i32", KIND=kind, C=c, D=d, I64=i64, XBLOCK=xblock)
    idx = index(np.arange(n), kind, c, d)
    out = np.zeros(int(idx.max()) + 1, np.float32)
    res = launch(tmp_path, art, {"out_ptr0": out, "xnumel": np.array(n, np.int32)}, [-(-n // xblock)])
    expect = out.copy()
    expect[idx] = 2.0 * idx + 1.0
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)


@pytest.mark.parametrize("c,n", [(48, 100), (5, 61), (64, 64)])
def test_repeated_store_address_takes_the_last_element(tmp_path, c, n):
    # one program (the order of programs is not defined): rows of c, the last one cut by the mask
    art = build("last_writer", "*fp32,i32", C=c, XBLOCK=128)
    res = launch(tmp_path, art, {"out_ptr0": np.full(-(-n // c), -3.0, np.float32),
                                 "xnumel": np.array(n, np.int32)}, [1])
    rows = np.arange(-(-n // c))
    np.testing.assert_array_equal(res.outputs["out_ptr0"], np.minimum(rows * c + c - 1, n - 1))


def _fp32(rng, n):
    return rng.standard_normal(n).astype(np.float32)


def test_bias_relu_loads_the_period_once(tmp_path):
    # 4096 elements on 16 programs: per program the input, the 64-element bias (one window), the output
    rng = np.random.default_rng(1)
    x, bias = _fp32(rng, 4096), _fp32(rng, 64)
    art = build("bias_relu", "*fp32,*fp32,*fp32,i32", C=64, XBLOCK=256)
    res = launch(tmp_path, art, {"in_ptr0": x, "in_ptr1": bias, "out_ptr0": np.zeros(4096, np.float32),
                                 "xnumel": np.array(4096, np.int32)}, [16])
    np.testing.assert_allclose(res.outputs["out_ptr0"], np.maximum(x + np.tile(bias, 64), 0), rtol=1e-6)
    assert res.stats.dma_transfers == 16 * 3


def test_row_ops_move_by_rows(tmp_path):
    # per program of 256: x0 + 64*x1 (1 transfer), bias x0 (1), per-row x1 (a window of 4: 1),
    # the store to rows of 64 at stride 128 (4)
    rng = np.random.default_rng(2)
    x, bias, rows = _fp32(rng, 4096), _fp32(rng, 64), _fp32(rng, 64)
    art = build("row_ops", "*fp32,*fp32,*fp32,*fp32,i32", C=64, ROW=128, XBLOCK=256)
    out = np.full(8192, 3.0, np.float32)
    res = launch(tmp_path, art, {"in_ptr0": x, "in_ptr1": bias, "in_ptr2": rows, "out_ptr0": out,
                                 "xnumel": np.array(4096, np.int32)}, [16])
    expect = out.reshape(64, 128).copy()
    expect[:, :64] = fma(x.reshape(64, 64), rows[:, None], bias)   # contract-fma
    np.testing.assert_allclose(res.outputs["out_ptr0"], expect.ravel(), rtol=1e-6)
    assert res.stats.dma_transfers == 16 * 7


def test_split_copy_is_one_transfer(tmp_path):
    x = _fp32(np.random.default_rng(3), 4096)
    art = build("split_copy", "*fp32,*fp32,i32", C=64, XBLOCK=256)
    res = launch(tmp_path, art, {"in_ptr0": x, "out_ptr0": np.zeros(4096, np.float32),
                                 "xnumel": np.array(4096, np.int32)}, [16])
    np.testing.assert_array_equal(res.outputs["out_ptr0"], x)
    assert res.stats.dma_transfers == 16 * 2


@pytest.mark.parametrize("n", [6272, 6000])
def test_channel_affine(tmp_path, n):
    # NCHW with HW = 49, 64 channels: x1 = (x // 49) % 64; 256-element blocks span 6 or 7 channels
    rng = np.random.default_rng(n)
    x, s, t = _fp32(rng, n), _fp32(rng, 64), _fp32(rng, 64)
    art = build("channel_affine", "*fp32,*fp32,*fp32,*fp32,i32", HW=49, CH=64, XBLOCK=256)
    grid = -(-n // 256)
    res = launch(tmp_path, art, {"in_ptr0": x, "in_ptr1": s, "in_ptr2": t,
                                 "out_ptr0": np.zeros(n, np.float32), "xnumel": np.array(n, np.int32)}, [grid])
    ch = (np.arange(n) // 49) % 64
    np.testing.assert_allclose(res.outputs["out_ptr0"], np.maximum(fma(x, s[ch], t[ch]), 0), rtol=1e-6)
    assert res.stats.dma_transfers == grid * 4


def test_head_transpose(tmp_path):
    # x0 + 64*x2 + 2048*x1 + 4096*x3: four runs of 64 per 256-element block
    x = _fp32(np.random.default_rng(4), 8192)
    art = build("head_transpose", "*fp32,*fp32,i32", XBLOCK=256)
    res = launch(tmp_path, art, {"in_ptr0": x, "out_ptr0": np.zeros(8192, np.float32),
                                 "xnumel": np.array(8192, np.int32)}, [32])
    np.testing.assert_array_equal(res.outputs["out_ptr0"], x.reshape(2, 2, 32, 64).transpose(0, 2, 1, 3).ravel())
    assert res.stats.dma_transfers == 32 * 5


def test_split_i64_kernel(tmp_path):
    rng = np.random.default_rng(5)
    n = 1000
    x, tab = _fp32(rng, n), _fp32(rng, 48)
    art = build("split_i64", "*fp32,*fp32,*fp32,i32", C=48, XBLOCK=64)
    res = launch(tmp_path, art, {"in_ptr0": x, "in_ptr1": tab, "out_ptr0": np.zeros(n, np.float32),
                                 "xnumel": np.array(n, np.int32)}, [-(-n // 64)])
    i = np.arange(n)
    np.testing.assert_allclose(res.outputs["out_ptr0"], fma(tab[i % 48], tab[i // 48], x), rtol=1e-6)


def test_unprovable_sign_keeps_truncating_semantics(tmp_path):
    # base = -100: the first elements' xindex is negative, where % rounds toward zero (C's fmod)
    rng = np.random.default_rng(6)
    x = _fp32(rng, 200)
    art = build("signed_offset", "*fp32,*fp32,i32,i32", C=48, XBLOCK=64)
    res = launch(tmp_path, art, {"in_ptr0": x, "out_ptr0": np.zeros(256, np.float32),
                                 "xnumel": np.array(100, np.int32), "base": np.array(-100, np.int32)}, [4])
    xi = -100 + np.arange(256)
    active = xi < 100
    expect = np.zeros(256, np.float32)
    expect[active] = x[np.fmod(xi[active], 48) + 96]
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)
    # wrapped-tiles: runs of consecutive rows found at run time with C's remainder (negative x included)
    assert res.stats.dma_transfers < 20


def test_non_prefix_mask_keeps_the_element_path(tmp_path):
    rng = np.random.default_rng(7)
    x = _fp32(rng, 48)
    art = build("odd_mask", "*fp32,*fp32,i32", C=48, XBLOCK=64)
    n = 150
    res = launch(tmp_path, art, {"in_ptr0": x, "out_ptr0": np.zeros(192, np.float32),
                                 "xnumel": np.array(n, np.int32)}, [3])
    i = np.arange(192)
    expect = np.zeros(192, np.float32)
    expect[:n] = np.where(i[:n] % 2 == 0, x[i[:n] % 48], 5.0)
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)


@pytest.mark.parametrize("c,kk,ynumel,xnumel,yblock", [(64, 9, 4096, 9, 1024), (48, 5, 1000, 4, 256)])
def test_conv_weight_layout_column_tiles(tmp_path, c, kk, ynumel, xnumel, yblock):
    # in: (ynumel, kk) rows; out[y1, x, y0] = in[y, x] for x < xnumel (<= kk), y = y1 * c + y0
    rng = np.random.default_rng(ynumel + kk)
    src = _fp32(rng, ynumel * kk)
    art = build("conv_weight_layout", "*fp32,*fp32,i32,i32", C=c, KK=kk, YBLOCK=yblock, XBLOCK=1)
    out = np.full(-(-ynumel // c) * c * kk, 9.0, np.float32)
    grid = [xnumel + 1, -(-ynumel // yblock)]  # one column of programs entirely masked off
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": out, "ynumel": np.array(ynumel, np.int32),
                                 "xnumel": np.array(xnumel, np.int32)}, grid)
    y, x = np.meshgrid(np.arange(ynumel), np.arange(xnumel), indexing="ij")
    expect = out.copy()
    expect[y % c + c * x + c * kk * (y // c)] = src[x + kk * y]
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)
    if ynumel % c == 0 and ynumel % yblock == 0:
        # per active program: one window for the stride-kk column, yblock / c rows stored
        assert res.stats.dma_transfers == xnumel * grid[1] * (1 + yblock // c)


@pytest.mark.parametrize("s,t", [(3, 1), (0, 2), (1, 5), (20, 3)])
def test_constant_strides(tmp_path, s, t):
    n, block, m_progs = 200, 64, 3  # 4 programs, the last one off by its scalar condition
    rng = np.random.default_rng(s * 10 + t)
    src = _fp32(rng, s * (4 * block) + 1)
    art = build("strided_1d", "*fp32,*fp32,i32,i32", S=s, T=t, BLOCK=block)
    out = np.zeros(t * (4 * block) + 1, np.float32)
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": out, "n": np.array(n, np.int32),
                                 "M": np.array(m_progs, np.int32)}, [4])
    i = np.arange(min(n, m_progs * block))
    expect = out.copy()
    vals = src[i * s] + 1.0
    if t == 0:
        vals = vals[-1:]
    expect[i * t if t else 0] = vals
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)
    if s == 20:  # a 20-element stride reads a window of at most 16 x the block: element by element
        assert res.stats.dma_transfers > 3 * block
    elif s == 3 and t == 1:  # the window, then the contiguous store
        assert res.stats.dma_transfers == 3 * 2


@pytest.mark.parametrize("dtype,sig", [(np.float16, "*fp16,*fp16,i32"), (np.int8, "*i8,*i8,i32"),
                                       (np.int64, "*i64,*i64,i32")])
@pytest.mark.parametrize("kind", [0, 1, 2, 4])
def test_element_types(tmp_path, dtype, sig, kind):
    c, d, xblock, n = 48, 5, 64, 1000
    art = build("load_split", sig, KIND=kind, C=c, D=d, I64=0, MASK=1, XBLOCK=xblock)
    grid = -(-n // xblock) + 1
    idx = index(np.arange(n), kind, c, d)
    src = (np.arange(int(idx.max()) + 1) % 101 - 50).astype(dtype)
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": np.zeros(grid * xblock, dtype),
                                 "xnumel": np.array(n, np.int32)}, [grid])
    expect = np.full(grid * xblock, -1, dtype)
    expect[:n] = src[idx]
    np.testing.assert_array_equal(res.outputs["out_ptr0"], expect)


# --------------------------------------------------------------------------- 2-D tiles (memory/split_tiles.py)

@pytest.mark.parametrize("kind", range(4))
@pytest.mark.parametrize("ynumel,xnumel,c,yblock,xblock", [(192, 49, 3, 64, 64), (300, 200, 48, 32, 4),
                                                          (100, 9, 16, 64, 16)])
def test_tiles_against_numpy(tmp_path, kind, ynumel, xnumel, c, yblock, xblock):
    art = build("tile_split", "*fp32,*fp32,i32,i32", KIND=kind, C=c, YN=ynumel, XN=xnumel, YBLOCK=yblock,
                XBLOCK=xblock)
    gy, gx = -(-ynumel // yblock) + 1, -(-xnumel // xblock)  # one row of programs masked off
    y, x = np.meshgrid(np.arange(ynumel), np.arange(xnumel), indexing="ij")
    rng = np.random.default_rng(kind * 1000 + ynumel)
    if kind == 0:
        src = _fp32(rng, ynumel * xnumel)
        out = np.zeros(ynumel * xnumel, np.float32)
        expect = out.copy()
        expect[y + ynumel * x] = 3.0 * src[x + xnumel * y]
    elif kind == 1:
        src = _fp32(rng, ynumel * xnumel)
        out = np.full(-(-ynumel // c) * c * xnumel, 5.0, np.float32)
        expect = out.copy()
        expect[y % c + c * x + c * xnumel * (y // c)] = src[x + xnumel * y]
    else:
        width = gx * xblock
        idx = y + ynumel * x if kind == 2 else x % c + 2 * c * (x // c) + 2 * c * xnumel * y
        src = _fp32(rng, int(idx.max()) + 1)
        out = np.zeros(gy * yblock * width, np.float32)
        expect = np.full((gy * yblock, width), -1.0, np.float32)
        expect[:ynumel, :xnumel] = src[idx]
        expect = expect.ravel()
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": out, "ynumel": np.array(ynumel, np.int32),
                                 "xnumel": np.array(xnumel, np.int32)}, [gx, gy])
    np.testing.assert_allclose(res.outputs["out_ptr0"], expect, rtol=1e-6)


def test_transposed_store_moves_columns(tmp_path):
    # 300 x 200 transposed in 32 x 4 tiles: each tile's load is one 2-D transfer of 32 rows of 4
    # (memory/tiles.py), its store one of 4 columns of 32 through a transposed copy (split_tiles.py; a
    # transfer per row: 32 + 4, per element: 128)
    art = build("tile_split", "*fp32,*fp32,i32,i32", KIND=0, C=3, YN=256, XN=200, YBLOCK=32, XBLOCK=4)
    src = _fp32(np.random.default_rng(9), 256 * 200)
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": np.zeros(256 * 200, np.float32),
                                 "ynumel": np.array(256, np.int32), "xnumel": np.array(200, np.int32)}, [50, 8])
    np.testing.assert_array_equal(res.outputs["out_ptr0"], 3.0 * src.reshape(256, 200).T.ravel())
    assert res.stats.dma_transfers == 50 * 8 * 2


def test_loop_variable_index(tmp_path):
    # 300 elements in blocks of 64: runs of 48 at stride 96 starting anywhere in a run
    art = build("loop_rows", "*fp32,*fp32,i32", C=48, RBLOCK=64)
    src = _fp32(np.random.default_rng(11), 2 * 48 * 7)
    res = launch(tmp_path, art, {"in_ptr0": src, "out_ptr0": np.zeros(1, np.float32),
                                 "rnumel": np.array(300, np.int32)}, [1])
    r = np.arange(300)
    np.testing.assert_allclose(res.outputs["out_ptr0"][0], src[r % 48 + 96 * (r // 48)].sum(), rtol=1e-5)
    assert res.stats.dma_transfers < 20  # 5 blocks of two or three runs (was 300 elements)
