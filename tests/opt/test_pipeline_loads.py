"""pipeline-loads: loops over tiles compiled at -O0 (not pipelined) and -O3 (pipelined) against numpy, over trip
counts that exercise the first tile, the odd last iteration and empty loops; and the simulated time it saves."""
import sys
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.conftest import EXAMPLES

KERNELS = str(Path(__file__).with_name("pipeline_kernels.py"))
SOFTMAX = str(Path(__file__).resolve().parents[2] / "benchmarks" / "kernels" / "softmax_looped.py")
F32, I32 = np.float32, np.int32
_cache = {}


def _build(path, kernel, sig, level, disabled=(), **defines):
    key = (path, kernel, level, tuple(disabled), tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=kernel, signature=sig, opt_level=level, disabled_passes=tuple(disabled),
                       defines={k: str(v) for k, v in defines.items()})
        _cache[key] = compile_kernel(path, opts).binary
    return _cache[key]


def _ir(path, kernel, sig, level, **defines):
    opts = Options(kernel=kernel, signature=sig, opt_level=level, defines={k: str(v) for k, v in defines.items()})
    return compile_kernel(path, opts, stop_after="ir").ir_text


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("M, N, block", [(3, 200, 64), (2, 256, 64), (2, 40, 64), (1, 129, 32), (2, 0, 16)])
def test_looped_softmax(level, M, N, block):
    rng = np.random.default_rng(M * 1000 + N)
    stride = N + 5
    x = (rng.standard_normal((M, stride)) * 3).astype(F32)
    out = run(_build(SOFTMAX, "softmax_looped", "*fp32,*fp32,i32,i32", level, BLOCK=block),
              {"Y": np.full(M * stride, 7, F32), "X": x.ravel(), "stride": np.array(stride, I32),
               "N": np.array(N, I32)}, grid=(M,)).outputs
    y = out["Y"].reshape(M, stride)
    if N:
        z = np.exp(x[:, :N].astype(np.float64) - x[:, :N].max(axis=1, keepdims=True))
        np.testing.assert_allclose(y[:, :N], z / z.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(y[:, N:], 7)   # nothing past the row


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("M, N, block", [(2, 1000, 256), (3, 300, 128), (2, 64, 64), (1, 5, 16)])
def test_layer_norm_example(level, M, N, block):
    sys.path.insert(0, str(EXAMPLES))
    import layer_norm
    rng = np.random.default_rng(N)
    x = rng.standard_normal((M, N)).astype(F32)
    w, b = rng.uniform(0.5, 1.5, N).astype(F32), rng.standard_normal(N).astype(F32)
    sig = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32"
    binary = _build(str(EXAMPLES / "layer_norm.py"), "layer_norm_fwd", sig, level, BLOCK_SIZE=block)
    out = run(binary, {"X": x.ravel(), "Y": np.zeros(M * N, F32), "W": w, "B": b, "Mean": np.zeros(M, F32),
                       "Rstd": np.zeros(M, F32), "stride": np.array(N, I32), "N": np.array(N, I32),
                       "eps": np.array(1e-5, F32)}, grid=(M,)).outputs
    y, mean, rstd = layer_norm.reference(x, w, b, 1e-5)
    np.testing.assert_allclose(out["Y"].reshape(M, N), y, rtol=1e-5, atol=2e-5)
    np.testing.assert_allclose(out["Mean"], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["Rstd"], rstd, rtol=1e-4)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("tiles", [1, 2, 3, 4])
def test_reduction_loop_constant_trip(level, tiles):
    rng = np.random.default_rng(tiles)
    M, block = 3, 32
    K = tiles * block
    a, bv = rng.standard_normal((M, K)).astype(F32), rng.standard_normal(K).astype(F32)
    out = run(_build(KERNELS, "dot_rows", "*fp32,*fp32,*fp32,i32", level, TILES=tiles, BLOCK=block),
              {"Out": np.zeros(M, F32), "A": a.ravel(), "B": bv, "K": np.array(K, I32)}, grid=(M,)).outputs
    np.testing.assert_allclose(out["Out"], (a.astype(np.float64) * bv).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("n", [1, 2, 33, 100])
def test_store_then_load_of_the_same_buffer_keeps_its_order(level, n):
    x = np.arange(n, dtype=F32)
    out = run(_build(KERNELS, "shift_in_place", "*fp32,i32", level, BLOCK=16),
              {"X": x.copy(), "N": np.array(n, I32)}, grid=(1,)).outputs
    want = x.copy()
    for off in range(0, n - 1, 16):   # the kernel's order: a tile reads what the previous tile's store left
        hi = min(off + 16, n - 1)
        want[off:hi] = want[off + 1:hi + 1] + 1
    np.testing.assert_array_equal(out["X"], want)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("n", [0, 10, 64, 65, 200])
def test_clamped_prefetch_and_guarded_first_tile(level, n):
    x = np.random.default_rng(n).standard_normal(max(n, 1)).astype(F32)
    out = run(_build(KERNELS, "scaled_copy", "*fp32,*fp32,i32,i32", level, BLOCK=32),
              {"Y": np.full(max(n, 1), 5, F32), "X": x, "N": np.array(n, I32), "step": np.array(n, I32)},
              grid=(1,)).outputs
    want = np.full(max(n, 1), 5, F32)
    want[:n] = 2 * x[:n]
    np.testing.assert_array_equal(out["Y"], want)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("rows, programs", [(0, 3), (2, 3), (3, 3), (7, 3), (9, 3), (10, 3), (5, 1), (6, 1)])
def test_rows_strided_by_the_number_of_programs(level, rows, programs):
    # trip counts 0 (a program with no row), 1, odd and even, for each program; the prefetch of the row after the
    # last is guarded (the mask does not say it reads nothing)
    stride, cols = 40, 37
    rng = np.random.default_rng(rows * 10 + programs)
    x = rng.standard_normal(max(rows, 1) * stride).astype(F32)
    binary = _build(KERNELS, "strided_rows", "*fp32,*fp32,i32,i32,i32", level, BLOCK=64, STAGES=2)
    out = run(binary, {"Y": np.full(x.size, 5, F32), "X": x, "stride": np.array(stride, I32),
                       "n_rows": np.array(rows, I32), "n_cols": np.array(cols, I32)}, grid=(programs,)).outputs
    want = np.full(x.size, 5, F32).reshape(-1, stride)
    xs = x.reshape(-1, stride)[:rows, :cols]
    if rows:
        want[:rows, :cols] = xs - xs.max(axis=1, keepdims=True)
    np.testing.assert_array_equal(out["Y"], want.ravel())


def test_rows_strided_by_the_number_of_programs_are_pipelined():
    sig = "*fp32,*fp32,i32,i32,i32"
    assert "pipeline = 2" in _ir(KERNELS, "strided_rows", sig, 3, BLOCK=64, STAGES=2)
    assert "pipeline = " not in _ir(KERNELS, "strided_rows", sig, 3, BLOCK=64, STAGES=1)
    # a step read from an argument may be negative or zero: left alone
    assert "pipeline = " not in _ir(KERNELS, "rows_by_argument", sig + ",i32", 3, BLOCK=64)


def test_each_decision_is_in_the_ir():
    sig = "*fp32,*fp32,i32,i32"
    assert "pipeline = 2" in _ir(SOFTMAX, "softmax_looped", sig, 3, BLOCK=64)
    assert "prefetch = true" in _ir(SOFTMAX, "softmax_looped", sig, 3, BLOCK=64)
    assert "pipeline = " not in _ir(SOFTMAX, "softmax_looped", sig, 0, BLOCK=64)
    assert "prefetch = " not in _ir(KERNELS, "shift_in_place", "*fp32,i32", 3, BLOCK=16)
    assert "prefetch = " not in _ir(KERNELS, "no_pipeline_hint", "*fp32,*fp32,i32", 3, BLOCK=16)


def test_the_dma_overlaps_the_compute():
    """Layer norm, 64 rows of 4096: the pipelined loops take at least 15% less simulated time."""
    rng = np.random.default_rng(0)
    M, N = 64, 4096
    data = {"X": rng.standard_normal(M * N).astype(F32), "Y": np.zeros(M * N, F32), "W": np.ones(N, F32),
            "B": np.zeros(N, F32), "Mean": np.zeros(M, F32), "Rstd": np.zeros(M, F32),
            "stride": np.array(N, I32), "N": np.array(N, I32), "eps": np.array(1e-5, F32)}
    path, kernel = str(EXAMPLES / "layer_norm.py"), "layer_norm_fwd"
    sig = "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32"
    # without reuse-loads, which keeps the row for the later loops (nothing left for them to fetch ahead)
    off = run(_build(path, kernel, sig, 3, disabled=("pipeline-loads", "reuse-loads"), BLOCK_SIZE=256), data,
              grid=(M,))
    on = run(_build(path, kernel, sig, 3, disabled=("reuse-loads",), BLOCK_SIZE=256), data, grid=(M,))
    np.testing.assert_array_equal(on.outputs["Y"], off.outputs["Y"])
    assert on.stats.cycles < 0.85 * off.stats.cycles
