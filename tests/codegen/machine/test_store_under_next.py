"""An output tile's store left in flight under the next tile (control.py ``store_under_next``, insert-waits'
``mtia.dma.wait.in``): tutorial 09's loop over tiles in every layout (A or A^T times B or B^T, by strides), sizes
that are not multiples of the blocks, against numpy, with the sanitizer checking that no access meets a transfer
not waited for, on one DMA channel and on two; and the store's overlap in simulated time."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).resolve().parents[2] / "filecheck" / "insert_waits_store_under.py")
SIG = "*fp16,*fp16,*fp16," + ",".join(["i32"] * 10)
M, N, K = 200, 136, 100
PROGS = 5
_cache = {}


def _build(channels=2):
    if channels not in _cache:
        opts = Options(kernel="strided", signature=SIG, overrides=(f"memory.dma.channels={channels}",),
                       defines={"BLOCK_M": "64", "BLOCK_N": "64", "BLOCK_K": "32"})
        _cache[channels] = compile_kernel(KERNELS, opts)
    return _cache[channels]


def _operands(trans_a, trans_b, seed):
    rng = np.random.default_rng(seed)
    a = (rng.random((M, K), dtype=np.float32) - 0.5).astype(np.float16)
    b = (rng.random((K, N), dtype=np.float32) - 0.5).astype(np.float16)
    # the buffers as a transposed torch tensor arrives: A^T stored K-major (its strides (1, M)), B^T N-major
    a_buf = np.ascontiguousarray(a.T) if trans_a else a
    b_buf = np.ascontiguousarray(b.T) if trans_b else b
    sa = (1, M) if trans_a else (K, 1)
    sb = (1, K) if trans_b else (N, 1)
    return a, b, a_buf, b_buf, sa, sb


@pytest.mark.parametrize("channels", [2, 1])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (False, True), (True, False), (True, True)])
def test_every_layout_against_numpy_with_the_sanitizer(trans_a, trans_b, channels):
    c = _build(channels)
    assert "mtia.dma.wait.in" in c.asm_text
    a, b, a_buf, b_buf, sa, sb = _operands(trans_a, trans_b, 2 * trans_a + trans_b)
    i32 = np.int32
    inputs = {"a_ptr": a_buf.ravel(), "b_ptr": b_buf.ravel(), "c_ptr": np.zeros(M * N, np.float16),
              "M": i32(M), "N": i32(N), "K": i32(K), "stride_am": i32(sa[0]), "stride_ak": i32(sa[1]),
              "stride_bk": i32(sb[0]), "stride_bn": i32(sb[1]), "stride_cm": i32(N), "stride_cn": i32(1),
              "NUM_PROGS": i32(PROGS)}
    res = run(c.binary, inputs, grid=(PROGS,), sanitize=True, overrides=(f"memory.dma.channels={channels}",))
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(M, N).astype(np.float32), ref, rtol=1e-2, atol=2e-2)


def test_the_store_runs_under_the_next_tile_on_two_channels():
    """The same binary: with two DMA channels the next tile's loads do not queue behind the store, so it is
    faster than on one."""
    c = _build(2)
    a, b, a_buf, b_buf, sa, sb = _operands(False, False, 0)
    i32 = np.int32
    inputs = {"a_ptr": a_buf.ravel(), "b_ptr": b_buf.ravel(), "c_ptr": np.zeros(M * N, np.float16),
              "M": i32(M), "N": i32(N), "K": i32(K), "stride_am": i32(K), "stride_ak": i32(1),
              "stride_bk": i32(N), "stride_bn": i32(1), "stride_cm": i32(N), "stride_cn": i32(1),
              "NUM_PROGS": i32(1)}
    two = run(c.binary, dict(inputs), grid=(1,)).stats.cycles
    one = run(c.binary, dict(inputs), grid=(1,), overrides=("memory.dma.channels=1",)).stats.cycles
    assert two < one


# ---------------------------------------------------------------------------- 4-byte tiles (int32, fp32)

KERNELS_4 = str(Path(__file__).resolve().parents[2] / "filecheck" / "store_under_4byte_tiles.py")
_cache4 = {}


def _build4(dtype, channels=2):
    """The int8 x int8 -> int32 or fp16 x fp16 -> fp32 loop over tiles storing its tile as the engine holds it."""
    key = (dtype, channels)
    if key not in _cache4:
        ab, c = ("i8", "i32") if dtype == "int8" else ("fp16", "fp32")
        opts = Options(kernel="strided", signature=f"*{ab},*{ab},*{c}," + ",".join(["i32"] * 10),
                       overrides=(f"memory.dma.channels={channels}",),
                       defines={"BLOCK_M": "64", "BLOCK_N": "64", "BLOCK_K": "64" if dtype == "int8" else "32",
                                "INTEGER": str(int(dtype == "int8"))})
        _cache4[key] = compile_kernel(KERNELS_4, opts)
    return _cache4[key]


def _four_byte_cases():
    """Every layout and type on two DMA channels (the next tile's loads beside the store in flight), one layout
    of each type on one channel in the suite; the other six on one channel with -m slow."""
    one_channel = {(False, False, "int8"), (True, True, "fp16")}
    return [pytest.param(ta, tb, dtype, channels, id=f"{ta}-{tb}-{dtype}-{channels}",
                         marks=() if channels == 2 or (ta, tb, dtype) in one_channel else pytest.mark.slow)
            for ta, tb in [(False, False), (False, True), (True, False), (True, True)]
            for dtype in ("int8", "fp16") for channels in (2, 1)]


@pytest.mark.parametrize("trans_a,trans_b,dtype,channels", _four_byte_cases())
def test_a_4byte_tile_in_every_layout_against_numpy_with_the_sanitizer(trans_a, trans_b, dtype, channels):
    c = _build4(dtype, channels)
    assert "(the output tile's store stays in flight)" in c.asm_text
    rng = np.random.default_rng(7 + 2 * trans_a + trans_b)
    if dtype == "int8":
        a = rng.integers(-128, 128, (M, K), dtype=np.int8)
        b = rng.integers(-128, 128, (K, N), dtype=np.int8)
        out = np.zeros(M * N, np.int32)
    else:
        a = (rng.random((M, K), dtype=np.float32) - 0.5).astype(np.float16)
        b = (rng.random((K, N), dtype=np.float32) - 0.5).astype(np.float16)
        out = np.zeros(M * N, np.float32)
    a_buf = np.ascontiguousarray(a.T) if trans_a else a
    b_buf = np.ascontiguousarray(b.T) if trans_b else b
    sa = (1, M) if trans_a else (K, 1)
    sb = (1, K) if trans_b else (N, 1)
    i32 = np.int32
    inputs = {"a_ptr": a_buf.ravel(), "b_ptr": b_buf.ravel(), "c_ptr": out,
              "M": i32(M), "N": i32(N), "K": i32(K), "stride_am": i32(sa[0]), "stride_ak": i32(sa[1]),
              "stride_bk": i32(sb[0]), "stride_bn": i32(sb[1]), "stride_cm": i32(N), "stride_cn": i32(1),
              "NUM_PROGS": i32(PROGS)}
    res = run(c.binary, inputs, grid=(PROGS,), sanitize=True, overrides=(f"memory.dma.channels={channels}",))
    got = res.outputs["c_ptr"].reshape(M, N)
    if dtype == "int8":   # int8 products sum exactly in int64 and in the engine's int32 (|sum| <= K * 2^14)
        np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64))
    else:
        np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("channels", [2, 1])
def test_an_f16_accumulator_tile_against_numpy_with_the_sanitizer(channels):
    """out_dtype=tl.float16: the loop's end narrows the engine's fp32 rows into the tile's buffer of its own on the
    vector unit, after the wait for the store of the trip before (three tiles a program, two programs)."""
    m, n, k, progs = 128, 192, 96, 2
    c = compile_kernel(KERNELS_4, Options(kernel="tiles_f16_acc", signature="*fp16,*fp16,*fp16,i32,i32,i32,i32",
                                          overrides=(f"memory.dma.channels={channels}",),
                                          defines={"BLOCK": "64", "BLOCK_K": "32"}))
    assert "(the output tile's store stays in flight)" in c.asm_text
    rng = np.random.default_rng(11)
    a = (rng.random((m, k), dtype=np.float32) - 0.5).astype(np.float16)
    b = (rng.random((k, n), dtype=np.float32) - 0.5).astype(np.float16)
    i32 = np.int32
    res = run(c.binary, {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(m * n, np.float16), "M": i32(m),
                         "N": i32(n), "K": i32(k), "NUM_PROGS": i32(progs)}, grid=(progs,), sanitize=True,
              overrides=(f"memory.dma.channels={channels}",))
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(res.outputs["c_ptr"].reshape(m, n).astype(np.float32), ref, rtol=2e-3, atol=2e-3)
