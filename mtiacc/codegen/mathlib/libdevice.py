"""The rest of the libdevice functions TorchInductor emits, as f32 RVV sequences (see mathlib.py).

Same conventions as mathlib.py: straight-line vector code on a strip (every branch of a piecewise
definition is computed and the results merged by masks), constants hoisted, special values fixed up
at the end.  Methods, in short (accuracy in docs/language.md):

* ``atan``: ``a = |x|`` above 1/2 reduced by ``t = (a-1)/(a+1)`` (+pi/4) or ``t = -1/a`` (+pi/2),
  then ``t + t^3 P(t^2)`` for ``|t| <= 1/2``; ``atan2`` the same on ``min/max`` of ``|y|, |x|`` with
  ``pi/2 - r`` and ``pi - r`` in two-part constants.
* ``asin``/``acos``: ``s + s^3 P(s^2)`` for ``|x| <= 1/2``, else ``s = sqrt((1-|x|)/2)`` with the
  square root's rounding error recovered by a fused multiply-add (``pi/2 - 2 asin(s)`` etc.).
* ``sinh``/``cosh``: ``h = e^|x| / 2`` (the exp kernel with the exponent lowered by one, so no
  overflow before the result does), ``h -+ 1/(4h)``; sinh below 1 by its Taylor series.
* ``asinh``/``acosh``/``atanh``: ``log1p``/``log`` of rearranged arguments without cancellation,
  ``log(x) + ln 2`` for huge ``x``.
* ``log10``: ``k log10(2) + log(m) log10(e)`` on the parts of ``log``.
* ``cbrt``: a bit-pattern estimate, three Newton steps, a fourth with an exact residual.
* ``hypot``: the larger operand scaled to [1, 2) by a power of two, ``sqrt(fma(a, a, b*b))``.
* ``erfc``: ``1 - erf(x)`` for ``|x| < 1/2``; otherwise ``exp(-x^2) Q(x)`` with ``x^2`` split exactly
  and ``Q`` fitted on [0.5, 2] (in ``x - 1.25``) and [2, 10.1] (``Q = P(1/x) / x``); ``2 - erfc(-x)``
  for negative ``x``.
* ``erfinv``: ``x P(w)``, ``w = -log(1 - x^2)`` (``1 - x^2`` by one fused multiply-add), ``P`` fitted
  in ``w`` below 5 and in ``sqrt(w)`` above.

Fitted coefficients come from ``mathlib_fit.py``.
"""
from __future__ import annotations

import math
from typing import Callable, Dict

import numpy as np

from mtiacc.codegen.mathlib.core import (ERF_SMALL, LN2_HI, LN2_LO, VMath, _exp_core, _log_fixups, _log_parts,
                                    _rounding, log, log1p, two_sum)
from mtiacc.codegen.mathlib.trig import _PI, _f32_parts
from mtiacc.codegen.mathlib.trig import sin as _sin

ATAN_POLY = (0.08395980298519135, -0.1132366880774498, 0.09804569184780121, -0.09553715586662292,
             0.11165616661310196, -0.14289115369319916, 0.20000100135803223, -0.3333333432674408)
ASIN_POLY = (0.03763382509350777, 0.014353549107909203, 0.03183070942759514, 0.04451411962509155,
             0.0750051960349083, 0.16666659712791443)
ACOSH_POLY = (-2.686805419216398e-05, 0.00017539078544359654, -0.0006315497448667884,
              0.0018708206480368972, -0.0055739120580255985, 0.018749283626675606,
              -0.08333330601453781, 1.0)
ATANH_POLY = (0.18514350056648254, 0.016957532614469528, 0.10524515062570572, 0.10929398238658905,
              0.14297814667224884, 0.199996218085289, 0.3333333730697632)
SINH_POLY = tuple(1.0 / math.factorial(2 * k + 1) for k in range(6, 0, -1))   # a + a^3 (1/6 + ...)
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

PIO2_HI, PIO2_LO = _f32_parts(_PI / 2, 2)
PIO4_HI, PIO4_LO = _f32_parts(_PI / 4, 2)
PI_HI, PI_LO = _f32_parts(_PI, 2)
LOG10_2_HI = round(math.log10(2.0) * 2 ** 16) / 2 ** 16               # 16 bits: k * HI is exact
LOG10_2_LO = math.log10(2.0) - LOG10_2_HI
LOG10E, LOG10E_LO = float(np.float32(math.log10(math.e))), math.log10(math.e) - float(np.float32(math.log10(math.e)))
LN2 = math.log(2.0)
TAN_3PI_8 = 2.414213562373095


def _abs(e: VMath, x: str) -> str:
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    return a


def _merge_where(e: VMath, res: str, other: str, cond) -> None:
    cond()
    e("vmerge.vvm", res, res, other, "v0")


def _odd_poly(e: VMath, coeffs, t: str, z: str) -> str:
    """t + t*z*P(z) (z = t*t given)."""
    p = e.horner(coeffs, z)
    e("vfmul.vv", p, p, z)
    r = e.tmp()
    e("vmv.v.v", r, t)
    e("vfmacc.vv", r, p, t)
    e.release(p)
    return r


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
    v = _odd_poly(e, ATAN_POLY, t, z)
    e("vfadd.vv", lo, lo, v)
    e.release(z, v, t)
    return hi, lo


def atan(e: VMath, x: str) -> str:
    a = _abs(e, x)
    hi, lo = _atan_reduced(e, a, full=True)
    e("vfadd.vv", hi, hi, lo)
    e("vfsgnj.vv", hi, hi, x)
    e.release(a, lo)
    e.nan_passthrough(hi, x)
    return hi


def atan2(e: VMath, y: str, x: str) -> str:
    ax, ay = _abs(e, x), _abs(e, y)
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
    a = _abs(e, x)
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
    a = _abs(e, x)
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

def _half_exp(e: VMath, a: str) -> str:
    return _exp_core(e, a, half=True)


def sinh(e: VMath, x: str) -> str:
    a = _abs(e, x)
    h = _half_exp(e, a)
    t = e.tmp()
    e("vfrdiv.vf", t, h, e.k(-0.25))
    e("vfadd.vv", h, h, t)                           # e^a/2 - e^-a/2
    z = e.tmp()
    e("vfmul.vv", z, a, a)
    small = _odd_poly(e, SINH_POLY, a, z)
    e("vmflt.vf", "v0", a, e.k(1.0))
    e("vmerge.vvm", h, h, small, "v0")
    e("vfsgnj.vv", h, h, x)
    e.release(a, t, z, small)
    e.nan_passthrough(h, x)
    return h


def cosh(e: VMath, x: str) -> str:
    a = _abs(e, x)
    h = _half_exp(e, a)
    t = e.tmp()
    e("vfrdiv.vf", t, h, e.k(0.25))
    e("vfadd.vv", h, h, t)
    e.release(a, t)
    e.nan_passthrough(h, x)
    return h


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
    a = _abs(e, x)
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
    a = _abs(e, x)
    d = e.tmp()
    e("vfrsub.vf", d, a, e.k(1.0))
    q = e.tmp()
    e("vfadd.vf", q, a, e.k(1.0))
    e("vfdiv.vv", q, q, d)                           # (1 + a) / (1 - a)
    e.release(d)
    r = log(e, q)
    e("vfmul.vf", r, r, e.k(0.5))
    e("vfmul.vv", q, a, a)
    small = _odd_poly(e, ATANH_POLY, a, q)           # a < 1/2: a + a z P(z)
    e("vmflt.vf", "v0", a, e.k(0.5))
    e("vmerge.vvm", r, r, small, "v0")
    e("vfsgnj.vv", r, r, x)
    e.set_where(r, lambda: e("vmfgt.vf", "v0", a, e.k(1.0)), math.nan)
    e.release(a, q, small)
    e.nan_passthrough(r, x)
    return r


# ------------------------------------------------------------------------------------ logs, roots

def log10(e: VMath, x: str) -> str:
    kf, hi, lo = _log_parts(e, x, split=True)
    e("vfmul.vf", lo, lo, e.k(LOG10E))
    e("vfmacc.vf", lo, e.k(LOG10E_LO), hi)
    e("vfmacc.vf", lo, e.k(LOG10_2_LO), kf)
    e("vfmacc.vf", lo, e.k(LOG10E), hi)
    e("vfmacc.vf", lo, e.k(LOG10_2_HI), kf)
    e.release(kf, hi)
    _log_fixups(e, lo, x)
    return lo


def cbrt(e: VMath, x: str) -> str:
    a = _abs(e, x)
    e("vmflt.vf", "v0", a, e.k(2.0 ** -126))         # subnormal: scale by 2^24 (result by 2^-8)
    s = e.tmp()
    e("vfmul.vf", s, a, e.k(2.0 ** 24))
    e("vmerge.vvm", a, a, s, "v0")
    e("vmv.v.i", s, 0)
    e("vmerge.vxm", s, s, e.ki(8 << 23), "v0")
    y = e.tmp()
    e("vmulhu.vx", y, a, e.ki(-0x55555555))          # bits / 3 (0xAAAAAAAB / 2**33)
    e("vsrl.vi", y, y, 1)
    e("vadd.vx", y, y, e.ki(0x2A555555))             # exponent / 3 + bias: within a few % of cbrt
    t = e.tmp()
    u = e.tmp()
    for _ in range(3):                               # y -= (y^3 - a) / (3 y^2)
        e("vfmul.vv", t, y, y)
        e("vmv.v.v", u, a)
        e("vfmsac.vv", u, t, y)                      # y^3 - a
        e("vfmul.vf", t, t, e.k(3.0))
        e("vfdiv.vv", u, u, t)
        e("vfsub.vv", y, y, u)
    v = e.tmp()
    e("vfmul.vv", t, y, y)
    e("vmv.v.v", v, t)
    e("vfmsac.vv", v, y, y)                          # y*y - t: the square's rounding error
    e("vmv.v.v", u, a)
    e("vfmsac.vv", u, t, y)                          # t*y - a
    e("vfmacc.vv", u, v, y)                          # + (y*y - t)*y: the residual y^3 - a
    e("vfmul.vf", t, t, e.k(3.0))
    e("vfdiv.vv", u, u, t)
    e("vfsub.vv", y, y, u)
    e("vsub.vv", y, y, s)                            # undo the subnormal scaling
    e("vfsgnj.vv", y, y, x)
    e.release(t, u, v, s)
    e("vmfeq.vf", "v0", a, e.k(0.0))
    e("vmerge.vvm", y, y, x, "v0")
    e("vmfeq.vf", "v0", a, e.k(math.inf))
    e("vmerge.vvm", y, y, x, "v0")
    e.release(a)
    e.nan_passthrough(y, x)
    return y


def hypot(e: VMath, x: str, y: str) -> str:
    a, b = _abs(e, x), _abs(e, y)
    big = e.tmp()
    e("vfmax.vv", big, a, b)
    small = e.tmp()
    e("vfmin.vv", small, a, b)
    k = e.tmp()
    e("vsrl.vi", k, big, 23)
    e("vadd.vx", k, k, e.ki(-127))
    e("vmax.vx", k, k, e.ki(-126))
    e("vmin.vx", k, k, e.ki(126))                    # big = 2^k * [1, 2) (clamped)
    nk = e.tmp()
    e("vrsub.vx", nk, k, "zero")
    s = e.pow2i(nk)
    e("vfmul.vv", big, big, s)
    e("vfmul.vv", small, small, s)
    e("vfmul.vv", small, small, small)
    e("vfmacc.vv", small, big, big)
    e("vfsqrt.v", small, small)
    e.release(s, nk, big)
    s = e.pow2i(k)
    e("vfmul.vv", small, small, s)
    e.release(s, k)
    for v in (x, y):
        e("vmfne.vv", "v0", v, v)
        e("vmerge.vvm", small, small, v, "v0")
    for v in (a, b):                                 # inf wins over NaN
        e("vmfeq.vf", "v0", v, e.k(math.inf))
        e("vmerge.vvm", small, small, v, "v0")
    e.release(a, b)
    return small


# --------------------------------------------------------------------------------- erfc, erfinv

def erfc(e: VMath, x: str) -> str:
    y = _abs(e, x)
    e("vfmin.vf", y, y, e.k(11.0))
    hi = e.tmp()
    e("vfmul.vv", hi, y, y)
    lo = e.tmp()
    e("vmv.v.v", lo, hi)
    e("vfmsac.vv", lo, y, y)                         # y*y - hi, exact
    e("vfsgnjn.vv", hi, hi, hi)
    g = _exp_core(e, hi)                             # exp(-hi)
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
    p = e.horner(ERF_SMALL, lo)
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
    kf, h, l = _log_parts(e, v, split=True)
    s = e.tmp()
    e("vfmul.vf", s, kf, e.k(LN2_HI))                # exact: LN2_HI has 16 bits, |k| < 2^8
    e("vfmacc.vf", l, e.k(LN2_LO), kf)
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
    f = _rounding(e, x, "round")
    e("vfsub.vv", f, x, f)                           # x - round(x), exact, in [-1/2, 1/2]
    e("vfmul.vf", f, f, e.k(math.pi))
    s = _sin(e, f)
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


EXPANSIONS: Dict[str, Callable] = {
    "math.atan": atan, "math.atan2": atan2, "math.asin": asin, "math.acos": acos, "math.sinh": sinh,
    "math.cosh": cosh, "math.asinh": asinh, "math.acosh": acosh, "math.atanh": atanh,
    "math.log10": log10, "math.cbrt": cbrt, "math.hypot": hypot, "math.erfc": erfc, "math.erfinv": erfinv,
    "math.lgamma": lgamma,
}
