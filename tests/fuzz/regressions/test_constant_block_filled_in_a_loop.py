"""A constant block a gather (or a reduction) reads from local memory, filled at its first read inside the loop
over a PE's programs (-O3's persistent-programs, pipelined), and read again after the loop by the last
program: with one program the loop runs no iteration, the buffer was never filled, and the read after it got
0.  A fill inside a region now holds only there; a read outside fills again.  Found by the random-kernel
tests (seeds 20261204 and 20261381)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

GATHER = '''
@triton.jit
def k(X, O, n):
    pid = tl.program_id(0)
    ones = tl.full((2,), 1, tl.int64)
    i = tl.load(X + pid + tl.arange(0, 1), mask=tl.arange(0, 1) < n, other=2)
    tl.store(O + pid + tl.arange(0, 1), tl.gather(ones, i & 1, 0))
'''

REDUCE = '''
@triton.jit
def k(X, O):
    pid = tl.program_id(0)
    quarter = tl.full((1,), 0.25, tl.bfloat16)
    d = tl.make_tensor_descriptor(X + pid * 10, shape=[1, 10], strides=[10, 1], block_shape=[1, 8])
    t = d.load([0, 0])
    tl.store(O + pid * 3 + 2, tl.reduce(quarter, 0, _add))
    tl.store(O + pid * 3, tl.sum(t.to(tl.float32)).to(tl.bfloat16))


@triton.jit
def _add(a, b):
    return a + b
'''


@pytest.mark.parametrize("grid", [1, 3, 130])
def test_a_gathered_constant_after_the_program_loop(grid):
    path = Path(tempfile.mkdtemp(prefix="mtiacc-cfl-")) / "k.py"
    path.write_text(HEADER + GATHER)
    x = np.random.default_rng(grid).integers(-2**31, 2**31 - 1, grid, dtype=np.int64).astype(np.int32)
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature="*i32,*i64,i32", opt_level=level)
        out = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(grid, np.int64), "n": np.array(45, np.int32)},
                          grid=(grid,)).outputs["O"]
        assert (out == 1).all(), f"-O{level}: {out}"


@pytest.mark.parametrize("grid", [1, 2])
def test_a_reduced_constant_after_the_program_loop(grid):
    path = Path(tempfile.mkdtemp(prefix="mtiacc-cfl-")) / "k.py"
    path.write_text(HEADER + REDUCE)
    x = np.zeros(10 * grid, np.uint16)
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature="*bf16,*bf16", opt_level=level)
        out = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(3 * grid, np.uint16)}, grid=(grid,)).outputs["O"]
        assert (out.reshape(grid, 3)[:, 2] == 0x3E80).all(), f"-O{level}: {out}"     # bf16 0.25
