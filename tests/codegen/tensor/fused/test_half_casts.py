"""f32 -> f16 and f16 -> f32 casts inside fused chains (fuse-elementwise's ``half_cast``; codegen/tensor/fused.py: the
f16 side at half the LMUL, ``vfncvt.f.f.w`` (the SE's ``mtia.se.fncvt.f.f.w`` in a loop by rows) /
``vfwcvt.f.f.v``): bit for bit against numpy (round to nearest even, overflow to infinity, subnormals, NaN), at block
sizes that leave a partial chunk, in chains run a chunk and two chunks an iteration, and by rows."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(X, H, M, O, P, Q, s, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    at = r[:, None] * C + c[None, :]
    x = tl.load(X + at)
    h = tl.load(H + at)
    m = tl.load(M + r)
    p = tl.math.exp2(x * s - m[:, None])
    q = p * 2.0
    tl.store(P + at, q.to(tl.float16))                        # truncf in the chain, by rows
    tl.store(Q + at, q)
    tl.store(O + at, h.to(tl.float32) * x + 1.0)              # extf in the chain
"""


@pytest.mark.parametrize("R, C", [(2, 16), (8, 64), (4, 256)])
def test_half_casts_match_numpy(tmp_path, R, C):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    comp = compile_kernel(str(src), Options(signature="*fp32,*fp16,*fp32,*fp32,*fp16,*fp32,fp32", opt_level=3,
                                            defines={"R": str(R), "C": str(C)}))
    # the narrowing by the vector unit, or by the SE where the rows move through it (loops by rows)
    assert ("vfncvt.f.f.w" in comp.asm_text or "mtia.se.fncvt.f.f.w" in comp.asm_text) \
        and "vfwcvt.f.f.v" in comp.asm_text
    assert "arith.truncf" not in comp.asm_text and "arith.extf" not in comp.asm_text   # no loop of their own
    rng = np.random.default_rng(R * C)
    x = (rng.standard_normal((R, C)) * 8).astype(np.float32)
    x[0, :4] = [20.0, -30.0, np.nan, 0.0]                     # overflow to inf, subnormal, NaN
    h = (rng.standard_normal((R, C)) * 1000).astype(np.float16)
    h[0, :3] = [np.inf, -np.inf, 6e-8]
    m = rng.standard_normal(R).astype(np.float32)
    s = np.float32(1.5)
    out = run(comp.binary, {"X": x, "H": h, "M": m, "O": np.zeros((R, C), np.float32),
                            "P": np.zeros((R, C), np.float16), "Q": np.zeros((R, C), np.float32),
                            "s": np.array(s)}, grid=(1,)).outputs
    p, q = out["P"].reshape(R, C), out["Q"].reshape(R, C)
    assert np.isinf(p).any() and np.isnan(p).any() and ((np.abs(p) < 6.2e-5) & (p != 0)).any()
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(p.view(np.uint16), q.astype(np.float16).view(np.uint16))
    o = out["O"].reshape(R, C)
    a = h.astype(np.float32)
    np.testing.assert_array_equal(o, (a.astype(np.float64) * x + 1.0).astype(np.float32))
