"""float64 transcendentals (mtiacc/codegen/mathlib at F64) against numpy's float64 (math.erf for erf).

Seeded inputs spread over each function's domain (uniform ranges, every exponent through exp of a
uniform, the region near 0) plus special values (signed zeros, infinities, NaN, subnormals, the
overflow and underflow thresholds).  The ULP bounds are the measured maxima docs/language.md states;
block loops, a fused chain and the scalar (vl = 1) path are each checked.
"""
import math

import numpy as np
import pytest

from tests.language.harness import launch

BLOCK = 256
KERNEL = """
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=1.0)
    tl.store(Y + offs, FN(x), mask=m)
"""
TINY = 5e-324
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, TINY, -TINY, 2.2250738585072014e-308,
                    2.225073858507201e-308, 1e-310, 1.7976931348623157e308, -1.7976931348623157e308,
                    709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412, -708.4, 1e-300,
                    1e-17, -1e-17, 1024.0, 1023.999, -1074.0, -1075.0, -1022.5, 5.9, 6.0, 0.99999999, 22.0, 40.0])
_erf = np.vectorize(lambda v: math.erf(v) if not math.isnan(v) else v)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _signed_tiny(rng, n):
    return np.exp(rng.uniform(-745, 0, n)) * rng.choice([-1.0, 1.0], n)


def _near_pio2_multiples(rng, n):
    """The doubles nearest k pi/2 for random k up to 2^21 (2/pi), and their neighbours."""
    x = np.round(rng.uniform(1, 2.0 ** 21 / (np.pi / 2), n)) * (np.pi / 2)
    return np.concatenate([x, np.nextafter(x, 0), -np.nextafter(x, np.inf)])


def _trig(rng):
    return [rng.uniform(-10, 10, 600), rng.uniform(-2.0 ** 21, 2.0 ** 21, 600), _signed_tiny(rng, 300) * 2.0 ** 20,
            _near_pio2_multiples(rng, 200)]


def _inputs(name, rng):
    """name -> (reference, inputs, ULP bound)."""
    pos = np.exp(rng.uniform(-745, 709, 1500))
    return {
        "tl.exp": (np.exp, [rng.uniform(-745.2, 709.8, 1500), rng.uniform(-2, 2, 500)], 1),
        "tl.exp2": (np.exp2, [rng.uniform(-1075, 1024, 1500), rng.uniform(-2, 2, 500)], 1),
        "tl.log": (np.log, [pos, rng.uniform(0.5, 2, 500)], 1),
        "tl.log2": (np.log2, [pos, rng.uniform(0.5, 2, 500)], 1),
        "libdevice.log1p": (np.log1p, [rng.uniform(-1, 2, 800), pos[:700], -np.exp(rng.uniform(-745, 0, 500))], 2),
        "libdevice.expm1": (np.expm1, [rng.uniform(-40, 710, 800), rng.uniform(-1, 1, 700), _signed_tiny(rng, 300)], 2),
        "libdevice.tanh": (np.tanh, [rng.uniform(-25, 25, 800), rng.uniform(-1, 1, 700), _signed_tiny(rng, 300)], 2),
        "tl.erf": (_erf, [rng.uniform(-7, 7, 800), rng.uniform(-1.2, 1.2, 700), _signed_tiny(rng, 300)], 2),
        "tl.sin": (lambda x: np.where(np.abs(x) > 2.0 ** 21, np.nan, np.sin(x)), _trig(rng), 1),
        "tl.cos": (lambda x: np.where(np.abs(x) > 2.0 ** 21, np.nan, np.cos(x)), _trig(rng), 1),
        "tl.sigmoid": (_sigmoid, [rng.uniform(-750, 750, 800), rng.uniform(-5, 5, 700)], 2),
        "tl.rsqrt": (lambda x: 1.0 / np.sqrt(x), [pos, rng.uniform(0.5, 2, 500)], 2),
    }[name]


def ulps64(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in float64 ULPs (bit patterns as a signed-magnitude line); NaN against NaN is 0."""
    def line(v):
        i = v.view(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFFFFFFFFFF), i).astype(object)
    d = np.abs(line(got) - line(want)).astype(np.float64)
    return np.where(np.isnan(got) & np.isnan(want), 0, np.where(np.isnan(got) | np.isnan(want), np.inf, d))


def _run(fn: str, x: np.ndarray) -> np.ndarray:
    n = len(x)
    data = {"X": x, "Y": np.zeros(n), "N": np.array(n, np.int32)}
    return launch(KERNEL.replace("FN", fn), "*fp64,*fp64,i32", data, grid=(-(-n // BLOCK),),
                  defines=(("BLOCK", str(BLOCK)),)).outputs["Y"]


NAMES = ["tl.exp", "tl.exp2", "tl.log", "tl.log2", "libdevice.log1p", "libdevice.expm1", "libdevice.tanh",
         "tl.erf", "tl.sin", "tl.cos", "tl.sigmoid", "tl.rsqrt"]


@pytest.mark.parametrize("name", NAMES)
def test_ulp_against_numpy(name):
    ref, parts, bound = _inputs(name, np.random.default_rng(2064))
    x = np.concatenate(parts + [SPECIAL, -SPECIAL])
    got = _run(name, x)
    with np.errstate(all="ignore"):
        want = ref(x)
    u = ulps64(got, want)
    worst = int(np.argmax(u))
    assert u.max() <= bound, f"{u.max()} ULP at x={x[worst]!r}: got {got[worst]!r}, want {want[worst]!r}"
    # the bound is tight: a wrong coefficient or a lost correction term would show
    assert np.isnan(got).sum() == np.isnan(want).sum()


def test_special_values_exactly():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, TINY])
    with np.errstate(all="ignore"):
        cases = {"tl.exp": np.exp(x), "tl.exp2": np.exp2(x), "tl.log": np.log(x), "tl.log2": np.log2(x),
                 "libdevice.log1p": np.log1p(x), "libdevice.expm1": np.expm1(x), "libdevice.tanh": np.tanh(x),
                 "tl.erf": _erf(x), "tl.sin": np.sin(x), "tl.cos": np.cos(x)}
    for name, want in cases.items():
        got = _run(name, x)
        assert np.array_equal(np.isnan(got), np.isnan(want)), name
        # exact at the special points; at -1 and -2 only where the result is special (log's domain)
        ok = ~np.isnan(want) & ((x > -1) | ~np.isfinite(want) | (want == 0))
        np.testing.assert_array_equal(got[ok], want[ok], err_msg=name)
        np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]), err_msg=name)   # -0.0 kept


SCALAR = """
@triton.jit
def k(X, Y):
    for i in range(0, 8):
        x = tl.load(X + i)
        tl.store(Y + i, FN(x))
"""


@pytest.mark.parametrize("name", NAMES)
def test_scalar_path(name):
    """A scalar runs the same sequence with vl = 1."""
    xs = np.array([0.5, -3.25, 700.0, 1e-310, np.nan, np.inf, 2.0, 0.01])
    if name in ("tl.log", "tl.log2"):
        xs = np.abs(xs)
    ref, _, bound = _inputs(name, np.random.default_rng(0))
    got = launch(SCALAR.replace("FN", name), "*fp64,*fp64", {"X": xs, "Y": np.zeros(8)}).outputs["Y"]
    with np.errstate(all="ignore"):
        want = ref(xs)
    assert ulps64(got, want).max() <= bound


def test_sin_cos_range_limit():
    """The reduction is exact for |x| <= 2^21; beyond, NaN (stated in docs/language.md), not a wrong number."""
    x = np.array([2.0 ** 21, -2.0 ** 21, np.nextafter(2.0 ** 21, np.inf), 2.0 ** 22, 1e300, -1.7976931348623157e308])
    for name, ref in (("tl.sin", np.sin), ("tl.cos", np.cos)):
        got = _run(name, x)
        assert ulps64(got[:2], ref(x[:2])).max() <= 1
        assert np.isnan(got[2:]).all()


POW = """
@triton.jit
def k(X, Z, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=1.0)
    z = tl.load(Z + offs, mask=m, other=1.0)
    tl.store(Y + offs, libdevice.pow(x, z), mask=m)
"""


def _pow_cases(rng):
    n = 600
    near_ovf = rng.uniform(1.01, 100, n)
    near_unf = rng.uniform(1.01, 100, n)
    sp = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, TINY, -TINY, 3.0, -3.0, 1e308, -2.5,
                   2.0 ** 53, 2.0 ** 53 + 2, 1023.0, -1074.0, 0.9999999999999999])
    gx, gy = np.meshgrid(sp, sp)
    cases = [(rng.uniform(0, 4, n), rng.uniform(-8, 8, n)),                      # Triton's usual range
             (rng.uniform(-4, 4, n), np.round(rng.uniform(-20, 20, n))),        # negative x, integer y
             (np.exp(rng.uniform(-744, 709, n)), rng.uniform(-1, 1, n)),         # every exponent, subnormal x
             (rng.uniform(0.5, 2, n), rng.uniform(-1000, 1000, n)),              # large |y|
             (near_ovf, 1023.9 / np.log2(near_ovf) * rng.uniform(0.9, 1.0, n)),  # next to overflow
             (near_unf, -1070 / np.log2(near_unf) * rng.uniform(0.97, 1.01, n)),  # subnormal results
             (1 + rng.uniform(-1e-6, 1e-6, n), rng.uniform(-1e8, 1e8, n)),       # x next to 1, huge y
             (gx.ravel(), gy.ravel())]                                           # C99's special cases
    return np.concatenate([c[0] for c in cases]), np.concatenate([c[1] for c in cases])


def test_pow_against_numpy():
    x, y = _pow_cases(np.random.default_rng(2064))
    n = len(x)
    got = launch(POW, "*fp64,*fp64,*fp64,i32", {"X": x, "Z": y, "Y": np.zeros(n), "N": np.array(n, np.int32)},
                 grid=(-(-n // BLOCK),), defines=(("BLOCK", str(BLOCK)),)).outputs["Y"]
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    u = ulps64(got, want)
    worst = int(np.argmax(u))
    assert u.max() <= 1, f"{u.max()} ULP at x={x[worst]!r}, y={y[worst]!r}: got {got[worst]!r}, want {want[worst]!r}"
    special = np.isinf(want) | (want == 0)
    np.testing.assert_array_equal(np.signbit(got[special]), np.signbit(want[special]))   # (-0)^-3 = -inf


def test_pow_scalar_and_literal():
    src = """
@triton.jit
def k(X, Y):
    x = tl.load(X)
    tl.store(Y, libdevice.pow(x, 2.5))
    tl.store(Y + 1, libdevice.pow(-x, 3.0))
"""
    for v in (0.25, 1e-300, 7.5):
        got = launch(src, "*fp64,*fp64", {"X": np.array([v]), "Y": np.zeros(2)}).outputs["Y"]
        assert ulps64(got, np.array([v ** 2.5, (-v) ** 3.0])).max() <= 1, v


def test_fused_chain_and_mixed_types():
    """f64 math inside a fused elementwise chain, next to f32 math on another block."""
    src = """
@triton.jit
def k(X, H, Y, Z, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=1.0)
    h = tl.load(H + offs, mask=m, other=1.0)
    tl.store(Y + offs, tl.exp(x) * 0.5 + tl.log(tl.abs(x) + 1.0) - libdevice.tanh(x), mask=m)
    tl.store(Z + offs, tl.exp(h), mask=m)
"""
    rng = np.random.default_rng(7)
    x = rng.uniform(-20, 20, 200)
    h = rng.uniform(-20, 20, 200).astype(np.float32)
    out = launch(src, "*fp64,*fp32,*fp64,*fp32,i32", {"X": x, "H": h, "Y": np.zeros(200), "Z": np.zeros(200, np.float32),
                                                      "N": np.array(200, np.int32)}, defines=(("BLOCK", "256"),)).outputs
    want = np.exp(x) * 0.5 + np.log(np.abs(x) + 1.0) - np.tanh(x)
    np.testing.assert_allclose(out["Y"], want, rtol=4e-16, atol=4e-16)
    assert out["Z"].dtype == np.float32
    np.testing.assert_allclose(out["Z"], np.exp(h.astype(np.float64)), rtol=3e-7)


FMA = """
@triton.jit
def k(X, Y, Z, O, S):
    o = tl.arange(0, 64)
    tl.store(O + o, tl.fma(tl.load(X + o), tl.load(Y + o), tl.load(Z + o)))
    tl.store(S, tl.fma(tl.load(X), tl.load(Y), tl.load(Z)))
"""


def test_fma_rounds_once():
    """``tl.fma`` on float64 is fused (one rounding of the exact ``x * y + z``), on blocks and on scalars."""
    from fractions import Fraction
    rng = np.random.default_rng(64)
    x = 1 + rng.integers(1, 2 ** 26, 64) * 2.0 ** -52
    y = 1 - rng.integers(1, 2 ** 26, 64) * 2.0 ** -52
    z = -(x * y)                  # the rounded product: x * y + z is its rounding error, exactly
    data = {"X": x, "Y": y, "Z": z, "O": np.zeros(64), "S": np.zeros(1)}
    out = launch(FMA, "*fp64,*fp64,*fp64,*fp64,*fp64", data).outputs
    want = np.array([float(Fraction(a) * Fraction(b) + Fraction(c)) for a, b, c in zip(x, y, z)])
    assert np.count_nonzero(want) > 32          # an unfused x * y + z would give 0 for each
    np.testing.assert_array_equal(out["O"], want)
    assert out["S"][0] == want[0]
