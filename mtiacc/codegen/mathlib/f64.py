"""The device math library on float64: exp, exp2, log, log2, log1p, expm1, tanh, erf, sin, cos, pow at e64.

Same shape as the f32 library (``mathlib.py``): range reduction, a polynomial, fix-ups for the special
values, no branches; it runs at ``e64, m2`` on the same register plan (operands in ``v8``/``v16``/``v24``,
twelve even groups as temporaries; in a fused loop, the loop's free groups).  ``VMath.wide`` makes
``k()`` hoist 64-bit constants (``fmv.d.x``).  Scalars run the same sequence with ``vl = 1``.

Coefficients are exact Taylor terms rounded once to double (``fractions.Fraction``); the constants
``ln 2`` and ``log2 e`` come from ``decimal`` at 40 digits, ``ln 2`` split into a 32-bit head (so
``n * LN2_HI`` is exact for every exponent ``n``) and a tail.

- exp: ``n = round(x / ln 2)``, ``r = x - n ln 2`` (Cody-Waite, two parts), ``|r| <= ln2 / 2``,
  ``e^r = 1 + r + r^2 P(r)`` with ``P`` the Taylor series up to ``r^13``, scaled by ``2^n`` in two steps
  (so subnormal results round once and overflow gives inf).
- exp2: ``n = round(x)``, ``r = (x - n) ln 2`` (exact subtraction, ``ln 2`` in two parts).
- log: ``x = 2^k m``, ``m`` in ``[sqrt(1/2), sqrt(2))``, ``f = m - 1``, ``s = f / (2 + f)``,
  ``log m = f - f^2/2 + s (f^2/2 + z P(z))``, ``z = s^2``, ``P`` the atanh series to ``z^11``;
  ``k ln 2`` added last in two parts.  Subnormal ``x`` is scaled by ``2^54`` first.
- log2: the same ``log m`` with its head cut to 21 bits so that ``head * LOG2E_HI`` is exact.
- erf: Taylor series ``x P(x^2)`` to ``x^37`` below 1; above, ``1 - exp(-x^2) Q`` with
  ``Q = erfc(x) exp(x^2)`` a degree-18 Chebyshev series in ``1/(1 + x)`` on [1, 6] (Clenshaw;
  ``mathlib_f64_fit.py``); ``|x|`` clamped to 6, where erf rounds to 1.
- sin, cos: ``x = n pi/2 + r``, pi/2 in four parts of at most 32 significant bits (``n * part`` exact
  for ``|n| < 2^21``), the sums carried as double-doubles (TwoSum), so ``r = rh + rl`` is good to
  ~2^-114 absolute even next to a multiple of pi/2; Taylor series to ``r^19`` (sin) and ``r^20`` (cos)
  with ``rl``'s first-order term, ``1 - z/2`` with its rounding error added back.  ``|x| > 2^21``
  (no Payne-Hanek reduction for doubles yet), inf and NaN give NaN.
- pow (``mathlib_f64_pow.py``): ``2^(y log2|x|)`` with ``log2|x|`` a double-double (~2^-70), the product by
  Dekker's exact product (Veltkamp splits, so no fused multiply-add is needed), ``exp2`` of the sum;
  then C99's special cases (as the f32 ``powf``, with the sign bit of x for odd y).
- log1p: ``log(u) * x / (u - 1)``, ``u = 1 + x``; expm1: ``(u - 1) * x / log(u)``, ``u = e^x``
  (Kahan's corrections for the rounding of ``u``); tanh: ``m / (m + 2)``, ``m = expm1(2 min(|x|, 22))``,
  the sign of ``x``.

No sequence relies on a fused multiply-add being fused (mtiasim rounded ``vfmacc`` at SEW=64 twice
when they were written): every product whose exactness matters is exact by construction.

Accuracy (max ULP against numpy's float64) is in docs/language.md and asserted by
``tests/language/test_fp64_math.py``.
"""
from __future__ import annotations

import decimal
import math
import struct
from fractions import Fraction
from typing import Callable, Dict

from mtiacc.codegen.mathlib import core as mathlib
from mtiacc.codegen.mathlib.core import VMath, two_sum
from mtiacc.codegen.mathlib.f64_fit import two_over_sqrtpi


def _from_bits(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _constants():
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        ln2 = decimal.Decimal(2).ln()
        hi = _from_bits(_bits(float(ln2)) & ~((1 << 21) - 1))    # 32 significant bits
        lo = float(ln2 - decimal.Decimal(hi))
        log2e = 1 / ln2
        l2hi = _from_bits(_bits(float(log2e)) & ~((1 << 21) - 1))
        l2lo = float(log2e - decimal.Decimal(l2hi))
        return float(ln2), float(ln2 - decimal.Decimal(float(ln2))), hi, lo, float(log2e), l2hi, l2lo


LN2, LN2_TAIL, LN2_HI, LN2_LO, LOG2E, LOG2E_HI, LOG2E_LO = _constants()
EXP_POLY = tuple(float(Fraction(1, math.factorial(k))) for k in range(13, 1, -1))    # 1/13! ... 1/2!
LOG_POLY = tuple(float(Fraction(2, 2 * n + 1)) for n in range(11, 0, -1))          # 2/23 ... 2/3
SQRT_HALF_BITS = _bits(math.sqrt(0.5))


def _erf_taylor():
    """2/sqrt(pi) (-1)^n / (n! (2n + 1)) for n = 18 .. 0 (the n = 19 term is below 2^-61 for |x| < 1)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        c = two_over_sqrtpi()
        return tuple(float(c * (-1) ** n / (math.factorial(n) * (2 * n + 1))) for n in range(18, -1, -1))


ERF_SMALL = _erf_taylor()
# erfc(x) exp(x^2) for 1 <= x <= 6 as a Chebyshev series in t = 1/(1 + x) over [1/7, 1/2]
# (python -m mtiacc.codegen.mathlib.f64_fit: max |exp(-x^2) (P - Q)| = 0.92 * 2^-53)
ERFC_T = (0.14285714285714285, 0.5)
ERFC_CHEB = (0.2521415274168409, 0.16790788453237582, 0.008077511005135249, -0.0005105110308358946,
             -3.89605616641156e-05, 6.205455126567089e-06, -1.3577664478847673e-08, -7.502674039677748e-08,
             7.85433018971049e-09, 2.2989634501646705e-10, -1.5910855272194269e-10, 1.8211876451346143e-11,
             2.425108724946057e-13, -3.9773739857196233e-13, 6.190187251675638e-14, -2.3175905639050143e-15,
             -9.992007221626409e-16, 2.3592239273284576e-16, -6.245004513516506e-17)
MANT = (1 << 52) - 1


def _pow2i(e: VMath, n: str) -> str:
    """The f64 2^n for int64 elements n in [-1022, 1023]."""
    r = e.tmp()
    e("vadd.vx", r, n, e.ki(1023))
    e("vsll.vx", r, r, e.ki(52))
    return r


def _scale(e: VMath, p: str, n: str) -> None:
    """p *= 2^n for n in [-2044, 2046], in two steps (one rounding for subnormal results)."""
    half = e.tmp()
    e("vsra.vi", half, n, 1)
    s = _pow2i(e, half)
    e("vfmul.vv", p, p, s)
    e("vsub.vv", half, n, half)
    e.release(s)
    s = _pow2i(e, half)
    e("vfmul.vv", p, p, s)
    e.release(s, half)


def _exp_core(e: VMath, x: str, base2: bool = False) -> str:
    """e^x (2^x) for non-NaN x; overflow gives inf, underflow 0 through the subnormals."""
    xc = e.tmp()
    lo, hi = (-1080.0, 1030.0) if base2 else (-750.0, 712.0)
    e("vfmax.vf", xc, x, e.k(lo))
    e("vfmin.vf", xc, xc, e.k(hi))
    n = e.tmp()
    if base2:
        e("vfcvt.x.f.v", n, xc)                     # n = round(x)
    else:
        e("vfmul.vf", n, xc, e.k(LOG2E))
        e("vfcvt.x.f.v", n, n)                      # n = round(x / ln 2)
    nf = e.tmp()
    e("vfcvt.f.x.v", nf, n)
    r = e.tmp()
    if base2:
        e("vfsub.vv", xc, xc, nf)                   # exact
        e("vfmul.vf", r, xc, e.k(LN2))
        e("vfmacc.vf", r, e.k(LN2_TAIL), xc)   # the rest of ln 2 beyond the double
    else:
        e("vfnmsac.vf", xc, e.k(LN2_HI), nf)        # x - n*LN2_HI: exact
        e("vmv.v.v", r, xc)
        e("vfnmsac.vf", r, e.k(LN2_LO), nf)
    e.release(nf, xc)
    p = e.horner(EXP_POLY, r)                       # 1/2 + r/6 + ... (e^r = 1 + r + r^2 p)
    r2 = e.tmp()
    e("vfmul.vv", r2, r, r)
    acc = e.tmp()
    e("vmv.v.v", acc, r)
    e("vfmacc.vv", acc, p, r2)
    e("vfadd.vf", acc, acc, e.k(1.0))
    e.release(p, r2, r)
    _scale(e, acc, n)
    e.release(n)
    return acc


def exp(e: VMath, x: str) -> str:
    r = _exp_core(e, x)
    e.nan_passthrough(r, x)
    return r


def exp2(e: VMath, x: str) -> str:
    r = _exp_core(e, x, base2=True)
    e.nan_passthrough(r, x)
    return r


def _log_parts(e: VMath, x: str):
    """(k as double, f, hf, s*t) with x = 2^k (1 + f) and log(1 + f) = f - (hf - s*t), for finite x > 0."""
    xs = e.tmp()
    e("vfmul.vf", xs, x, e.k(2.0 ** 54))
    e("vmflt.vf", "v0", x, e.k(2.0 ** -1022))       # subnormal (or <= 0): scale up first
    e("vmerge.vvm", xs, x, xs, "v0")
    adj = e.tmp()
    e("vmv.v.i", adj, 0)
    e("vmerge.vxm", adj, adj, e.ki(-54), "v0")
    ix = e.tmp()
    e("vadd.vx", ix, xs, e.ki((1023 << 52) - SQRT_HALF_BITS))
    kk = e.tmp()
    e("vsra.vx", kk, ix, e.ki(52))
    e("vadd.vx", kk, kk, e.ki(-1023))
    e("vadd.vv", kk, kk, adj)
    e("vand.vx", ix, ix, e.ki(MANT))
    e("vadd.vx", ix, ix, e.ki(SQRT_HALF_BITS))      # m as bits, in [sqrt(1/2), sqrt(2))
    e.release(xs, adj)
    f = e.tmp()
    e("vfsub.vf", f, ix, e.k(1.0))                  # exact
    d = e.tmp()
    e("vfadd.vf", d, f, e.k(2.0))
    s = e.tmp()
    e("vfdiv.vv", s, f, d)
    e.release(d, ix)
    z = e.tmp()
    e("vfmul.vv", z, s, s)
    p = e.horner(LOG_POLY, z)
    hf = e.tmp()
    e("vfmul.vv", hf, f, f)
    e("vfmul.vf", hf, hf, e.k(0.5))
    t = e.tmp()
    e("vmv.v.v", t, hf)
    e("vfmacc.vv", t, z, p)                         # hf + z P(z)
    e("vfmul.vv", t, t, s)                          # s (hf + z P(z))
    e.release(p, z, s)
    kf = e.tmp()
    e("vfcvt.f.x.v", kf, kk)
    e.release(kk)
    return kf, f, hf, t


def _log_fixups(e: VMath, r: str, x: str) -> None:
    e.set_where(r, lambda: e("vmflt.vf", "v0", x, e.k(0.0)), math.nan)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(0.0)), -math.inf)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(math.inf)), math.inf)
    e.nan_passthrough(r, x)


def log(e: VMath, x: str) -> str:
    kf, f, hf, st = _log_parts(e, x)
    e("vfmacc.vf", st, e.k(LN2_LO), kf)             # s*t + k*LN2_LO
    e("vfsub.vv", hf, hf, st)
    e("vfsub.vv", hf, hf, f)                        # (hf - (...)) - f
    r = e.tmp()
    e("vfmul.vf", r, kf, e.k(LN2_HI))               # exact
    e("vfsub.vv", r, r, hf)
    e.release(kf, f, hf, st)
    _log_fixups(e, r, x)
    return r


def log2(e: VMath, x: str) -> str:
    kf, f, hf, st = _log_parts(e, x)
    hi = e.tmp()
    e("vfsub.vv", hi, f, hf)
    e("vand.vx", hi, hi, e.ki(~((1 << 32) - 1)))   # head of log(m): 21 significant bits
    lo = e.tmp()
    e("vfsub.vv", lo, f, hi)
    e("vfsub.vv", lo, lo, hf)
    e("vfadd.vv", lo, lo, st)                       # log(m) = hi + lo
    e.release(f, hf, st)
    vhi = e.tmp()
    e("vfmul.vf", vhi, hi, e.k(LOG2E_HI))           # exact: 21 bits times 32
    vlo = e.tmp()
    e("vfadd.vv", vlo, lo, hi)
    e("vfmul.vf", vlo, vlo, e.k(LOG2E_LO))
    e("vfmacc.vf", vlo, e.k(LOG2E_HI), lo)          # (hi + lo) LOG2E_LO + lo LOG2E_HI
    w = e.tmp()
    e("vfadd.vv", w, kf, vhi)
    e("vfsub.vv", kf, kf, w)
    e("vfadd.vv", kf, kf, vhi)                      # the rounding error of k + vhi
    e("vfadd.vv", vlo, vlo, kf)
    e("vfadd.vv", w, w, vlo)
    e.release(kf, hi, lo, vhi, vlo)
    _log_fixups(e, w, x)
    return w


def log1p(e: VMath, x: str) -> str:
    return mathlib.log1p(e, x, log_=log)


def expm1(e: VMath, x: str) -> str:
    return mathlib.expm1(e, x, exp_=exp, log_=log)


def tanh(e: VMath, x: str) -> str:
    """tanh(22) rounds to 1 in double."""
    return mathlib.tanh(e, x, expm1_=expm1, clamp=22.0)


def _clenshaw(e: VMath, coeffs, u: str) -> str:
    """sum(coeffs[j] T_j(u)) by Clenshaw's recurrence b_j = c_j + 2u b_(j+1) - b_(j+2)."""
    u2 = e.tmp()
    e("vfadd.vv", u2, u, u)
    b1, b2 = e.splat(coeffs[-1]), None
    for c in reversed(coeffs[1:-1]):
        nb = e.splat(c)
        if b2 is not None:
            e("vfsub.vv", nb, nb, b2)
            e.release(b2)
        e("vfmacc.vv", nb, u2, b1)
        b1, b2 = nb, b1
    r = e.splat(coeffs[0])
    e("vfsub.vv", r, r, b2)
    e("vfmacc.vv", r, u, b1)
    e.release(u2, b1, b2)
    return r


def erf(e: VMath, x: str) -> str:
    """x P(x^2) (Taylor) for |x| < 1, else copysign(1 - exp(-x^2) Q(x), x) with Q = erfc(x) exp(x^2) as a
    Chebyshev series in 1/(1 + x), |x| clamped to 6 (erf(6) rounds to 1)."""
    z = e.tmp()
    e("vfmul.vv", z, x, x)
    small = e.horner(ERF_SMALL, z)
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
    q = _clenshaw(e, ERFC_CHEB, u)
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


def _pio2_parts(count: int = 4, bits: int = 33):
    """pi/2 as ``count`` doubles of ``bits`` significant bits each (truncations of what is left), so
    ``n * part`` is exact for |n| < 2^(53 - bits)."""
    from mtiacc.codegen.mathlib.trig import _pi_fixed
    rest = Fraction(_pi_fixed(320), 1 << 321)
    out = []
    for _ in range(count):
        e = math.floor(math.log2(rest))
        scale = Fraction(2) ** (bits - 1 - e)
        part = Fraction(math.floor(rest * scale)) / scale
        out.append(float(part))
        rest -= part
    return tuple(out), float(1 / Fraction(_pi_fixed(320), 1 << 321))


PIO2, INV_PIO2 = _pio2_parts()
SIN_POLY = tuple(float(Fraction((-1) ** k, math.factorial(2 * k + 1))) for k in range(9, 0, -1))   # r^19 .. r^3
COS_POLY = tuple(float(Fraction((-1) ** k, math.factorial(2 * k))) for k in range(10, 1, -1))     # r^20 .. r^4
TRIG_LIMIT = 2.0 ** 21          # |n| < 2^21 there, and the parts have at most 32 significant bits


def _reduce(e: VMath, x: str):
    """(n as int64, rh, rl): x = n pi/2 + rh + rl, |rh| <= pi/4 (a little more), for |x| <= 2^21;
    four-part Cody-Waite with exact products and the sums carried as double-doubles."""
    xc = e.tmp()
    e("vfmax.vf", xc, x, e.k(-2 * TRIG_LIMIT))     # beyond the limit, inf and NaN: NaN (by the caller)
    e("vfmin.vf", xc, xc, e.k(2 * TRIG_LIMIT))
    n = e.tmp()
    e("vfmul.vf", n, xc, e.k(INV_PIO2))
    e("vfcvt.x.f.v", n, n)
    nf = e.tmp()
    e("vfcvt.f.x.v", nf, n)
    e("vfnmsac.vf", xc, e.k(PIO2[0]), nf)          # x - n P1: exact
    w = e.tmp()
    e("vfmul.vf", w, nf, e.k(-PIO2[1]))            # exact
    s1, e1 = two_sum(e, xc, w)
    e("vfmul.vf", w, nf, e.k(-PIO2[2]))
    s2, e2 = two_sum(e, s1, w)
    e.release(s1, xc)
    e("vfadd.vv", e1, e1, e2)
    e("vfnmsac.vf", e1, e.k(PIO2[3]), nf)          # the small terms
    e.release(e2, w, nf)
    rh = e.tmp()
    e("vfadd.vv", rh, s2, e1)                       # Fast2Sum: |s2| >= |e1|
    rl = e.tmp()
    e("vfsub.vv", rl, rh, s2)
    e("vfsub.vv", rl, e1, rl)
    e.release(s2, e1)
    return n, rh, rl


def _sin_cos_kernels(e: VMath, rh: str, rl: str):
    """(sin(rh + rl), cos(rh + rl)) for |rh| <= ~pi/4."""
    z = e.tmp()
    e("vfmul.vv", z, rh, rh)
    ps = e.horner(SIN_POLY, z)                      # sin = rh + rh z ps(z) + rl (1 - z/2)
    e("vfmul.vv", ps, ps, z)
    e("vfmul.vv", ps, ps, rh)
    t = e.tmp()
    e("vfmul.vf", t, z, e.k(-0.5))
    e("vfmul.vv", t, t, rl)
    e("vfadd.vv", t, t, rl)
    e("vfadd.vv", ps, ps, t)
    e("vfadd.vv", ps, ps, rh)
    pc = e.horner(COS_POLY, z)                      # cos = 1 - z/2 + z^2 pc(z) - rh rl
    e("vfmul.vv", pc, pc, z)
    e("vfmul.vv", pc, pc, z)
    e("vfnmsac.vv", pc, rh, rl)
    hz = e.tmp()
    e("vfmul.vf", hz, z, e.k(0.5))
    w = e.tmp()
    e("vfrsub.vf", w, hz, e.k(1.0))                 # w = 1 - hz
    e("vfrsub.vf", t, w, e.k(1.0))
    e("vfsub.vv", t, t, hz)                         # (1 - w) - hz: the rounding error of w
    e("vfadd.vv", pc, pc, t)
    e("vfadd.vv", pc, pc, w)
    e.release(z, t, hz, w)
    return ps, pc


def _sincos(e: VMath, x: str, cosine: bool) -> str:
    n, rh, rl = _reduce(e, x)
    s, c = _sin_cos_kernels(e, rh, rl)
    e.release(rh, rl)
    if cosine:
        e("vadd.vi", n, n, 1)                       # cos(x) = sin(x + pi/2)
    q = e.tmp()
    e("vand.vi", q, n, 1)
    e("vmsne.vi", "v0", q, 0)
    e("vmerge.vvm", s, s, c, "v0")                  # odd quadrant: the other kernel
    e("vand.vi", q, n, 2)
    e("vmsne.vi", "v0", q, 0)
    e("vfsgnjn.vv", c, s, s)
    e("vmerge.vvm", s, s, c, "v0")                  # quadrants 2 and 3: negated
    e.release(n, q, c)
    if not cosine:
        e("vmfeq.vf", "v0", x, e.k(0.0))            # sin(-0) = -0
        e("vmerge.vvm", s, s, x, "v0")
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vmfgt.vf", "v0", a, e.k(TRIG_LIMIT))        # inf, and beyond the exact reduction: NaN
    e("vfmerge.vfm", s, s, e.k(math.nan), "v0")
    e.release(a)
    e.nan_passthrough(s, x)
    return s


def sin(e: VMath, x: str) -> str:
    return _sincos(e, x, cosine=False)


def cos(e: VMath, x: str) -> str:
    return _sincos(e, x, cosine=True)


def _wide(fn: Callable) -> Callable:
    def run(e: VMath, *args: str) -> str:
        e.wide = True
        return fn(e, *args)
    run.__name__ = fn.__name__
    return run


EXPANSIONS: Dict[str, Callable] = {f"math.{fn.__name__}": _wide(fn)
                                   for fn in (exp, exp2, log, log2, log1p, expm1, tanh, erf, sin, cos)}
def pow(e: VMath, x: str, y: str) -> str:
    """libdevice.pow: in ``mathlib_f64_pow.py`` (it uses this module's helpers)."""
    from mtiacc.codegen.mathlib import f64_pow as mathlib_f64_pow
    return mathlib_f64_pow.pow(e, x, y)


EXPANSIONS["math.powf"] = _wide(pow)
