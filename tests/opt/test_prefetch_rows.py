"""prefetch-rows: each program's kept row fetched whole while the previous program of its slot computes, and the
row the last loop stores written back whole from the same slots by the next program; against numpy over grids smaller than, equal to
and larger than the slot count, rows with a partial last tile, rows too long for half the buffer (every loop then
reads and writes DRAM as written), kernels whose stores are not the last readers, and layer norm."""
import sys
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.conftest import EXAMPLES

KERNELS = str(Path(__file__).resolve().parents[1] / "filecheck" / "prefetch_rows.py")
F32, I32 = np.float32, np.int32
_cache = {}


def _build(kernel, disabled=(), **defines):
    key = (kernel, disabled, tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=kernel, signature="*fp32,*fp32,i32", opt_level=3, disabled_passes=disabled,
                       defines={k: str(v) for k, v in defines.items()})
        _cache[key] = compile_kernel(KERNELS, opts)
    return _cache[key]


def _center(kernel, rows, n, disabled=()):
    rng = np.random.default_rng(rows * 7919 + n)
    x = rng.standard_normal((rows, n)).astype(F32)
    res = run(_build(kernel, disabled, BLOCK=256).binary,
              {"X": x.ravel(), "Y": np.zeros(rows * n, F32), "N": np.array(n, I32)}, grid=(rows,))
    return x, res


@pytest.mark.parametrize("rows,n", [(1, 100), (64, 256), (130, 1000), (200, 3 * 256 + 5), (129, 16384)])
def test_rows_minus_their_mean(rows, n):
    x, res = _center("center_rows", rows, n)
    want = x - x.astype(np.float64).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(res.outputs["Y"].reshape(rows, n), want, rtol=1e-5, atol=2e-5)
    # one transfer in a row, one out for a row with a successor in its slot; the slot's last row stores tile by tile
    slots = min(rows, 64)
    assert res.stats.dma_bytes_in == 4 * rows * n
    assert res.stats.dma_transfers == rows + (rows - slots) + slots * -(-n // 256)


def test_a_row_longer_than_half_the_buffer_moves_tile_by_tile():
    rows, n = 70, 16384 + 256          # half of the 128 KiB buffer is 16384 floats
    x, res = _center("center_rows", rows, n)
    want = x - x.astype(np.float64).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(res.outputs["Y"].reshape(rows, n), want, rtol=1e-5, atol=2e-5)
    assert res.stats.dma_transfers > 2 * rows


@pytest.mark.parametrize("rows,n", [(65, 300), (140, 512)])
def test_stores_before_a_later_reader_stay_stores(rows, n):
    x, res = _center("center_then_reread", rows, n)
    mean = x.astype(np.float64).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(res.outputs["Y"].reshape(rows, n), x * mean, rtol=1e-5, atol=1e-6)
    off = _center("center_then_reread", rows, n, disabled=("prefetch-rows",))[1]
    np.testing.assert_array_equal(res.outputs["Y"], off.outputs["Y"])


@pytest.mark.parametrize("m,n,block", [(130, 256, 128), (64, 1000, 256), (200, 4096, 1024)])
def test_layer_norm(m, n, block):
    sys.path.insert(0, str(EXAMPLES))
    import layer_norm as ln
    rng = np.random.default_rng(m + n)
    x = rng.standard_normal((m, n)).astype(F32)
    w, b = rng.uniform(0.5, 1.5, n).astype(F32), rng.standard_normal(n).astype(F32)
    data = {"X": x.ravel(), "Y": np.zeros(m * n, F32), "W": w, "B": b, "Mean": np.zeros(m, F32),
            "Rstd": np.zeros(m, F32), "stride": np.array(n, I32), "N": np.array(n, I32), "eps": np.array(1e-5, F32)}
    opts = Options(kernel="layer_norm_fwd", signature="*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
                   opt_level=3, defines={"BLOCK_SIZE": str(block)})
    res = run(compile_kernel(str(EXAMPLES / "layer_norm.py"), opts).binary, data, grid=(m,))
    y, mean, rstd = ln.reference(x, w, b, 1e-5)
    np.testing.assert_allclose(res.outputs["Y"].reshape(m, n), y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(res.outputs["Mean"], mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(res.outputs["Rstd"], rstd, rtol=1e-4, atol=1e-5)
    assert res.stats.dma_bytes_in == 4 * (m * n + 2 * min(m, 64) * n)   # X once a row, W and B once a slot
