"""GPU-sized kernels compile at every local-memory size from a quarter of a PE's to the whole (96, 128, 192 and
384 KiB, ``--set pe.local_memory_bytes``) and compute what numpy does: the ladder's steps (band-accumulators' bands
of rows and columns of an accumulator the engine holds, one the vector unit computes, one too big for the engine;
fewer pipeline stages) make them fit where their blocks do not (tests/opt/lmem_sweep_kernels.py)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("lmem_sweep_kernels.py"))
MEMORIES = (98304, 131072, 196608, 393216)
i32 = lambda v: np.array(v, np.int32)  # noqa: E731


def _compile(kernel, sig, mem, **defines):
    return compile_kernel(KERNELS, Options(kernel=kernel, signature=sig, overrides=(f"pe.local_memory_bytes={mem}",),
                                           defines={k: str(v) for k, v in defines.items()}))


# (element type, BM, BN, BK): tutorial 03's 256 x 128 x 64 (its autotuner's pick here) and 128 x 128 x 64 in fp16; the
# GEMM template's fp32 tiles (exact products on the vector unit)
GEMMS = [("fp16", 256, 128, 64), ("fp16", 128, 128, 64), ("fp16", 256, 256, 64), ("fp32", 128, 128, 64)]


# the fp32 tile at the middle memories (bands as at 96 KiB, fewer of them) runs with -m slow
SLOW_FP32 = {("fp32", 131072), ("fp32", 196608)}


@pytest.mark.parametrize("t,bm,bn,bk,mem", [
    pytest.param(*g, m, marks=[pytest.mark.slow] if (g[0], m) in SLOW_FP32 else [], id=f"{g}-{m}")
    for g in GEMMS for m in MEMORIES])
def test_a_gemm_compiles_and_matches_numpy(t, bm, bn, bk, mem):
    # K ends inside the second tile: the masks run on every band; the fp32 tiles (exact products on the vector
    # unit, 30x an fp16 tile's simulation) run one tile, the fp16 ones four
    M, N, K = (bm, bn, 96) if t == "fp32" else (256, 256, 96)
    comp = _compile("gemm", f"*{t},*{t},*{t},i32,i32,i32", mem, BM=bm, BN=bn, BK=bk, GROUP=4, PREC="'ieee'")
    # the blocks of one tile (A, B, the fp32 accumulator) exceed the smallest memories: the ladder banded them
    whole = (bm * bk + bk * bn) * (2 if t == "fp16" else 4) + 4 * bm * bn
    if whole > mem - 8192:
        assert "band-accumulators" in [r.kind for r in comp.remarks]
    rng = np.random.default_rng(mem + bm + bn)
    dt = np.float16 if t == "fp16" else np.float32
    a = (rng.random((M, K), dtype=np.float32) - 0.5).astype(dt)
    b = (rng.random((K, N), dtype=np.float32) - 0.5).astype(dt)
    res = run(comp.binary, {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(M * N, dt), "M": i32(M),
                            "N": i32(N), "K": i32(K)}, grid=(-(-M // bm) * -(-N // bn),),
              overrides=(f"pe.local_memory_bytes={mem}",))
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 2e-3 if t == "fp16" else 1e-5
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(M, N).astype(np.float64), want, rtol=tol,
                               atol=tol * np.abs(want).max())


@pytest.mark.parametrize("mem", MEMORIES)
@pytest.mark.parametrize("block", [1024, 16384])
def test_a_softmax_row_compiles_and_matches_numpy(block, mem):
    rows, n = 2, block - 3
    comp = _compile("softmax", "*fp32,*fp32,i32", mem, BLOCK=block)
    x = np.random.default_rng(block + mem).standard_normal((rows, n)).astype(np.float32)
    res = run(comp.binary, {"out_ptr": np.zeros(rows * n, np.float32), "in_ptr": x.ravel(), "n_cols": i32(n)},
              grid=(rows,), overrides=(f"pe.local_memory_bytes={mem}",))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.outputs["out_ptr"].reshape(rows, n), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("mem", [m if m != 131072 else pytest.param(m, marks=pytest.mark.slow) for m in MEMORIES])
def test_a_persistent_softmax_streams_its_rows_and_matches_numpy(mem):
    """Tutorial 02's form: a loop over rows in each program; a 16384-element row does not fit below 384 KiB (the
    stored block has two buffers), so stream-blocks streams the loop's body."""
    rows, n, block = 3, 16000, 16384
    comp = _compile("softmax_rows", "*fp32,*fp32,i32,i32", mem, BLOCK=block)
    assert ("stream-blocks" in [r.kind for r in comp.remarks]) == (mem < 393216)
    x = np.random.default_rng(mem).standard_normal((rows, n)).astype(np.float32)
    res = run(comp.binary, {"out_ptr": np.zeros(rows * n, np.float32), "in_ptr": x.ravel(), "n_rows": i32(rows),
                            "n_cols": i32(n)}, grid=(2,), overrides=(f"pe.local_memory_bytes={mem}",))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.outputs["out_ptr"].reshape(rows, n), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("mem", MEMORIES)
@pytest.mark.parametrize("block", [1024, 4096, 8192, 16384])
def test_a_layer_norm_row_compiles_and_matches_numpy(block, mem):
    """At 192 KiB the 4096-element blocks need the back-off (tests/filecheck/lmem_stream_rows.py); below 384 KiB the
    16384-element ones (tutorial 05's BLOCK_SIZE for rows of 16384 and more) run its loops in trips of fewer columns
    (stream-blocks), and so do the 8192-element ones at 128 KiB and less (at 128 KiB only the stored block's second
    buffer, which its fused op gets after stream-blocks has run, does not fit)."""
    rows, n = 2, {1024: 3000, 4096: 9000, 8192: 12000, 16384: 20000}[block]
    comp = _compile("layer_norm", "*fp32,*fp32,*fp32,*fp32,i32,fp32", mem, BLOCK=block)
    streamed = block == 16384 and mem < 393216 or block == 8192 and mem <= 131072
    assert ("stream-blocks" in [r.kind for r in comp.remarks]) == streamed
    rng = np.random.default_rng(mem + block)
    x = rng.standard_normal((rows, n)).astype(np.float32)
    w, b = rng.uniform(0.5, 1.5, n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    res = run(comp.binary, {"X": x.ravel(), "Y": np.zeros(rows * n, np.float32), "W": w, "B": b, "N": i32(n),
                            "eps": np.float32(1e-5)}, grid=(rows,), overrides=(f"pe.local_memory_bytes={mem}",))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    want = (x64 - mean) / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(res.outputs["Y"].reshape(rows, n), want, rtol=1e-4, atol=1e-4)
