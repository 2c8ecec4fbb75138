"""keep-invariant: the tiles every program of a persistent slot loads alike, kept in local memory by the slot's
first program, against numpy over grids smaller than, equal to and larger than the slot count, rows that do not
fit the buffer (every program loads from DRAM), and what it saves in DRAM traffic on layer norm; the periodic
bias of an Inductor-style pointwise kernel (`B + offs % N`) over 1-D grids with a masked tail and over a 2-D
grid (where the slot loop's program is not pid(0), and every program loads its tile)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.opt import pipeline_for_level
from mtiasim.runner import run
from tests.conftest import EXAMPLES

KERNELS = str(Path(__file__).resolve().parents[1] / "filecheck" / "keep_invariant.py")
PERIODIC = str(Path(__file__).resolve().parents[1] / "filecheck" / "keep_invariant_periodic.py")
F32, I32 = np.float32, np.int32
_cache = {}


def _build(kernel, passes=None, **defines):
    key = (kernel, passes, tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=kernel, signature="*fp32,*fp32,*fp32,i32", opt_level=3, passes=passes,
                       defines={k: str(v) for k, v in defines.items()})
        _cache[key] = compile_kernel(KERNELS, opts)
    return _cache[key]


@pytest.mark.parametrize("rows,n", [(1, 100), (64, 256), (130, 200), (200, 64 * 3 + 5)])
def test_rows_times_kept_columns(rows, n):
    c = _build("scale_rows", BLOCK=64)
    assert c.meta["persistent"] == 64
    rng = np.random.default_rng(rows * 1000 + n)
    x, w = rng.standard_normal((rows, n)).astype(F32), rng.standard_normal(n).astype(F32)
    res = run(c.binary, {"X": x.ravel(), "W": w, "Y": np.zeros(rows * n, F32), "N": np.array(n, I32)}, grid=(rows,))
    np.testing.assert_array_equal(res.outputs["Y"].reshape(rows, n), x * w)


def test_a_row_longer_than_the_buffer_is_loaded_by_every_program():
    # a 1 KiB budget: 4 slots of 64 floats, so a row of 300 columns does not fit and every program reads W
    passes = pipeline_for_level(3).replace("keep-invariant", "keep-invariant{budget=1024}")
    small = _build("scale_rows", passes=passes, BLOCK=64)
    rows, n = 100, 300
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((rows, n)).astype(F32), rng.standard_normal(n).astype(F32)
    data = {"X": x.ravel(), "W": w, "Y": np.zeros(rows * n, F32), "N": np.array(n, I32)}
    res = run(small.binary, data, grid=(rows,))
    np.testing.assert_array_equal(res.outputs["Y"].reshape(rows, n), x * w)
    kept = run(_build("scale_rows", BLOCK=64).binary, data, grid=(rows,))
    assert kept.stats.dma_bytes_in < res.stats.dma_bytes_in   # W read once per slot, not once per row


def test_layer_norm_reads_w_and_b_once_per_slot():
    import sys
    sys.path.insert(0, str(EXAMPLES))
    import layer_norm as ln
    m, n = 192, 256
    rng = np.random.default_rng(3)
    x = rng.standard_normal((m, n)).astype(F32)
    w, b = rng.uniform(0.5, 1.5, n).astype(F32), rng.standard_normal(n).astype(F32)
    data = {"X": x.ravel(), "Y": np.zeros(m * n, F32), "W": w, "B": b, "Mean": np.zeros(m, F32),
            "Rstd": np.zeros(m, F32), "stride": np.array(n, I32), "N": np.array(n, I32), "eps": np.array(1e-5, F32)}
    sig = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32"
    got = {}
    for disabled in ((), ("keep-invariant",)):
        opts = Options(kernel="layer_norm_fwd", signature=sig, opt_level=3, disabled_passes=disabled,
                       defines={"BLOCK_SIZE": "128"})
        res = run(compile_kernel(str(EXAMPLES / "layer_norm.py"), opts).binary, data, grid=(m,))
        y, _, _ = ln.reference(x, w, b, 1e-5)
        np.testing.assert_allclose(res.outputs["Y"].reshape(m, n), y, rtol=1e-5, atol=1e-5)
        got[disabled] = res.stats.dma_bytes_in
    # X once per row (reuse-loads), W and B once per slot (64 slots) instead of once per row
    assert got[()] == 4 * (m * n + 2 * 64 * n)
    assert got[("keep-invariant",)] == 4 * (m * n + 2 * m * n)


def _bias_case(n, period, disabled=()):
    key = ("add_bias", period, disabled)
    if key not in _cache:
        opts = Options(kernel="add_bias", signature="*fp32,*fp32,*fp32,i32", opt_level=3, disabled_passes=disabled,
                       defines={"N": str(period), "BLOCK": "64"})
        _cache[key] = compile_kernel(PERIODIC, opts)
    rng = np.random.default_rng(n + period)
    x, b = rng.standard_normal(n).astype(F32), rng.standard_normal(period).astype(F32)
    data = {"X": x, "B": b, "Y": np.zeros(n, F32), "n": np.array(n, I32)}
    return _cache[key], data, x + np.resize(b, n)


@pytest.mark.parametrize("n", [100, 64 * 64, 200 * 64 - 17, 300 * 64])
def test_periodic_bias_kept_per_slot(n):
    c, data, want = _bias_case(n, 256)
    res = run(c.binary, data, grid=((n + 63) // 64,))
    np.testing.assert_array_equal(res.outputs["Y"], want)
    if n > 64 * 64:   # later programs in the slots: the bias read once per slot (4 tiles of 256 B a slot before)
        plain, _, _ = _bias_case(n, 256, disabled=("keep-invariant",))
        ref = run(plain.binary, data, grid=((n + 63) // 64,))
        np.testing.assert_array_equal(ref.outputs["Y"], want)
        # saved: the bias elements (4 bytes each, masked ones not moved) of every program but each slot's first
        saved = sum(4 * min(64, n - 64 * p) for p in range(64, (n + 63) // 64))
        assert ref.stats.dma_bytes_in - res.stats.dma_bytes_in == saved


def test_periodic_bias_on_a_2d_grid_loads_every_tile():
    # grid (100, 2): programs (p, 0) and (p, 1) write the same elements; pid(0) is not the slot loop's program
    n = 100 * 64
    c, data, want = _bias_case(n, 256)
    res = run(c.binary, data, grid=(100, 2))
    np.testing.assert_array_equal(res.outputs["Y"], want)
    assert res.stats.dma_bytes_in == 2 * 2 * 4 * n    # X and the bias, by each of the 200 programs


def test_a_period_not_dividing_the_slot_step_is_not_kept():
    c, data, want = _bias_case(150 * 64, 96)
    res = run(c.binary, data, grid=(150,))
    np.testing.assert_array_equal(res.outputs["Y"], want)
    assert res.stats.dma_bytes_in == 2 * 4 * 150 * 64    # X and the bias, by every program
