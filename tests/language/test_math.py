"""The device math library against numpy (float64 reference) on seeded inputs and edge cases.

The ULP bounds asserted here are the ones docs/language.md states.
"""
import math

import numpy as np
import pytest

from tests.language.harness import launch, ulps

KERNEL = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, FN(x), mask=m)
'''
BINARY = '''
@triton.jit
def k(X, Z, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    z = tl.load(Z + offs, mask=m)
    tl.store(Y + offs, FN(x, z), mask=m)
'''
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-45, 1.1754944e-38, 88.7, 89.0, -87.3,
         -103.0, -104.0, 1e30, -1e30, 3.4e38, 0.5, -0.5, 1.5, -2.5, 1.0, -1.0, 1e-7, -1e-7, 8388609.0]
_erf = np.vectorize(lambda v: math.erf(v) if not math.isnan(v) else v)

# name -> (numpy reference, max ULP, input range).  tl.exp and tl.exp2 are approximate, as on Triton's GPU
# backends, and libdevice.exp and libdevice.exp2 are held to CUDA's 2 ULP for expf and exp2f: the SIMD engine's
# table, 2 ULP (tests/language/test_libdevice_exp.py tests these over every binade).
UNARY = {
    "tl.exp": (np.exp, 2, 100), "tl.exp2": (np.exp2, 2, 150), "libdevice.exp": (np.exp, 2, 100),
    "libdevice.exp2": (np.exp2, 2, 150), "tl.log": (np.log, 1, 1e6),
    "tl.log2": (np.log2, 2, 1e6), "tl.sqrt": (np.sqrt, 0, 1e6), "tl.sqrt_rn": (np.sqrt, 0, 1e6),
    "tl.rsqrt": (lambda v: 1 / np.sqrt(v), 1, 1e6), "tl.sin": (np.sin, 1, 3e38),
    "tl.cos": (np.cos, 1, 3e38), "tl.abs": (np.abs, 0, 1e6), "tl.floor": (np.floor, 0, 1e7),
    "tl.ceil": (np.ceil, 0, 1e7), "tl.erf": (_erf, 2, 5), "libdevice.tanh": (np.tanh, 3, 12),
    "libdevice.log1p": (np.log1p, 2, 1e4), "libdevice.expm1": (np.expm1, 2, 90),
    "libdevice.trunc": (np.trunc, 0, 1e7), "libdevice.rint": (np.rint, 0, 1e7),
    "tl_math.exp": (np.exp, 2, 100), "tl.math.log": (np.log, 1, 1e6),
}


def _inputs(lim: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-lim, lim, 1500), rng.standard_normal(500),
                        np.exp(rng.uniform(-80, 80, 500)), np.array(EDGES)])
    return x.astype(np.float32)


def _run(src: str, args: dict) -> np.ndarray:
    n = len(args["X"])
    data = {**args, "Y": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    sig = "*fp32," * (len(args) + 1) + "i32"
    return launch(src, sig, data, grid=(-(-n // 512),), defines=(("BLOCK", "512"),)).outputs["Y"]


def _check(got, want, bound, x):
    # A float64 reference below f32's smallest normal may round differently from f32 arithmetic.
    u = np.where(np.abs(want) < 1.2e-38, np.where(np.abs(got - want) < 2e-38, 0, 1 << 40), ulps(got, want))
    worst = int(np.argmax(u))
    assert u.max() <= bound, f"{u.max()} ULP at x={x[worst]!r}: got {got[worst]!r}, want {want[worst]!r}"


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_math(fn):
    ref, bound, lim = UNARY[fn]
    x = _inputs(lim, seed=len(fn))
    got = _run(KERNEL.replace("FN", fn), {"X": x})
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
    _check(got, want, bound, x)


@pytest.mark.parametrize("fn", ["tl.sin", "tl.cos"])
def test_sin_cos_large_arguments(fn):
    """Payne-Hanek above 2**16: as accurate as for small arguments (more in test_libdevice.py)."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-1e7, 1e7, 1024), rng.uniform(-3e38, 3e38, 512),
                        np.exp(rng.uniform(11, 88, 512))]).astype(np.float32)
    got = _run(KERNEL.replace("FN", fn), {"X": x})
    want = (np.sin if fn == "tl.sin" else np.cos)(x.astype(np.float64))
    _check(got, want, 1, x)


def test_sigmoid_is_one_over_one_plus_exp():
    x = _inputs(100, seed=3)
    got = _run(KERNEL.replace("FN", "tl.sigmoid"), {"X": x})
    with np.errstate(all="ignore"):
        want = (1 / (1 + np.exp(-x.astype(np.float64)).astype(np.float32).astype(np.float64)))
    _check(got, want, 4, x)      # exp's 2 ULP (approximate, as tl.exp), then an add and a divide


def test_pow():
    rng = np.random.default_rng(7)
    base = np.concatenate([rng.uniform(0, 4, 600), -rng.uniform(0, 4, 200), [0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 2, -2, 0.5,
                           -0.0, -0.0, -0.0, -0.0, -0.0]])
    expo = np.concatenate([rng.uniform(-8, 8, 600), rng.integers(-5, 6, 200), [2, 3, -1, 3, 0, np.nan, np.inf, 3, 0.5, -np.inf,
                           -1, -3, -2, 0.5, -0.5]])   # (-0)^-odd = -inf
    x, z = base.astype(np.float32), expo.astype(np.float32)
    got = _run(BINARY.replace("FN", "libdevice.pow"), {"X": x, "Z": z})
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), z.astype(np.float64))
    _check(got, want, 4, x)


def test_fma_maximum_minimum_clamp():
    x = _inputs(100, seed=9)
    src = BINARY.replace("FN(x, z)", "tl.clamp(tl.fma(x, z, 1.0), -50.0, tl.maximum(z, tl.minimum(x, 3.0)))")
    z = np.random.default_rng(1).uniform(-10, 10, len(x)).astype(np.float32)
    got = _run(src, {"X": x, "Z": z})
    with np.errstate(all="ignore"):
        f = np.float32(x.astype(np.float64) * z + 1.0)
        hi = np.fmax(z, np.fmin(x, np.float32(3)))
        want = np.fmin(np.fmax(f, np.float32(-50)), hi)
    np.testing.assert_array_equal(got, want)


SCALAR = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    s = tl.program_id(0).to(tl.float32) * 0.25 + 0.5
    tl.store(Y + tl.arange(0, BLOCK), x * tl.exp(s) + tl.sin(s) + libdevice.tanh(s))
'''


def test_scalar_math_uses_vl1():
    x = np.ones(16, np.float32)
    got = _run(SCALAR.replace("BLOCK)", "16)"), {"X": x})
    s = np.float64(0.5)
    want = np.float32(np.float32(np.exp(s)) + np.float32(np.sin(s))) + np.float32(np.tanh(s))
    np.testing.assert_allclose(got, want, rtol=3e-7)
