"""The special functions: erf (f32 and f64), erfc, erfinv and lgamma (f32).

erf is written twice: the widths use different approximations of the tail and different register
plans (f32: the Taylor series below 0.75, above it a least-squares fit of ``erfc(x) exp(x^2)`` in
``t = 1/(1 + x/2)`` on [0.75, 4]; f64: the Taylor series below 1, above it a degree-18 Chebyshev
series in ``1/(1 + x)`` on [1, 6] by Clenshaw's recurrence, ``f64_fit.py``).  Both finish with
``copysign(1 - exp(-x^2) Q, x)``.  The Taylor coefficients come from one generator (``decimal``).

* ``erfc``: ``1 - erf(x)`` for ``|x| < 1/2``; otherwise ``exp(-x^2) Q(x)`` with ``x^2`` split exactly
  and ``Q`` fitted on [0.5, 2] (in ``x - 1.25``) and [2, 10.1] (``Q = P(1/x) / x``); ``2 - erfc(-x)``
  for negative ``x``.
* ``erfinv``: ``x P(w)``, ``w = -log(1 - x^2)`` (``1 - x^2`` by one fused multiply-add), ``P`` fitted
  in ``w`` below 5 and in ``sqrt(w)`` above.
* ``lgamma``: see its docstring.

Fitted coefficients come from ``fit.py`` (f32) and ``f64_fit.py`` (f64).
"""
from __future__ import annotations

import decimal
import math

from mtiacc.codegen.mathlib.base import F32, F64, VMath, abs_, two_over_sqrtpi, two_sum
from mtiacc.codegen.mathlib.exp_log import CONSTS, exp, exp_core, log, log_parts
from mtiacc.codegen.mathlib.rounding import rounding
from mtiacc.codegen.mathlib.trig import sin


def _erf_taylor(top: int):
    """2/sqrt(pi) (-1)^n / (n! (2n + 1)) for n = top .. 0: erf(x) = x P(x^2)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        c = two_over_sqrtpi()
        return tuple(float(c * (-1) ** n / (math.factorial(n) * (2 * n + 1))) for n in range(top, -1, -1))


# the n = 10 (f32, below 0.75) and n = 19 (f64, below 1) terms are below the width's precision
ERF_SMALL = {F32: _erf_taylor(9), F64: _erf_taylor(18)}
# f32: erfc(x) * exp(x*x) for 0.75 <= x <= 4, degree 7 in t = 1/(1 + x/2) (numpy polyfit on Chebyshev nodes)
ERFC_FIT = (0.11903271824121475, -0.47007760405540466, 0.5615748167037964, -0.10220247507095337,
            0.3471044600009918, 0.25989389419555664, 0.2848789095878601, -0.00015185237862169743)
# erfc(x) exp(x^2) for 1 <= x <= 6 as a Chebyshev series in t = 1/(1 + x) over [1/7, 1/2]
# (python -m mtiacc.codegen.mathlib.f64_fit: max |exp(-x^2) (P - Q)| = 0.92 * 2^-53)
ERFC_T = (0.14285714285714285, 0.5)
ERFC_CHEB = (0.2521415274168409, 0.16790788453237582, 0.008077511005135249, -0.0005105110308358946,
             -3.89605616641156e-05, 6.205455126567089e-06, -1.3577664478847673e-08, -7.502674039677748e-08,
             7.85433018971049e-09, 2.2989634501646705e-10, -1.5910855272194269e-10, 1.8211876451346143e-11,
             2.425108724946057e-13, -3.9773739857196233e-13, 6.190187251675638e-14, -2.3175905639050143e-15,
             -9.992007221626409e-16, 2.3592239273284576e-16, -6.245004513516506e-17)
ERFC_NEAR = (6.197384209372103e-05, -0.000190308564924635, 0.0004698690609075129,
             -0.0013115197652950883, 0.0035542345140129328, -0.009084630757570267,
             0.022011136636137962, -0.05021805688738823, 0.10679560154676437, -0.2088218778371811,
             0.36782291531562805)
ERFC_FAR = (0.8746676445007324, -2.6518514156341553, 3.2644567489624023, -1.811463713645935,
            0.049266278743743896, 0.4408627450466156, -0.005282723810523748, -0.2814461588859558,
            -3.962948903790675e-05, 0.5641905665397644)
ERFINV_CENTRAL = (6.28497476284906e-10, 3.472759191325281e-09, -1.8806566970397398e-08,
                  -3.1093698282802507e-08, 5.225793984209304e-07, -3.1650756682211068e-06,
                  -5.095649612485431e-06, 0.00021767809812445194, -0.001252627233043313,
                  -0.004176863003522158, 0.24664026498794556, 1.5014092922210693)
ERFINV_TAIL = (-3.1253039196599275e-05, 0.00015636988973710686, -0.00026419383357279,
               -0.00011795945465564728, 0.0014599853893741965, -0.003566349158063531,
               0.005693709012120962, -0.007643100339919329, 0.009444503113627434,
               1.0016752481460571, 2.832976818084717)

LGAMMA_1 = (-0.15484453737735748, 0.17407146096229553, -0.06687144190073013, 0.06944050639867783,
            -0.11448676139116287, 0.12998010218143463, -0.14385861158370972, 0.16927023231983185,
            -0.20739313960075378, 0.27058717608451843, -0.40068528056144714, 0.822467029094696,
            -0.5772156715393066)
LGAMMA_2 = (0.002038615755736828, -0.00011135653039673343, -0.0016464405925944448,
            0.0006125203799456358, -0.0008511472842656076, 0.002875475911423564,
            -0.007419198751449585, 0.020581485703587532, -0.06735113263130188, 0.32246702909469604,
            0.42278432846069336)
STIRLING = (-1 / 1680, 1 / 1260, -1 / 360, 1 / 12)   # lgamma's asymptotic series, in 1/x^2
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)

C32 = CONSTS[F32]


# ------------------------------------------------------------------------------------------ erf

def erf(e: VMath, x: str) -> str:
    return (_erf64 if e.w == F64 else _erf32)(e, x)


def _erf32(e: VMath, x: str) -> str:
    """x * P(x^2) for |x| < 0.75, else copysign(1 - exp(-x^2) * Q(1 / (1 + |x|/2)), x)."""
    z = e.tmp()
    e("vfmul.vv", z, x, x)
    small = e.horner(ERF_SMALL[F32], z)
    e("vfmul.vv", small, small, x)
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vfmin.vf", a, a, e.k(4.0))
    t = e.tmp()
    e("vfmul.vf", t, a, e.k(0.5))
    e("vfadd.vf", t, t, e.k(1.0))
    e("vfrdiv.vf", t, t, e.k(1.0))
    q = e.horner(ERFC_FIT, t)
    e("vfmul.vv", z, a, a)
    e("vfsgnjn.vv", z, z, z)
    ez = exp(e, z)
    e("vfmul.vv", q, q, ez)                         # erfc(|x|)
    e("vfrsub.vf", q, q, e.k(1.0))
    e("vfsgnj.vv", q, q, x)
    e("vmflt.vf", "v0", a, e.k(0.75))
    e("vmerge.vvm", q, q, small, "v0")
    e.release(z, small, a, t, ez)
    e.nan_passthrough(q, x)
    return q


def _erf64(e: VMath, x: str) -> str:
    """x P(x^2) (Taylor) for |x| < 1, else copysign(1 - exp(-x^2) Q(x), x) with Q = erfc(x) exp(x^2) as a
    Chebyshev series in 1/(1 + x), |x| clamped to 6 (erf(6) rounds to 1)."""
    z = e.tmp()
    e("vfmul.vv", z, x, x)
    small = e.horner(ERF_SMALL[F64], z)
    e("vfmul.vv", small, small, x)
    e.release(z)
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vfmax.vf", a, a, e.k(1.0))
    e("vfmin.vf", a, a, e.k(6.0))
    u = e.tmp()
    e("vfadd.vf", u, a, e.k(1.0))
    e("vfrdiv.vf", u, u, e.k(1.0))                  # t = 1 / (1 + |x|)
    ta, tb = ERFC_T
    e("vfmul.vf", u, u, e.k(2 / (tb - ta)))
    e("vfadd.vf", u, u, e.k(-(ta + tb) / (tb - ta)))
    q = e.clenshaw(ERFC_CHEB, u)
    e.release(u)
    e("vfmul.vv", a, a, a)
    e("vfsgnjn.vv", a, a, a)
    ez = exp(e, a)
    e("vfmul.vv", q, q, ez)                         # erfc(|x|)
    e("vfrsub.vf", q, q, e.k(1.0))
    e("vfsgnj.vv", q, q, x)
    e("vfsgnjx.vv", a, x, x)
    e("vmflt.vf", "v0", a, e.k(1.0))
    e("vmerge.vvm", q, q, small, "v0")
    e.release(small, a, ez)
    e.nan_passthrough(q, x)
    return q


# --------------------------------------------------------------------------------- erfc, erfinv

def erfc(e: VMath, x: str) -> str:
    y = abs_(e, x)
    e("vfmin.vf", y, y, e.k(11.0))
    hi = e.tmp()
    e("vfmul.vv", hi, y, y)
    lo = e.tmp()
    e("vmv.v.v", lo, hi)
    e("vfmsac.vv", lo, y, y)                         # y*y - hi, exact
    e("vfsgnjn.vv", hi, hi, hi)
    g = exp_core(e, hi)                             # exp(-hi)
    e("vfnmsac.vv", g, g, lo)                        # exp(-y^2) = exp(-hi) (1 - lo)
    e("vfsub.vf", hi, y, e.k(1.25))
    q = e.horner(ERFC_NEAR, hi)
    e("vfrdiv.vf", hi, y, e.k(1.0))
    q2 = e.horner(ERFC_FAR, hi)
    e("vfdiv.vv", q2, q2, y)                         # P(1/y) / y
    e("vmfgt.vf", "v0", y, e.k(2.0))
    e("vmerge.vvm", q, q, q2, "v0")
    e("vfmul.vv", g, g, q)                           # erfc(|x|) for |x| >= 1/2
    e.release(q, q2)
    e("vfrsub.vf", hi, g, e.k(2.0))
    e("vmflt.vf", "v0", x, e.k(0.0))
    e("vmerge.vvm", g, g, hi, "v0")                  # negative x: 2 - erfc(|x|)
    e("vfmul.vv", lo, x, x)
    p = e.horner(ERF_SMALL[F32], lo)
    e("vfmv.v.f", lo, e.k(1.0))
    e("vfnmsac.vv", lo, p, x)                        # |x| < 1/2: 1 - erf(x), one rounding
    e("vmv.v.v", p, lo)
    e("vmflt.vf", "v0", y, e.k(0.5))
    e("vmerge.vvm", g, g, p, "v0")
    e.release(y, hi, lo, p)
    e.nan_passthrough(g, x)
    return g


def erfinv(e: VMath, x: str) -> str:
    om = e.tmp()
    e("vfmv.v.f", om, e.k(1.0))
    e("vfnmsac.vv", om, x, x)                        # 1 - x^2, one rounding
    w = log(e, om)
    e("vfsgnjn.vv", w, w, w)                         # w = -log(1 - x^2)
    e("vfsub.vf", om, w, e.k(2.5))
    p = e.horner(ERFINV_CENTRAL, om)
    e("vfsqrt.v", om, w)
    e("vfsub.vf", om, om, e.k(3.0))
    p2 = e.horner(ERFINV_TAIL, om)
    e("vmfgt.vf", "v0", w, e.k(5.0))
    e("vmerge.vvm", p, p, p2, "v0")
    e("vfmul.vv", p, p, x)
    e("vfsgnjx.vv", om, x, x)
    e("vfmv.v.f", p2, e.k(math.inf))
    e("vfsgnj.vv", p2, p2, x)
    e("vmfeq.vf", "v0", om, e.k(1.0))                # +-1: +-inf
    e("vmerge.vvm", p, p, p2, "v0")
    e.release(om, w, p2)
    e.nan_passthrough(p, x)
    return p


# ------------------------------------------------------------------------------------------ lgamma

def _log_dw(e: VMath, v: str):
    """log(v) as hi + lo (a few bits beyond f32) for finite v > 0."""
    kf, h, l = log_parts(e, v, split=True)
    s = e.tmp()
    e("vfmul.vf", s, kf, e.k(C32.ln2_hi))                # exact: LN2_HI has 16 bits, |k| < 2^8
    e("vfmacc.vf", l, e.k(C32.ln2_lo), kf)
    hi, err = two_sum(e, s, h)
    e("vfadd.vv", err, err, l)
    e.release(kf, h, l, s)
    return hi, err


def lgamma(e: VMath, x: str) -> str:
    """log|Gamma(x)|.  On y = x (x > 0) or 1 - x (x <= 0, then reflected: log(pi / |sin(pi x)|) - ...):
    y < 1/2: y P1(y) - log(y); y < 3/2: t P1(t), t = y - 1; y < 8: shifted down by steps of 1 below 5/2
    (the product of the steps' values p), t P2(t) + log(p), t = y - 2; above: Stirling, with log(y) in
    two parts and (y - 1/2) log(y) - y by one fused multiply-add."""
    y = e.tmp()
    e("vfrsub.vf", y, x, e.k(1.0))
    e("vmfgt.vf", "v0", x, e.k(0.0))
    e("vmerge.vvm", y, y, x, "v0")                   # y = x > 0 ? x : 1 - x
    yb, prod, t = e.tmp(), e.tmp(), e.tmp()
    e("vmv.v.v", yb, y)
    e("vfmv.v.f", prod, e.k(1.0))
    for _ in range(6):                               # lgamma(u) = lgamma(u - 1) + log(u - 1)
        e("vfsub.vf", t, yb, e.k(1.0))
        e("vmfge.vf", "v0", yb, e.k(2.5))
        e("vmerge.vvm", yb, yb, t, "v0")
        e("vfmul.vv", t, prod, t)
        e("vmerge.vvm", prod, prod, t, "v0")
    e("vmflt.vf", "v0", y, e.k(0.5))
    e("vmerge.vvm", prod, prod, y, "v0")
    e("vmfge.vf", "v0", y, e.k(8.0))
    e("vmerge.vvm", prod, prod, y, "v0")             # the log's argument: y, or the product
    lh, ll = _log_dw(e, prod)
    e.release(prod)
    # y >= 8: (y - 1/2) log(y) - y + log(2 pi)/2 + R(1/y)
    xm = e.tmp()
    e("vfsub.vf", xm, y, e.k(0.5))
    e("vfrdiv.vf", t, y, e.k(1.0))
    z = e.tmp()
    e("vfmul.vv", z, t, t)
    st = e.horner(STIRLING, z)
    e.release(z)
    e("vfmul.vv", st, st, t)
    e("vfadd.vf", st, st, e.k(HALF_LOG_2PI))
    e("vfmacc.vv", st, xm, ll)
    d = e.tmp()
    e("vmv.v.v", d, y)
    e("vfmsac.vv", d, xm, lh)                        # (y - 1/2) * hi - y, one rounding
    e("vfadd.vv", d, d, st)
    e.release(xm, st)
    e("vfadd.vv", lh, lh, ll)                        # log as one f32
    e.release(ll)
    # 3/2 <= y < 8: t P2(t) + log(p)
    e("vfsub.vf", t, yb, e.k(2.0))
    r = e.horner(LGAMMA_2, t)
    e("vfmul.vv", r, r, t)
    e("vfadd.vv", r, r, lh)
    # y < 3/2: t P1(t), t = y or y - 1, minus log(y) below 1/2
    e("vfsub.vf", t, y, e.k(1.0))
    e("vmflt.vf", "v0", y, e.k(0.5))
    e("vmerge.vvm", t, t, y, "v0")
    p1 = e.horner(LGAMMA_1, t)
    e("vfmul.vv", p1, p1, t)
    e("vmflt.vf", "v0", y, e.k(1.5))
    e("vmerge.vvm", r, r, p1, "v0")
    e("vfsub.vv", p1, p1, lh)
    e("vmflt.vf", "v0", y, e.k(0.5))
    e("vmerge.vvm", r, r, p1, "v0")
    e("vmfge.vf", "v0", y, e.k(8.0))
    e("vmerge.vvm", r, r, d, "v0")
    e.release(p1, d, lh, yb, t, y)
    # x <= 0: log(pi / |sin(pi x)|) - lgamma(1 - x); poles at the non-positive integers
    f = rounding(e, x, "round")
    e("vfsub.vv", f, x, f)                           # x - round(x), exact, in [-1/2, 1/2]
    e("vfmul.vf", f, f, e.k(math.pi))
    s = sin(e, f)
    e.release(f)
    e("vfsgnjx.vv", s, s, s)
    ls = log(e, s)
    e("vfrsub.vf", ls, ls, e.k(math.log(math.pi)))   # log(pi) - log|sin(pi x)| (no overflow of pi/s)
    e("vfsub.vv", ls, ls, r)
    e.set_where(ls, lambda: e("vmfeq.vf", "v0", s, e.k(0.0)), math.inf)
    e.release(s)
    e("vmfle.vf", "v0", x, e.k(0.0))
    e("vmerge.vvm", r, r, ls, "v0")
    e.release(ls)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(math.inf)), math.inf)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(-math.inf)), math.inf)
    e.nan_passthrough(r, x)
    return r
