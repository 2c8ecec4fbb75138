"""fuse-elementwise end to end: fused chains give the same bits as one loop per op (-O0), and numpy's
values where the ops are exact; the fused build retires fewer instructions."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.numerics import fma

KERNELS = Path(__file__).resolve().parent / "kernels.py"
CASES = {
    "mixed_chain": ("*fp32,*fp32,*fp32,*fp32,i32,fp32", ["X", "Y"], ["A", "Z"], {"s": np.float32(1.5)}),
    "int_chain": ("*i32,*i32,*i32,i32,i32", ["X", "Y"], ["Z"], {"k": np.int32(-77)}),
    "long_math": ("*fp32,*fp32,*fp32,i32", ["X", "Y"], ["Z"], {}),
}


def compile_case(name, level, block, ir=False):
    sig = CASES[name][0]
    opts = Options(kernel=name, signature=sig, opt_level=level, defines={"BLOCK": str(block)})
    return compile_kernel(str(KERNELS), opts, stop_after="ir" if ir else "bin")


def data_for(name, n, seed):
    rng = np.random.default_rng(seed)
    sig, ins, outs, scalars = CASES[name]
    d = {}
    for k in ins:
        if name == "int_chain":
            d[k] = rng.integers(-50, 50, n).astype(np.int32)
        else:
            d[k] = (2 * rng.standard_normal(n)).astype(np.float32)
    if name == "int_chain":
        d["Y"][: n // 4] = d["X"][: n // 4]   # some equal pairs
    for k in outs:
        d[k] = np.zeros(n, d[ins[0]].dtype)
    d["N"] = np.array(n, np.int32)
    d.update({k: np.array(v) for k, v in scalars.items()})
    return d


def simulate(tmp_path, binary, data, grid):
    p = tmp_path / "k.bin"
    p.write_bytes(binary)
    return run(str(p), data, grid=(grid,))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_chain_is_fused(name):
    ir = compile_case(name, 2, 256, ir=True).ir_text
    assert '"tt.fused_elementwise"' in ir
    assert ir.count('"tt.fused_elementwise"') == 1


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("n,block", [(1000, 256), (64, 64), (33, 128)])
def test_fused_matches_unfused_bit_for_bit(tmp_path, name, n, block):
    data = data_for(name, n, seed=n + block)
    grid = -(-n // block)
    ref = simulate(tmp_path, compile_case(name, 0, block).binary, data, grid)
    got = simulate(tmp_path, compile_case(name, 2, block).binary, data, grid)
    for k in CASES[name][2]:
        np.testing.assert_array_equal(got.outputs[k].view(np.uint8), ref.outputs[k].view(np.uint8), err_msg=k)
    assert got.stats.instructions < ref.stats.instructions
    x, y = data["X"], data["Y"]
    if name == "int_chain":
        k = np.int32(-77)
        c = ((x > 0) & (y < 5)) | (x == y) | ((x ^ k) < 0)
        r = np.where(c, x - y, x * y + k)
        r = np.maximum(r, -1000) + (r >> 2) - (y & 7)
        np.testing.assert_array_equal(got.outputs["Z"], r)
    if name == "mixed_chain":
        a = fma(x, np.float32(1.5), y)       # contract-fma: x * 1.5 + y rounded once
        np.testing.assert_array_equal(got.outputs["A"], a)
        z = np.where(a > 0, a, -a * np.float32(0.5))
        z = np.maximum(z, y) - np.minimum(x, np.float32(0.25)) / (y * y + np.float32(1))
        np.testing.assert_allclose(got.outputs["Z"], np.exp(z * np.float32(0.125)), rtol=1e-6)
    if name == "long_math":
        with np.errstate(all="ignore"):
            t = 1 / (1 + np.exp(-2 * y.astype(np.float64))) * 2 - 1
            from math import erf
            f = np.array([erf(v) for v in 0.75 * y.astype(np.float64)])
            r = np.exp(x * 0.5) * np.sin(x) + np.cos(y) * t + np.log(np.abs(x) + 1) * f \
                + np.sqrt(np.abs(y) + 2) * (x - y) + np.floor(x) * np.ceil(y) \
                + np.exp(y * 0.25) * np.sin(y) * np.cos(x) + np.exp(x * y * 0.125) * np.sin(x + y) \
                + np.cos(x * 0.375) * np.log(np.abs(y) + 3)
        np.testing.assert_allclose(got.outputs["Z"], r, rtol=1e-4, atol=1e-4)


def test_long_chain_is_cut_into_loops_that_fit_the_registers():
    opts = Options(kernel="long_math", signature=CASES["long_math"][0], defines={"BLOCK": "256"})
    asm = compile_kernel(str(KERNELS), opts, stop_after="asm").asm_text
    loops = [ln for ln in asm.splitlines() if ln.startswith(".Lfused")]
    assert len(loops) >= 2   # more live values than fifteen register groups hold at once
