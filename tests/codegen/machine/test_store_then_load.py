"""A load of DRAM bytes an earlier store of the program writes sees the store: the compiler waits for the stores in
flight first (``after_store``, mtiacc/ir/analysis/dram_order.py), since the DMA engine's two channels order no DRAM
bytes (docs/architecture.md, "DMA channels").  Each kernel runs against numpy with the sanitizer on, whose DMA-race
rule reports a load issued while a store of its bytes is in flight, on one channel and two, at -O0, -O2 and -O3:
the straight-line reload (the issue's repro), a loop whose every trip reads what the trip before it stored (its
pipelined form prefetches), and an in-place loop over tiles (every trip reads its own tile, apart from the tiles
stored before it).  ``carried``: pipeline-loads fetches X's tiles a trip ahead but not Y's, which the trip before
stores (tests/filecheck/pipeline_loads_after_store.py); launched with one array for both (``may_alias``) it
fetches neither.  ``counted``: the wait before a reload waits for the stores it may read only, leaving the
transfers issued after them in flight (tests/filecheck/dma_store_then_load_counted.py)."""
import textwrap

import numpy as np
import pytest

import mtiacc
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = '''
import triton
import triton.language as tl


@triton.jit
def reload(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x + 1)
    y = tl.load(Y + offs)
    tl.store(X + offs, y * 2)


@triton.jit
def running(X, Y, T, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs))
    for i in range(1, T):
        prev = tl.load(Y + (i - 1) * BLOCK + offs)
        tl.store(Y + i * BLOCK + offs, prev + tl.load(X + i * BLOCK + offs))


@triton.jit
def carried(X, Y, T, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(1, T):
        prev = tl.load(Y + (i - 1) * BLOCK + offs)
        x = tl.load(X + i * BLOCK + offs)
        tl.store(Y + i * BLOCK + offs, prev + x)


@triton.jit
def counted(X, Y, Z, W, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(Z + offs)
    tl.store(Y + offs, a + 1)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(W + offs, x + y)
    u = tl.load(Y + offs)
    tl.store(Z + offs, u * 2)


@triton.jit
def inplace(X, T, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * T * BLOCK + tl.arange(0, BLOCK)
    for i in range(0, T):
        x = tl.load(X + i * BLOCK + offs)
        tl.store(X + i * BLOCK + offs, x * 2 + 1)
'''
SIGS = {"reload": "*i32,*i32", "running": "*i32,*i32,i32", "carried": "*i32,*i32,i32",
        "counted": "*i32,*i32,*i32,*i32", "inplace": "*i32,i32"}
B, T = 16, 7


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("storeload") / "kernels.py"
    p.write_text(textwrap.dedent(KERNELS))
    return str(p)


def _compile(path, name, level, channels):
    return compile_kernel(path, Options(kernel=name, signature=SIGS[name], defines={"BLOCK": str(B)},
                                        opt_level=level, overrides=(f"memory.dma.channels={channels}",)))


def _x(n, seed):
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)


LEVELS = [(level, channels) for level in (0, 2, 3) for channels in (2, 1)]


@pytest.mark.parametrize("level,channels", LEVELS)
def test_a_reload_of_stored_bytes_sees_the_store(path, level, channels):
    out = _compile(path, "reload", level, channels)
    x = _x(B, level)
    r = run(out.binary, {"X": x.copy(), "Y": np.zeros(B, np.int32)}, grid=(1,), sanitize=True,
            overrides=(f"memory.dma.channels={channels}",))
    np.testing.assert_array_equal(r.outputs["Y"], x + 1)
    np.testing.assert_array_equal(r.outputs["X"], 2 * (x + 1))


@pytest.mark.parametrize("level,channels", LEVELS)
def test_each_trip_reads_what_the_trip_before_stored(path, level, channels):
    out = _compile(path, "running", level, channels)
    x = _x(B * T, 10 + level)
    r = run(out.binary, {"X": x, "Y": np.zeros(B * T, np.int32), "T": np.array(T, np.int32)}, grid=(1,),
            sanitize=True, overrides=(f"memory.dma.channels={channels}",))
    np.testing.assert_array_equal(r.outputs["Y"], np.cumsum(x.reshape(T, B), axis=0).ravel())


@pytest.mark.parametrize("level,channels", LEVELS)
def test_an_in_place_loop_over_tiles(path, level, channels):
    out = _compile(path, "inplace", level, channels)
    progs = 3
    x = _x(B * T * progs, 20 + level)
    r = run(out.binary, {"X": x.copy(), "T": np.array(T, np.int32)}, grid=(progs,), sanitize=True,
            overrides=(f"memory.dma.channels={channels}",))
    np.testing.assert_array_equal(r.outputs["X"], x * 2 + 1)


def test_the_in_place_loop_needs_no_wait_for_its_stores(path):
    """Every trip reads a tile no store before it wrote: no load of it waits for the stores (they stay in flight
    under the next tiles' loads)."""
    for level in (0, 3):
        asm = _compile(path, "inplace", level, 2).asm_text
        assert "a store in flight may write" not in asm
        assert "a store in flight may write" in _compile(path, "running", level, 2).asm_text


@pytest.mark.parametrize("level,channels", LEVELS)
def test_a_pipelined_loop_fetches_ahead_only_what_no_store_of_it_writes(path, level, channels):
    x, y0 = _x(B * T, 30 + level), _x(B, 40 + level)
    y = np.zeros(B * T, np.int32)
    y[:B] = y0
    out = _compile(path, "carried", level, channels)
    r = run(out.binary, {"X": x, "Y": y, "T": np.array(T, np.int32)}, grid=(1,), sanitize=True,
            overrides=(f"memory.dma.channels={channels}",))
    want = x.reshape(T, B).copy()
    want[0] = y0
    np.testing.assert_array_equal(r.outputs["Y"], np.cumsum(want, axis=0).ravel())


@pytest.mark.parametrize("level", [0, 2, 3])
def test_with_one_array_for_both_nothing_is_fetched_ahead(path, level, tmp_path, monkeypatch):
    """``Y = X``: each trip adds the tile the trip before stored to its own, which it reads before its store: a
    running sum, only when no load of X moves above the store of the trip before."""
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    k = mtiacc.load(path, "carried", opt_level=level)
    x = _x(B * T, 50 + level)
    want = np.cumsum(x.reshape(T, B), axis=0).ravel()
    k[(1,)](x, x, T, BLOCK=B, sanitize=True)
    np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("level,channels", LEVELS)
def test_the_wait_for_the_store_leaves_later_transfers_in_flight(path, level, channels):
    progs = 3
    x, z = _x(B * progs, 60 + level), _x(B * progs, 70 + level)
    out = _compile(path, "counted", level, channels)
    r = run(out.binary, {"X": x, "Y": np.zeros_like(x), "Z": z.copy(), "W": np.zeros_like(x)}, grid=(progs,),
            sanitize=True, overrides=(f"memory.dma.channels={channels}",))
    np.testing.assert_array_equal(r.outputs["Y"], z + 1)
    np.testing.assert_array_equal(r.outputs["W"], x + z + 1)
    np.testing.assert_array_equal(r.outputs["Z"], 2 * (z + 1))
