"""The inverse functions (f32): atan, atan2, asin, acos, asinh, acosh, atanh.

Straight-line vector code on a strip, as everywhere in the library: every branch of a piecewise
definition is computed and the results merged by masks.  Methods (accuracy in docs/language.md):

* ``atan``: ``a = |x|`` above 1/2 reduced by ``t = (a-1)/(a+1)`` (+pi/4) or ``t = -1/a`` (+pi/2),
  then ``t + t^3 P(t^2)`` for ``|t| <= 1/2``; ``atan2`` the same on ``min/max`` of ``|y|, |x|`` with
  ``pi/2 - r`` and ``pi - r`` in two-part constants.
* ``asin``/``acos``: ``s + s^3 P(s^2)`` for ``|x| <= 1/2``, else ``s = sqrt((1-|x|)/2)`` with the
  square root's rounding error recovered by a fused multiply-add (``pi/2 - 2 asin(s)`` etc.).
* ``asinh``/``acosh``/``atanh``: ``log1p``/``log`` of rearranged arguments without cancellation,
  ``log(x) + ln 2`` for huge ``x``; ``acosh`` near 1 and ``atanh`` below 1/2 by fitted polynomials.

Fitted coefficients come from ``fit.py``.
"""
from __future__ import annotations

import math

from mtiacc.codegen.mathlib.base import PI, VMath, abs_, f32_parts, odd_poly
from mtiacc.codegen.mathlib.exp_log import log, log1p

ATAN_POLY = (0.08395980298519135, -0.1132366880774498, 0.09804569184780121, -0.09553715586662292,
             0.11165616661310196, -0.14289115369319916, 0.20000100135803223, -0.3333333432674408)
ASIN_POLY = (0.03763382509350777, 0.014353549107909203, 0.03183070942759514, 0.04451411962509155,
             0.0750051960349083, 0.16666659712791443)
ACOSH_POLY = (-2.686805419216398e-05, 0.00017539078544359654, -0.0006315497448667884,
              0.0018708206480368972, -0.0055739120580255985, 0.018749283626675606,
              -0.08333330601453781, 1.0)
ATANH_POLY = (0.18514350056648254, 0.016957532614469528, 0.10524515062570572, 0.10929398238658905,
              0.14297814667224884, 0.199996218085289, 0.3333333730697632)
PIO2_HI, PIO2_LO = f32_parts(PI / 2, 2)
PIO4_HI, PIO4_LO = f32_parts(PI / 4, 2)
PI_HI, PI_LO = f32_parts(PI, 2)
LN2 = math.log(2.0)
TAN_3PI_8 = 2.414213562373095


# ----------------------------------------------------------------------------------- inverse trig

def _atan_reduced(e: VMath, a: str, full: bool):
    """(base_hi, tail) with atan(a) = base_hi + tail for a >= 0 (a <= 1 unless ``full``)."""
    t = e.tmp()
    e("vmv.v.v", t, a)
    hi = e.tmp()
    e("vmv.v.i", hi, 0)
    lo = e.tmp()
    e("vmv.v.i", lo, 0)
    u = e.tmp()
    d = e.tmp()
    e("vfsub.vf", u, a, e.k(1.0))
    e("vfadd.vf", d, a, e.k(1.0))
    e("vfdiv.vv", u, u, d)                           # (a - 1) / (a + 1)
    e("vmfgt.vf", "v0", a, e.k(0.5))                 # above 1/2 (|t| <= tan(pi/8) then)
    e("vmerge.vvm", t, t, u, "v0")
    e("vfmerge.vfm", hi, hi, e.k(PIO4_HI), "v0")
    e("vfmerge.vfm", lo, lo, e.k(PIO4_LO), "v0")
    if full:
        e("vfrdiv.vf", u, a, e.k(-1.0))              # -1 / a
        e("vmfgt.vf", "v0", a, e.k(TAN_3PI_8))
        e("vmerge.vvm", t, t, u, "v0")
        e("vfmerge.vfm", hi, hi, e.k(PIO2_HI), "v0")
        e("vfmerge.vfm", lo, lo, e.k(PIO2_LO), "v0")
    e.release(u, d)
    z = e.tmp()
    e("vfmul.vv", z, t, t)
    v = odd_poly(e, ATAN_POLY, t, z)
    e("vfadd.vv", lo, lo, v)
    e.release(z, v, t)
    return hi, lo


def atan(e: VMath, x: str) -> str:
    a = abs_(e, x)
    hi, lo = _atan_reduced(e, a, full=True)
    e("vfadd.vv", hi, hi, lo)
    e("vfsgnj.vv", hi, hi, x)
    e.release(a, lo)
    e.nan_passthrough(hi, x)
    return hi


def atan2(e: VMath, y: str, x: str) -> str:
    ax, ay = abs_(e, x), abs_(e, y)
    mx = e.tmp()
    e("vfmax.vv", mx, ax, ay)
    a = e.tmp()
    e("vfmin.vv", a, ax, ay)
    e("vmfeq.vv", "v0", a, mx)                       # equal magnitudes (inf/inf too): 1
    e("vfdiv.vv", a, a, mx)
    e("vfmerge.vfm", a, a, e.k(1.0), "v0")
    e("vmfeq.vf", "v0", mx, e.k(0.0))                # both zero: 0
    e("vfmerge.vfm", a, a, e.k(0.0), "v0")
    e.release(mx)
    hi, lo = _atan_reduced(e, a, full=False)
    e.release(a)
    t = e.tmp()
    for cond, c_hi, c_lo in ((lambda: e("vmflt.vv", "v0", ax, ay), PIO2_HI, PIO2_LO),   # pi/2 - r
                             (lambda: e("vmslt.vx", "v0", x, "zero"), PI_HI, PI_LO)):   # pi - r
        cond()
        e("vfrsub.vf", t, hi, e.k(c_hi))
        e("vmerge.vvm", hi, hi, t, "v0")
        e("vfrsub.vf", t, lo, e.k(c_lo))
        e("vmerge.vvm", lo, lo, t, "v0")
    e("vfadd.vv", hi, hi, lo)
    e("vfsgnj.vv", hi, hi, y)
    e("vmfne.vv", "v0", x, x)
    e("vmerge.vvm", hi, hi, x, "v0")
    e("vmfne.vv", "v0", y, y)
    e("vmerge.vvm", hi, hi, y, "v0")
    e.release(lo, t, ax, ay)
    return hi


def _asin_core(e: VMath, s_small: str, a: str):
    """(s, w, c, big): big = |x| > 1/2; s = s_small or sqrt((1-a)/2); asin(s) = s + (w + c), where c
    is the rounding error of the square root (0 where small)."""
    z = e.tmp()
    e("vfmul.vv", z, s_small, s_small)
    z2 = e.tmp()
    e("vfrsub.vf", z2, a, e.k(1.0))
    e("vfmul.vf", z2, z2, e.k(0.5))                  # (1 - a) / 2, exact for a >= 1/2
    e("vmfgt.vf", "v0", a, e.k(0.5))
    e("vmerge.vvm", z, z, z2, "v0")
    s = e.tmp()
    e("vfsqrt.v", s, z2)
    e("vmerge.vvm", s, s_small, s, "v0")
    c = e.tmp()
    e("vmv.v.v", c, z)
    e("vfnmsac.vv", c, s, s)                         # z - s*s, exact
    e("vfadd.vv", z2, s, s)
    e("vfdiv.vv", c, c, z2)                          # sqrt(z) - s, to first order
    e("vmfgt.vf", "v0", z2, e.k(0.0))
    e("vmv.v.i", z2, 0)
    e("vmerge.vvm", c, z2, c, "v0")                  # 0 where s = 0 (and where small: z = s*s)
    e.release(z2)
    w = e.horner(ASIN_POLY, z)
    e("vfmul.vv", w, w, z)
    e("vfmul.vv", w, w, s)
    e.release(z)
    return s, w, c


def asin(e: VMath, x: str) -> str:
    a = abs_(e, x)
    s, w, c = _asin_core(e, a, a)
    r = e.tmp()
    e("vfadd.vv", r, s, w)                           # small: s + w
    e("vfadd.vv", w, w, c)
    e("vfmul.vf", w, w, e.k(-2.0))
    e("vfadd.vf", w, w, e.k(PIO2_LO))                # big: (pi/2 - 2s) + (pi/2_lo - 2(w + c))
    e("vfmul.vf", c, s, e.k(-2.0))
    e("vfadd.vf", c, c, e.k(PIO2_HI))
    e("vfadd.vv", c, c, w)
    e("vmfgt.vf", "v0", a, e.k(0.5))
    e("vmerge.vvm", r, r, c, "v0")
    e("vfsgnj.vv", r, r, x)
    e.release(a, s, w, c)
    e.nan_passthrough(r, x)
    return r


def acos(e: VMath, x: str) -> str:
    a = abs_(e, x)
    s, w, c = _asin_core(e, x, a)
    r = e.tmp()
    e("vfrsub.vf", r, w, e.k(PIO2_LO))
    t = e.tmp()
    e("vfrsub.vf", t, s, e.k(PIO2_HI))
    e("vfadd.vv", r, r, t)                           # |x| <= 1/2: (pi/2 - x) + (pi/2_lo - w)
    e("vfadd.vv", w, w, c)
    e("vfadd.vv", w, w, w)                           # 2(w + c)
    e("vfadd.vv", c, s, s)                           # 2s
    e("vfadd.vv", t, c, w)                           # x > 1/2: 2s + 2(w + c)
    e("vmfgt.vf", "v0", x, e.k(0.5))
    e("vmerge.vvm", r, r, t, "v0")
    e("vfrsub.vf", t, c, e.k(PI_HI))
    e("vfrsub.vf", w, w, e.k(PI_LO))
    e("vfadd.vv", t, t, w)                           # x < -1/2: (pi - 2s) + (pi_lo - 2(w + c))
    e("vmflt.vf", "v0", x, e.k(-0.5))
    e("vmerge.vvm", r, r, t, "v0")
    e.release(a, s, w, c, t)
    e.nan_passthrough(r, x)
    return r


# ------------------------------------------------------------------------------------- hyperbolic

def _log_big(e: VMath, arg: str, a: str, limit: float) -> str:
    """log(arg), or log(a) + ln 2 where a >= limit (arg may have overflowed there)."""
    e("vmfge.vf", "v0", a, e.k(limit))
    e("vmerge.vvm", arg, arg, a, "v0")
    r = log(e, arg)
    t = e.tmp()
    e("vmv.v.i", t, 0)
    e("vmfge.vf", "v0", a, e.k(limit))
    e("vfmerge.vfm", t, t, e.k(LN2), "v0")
    e("vfadd.vv", r, r, t)
    e.release(t)
    return r


def asinh(e: VMath, x: str) -> str:
    a = abs_(e, x)
    z = e.tmp()
    e("vfmul.vv", z, a, a)
    q = e.tmp()
    e("vfadd.vf", q, z, e.k(1.0))
    e("vfsqrt.v", q, q)                              # sqrt(1 + a^2)
    big = e.tmp()
    e("vfadd.vv", big, a, q)
    lb = _log_big(e, big, a, 4096.0)                 # a >= 2: log(a + sqrt(a^2 + 1))
    e.release(big)
    e("vfadd.vf", q, q, e.k(1.0))
    e("vfdiv.vv", z, z, q)
    e("vfadd.vv", z, z, a)                           # a + a^2 / (1 + sqrt(1 + a^2))
    e.release(q)
    r = log1p(e, z)
    e("vmfge.vf", "v0", a, e.k(2.0))
    e("vmerge.vvm", r, r, lb, "v0")
    e("vfsgnj.vv", r, r, x)
    e.release(a, z, lb)
    e.nan_passthrough(r, x)
    return r


def acosh(e: VMath, x: str) -> str:
    q = e.tmp()
    e("vfmv.v.f", q, e.k(-1.0))
    e("vfmacc.vv", q, x, x)
    e("vfsqrt.v", q, q)                              # sqrt(x^2 - 1)
    e("vfadd.vv", q, q, x)
    r = _log_big(e, q, x, 4096.0)                    # x >= 2: log(x + sqrt(x^2 - 1))
    e("vfsub.vf", q, x, e.k(1.0))                    # t = x - 1, exact below 2
    p = e.horner(ACOSH_POLY, q)
    e("vfadd.vv", q, q, q)
    e("vfsqrt.v", q, q)
    e("vfmul.vv", p, p, q)                           # x < 2: sqrt(2t) P(t)
    e("vmflt.vf", "v0", x, e.k(2.0))
    e("vmerge.vvm", r, r, p, "v0")
    e.release(q, p)
    e.set_where(r, lambda: e("vmflt.vf", "v0", x, e.k(1.0)), math.nan)
    e.nan_passthrough(r, x)
    return r


def atanh(e: VMath, x: str) -> str:
    a = abs_(e, x)
    d = e.tmp()
    e("vfrsub.vf", d, a, e.k(1.0))
    q = e.tmp()
    e("vfadd.vf", q, a, e.k(1.0))
    e("vfdiv.vv", q, q, d)                           # (1 + a) / (1 - a)
    e.release(d)
    r = log(e, q)
    e("vfmul.vf", r, r, e.k(0.5))
    e("vfmul.vv", q, a, a)
    small = odd_poly(e, ATANH_POLY, a, q)           # a < 1/2: a + a z P(z)
    e("vmflt.vf", "v0", a, e.k(0.5))
    e("vmerge.vvm", r, r, small, "v0")
    e("vfsgnj.vv", r, r, x)
    e.set_where(r, lambda: e("vmfgt.vf", "v0", a, e.k(1.0)), math.nan)
    e.release(a, q, small)
    e.nan_passthrough(r, x)
    return r
