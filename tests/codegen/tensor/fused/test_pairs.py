"""A long fused chain runs two chunks an iteration (fused._emit_pairs), the rest one chunk an iteration: the
results are numpy's bit for bit on both sides of the seam, with index ranges and prefix masks computed per
chunk, and the chosen form shows in the assembly."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.numerics import fma

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, m, other=1.0)
    h = offs.to(tl.uint32)                       # an index range, computed per chunk
    for _ in tl.static_range(6):                 # a long chain of integer mixing
        h = (h ^ (h >> 7)) * 747796405 + 2891336453
    u = (h >> 8).to(tl.float32) * (1.0 / 16777216.0)
    y = tl.where(m, x * u + x, -1.0)             # the prefix mask read inside the chain
    tl.store(Y + offs, y, m)
"""


def _want(x, n, block, grid):
    offs = np.arange(grid * block, dtype=np.int64)
    h = offs.astype(np.uint32)
    with np.errstate(over="ignore"):
        for _ in range(6):
            h = (h ^ (h >> np.uint32(7))) * np.uint32(747796405) + np.uint32(2891336453)
    u = (h >> np.uint32(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    xs = np.ones(grid * block, np.float32)
    xs[:n] = x
    return fma(xs, u, xs)[:n]     # contract-fma: x * u + x rounded once


@pytest.mark.parametrize("block,n", [(256, 256), (256, 1000), (64, 100), (32, 100), (1024, 700)])
def test_pairs_match_numpy(tmp_path, block, n):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    binary = compile_kernel(str(src), Options(signature="*fp32,*fp32,i32", defines={"BLOCK": str(block)})).binary
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    grid = -(-n // block)
    out = run(binary, {"X": x, "Y": np.zeros(n, np.float32), "N": np.array(n, np.int32)}, grid=(grid,)).outputs["Y"]
    want = _want(x, n, block, grid)
    assert (out.view(np.uint32) == want.view(np.uint32)).all(), np.flatnonzero(out != want)[:8]


def test_pairs_are_chosen_for_long_chains_only(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    asm = compile_kernel(str(src), Options(signature="*fp32,*fp32,i32", defines={"BLOCK": "128"}),
                         stop_after="asm").asm_text
    assert "two chunks an iteration" in asm and "e32, m2" in asm
    short = KERNEL.replace("tl.static_range(6)", "tl.static_range(1)")
    src.write_text(short)
    asm = compile_kernel(str(src), Options(signature="*fp32,*fp32,i32", defines={"BLOCK": "128"}),
                         stop_after="asm").asm_text
    assert "two chunks an iteration" not in asm
