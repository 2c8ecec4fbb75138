"""The rest of libdevice (tan, atan, atan2, asin, ..., erfinv) and sin/cos over every finite f32.

Differential against numpy / Python's math in float64 on seeded inputs spread over each function's
domain (uniform ranges, every exponent, points next to the hard spots) plus special values (signed
zeros, infinities, NaN, domain edges, subnormals).  The ULP bounds are the measured maxima that
docs/language.md states; fp16/bf16 results must be within 1 ULP of the correctly rounded value.
"""
import math

import numpy as np
import pytest

from tests.language.dtypes import DTYPES, as_f32, from_real
from tests.language.harness import launch, ulps
from tests.language.test_grid_math import narrow_ulps
from tests.language.test_math import BINARY, KERNEL

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-40, -1e-40, 1e-45,
           1.1754944e-38, 3.4e38, -3.4e38, 1e-30, 1e-7]


def _run(src: str, args: dict, block: int = 512) -> np.ndarray:
    n = len(args["X"])
    data = {**args, "Y": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    sig = "*fp32," * (len(args) + 1) + "i32"
    return launch(src, sig, data, grid=(-(-n // block),), defines=(("BLOCK", str(block)),)).outputs["Y"]


def _ulp_check(got, want, x, bound):
    # A float64 reference below f32's smallest normal may round differently from f32 arithmetic.
    with np.errstate(all="ignore"):
        u = np.where(np.abs(want) < 1.2e-38, np.where(np.abs(got - want) < 2e-38, 0, 1 << 40), ulps(got, want))
    worst = int(np.argmax(u))
    assert u.max() <= bound, f"{u.max()} ULP at x={x[worst]!r}: got {got[worst]!r}, want {want[worst]!r}"
    return int(u.max())


def _bits(rng, n):
    """f32s with uniformly distributed bit patterns (every exponent equally), both signs."""
    b = rng.integers(0, 0x7F800000, n).astype(np.uint32).view(np.float32)
    return b * np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32)


def _erfinv(x):
    """float64 erfinv by Newton's method on math.erf (math.erfc for the tail), odd."""
    def one(v):
        if math.isnan(v) or abs(v) > 1:
            return math.nan
        if abs(v) == 1:
            return math.copysign(math.inf, v)
        a, y = abs(v), 0.0
        y = math.sqrt(-math.log((1 - a) * (1 + a))) if a > 0.5 else a * math.sqrt(math.pi) / 2
        for _ in range(100):
            f = (1 - a) - math.erfc(y) if a > 0.5 else math.erf(y) - a
            y -= f / (2 / math.sqrt(math.pi) * math.exp(-y * y))
        return math.copysign(y, v)
    return np.vectorize(one)(x)


_erfc = np.vectorize(lambda v: math.erfc(v) if not math.isnan(v) else v)
_lgamma = np.vectorize(lambda v: math.lgamma(v) if math.isfinite(v) and not (v <= 0 and v == int(v))
                       else (v if math.isnan(v) else math.inf))


def _near_one(rng, n, lo=-17):
    return 1 - np.exp(rng.uniform(lo, 0, n))


# name -> (reference, max ULP (measured), inputs(rng))
UNARY = {
    "libdevice.tan": (np.tan, 2, lambda r: np.concatenate([r.uniform(-10, 10, 3000), _bits(r, 3000)])),
    "libdevice.atan": (np.arctan, 1, lambda r: np.concatenate([r.uniform(-5, 5, 3000), _bits(r, 3000)])),
    "libdevice.asin": (np.arcsin, 1, lambda r: np.concatenate([r.uniform(-1, 1, 4000), _near_one(r, 1500),
                                                              -_near_one(r, 500), _bits(r, 300)])),
    "libdevice.acos": (np.arccos, 1, lambda r: np.concatenate([r.uniform(-1, 1, 4000), _near_one(r, 1000),
                                                              -_near_one(r, 1000), _bits(r, 300)])),
    "libdevice.sinh": (np.sinh, 1, lambda r: np.concatenate([r.uniform(-90, 90, 3000), r.uniform(-2, 2, 2000),
                                                            _bits(r, 1000)])),
    "libdevice.cosh": (np.cosh, 1, lambda r: np.concatenate([r.uniform(-90, 90, 3000), r.uniform(-2, 2, 2000),
                                                            _bits(r, 1000)])),
    "libdevice.asinh": (np.arcsinh, 2, lambda r: np.concatenate([r.uniform(-5, 5, 3000), _bits(r, 3000)])),
    "libdevice.acosh": (np.arccosh, 2, lambda r: np.concatenate([r.uniform(1, 5, 3000), 1 + np.exp(r.uniform(-17, 0, 2000)),
                                                                _bits(r, 2000)])),
    "libdevice.atanh": (np.arctanh, 1, lambda r: np.concatenate([r.uniform(-1, 1, 4000), _near_one(r, 2000),
                                                                _bits(r, 500)])),
    "libdevice.log10": (np.log10, 1, lambda r: np.concatenate([r.uniform(0, 10, 3000), np.abs(_bits(r, 3000))])),
    "libdevice.cbrt": (np.cbrt, 1, lambda r: np.concatenate([r.uniform(-10, 10, 3000), _bits(r, 3000)])),
    "libdevice.erfc": (_erfc, 3, lambda r: np.concatenate([r.uniform(-5, 11, 4000), r.uniform(-1, 1, 2000)])),
    "libdevice.lgamma": (_lgamma, 2, lambda r: np.concatenate([r.uniform(0, 10, 3000), r.uniform(0.5, 3, 2000),
                                                              np.abs(_bits(r, 2000)), r.uniform(-1, 0, 500),
                                                              -np.exp(r.uniform(np.log(10), 88, 500))])),
    "libdevice.erfinv": (_erfinv, 2, lambda r: np.concatenate([r.uniform(-1, 1, 4000), _near_one(r, 1500, -16),
                                                              -_near_one(r, 500, -16), _bits(r, 300) * 1e-30])),
}
ODD = ["libdevice.tan", "libdevice.atan", "libdevice.asin", "libdevice.sinh", "libdevice.asinh",
       "libdevice.atanh", "libdevice.cbrt", "libdevice.erfinv", "tl.sin"]


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary(fn):
    ref, bound, gen = UNARY[fn]
    x = np.concatenate([gen(np.random.default_rng(len(fn))), SPECIAL]).astype(np.float32)
    got = _run(KERNEL.replace("FN", fn), {"X": x})
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
    _ulp_check(got, want, x, bound)


@pytest.mark.parametrize("fn", ODD)
def test_odd_functions_keep_the_sign_of_zero(fn):
    x = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-30, -1e-30], np.float32)
    got = _run(KERNEL.replace("FN", fn), {"X": x}, block=8)
    assert list(np.signbit(got)) == list(np.signbit(x)), got
    assert np.all(np.abs(got[2:]) > 0)


F89_4 = float(np.float32(89.4))


def test_special_values():
    cases = {  # fn: [(x, expected)]
        "libdevice.asin": [(1, math.pi / 2), (-1, -math.pi / 2), (1.0000001, math.nan), (-2, math.nan)],
        "libdevice.acos": [(1, 0.0), (-1, math.pi), (1.0000001, math.nan)],
        "libdevice.atanh": [(1, math.inf), (-1, -math.inf), (1.0000001, math.nan), (-3e8, math.nan)],
        "libdevice.acosh": [(1, 0.0), (0.9999999, math.nan), (-3e38, math.nan), (math.inf, math.inf)],
        "libdevice.erfinv": [(1, math.inf), (-1, -math.inf), (1.0000001, math.nan)],
        "libdevice.erfc": [(math.inf, 0.0), (-math.inf, 2.0), (12.0, 0.0), (0.0, 1.0)],
        "libdevice.atan": [(math.inf, math.pi / 2), (-math.inf, -math.pi / 2)],
        "libdevice.sinh": [(89.4, math.sinh(F89_4)), (89.5, math.inf), (-math.inf, -math.inf)],
        "libdevice.cosh": [(-89.4, math.cosh(F89_4)), (89.5, math.inf), (-math.inf, math.inf)],
        "libdevice.tan": [(math.inf, math.nan), (-math.inf, math.nan)],
        "libdevice.log10": [(0.0, -math.inf), (-0.0, -math.inf), (-1.0, math.nan), (1000.0, 3.0), (1e-45, math.log10(1.401298464324817e-45))],
        "libdevice.lgamma": [(1.0, 0.0), (2.0, 0.0), (0.0, math.inf), (-0.0, math.inf), (-3.0, math.inf),
                             (-8388608.0, math.inf), (-1e30, math.inf), (math.inf, math.inf), (-math.inf, math.inf),
                             (-1e-39, math.lgamma(float(np.float32(-1e-39)))), (4.2e36, math.inf)],
        "libdevice.cbrt": [(-27.0, -3.0), (math.inf, math.inf), (-math.inf, -math.inf), (1e-45, 1.401298464324817e-45 ** (1 / 3))],
    }
    for fn, pairs in cases.items():
        x = np.array([p[0] for p in pairs], np.float32)
        got = _run(KERNEL.replace("FN", fn), {"X": x}, block=8)
        want = np.array([p[1] for p in pairs], np.float64)
        _ulp_check(got, want, x, 1)


def test_lgamma_between_minus_ten_and_minus_one():
    """Next to lgamma's zeros on the negative axis the reflection formula cancels: the error there is
    bounded in absolute terms (relative above 1)."""
    x = np.concatenate([np.random.default_rng(6).uniform(-10, -1, 4000), [-2.4570247, -2.7469182, -3.1435506]])
    x = x.astype(np.float32)
    x = x[x != np.round(x)]
    got = _run(KERNEL.replace("FN", "libdevice.lgamma"), {"X": x})
    want = _lgamma(x.astype(np.float64))
    err = np.abs(got - want) / np.maximum(1, np.abs(want))
    assert err.max() < 1e-6, (x[np.argmax(err)], err.max())


# ----------------------------------------------------------------------------- sin, cos, tan: all f32

def _trig_inputs(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = np.exp(rng.uniform(0, np.log(4e4), n)).round()      # next to multiples of pi/2, below 2^16
    hard = [4.712389, 14.137167, 252.89821, 52516.434, 105032.87, 1.5717729, 65535.996, 65536.0,
            -65536.0, 3.4028235e38, 1.6263033e38, 1e30, 8.5e37]
    return np.concatenate([_bits(rng, n), (k * np.pi / 2), rng.uniform(-10, 10, n),
                           rng.uniform(-65536, 65536, n), hard, SPECIAL]).astype(np.float32)


@pytest.mark.parametrize("fn,ref,bound", [("tl.sin", np.sin, 1), ("tl.cos", np.cos, 1), ("libdevice.tan", np.tan, 2)])
def test_trig_over_every_finite_f32(fn, ref, bound):
    x = _trig_inputs(len(fn), 3000)
    got = _run(KERNEL.replace("FN", fn), {"X": x})
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
    _ulp_check(got, want, x, bound)


@pytest.mark.slow
@pytest.mark.parametrize("fn,ref,bound", [("tl.sin", np.sin, 1), ("tl.cos", np.cos, 1), ("libdevice.tan", np.tan, 2)])
def test_trig_many_inputs(fn, ref, bound):
    x = _trig_inputs(100 + len(fn), 60000)
    got = _run(KERNEL.replace("FN", fn), {"X": x}, block=4096)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
    _ulp_check(got, want, x, bound)


def test_trig_in_a_fused_chain_and_on_scalars():
    src = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    s = tl.program_id(0).to(tl.float32) * 1.0e6 + 0.5
    y = tl.sin(x) * 2.0 + tl.cos(x * 0.5) + libdevice.tan(s) + libdevice.atan(x)
    tl.store(Y + offs, y, mask=m)
'''
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-10, 10, 200), rng.uniform(-1e30, 1e30, 200), [0.0, 1e5, -7e4]]).astype(np.float32)
    got = _run(src, {"X": x}, block=128)
    xd = x.astype(np.float64)
    s = ((np.arange(len(x)) // 128).astype(np.float32) * np.float32(1e6) + np.float32(0.5)).astype(np.float64)
    want = np.sin(xd) * 2 + np.cos((x * np.float32(0.5)).astype(np.float64)) + np.tan(s) + np.arctan(xd)
    err = np.abs(got - want) / np.maximum(1, np.abs(np.tan(s)))
    assert err.max() < 4e-6, (x[np.argmax(err)], err.max())


# ------------------------------------------------------------------------------------------ binary

def _pairs(seed: int):
    rng = np.random.default_rng(seed)
    s = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-40, 3e38, -2.5], np.float32)
    sx, sy = np.meshgrid(s, s)
    x = np.concatenate([rng.uniform(-10, 10, 3000), _bits(rng, 3000), sx.ravel()]).astype(np.float32)
    y = np.concatenate([rng.uniform(-10, 10, 3000), _bits(rng, 3000), sy.ravel()]).astype(np.float32)
    return x, y


@pytest.mark.parametrize("fn,ref,bound", [("libdevice.atan2", np.arctan2, 2), ("libdevice.hypot", np.hypot, 1)])
def test_binary(fn, ref, bound):
    x, y = _pairs(len(fn))
    got = _run(BINARY.replace("FN", fn), {"X": x, "Z": y})
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64), y.astype(np.float64))
    _ulp_check(got, want, x, bound)
    if fn == "libdevice.atan2":      # signed zeros and pi: atan2(+-0, -0) = +-pi, atan2(-0, +0) = -0
        both = ~np.isnan(want)
        assert np.array_equal(np.signbit(got[both]), np.signbit(want[both]))


@pytest.mark.parametrize("fn,ref", [("libdevice.copysign", np.copysign), ("libdevice.fmod", np.fmod)])
def test_exact_binary(fn, ref):
    x, y = _pairs(7)
    got = _run(BINARY.replace("FN", fn), {"X": x, "Z": y})
    with np.errstate(all="ignore"):
        want = ref(x, y)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), [(x[i], y[i], got[i], want[i]) for i in np.nonzero(~same)[0][:4]]


def test_round_is_half_away_from_zero():
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.uniform(-10, 10, 2000), np.arange(-8, 8.5, 0.5), _bits(rng, 1000),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 0.49999997, -0.49999997, 8388609.0, -8388607.5]])
    x = x.astype(np.float32)
    got = _run(KERNEL.replace("FN", "libdevice.round"), {"X": x})
    a = np.abs(x.astype(np.float64))
    want = np.where(a >= 2 ** 23, x, np.copysign(np.floor(a + 0.5), x)).astype(np.float32)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), [(x[i], got[i], want[i]) for i in np.nonzero(~same)[0][:4]]


def test_llrint_is_int64():
    src = KERNEL.replace("tl.store(Y + offs, FN(x), mask=m)",
                         "tl.store(Y + offs, (libdevice.llrint(x) - 3000000000).to(tl.float32), mask=m)")
    x = np.array([2.5, 3.5, -2.5, 3.1e9, -1.5, 7.0], np.float32)
    got = _run(src, {"X": x}, block=8)
    np.testing.assert_array_equal(got, (np.rint(x.astype(np.float64)) - 3e9).astype(np.float32))


# ----------------------------------------------------------------------------------- fp16 / bf16

NARROW = [(fn, t) for fn in sorted(UNARY) + ["tl.sin", "tl.cos"] for t in ("float16", "bfloat16")]
REFS = {**{fn: UNARY[fn][0] for fn in UNARY}, "tl.sin": np.sin, "tl.cos": np.cos}


@pytest.mark.parametrize("fn,t", NARROW, ids=[f"{fn}-{t}" for fn, t in NARROW])
def test_narrow_types(fn, t):
    rng = np.random.default_rng(len(fn) + len(t))
    x = np.concatenate([UNARY[fn][2](rng)[:600] if fn in UNARY else _trig_inputs(3, 150)[:600], SPECIAL])
    with np.errstate(over="ignore"):
        x = from_real(x, t)
    n = len(x)
    sig = f"*{DTYPES[t][0]},*{DTYPES[t][0]},i32"
    data = {"X": x, "Y": np.zeros(n, DTYPES[t][1]), "N": np.array(n, np.int32)}
    got = launch(KERNEL.replace("FN", fn), sig, data, grid=(-(-n // 256),), defines=(("BLOCK", "256"),)).outputs["Y"]
    with np.errstate(all="ignore"):
        exact = REFS[fn](as_f32(x, t).astype(np.float64))
        want = from_real(exact, t)
    u = narrow_ulps(got, want, t)
    worst = int(np.argmax(u))
    assert u.max() <= 1, f"{fn} on {t}: {u.max()} ULP at x={as_f32(x, t)[worst]!r}: " \
                         f"got {as_f32(got, t)[worst]!r}, want {exact[worst]!r}"


def test_payne_hanek_keeps_enough_fraction_bits():
    """The large-argument reduction carries 62 fraction bits of a quadrant (error < 2**-60): every f32
    at or above 2**16 is farther than 2**-31 quadrants from a multiple of pi/2 (found with the
    continued fraction of 2/pi * 2**k, whose convergents give the closest approaches for m < 2**24),
    so the reduced argument keeps ~29 correct bits beyond f32's 24 even in the worst case."""
    from fractions import Fraction
    from mtiacc.codegen.mathlib.base import PI as _PI

    def closest(alpha: Fraction, limit: int) -> Fraction:
        """min over 1 <= m < limit of the distance from m*alpha to the nearest integer."""
        best, (h0, h1), (k0, k1), x = Fraction(1), (0, 1), (1, 0), alpha
        while True:
            a = math.floor(x)
            h0, h1, k0, k1 = h1, a * h1 + h0, k1, a * k1 + k0
            if k1 >= limit:
                return best
            best = min(best, abs(k1 * alpha - h1))
            if x == a:
                return best
            x = 1 / (x - a)

    worst = min(closest((2 / _PI * Fraction(2) ** (e - 150)) % 4, 1 << 24) for e in range(143, 255))
    assert Fraction(1, 2 ** 31) < worst < Fraction(1, 2 ** 29)


@pytest.mark.parametrize("t", ["float32", "float16", "bfloat16"])
def test_nextafter_steps_in_the_operand_type(t):
    rng = np.random.default_rng(9)
    s = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 6e-8, 1e-40, 65504.0, -2.5]
    sx, sy = np.meshgrid(s, s)
    x = from_real(np.concatenate([rng.uniform(-10, 10, 300), sx.ravel()]), t)
    y = from_real(np.concatenate([rng.uniform(-10, 10, 300), sy.ravel()]), t)
    n = len(x)
    data = {"X": x, "Z": y, "Y": np.zeros(n, DTYPES[t][1]), "N": np.array(n, np.int32)}
    sig = f"*{DTYPES[t][0]},*{DTYPES[t][0]},*{DTYPES[t][0]},i32"
    got = launch(BINARY.replace("FN", "libdevice.nextafter"), sig, data, grid=(-(-n // 128),),
                 defines=(("BLOCK", "128"),)).outputs["Y"]
    if t == "bfloat16":   # numpy has no bf16: step the bits of the f32 pattern's top half
        xf, yf = as_f32(x, t), as_f32(y, t)
        bits = x.view(np.int16).astype(np.int32)
        up = (xf < yf) == (xf > 0)
        moved = (bits + np.where(up, 1, -1)).astype(np.int16)
        tiny = np.where(np.signbit(yf), np.int16(-32767), np.int16(1))
        want = np.where(xf == 0, tiny, moved)
        want = np.where(xf == yf, y.view(np.int16), want)
        want = np.where(np.isnan(xf) | np.isnan(yf), np.int16(0x7FC0), want).astype(np.int16).view(np.uint16)
    else:
        want = np.where(x == y, y, np.nextafter(x, y))    # C: y when equal (numpy keeps x: -0 vs +0)
    gf, wf = as_f32(got, t), as_f32(want, t)
    ui = np.uint32 if t == "float32" else np.uint16
    same = (got.view(ui) == want.view(ui)) | (np.isnan(gf) & np.isnan(wf))
    assert same.all(), [(as_f32(x, t)[i], as_f32(y, t)[i], gf[i], wf[i]) for i in np.nonzero(~same)[0][:4]]


@pytest.mark.parametrize("stmt,message,underlined", [
    ("y = libdevice.tan(tl.arange(0, 4))", "libdevice.tan() needs floating-point operands (fp16, bf16, fp32, fp64), got i32",
     "libdevice.tan(tl.arange(0, 4))"),
    ("y = libdevice.erfinv(x.to(tl.float64))", "`libdevice.erfinv` on float64 is not supported yet",
     "libdevice.erfinv(x.to(tl.float64))"),
    ("y = libdevice.atan2(x, tl.arange(0, 8))", "libdevice.atan2() needs floating-point operands (fp16, bf16, fp32, fp64), got i32",
     "libdevice.atan2(x, tl.arange(0, 8))"),
    ("y = libdevice.jn(x)", "`libdevice.jn` is not supported yet", "libdevice.jn"),
    ("y = libdevice.j0(x.to(tl.float64))", "`libdevice.j0` on float64 is not supported yet",
     "libdevice.j0(x.to(tl.float64))"),
])
def test_errors(tmp_path, stmt, message, underlined):
    from tests.language.harness import assert_error_at_call
    assert_error_at_call(tmp_path, stmt, message, underlined)


def test_round_and_copysign_on_float64():
    x = np.array([2.5, -2.5, 0.49999999999999994, -0.5, 4503599627370497.0, -0.0, np.inf, np.nan, 1e300, -7.5])
    z = np.array([-1.0, 1.0, -0.0, 2.0, -3.0, 1.0, -1.0, 1.0, -1.0, 0.0])
    src = BINARY.replace("FN(x, z)", "libdevice.round(x) + libdevice.copysign(x, z) * 0.0 + libdevice.copysign(1.0, z)")
    n = len(x)
    data = {"X": x, "Z": z, "Y": np.zeros(n), "N": np.array(n, np.int32)}
    got = launch(src, "*fp64,*fp64,*fp64,i32", data, grid=(1,), defines=(("BLOCK", "16"),)).outputs["Y"]
    with np.errstate(invalid="ignore"):
        r = np.where(np.abs(x) >= 2.0 ** 52, x, np.copysign(np.floor(np.abs(x) + 0.5), x))
        r = np.where(np.abs(x) == 0.49999999999999994, np.copysign(0.0, x), r)
        want = r + np.copysign(x, z) * 0.0 + np.copysign(1.0, z)
    np.testing.assert_array_equal(got, want)


def test_ldexp_is_rounded_once():
    src = '''
@triton.jit
def k(X, K, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    n = tl.load(K + offs, mask=m)
    tl.store(Y + offs, libdevice.ldexp(x, n), mask=m)
'''
    rng = np.random.default_rng(12)
    x = np.concatenate([_bits(rng, 3000), [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1.5, 1.75, 1e-45, -3e-39,
                                           3.4e38]]).astype(np.float32)
    k = rng.integers(-300, 300, len(x)).astype(np.int32)
    k[-11:] = [5, -5, -3, 3, 1, -149, -150, -151, 149, 100, -277]   # ties to even at the bottom, overflow
    n = len(x)
    data = {"X": x, "K": k, "Y": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    got = launch(src, "*fp32,*i32,*fp32,i32", data, grid=(-(-n // 256),), defines=(("BLOCK", "256"),)).outputs["Y"]
    with np.errstate(over="ignore"):
        want = np.ldexp(x, k)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), [(x[i], k[i], got[i], want[i]) for i in np.nonzero(~same)[0][:4]]
