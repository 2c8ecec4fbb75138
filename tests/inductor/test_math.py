"""Every libdevice.* and tl_math.* name TorchInductor's Triton code generator emits (the list
test_coverage.py checks against the installed torch), computed by mtiacc on mtiasim and compared with
numpy in float64: one kernel runs them all, each on a row of inputs from its domain.  Tolerances are
per function, in units in the last place of fp32 (ulps) or absolute where stated."""
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.inductor.bessel_reference import i1_ref, jn_ref, yn_ref
from tests.language.harness import ulps

N = 64
HEADER = ("import triton\nimport triton.language as tl\n"
          "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\n\n")
rng = np.random.default_rng(2024)


def _u(lo, hi):
    return rng.uniform(lo, hi, N)


def _logu(lo, hi):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), N))


def _halves(lo, hi):
    return rng.integers(2 * lo, 2 * hi, N) * 0.5 + rng.choice([0.0, 0.25, 1e-3], N)


_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)
_lgamma = np.vectorize(math.lgamma)


def _erfinv(y):
    x = np.zeros_like(y)
    for _ in range(60):     # Newton on erf(x) = y from 0 (erf' = 2/sqrt(pi) exp(-x^2)), in float64
        x -= (_erf(x) - y) / (2 / np.sqrt(np.pi) * np.exp(-x * x))
    return x


def _erfcx(x):
    big = x > 25
    xs = np.where(big, 0.0, x)
    small = np.exp(xs * xs) * _erfc(xs)
    xb = np.where(big, x, 30.0)
    asym = 1 / (xb * np.sqrt(np.pi)) * (1 - 1 / (2 * xb ** 2) + 3 / (4 * xb ** 4) - 15 / (8 * xb ** 6))
    return np.where(big, asym, small)


def _nextafter(x, y):
    return np.nextafter(x.astype(np.float32), y.astype(np.float32))


# name -> (expression in x and z, x's domain, z's domain or None, numpy reference, tolerance)
# tolerance: an int is ulps; ("abs", a) an absolute one, ("abs", a, r) absolute a plus relative r
CASES = {
    "acos": ("libdevice.acos(x)", _u(-1, 1), None, np.arccos, 2),
    "acosh": ("libdevice.acosh(x)", _logu(1, 1e4), None, np.arccosh, 2),
    "asin": ("libdevice.asin(x)", _u(-1, 1), None, np.arcsin, 2),
    "asinh": ("libdevice.asinh(x)", _u(-50, 50), None, np.arcsinh, 2),
    "atan": ("libdevice.atan(x)", _u(-50, 50), None, np.arctan, 2),
    "atan2": ("libdevice.atan2(x, z)", _u(-5, 5), _u(-5, 5), np.arctan2, 2),
    "atanh": ("libdevice.atanh(x)", _u(-0.99, 0.99), None, np.arctanh, 2),
    "ceil": ("libdevice.ceil(x)", _halves(-20, 20), None, np.ceil, 0),
    "copysign": ("libdevice.copysign(x, z)", _u(-5, 5), _u(-5, 5), np.copysign, 0),
    "cos": ("libdevice.cos(x)", _u(-20, 20), None, np.cos, 2),
    "cosh": ("libdevice.cosh(x)", _u(-10, 10), None, np.cosh, 2),
    "cyl_bessel_i0": ("libdevice.cyl_bessel_i0(x)", _u(-30, 30), None, np.i0, 8),
    "cyl_bessel_i1": ("libdevice.cyl_bessel_i1(x)", _u(-30, 30), None, lambda x: i1_ref(x), 8),
    "erf": ("libdevice.erf(x)", _u(-4, 4), None, _erf, 3),
    "erfc": ("libdevice.erfc(x)", _u(-3, 9), None, _erfc, 4),
    "erfcx": ("libdevice.erfcx(x)", np.concatenate([_u(-3, 10)[:48], _logu(10, 1e6)[:16]]), None, _erfcx, 4),
    "erfinv": ("libdevice.erfinv(x)", _u(-0.999, 0.999), None, _erfinv, 2),
    "exp": ("libdevice.exp(x)", _u(-80, 80), None, np.exp, 2),
    "exp2": ("libdevice.exp2(x)", _u(-120, 120), None, np.exp2, 2),
    "expm1": ("libdevice.expm1(x)", _u(-5, 5), None, np.expm1, 2),
    "fast_tanhf": ("libdevice.fast_tanhf(x)", _u(-10, 10), None, np.tanh, 2),
    "floor": ("libdevice.floor(x)", _halves(-20, 20), None, np.floor, 0),
    "fma": ("libdevice.fma(x, z, x)", _u(-5, 5), _u(-5, 5), lambda x, z: x * z + x, 1),
    "fmod": ("libdevice.fmod(x, z)", _u(-100, 100), _u(0.5, 7), np.fmod, 0),
    "hypot": ("libdevice.hypot(x, z)", _u(-50, 50), _u(-50, 50), np.hypot, 2),
    "isinf": ("libdevice.isinf(x).to(tl.int1)", np.array([np.inf, -np.inf, np.nan, 1.0] * 16), None, np.isinf, 0),
    "isnan": ("libdevice.isnan(x).to(tl.int1)", np.array([np.inf, -np.inf, np.nan, 1.0] * 16), None, np.isnan, 0),
    "j0": ("libdevice.j0(x)", _u(-30, 30), None, lambda x: jn_ref(0, x), ("abs", 5e-7)),
    "j1": ("libdevice.j1(x)", _u(-30, 30), None, lambda x: jn_ref(1, x), ("abs", 5e-7)),
    "ldexp": ("libdevice.ldexp(x, z.to(tl.int32))", _u(-5, 5), rng.integers(-30, 30, N).astype(float),
              lambda x, n: np.ldexp(x, n.astype(np.int64)), 0),
    "lgamma": ("libdevice.lgamma(x)", np.concatenate([_u(0.1, 30)[:48], _halves(-4, 0)[:16] + 0.3]), None, _lgamma,
               ("abs", 4e-6, 2e-7)),
    "llrint": ("libdevice.llrint(x).to(tl.int64)", _halves(-20, 20), None, np.rint, 0),
    "log": ("libdevice.log(x)", _logu(1e-30, 1e30), None, np.log, 2),
    "log10": ("libdevice.log10(x)", _logu(1e-30, 1e30), None, np.log10, 2),
    "log1p": ("libdevice.log1p(x)", _u(-0.99, 50), None, np.log1p, 2),
    "log2": ("libdevice.log2(x)", _logu(1e-30, 1e30), None, np.log2, 2),
    "mul_rn": ("libdevice.mul_rn(x, z)", _u(-5, 5), _u(-5, 5), lambda x, z: x * z, 0),
    "nearbyint": ("libdevice.nearbyint(x)", _halves(-20, 20), None, np.rint, 0),
    "nextafter": ("libdevice.nextafter(x, z)", _u(-5, 5), _u(-5, 5), _nextafter, 0),
    "pow": ("libdevice.pow(x, z)", _logu(0.1, 10), _u(-5, 5), np.power, 2),
    "rsqrt": ("libdevice.rsqrt(x)", _logu(1e-30, 1e30), None, lambda x: 1 / np.sqrt(x), 2),
    "signbit": ("(libdevice.signbit(x) != 0)", np.array([-1.0, 1.0, -0.0, 0.0] * 16), None, np.signbit, 0),
    "sin": ("libdevice.sin(x)", _u(-20, 20), None, np.sin, 2),
    "sinh": ("libdevice.sinh(x)", _u(-10, 10), None, np.sinh, 2),
    "sqrt": ("libdevice.sqrt(x)", _logu(1e-30, 1e30), None, np.sqrt, 0),
    "tan": ("libdevice.tan(x)", _u(-1.5, 1.5), None, np.tan, 2),
    "tanh": ("libdevice.tanh(x)", _u(-10, 10), None, np.tanh, 2),
    "trunc": ("libdevice.trunc(x)", _halves(-20, 20), None, np.trunc, 0),
    "y0": ("libdevice.y0(x)", _u(0.05, 30), None, lambda x: yn_ref(0, x), ("abs", 5e-7)),
    "y1": ("libdevice.y1(x)", _u(0.05, 30), None, lambda x: yn_ref(1, x), ("abs", 5e-7)),
    "tl_math.abs": ("tl_math.abs(x)", _u(-5, 5), None, np.abs, 0),
    "tl_math.cos": ("tl_math.cos(x)", _u(-20, 20), None, np.cos, 2),
    "tl_math.exp": ("tl_math.exp(x)", _u(-80, 80), None, np.exp, 2),
    "tl_math.log": ("tl_math.log(x)", _logu(1e-30, 1e30), None, np.log, 2),
    "tl_math.sin": ("tl_math.sin(x)", _u(-20, 20), None, np.sin, 2),
}
# float64 operands: Inductor calls libdevice directly for these (op_requires_libdevice_fp64)
CASES_F64 = {
    "exp": ("libdevice.exp(x)", _u(-700, 700), np.exp),
    "log": ("libdevice.log(x)", _logu(1e-300, 1e300), np.log),
    "sqrt": ("libdevice.sqrt(x)", _logu(1e-300, 1e300), np.sqrt),
    "sin": ("libdevice.sin(x)", _u(-20, 20), np.sin),
    "cos": ("libdevice.cos(x)", _u(-20, 20), np.cos),
}
NAMES = list(CASES)


def _source(exprs) -> str:
    lines = ["@triton.jit", "def every_math_name(X, Z, Y, N: tl.constexpr):", "    offs = tl.arange(0, N)"]
    for i, e in enumerate(exprs):
        lines += [f"    x = tl.load(X + {i} * N + offs)", f"    z = tl.load(Z + {i} * N + offs)",
                  f"    tl.store(Y + {i} * N + offs, ({e}).to(Y.dtype.element_ty))"]
    return HEADER + "\n".join(lines) + "\n"


def _run(exprs, x, z, dtype, signature):
    d = Path(tempfile.mkdtemp(prefix="mtiacc-inductor-math-"))
    (d / "k.py").write_text(_source(exprs))
    (d / "k.bin").write_bytes(compile_kernel(str(d / "k.py"), Options(signature=signature,
                                                                     defines={"N": str(N)})).binary)
    return run(str(d / "k.bin"), {"X": x.astype(dtype).ravel(), "Z": z.astype(dtype).ravel(),
                                  "Y": np.zeros(x.size, dtype)}, grid=(1,)).outputs["Y"].reshape(x.shape)


@pytest.fixture(scope="module")
def results():
    x = np.stack([CASES[n][1] for n in NAMES])
    z = np.stack([CASES[n][2] if CASES[n][2] is not None else np.zeros(N) for n in NAMES])
    return x.astype(np.float32), z.astype(np.float32), _run([CASES[n][0] for n in NAMES], x, z, np.float32,
                                                              "*fp32,*fp32,*fp32")


@pytest.mark.parametrize("name", NAMES)
def test_math_name(results, name):
    x, z, got = results
    i = NAMES.index(name)
    _, _, zdom, ref, tol = CASES[name]
    args = (x[i].astype(np.float64),) + ((z[i].astype(np.float64),) if zdom is not None else ())
    with np.errstate(all="ignore"):
        want = np.asarray(ref(*args), dtype=np.float64)
    if isinstance(tol, tuple):
        np.testing.assert_allclose(got[i], want, rtol=tol[2] if len(tol) > 2 else 0, atol=tol[1])
    else:
        err = ulps(got[i], want)
        assert err.max() <= tol, f"{name}: {err.max()} ulps at x = {x[i][err.argmax()]}"


def test_math_names_on_float64():
    names = list(CASES_F64)
    x = np.stack([CASES_F64[n][1] for n in names])
    got = _run([CASES_F64[n][0] for n in names], x, np.zeros_like(x), np.float64, "*fp64,*fp64,*fp64")
    for i, n in enumerate(names):
        np.testing.assert_allclose(got[i], CASES_F64[n][2](x[i]), rtol=4e-16 if n == "sqrt" else 1e-14,
                                   err_msg=n)
