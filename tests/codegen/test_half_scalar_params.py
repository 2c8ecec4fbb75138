"""fp16 and bf16 scalar kernel parameters (was: "scalar parameters of type f16 are not supported yet",
with no location): the argument slot's low 16 bits, NaN-boxed like every half scalar."""
import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch
from tests.numerics import fma

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def scale_shift(X, Y, alpha, beta, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, x * alpha + beta, mask=m)
'''


def _bf16_bits(v):
    b = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits):
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("ta, tb", [("fp16", "bf16"), ("fp16", "fp32"), ("bf16", "fp16")])
def test_half_scalar_parameters(tmp_path, opt, ta, tb):
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    n = 70
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    alpha, beta = np.float32(0.1), np.float32(-3.3)

    def arg(t, v):
        if t == "fp16":
            return np.array(v, np.float16), np.float32(np.float16(v))
        if t == "bf16":
            return np.array(v, np.float32), _bf16_value(_bf16_bits(v))
        return np.array(v, np.float32), np.float32(v)
    a_in, a = arg(ta, alpha)
    b_in, b = arg(tb, beta)
    out = launch(tmp_path, build("scale_shift", f"*fp32,*fp32,{ta},{tb},i32", opt_level=opt, path=path, BLOCK=64),
                 {"X": x, "Y": np.zeros(n, np.float32), "alpha": a_in, "beta": b_in, "n": np.array(n, np.int32)},
                 (2,))
    # x * alpha promotes to f32 (the half is exact in f32), then + beta in f32: one fused multiply-add
    np.testing.assert_array_equal(out["Y"], fma(x, a, b))
