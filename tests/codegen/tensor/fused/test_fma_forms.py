"""Fused loops compute math.fma (contract-fma's a * b + c) in one instruction, whichever operand's group takes
the result: vfmacc into the addend's, vfmadd into a factor's, .vf for a scalar factor, a copy first when every
operand is read later; operands shared between roles (x * y + x, x * x + c).  Bit for bit against the exact
rounded-once reference, in f32 and f64."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.numerics import fma

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(X, Y, Z, O, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    z = tl.load(Z + offs)
    a = x * y + z              # z read again below: vfmadd into a factor, or a copy
    b = a * s + y              # scalar factor
    c = x * y + x              # the addend is a factor
    d = c * c + b              # one factor twice
    e = z * s + z              # scalar factor, addend the same value
    tl.store(O + offs, a)
    tl.store(O + BLOCK + offs, b)
    tl.store(O + 2 * BLOCK + offs, c)
    tl.store(O + 3 * BLOCK + offs, d)
    tl.store(O + 4 * BLOCK + offs, e + z)
    f = (x + 2.0) * y + z      # a factor read last here, the addend later: vfmadd.vv into the factor's group
    g = (y - 1.0) * s + z      # the same with a scalar factor: vfmadd.vf
    tl.store(O + 5 * BLOCK + offs, f + g + z)
"""


@pytest.mark.parametrize("dtype, sig", [(np.float32, "fp32"), (np.float64, "fp64")])
def test_fma_forms_round_once(tmp_path, dtype, sig):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    block = 128
    comp = compile_kernel(str(src), Options(signature=",".join([f"*{sig}"] * 4 + [sig]), opt_level=3,
                                            defines={"BLOCK": str(block)}))
    rng = np.random.default_rng(11)
    x, y, z = (rng.standard_normal(block).astype(dtype) for _ in range(3))
    s = dtype(-1.3)
    out = run(comp.binary, {"X": x, "Y": y, "Z": z, "O": np.zeros(6 * block, dtype), "s": np.array(s)},
              grid=(1,)).outputs["O"].reshape(6, block)
    a = fma(x, y, z, dtype)
    b = fma(a, s, y, dtype)
    c = fma(x, y, x, dtype)
    d = fma(c, c, b, dtype)
    e = fma(z, s, z, dtype)
    f = fma(x + dtype(2), y, z, dtype)
    g = fma(y - dtype(1), s, z, dtype)
    for got, want in zip(out, (a, b, c, d, e + z, f + g + z)):
        np.testing.assert_array_equal(got, want)


def test_one_instruction_each(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    asm = compile_kernel(str(src), Options(signature="*fp32,*fp32,*fp32,*fp32,fp32", opt_level=3,
                                           defines={"BLOCK": "128"}), stop_after="asm").asm_text
    fmas = sum(asm.count(m) for m in ("vfmacc.v", "vfmadd.v"))
    assert fmas == 7 and "vfmul" not in asm, asm
    assert "vfmadd.vv" in asm and "vfmadd.vf" in asm and "vfmacc.vf" in asm, asm
