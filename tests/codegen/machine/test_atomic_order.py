"""An atomic and a DMA transfer of one program over the same DRAM bytes keep program order: the atomic reaches its
memory's atomic unit apart from the DMA engine, which compares no addresses with it (docs/architecture.md, "DMA
channels").  An atomic whose sem has no release waits for the stores in flight that may write its bytes
(``after_store``), and a load or store of bytes an atomic whose sem has no acquire updates comes after a ``fence``
(``after_atomic``; mtiacc/ir/analysis/dram_order.py).  Each kernel runs against numpy with the sanitizer on, whose
DMA-race rule reports such a pair nothing orders, on one channel and two, at -O0, -O2 and -O3."""
import textwrap

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = '''
import triton
import triton.language as tl


@triton.jit
def store_then_add(X, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(X + offs, x + 1)
    tl.atomic_add(X + offs, 3, sem="relaxed")


@triton.jit
def add_then_load(X, Y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(X + offs, 3, sem="release")
    tl.store(Y + offs, tl.load(X + offs) * 2)


@triton.jit
def xchg_then_store(X, Y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_xchg(X + offs, offs, sem="relaxed")
    tl.store(Y + offs, old)
    tl.store(X + offs, old * 2)


@triton.jit
def counts(X, C, T, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(T):
        tl.store(C + offs, tl.load(C + offs) + tl.load(X + i * BLOCK + offs))
        tl.atomic_add(C + offs, 1, sem="relaxed")


@triton.jit
def scalar_flag(X, BLOCK: tl.constexpr):
    tl.store(X, tl.load(X) * 2)
    tl.atomic_add(X, 1, sem="acquire")
    tl.store(X + 1, tl.load(X))
'''
SIGS = {"store_then_add": "*i32", "add_then_load": "*i32,*i32", "xchg_then_store": "*i32,*i32",
        "counts": "*i32,*i32,i32", "scalar_flag": "*i32"}
B, T, PROGS = 16, 5, 3
LEVELS = [(level, channels) for level in (0, 2, 3) for channels in (2, 1)]


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("atomicorder") / "kernels.py"
    p.write_text(textwrap.dedent(KERNELS))
    return str(p)


def _compile(path, name, level, channels):
    return compile_kernel(path, Options(kernel=name, signature=SIGS[name], defines={"BLOCK": str(B)},
                                        opt_level=level, overrides=(f"memory.dma.channels={channels}",)))


def _run(path, name, level, channels, inputs, grid=(PROGS,)):
    out = _compile(path, name, level, channels)
    return run(out.binary, inputs, grid=grid, sanitize=True, overrides=(f"memory.dma.channels={channels}",)).outputs


def _x(n, seed):
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)


@pytest.mark.parametrize("level,channels", LEVELS)
def test_an_atomic_after_a_store_of_its_bytes(path, level, channels):
    x = _x(B * PROGS, level)
    out = _run(path, "store_then_add", level, channels, {"X": x.copy()})
    np.testing.assert_array_equal(out["X"], x + 4)


@pytest.mark.parametrize("level,channels", LEVELS)
def test_a_load_after_an_atomic_without_acquire(path, level, channels):
    x = _x(B * PROGS, 10 + level)
    out = _run(path, "add_then_load", level, channels, {"X": x.copy(), "Y": np.zeros(B * PROGS, np.int32)})
    np.testing.assert_array_equal(out["X"], x + 3)
    np.testing.assert_array_equal(out["Y"], 2 * (x + 3))


@pytest.mark.parametrize("level,channels", LEVELS)
def test_a_store_after_a_relaxed_exchange(path, level, channels):
    x = _x(B * PROGS, 20 + level)
    out = _run(path, "xchg_then_store", level, channels, {"X": x.copy(), "Y": np.zeros(B * PROGS, np.int32)})
    np.testing.assert_array_equal(out["Y"], x)
    np.testing.assert_array_equal(out["X"], 2 * x)


@pytest.mark.parametrize("level,channels", LEVELS)
def test_each_trip_reads_what_the_atomics_of_the_trip_before_updated(path, level, channels):
    x, c = _x(B * T, 30 + level), _x(B, 40 + level)
    out = _run(path, "counts", level, channels, {"X": x, "C": c.copy(), "T": np.array(T, np.int32)}, grid=(1,))
    np.testing.assert_array_equal(out["C"], c + x.reshape(T, B).sum(axis=0) + T)


@pytest.mark.parametrize("level,channels", LEVELS)
def test_a_scalar_atomic_between_a_store_and_a_load(path, level, channels):
    x = _x(4, 50 + level)
    out = _run(path, "scalar_flag", level, channels, {"X": x.copy()}, grid=(1,))
    np.testing.assert_array_equal(out["X"][:2], [2 * x[0] + 1, 2 * x[0] + 1])
