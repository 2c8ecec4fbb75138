"""tt.dot {read_back}: the engine's accumulator store writes f16 / bf16 for the arith.truncf of the result.

Bit for bit against numpy: the fp32 result of the same kernel (C as fp32, no cast) rounded by numpy's
float32 -> float16 and by a bf16 round-to-nearest-even reference, over values that tie, overflow to infinity,
are infinite or are subnormal in f16; and against the unfused compile (dot-accumulators{read-back=false}: the
vector unit's arith.truncf), NaNs included (both give the canonical NaN)."""
import functools

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.opt import pipeline_for_level
from mtiasim.runner import run
from tests.codegen.matrix.numerics import KERNELS, from_bf16, to_bf16

SIG = {"bf16": "*bf16", "f16": "*fp16", "f32": "*fp32"}


@functools.lru_cache(maxsize=None)
def compile_(kernel, signature, read_back, emit="binary", **defines):
    passes = pipeline_for_level(2, codegen=True)
    if not read_back:
        passes = passes.replace("dot-accumulators", "dot-accumulators{read-back=false}")
    opts = Options(kernel=kernel, signature=signature, defines={k: str(v) for k, v in defines.items()},
                   passes=passes)
    c = compile_kernel(str(KERNELS), opts, stop_after="asm" if emit == "asm" else None)
    return c.asm_text if emit == "asm" else c.binary


def operands(rng, kind, m, n, k):
    """Operands whose products reach ties, f16 overflow and subnormals, and an inf and a NaN row."""
    scale = np.exp2(rng.integers(-14, 9, (m, 1))).astype(np.float32)
    a = (rng.integers(-64, 65, (m, k)) * scale / 8).astype(np.float32)
    b = (rng.integers(-64, 65, (k, n)) / 4).astype(np.float32)
    a[0, :] = 0
    a[0, 0] = np.inf            # row 0: +-inf, and NaN where b is 0 (inf * 0)
    a[1, :2] = [60000, 60000]   # row 1: beyond f16's largest finite value
    b[0, ::7] = 0
    a[2, :] = 2.0 ** -20        # row 2: f16 subnormal results
    if kind == "bf16":
        return to_bf16(a), to_bf16(b)
    return a.astype(np.float16), b.astype(np.float16)


def as_float(bits, out):
    return from_bf16(bits) if out == "bf16" else bits.view(np.float16).astype(np.float32)


def reference(c32, out):
    if out == "f16":
        return c32.astype(np.float16).view(np.uint16)
    return to_bf16(c32)


def run_case(kernel, kind, out, m, n, k, read_back, **kw):
    rng = np.random.default_rng(m * 7 + n + k)
    a, b = operands(rng, kind, m, n, k)
    sig = f"{SIG[kind]},{SIG[kind]},{SIG[out]}" + (",i32" if kernel == "dot_loop_cast" else "")
    binary = compile_(kernel, sig, read_back, BM=m, BN=n, BK=kw.get("bk", k))
    inputs = {"A": a, "B": b, "C": np.zeros((m, n), {"f32": np.float32, "f16": np.float16}.get(out, np.uint16))}
    if kernel == "dot_loop_cast":
        inputs["K"] = np.array(k, np.int32)
    got = run(binary, inputs, grid=(1,)).outputs["C"].reshape(m, n)
    return got if out == "f32" else got.view(np.uint16)


CASES = [("dot_loop_cast", 64, 64, 128, {"bk": 32}), ("dot_loop_cast", 32, 128, 64, {"bk": 32}),
         ("dot_cast", 64, 64, 64, {}), ("dot_cast", 16, 32, 16, {})]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("kind,out", [("bf16", "bf16"), ("f16", "f16"), ("bf16", "f16"), ("f16", "bf16")])
@pytest.mark.parametrize("kernel,m,n,k,kw", CASES)
def test_read_back_is_bit_exact(kind, out, kernel, m, n, k, kw):
    c32 = run_case(kernel, kind, "f32", m, n, k, False, **kw)
    fused = run_case(kernel, kind, out, m, n, k, True, **kw)
    plain = run_case(kernel, kind, out, m, n, k, False, **kw)
    want = reference(c32, out)
    nan = np.isnan(c32)
    assert nan.any() and np.isinf(c32).any()
    if out == "f16":
        assert np.isinf(c32.astype(np.float16)[~np.isinf(c32) & ~nan]).any()   # overflow to inf
        tiny = np.abs(c32) < 2.0 ** -14
        assert (tiny & (c32 != 0)).any()                                       # f16 subnormals
    np.testing.assert_array_equal(fused[~nan], want[~nan])
    np.testing.assert_array_equal(fused, plain)          # NaNs too: both give the canonical NaN
    assert np.isnan(as_float(fused, out)[nan]).all()


@pytest.mark.parametrize("kernel,sig", [("dot_loop_cast", "*bf16,*bf16,*bf16,i32"), ("dot_cast", "*fp16,*fp16,*fp16")])
def test_read_back_asm(kernel, sig):
    text = compile_(kernel, sig, True, emit="asm", BM=64, BN=64, BK=32)
    code = "2" if "bf16,*bf16,*bf16" in sig else "1"
    assert f"# out_type = {code}" in text
    assert "acc_stride = 128" in text       # 64 columns of 2 bytes
    assert "tt.dot: convert" not in text and "vnsrl" not in text and "vfncvt" not in text
    off = compile_(kernel, sig, False, emit="asm", BM=64, BN=64, BK=32)
    assert "out_type" not in off
