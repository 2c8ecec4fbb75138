"""The exponential family: exp, exp2, expm1, log, log2, log10, log1p, tanh, sinh, cosh.

exp, exp2, expm1, log1p and tanh are one body each for f32 and f64 (the constants below differ);
log and log2 share their range reduction and fix-ups but finish differently at each width: f32
folds ``s t`` into ``log m`` and adds ``k ln 2`` by two fused multiply-adds, f64 keeps ``f``, ``f^2/2``
and ``s t`` apart and adds them smallest first, with ``k ln2_hi`` exact (its log2 multiplies by
``log2 e`` in two parts, the head product exact).  log10, sinh and cosh are f32 only.

- exp: ``n = round(x / ln 2)``, ``r = x - n ln 2`` (Cody-Waite, ``ln 2`` in two parts, the first short
  enough that ``n * ln2_hi`` is exact), ``e^r = 1 + r + r^2 P(r)`` with ``P`` the Taylor series (to
  ``r^7`` in f32, ``r^13`` in f64), times ``2^n`` in two steps (so subnormal results round once and
  overflow gives inf).
- exp2: ``n = round(x)``, ``r = (x - n) ln 2`` (the subtraction exact; f64 adds ``ln 2``'s tail).
- log: ``x = 2^k m``, ``m`` in ``[sqrt(1/2), sqrt(2))``, ``f = m - 1``, ``s = f / (2 + f)``,
  ``log m = f - f^2/2 + s (f^2/2 + z P(z))``, ``z = s^2``, ``P`` the atanh series (to ``z^4`` / ``z^11``);
  ``k ln 2`` added in two parts.  Subnormal ``x`` is scaled up first.  f64's log2 cuts the head of
  ``log m`` to 21 bits so that its product with a 32-bit head of ``log2 e`` is exact.
- log1p: ``log(u) * x / (u - 1)``, ``u = 1 + x``; expm1: ``(u - 1) * x / log(u)``, ``u = e^x`` (Kahan's
  corrections for the rounding of ``u``); tanh: ``m / (m + 2)``, ``m = expm1(2 min(|x|, clamp))``.
- sinh/cosh: ``h = e^|x| / 2`` (exp with the exponent lowered by one, so no overflow before the
  result does), ``h -+ 1/(4h)``; sinh below 1 by its Taylor series.  log10: ``k log10(2) + log(m)
  log10(e)`` on the parts of log.

Coefficients are exact Taylor terms rounded once; f64's ``ln 2`` and ``log2 e`` come from ``decimal``
at 40 digits.  No f64 sequence relies on a fused multiply-add being fused (mtiasim rounded ``vfmacc``
at SEW=64 twice when they were written): every product whose exactness matters is exact by
construction.  Accuracy (max ULP against numpy) is in docs/language.md.
"""
from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from typing import Optional, Tuple

from mtiacc.codegen.mathlib.base import F32, F64, VMath, abs_, atanh_series, f32, head, odd_poly, taylor_exp


@dataclass(frozen=True)
class ExpLog:
    """exp's and log's constants at one width."""

    exp_clamp: Tuple[float, float]      # e^x is 0 below (through the subnormals) and inf above
    exp2_clamp: Tuple[float, float]     # the same for 2^x
    exp_poly: Tuple[float, ...]         # e^r = 1 + r + r^2 P(r)
    ln2_hi: float                       # ln 2 = hi + lo, n * hi exact for every exponent n
    ln2_lo: float
    ln2: float                          # exp2: r = (x - n) ln2 ...
    ln2_tail: Optional[float]           # ... + (x - n) tail, tail = ln 2 - ln2 (f64)
    log2e: float
    log2e_hi: Optional[float]           # f64's log2: log2 e as a 32-bit head and a tail
    log2e_lo: Optional[float]
    log_poly: Tuple[float, ...]         # log m = 2s + s^3 P(s^2)
    log_subnormal: int                  # log scales subnormal x by 2^this first
    tanh_clamp: float                   # tanh rounds to 1 from here on


def _f64_consts() -> ExpLog:
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        ln2 = decimal.Decimal(2).ln()
        hi = head(float(ln2), 32)
        log2e = 1 / ln2
        l2hi = head(float(log2e), 32)
        return ExpLog(exp_clamp=(-750.0, 712.0), exp2_clamp=(-1080.0, 1030.0), exp_poly=taylor_exp(13),
                      ln2_hi=hi, ln2_lo=float(ln2 - decimal.Decimal(hi)),
                      ln2=float(ln2), ln2_tail=float(ln2 - decimal.Decimal(float(ln2))),
                      log2e=float(log2e), log2e_hi=l2hi, log2e_lo=float(log2e - decimal.Decimal(l2hi)),
                      log_poly=atanh_series(11), log_subnormal=54, tanh_clamp=22.0)


CONSTS = {
    F32: ExpLog(exp_clamp=(-105.0, 90.0), exp2_clamp=(-152.0, 130.0), exp_poly=taylor_exp(8),
                ln2_hi=0.693145751953125, ln2_lo=1.428606765330187e-06,      # the head has 16 bits
                ln2=math.log(2.0), ln2_tail=None, log2e=1.4426950408889634, log2e_hi=None, log2e_lo=None,
                log_poly=atanh_series(4), log_subnormal=23, tanh_clamp=9.0),
    F64: _f64_consts(),
}
SINH_POLY = tuple(1.0 / math.factorial(2 * k + 1) for k in range(6, 0, -1))   # a + a^3 (1/6 + ...)
LOG10_2_HI = round(math.log10(2.0) * 2 ** 16) / 2 ** 16               # 16 bits: k * HI is exact
LOG10_2_LO = math.log10(2.0) - LOG10_2_HI
LOG10E, LOG10E_LO = f32(math.log10(math.e)), math.log10(math.e) - f32(math.log10(math.e))


# ------------------------------------------------------------------------------------------ exp

def exp_core(e: VMath, x: str, base2: bool = False, half: bool = False) -> str:
    """e^x (or 2^x; halved with ``half``) for non-NaN x; overflow gives inf, underflow 0 (subnormals
    on the way)."""
    c = CONSTS[e.w]
    xc = e.tmp()
    lo, hi = c.exp2_clamp if base2 else c.exp_clamp
    e("vfmax.vf", xc, x, e.k(lo))
    e("vfmin.vf", xc, xc, e.k(hi))
    n = e.tmp()
    if base2:
        e("vfcvt.x.f.v", n, xc)                    # n = round(x)
    else:
        e("vfmul.vf", n, xc, e.k(c.log2e))
        e("vfcvt.x.f.v", n, n)                     # n = round(x / ln 2)
    nf = e.tmp()
    e("vfcvt.f.x.v", nf, n)
    r = e.tmp()
    if not base2:                                  # r = x - n*ln2 (Cody-Waite, two parts; n*ln2_hi exact)
        if e.w == F64:                             # the same values in f64's order (f32's measured
            e("vfnmsac.vf", xc, e.k(c.ln2_hi), nf)  # up to 63 cycles more on some f64 kernels at -O2)
            e("vmv.v.v", r, xc)
        else:
            e("vmv.v.v", r, xc)
            e("vfnmsac.vf", r, e.k(c.ln2_hi), nf)
        e("vfnmsac.vf", r, e.k(c.ln2_lo), nf)
    elif c.ln2_tail is None:
        e("vfsub.vv", r, xc, nf)
        e("vfmul.vf", r, r, e.k(c.ln2))
    else:                                          # f64: ln 2 carried beyond the double
        e("vfsub.vv", xc, xc, nf)                  # exact
        e("vfmul.vf", r, xc, e.k(c.ln2))
        e("vfmacc.vf", r, e.k(c.ln2_tail), xc)
    e.release(nf, xc)
    p = e.horner(c.exp_poly, r)                    # p = 1/2 + r/6 + ...  (so e^r = 1 + r + r^2 * p)
    r2 = e.tmp()
    e("vfmul.vv", r2, r, r)
    acc = e.tmp()
    e("vmv.v.v", acc, r)
    e("vfmacc.vv", acc, p, r2)                     # r + r^2 * p
    e("vfadd.vf", acc, acc, e.k(1.0))
    e.release(p, r2, r)
    if half:
        e("vadd.vi", n, n, -1)
    e.scale(acc, n)
    e.release(n)
    return acc


def exp(e: VMath, x: str, base2=False) -> str:
    r = exp_core(e, x, base2)
    e.nan_passthrough(r, x)
    return r


def exp2(e: VMath, x: str) -> str:
    return exp(e, x, base2=True)


# ------------------------------------------------------------------------------------------ log

def _log_reduce(e: VMath, x: str):
    """(k, f, s, hf, t) with x = 2^k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), s = f / (2 + f),
    hf = f^2 / 2 and t = hf + z P(z) (z = s^2), so log(1 + f) = f - hf + s t; for finite x > 0."""
    w, c = e.w, CONSTS[e.w]
    sqrt_half = w.bits(math.sqrt(0.5))
    xs = e.tmp()
    e("vfmul.vf", xs, x, e.k(2.0 ** c.log_subnormal))
    e("vmflt.vf", "v0", x, e.k(w.min_normal))      # subnormal (or <= 0): scale up first
    e("vmerge.vvm", xs, x, xs, "v0")
    adj = e.tmp()
    e("vmv.v.i", adj, 0)
    e("vmerge.vxm", adj, adj, e.ki(-c.log_subnormal), "v0")
    ix = e.tmp()
    e("vadd.vx", ix, xs, e.ki((w.bias << w.mant) - sqrt_half))
    kk = e.tmp()
    e.shift("vsra", kk, ix, w.mant)
    e("vadd.vx", kk, kk, e.ki(-w.bias))
    e("vadd.vv", kk, kk, adj)
    e("vand.vx", ix, ix, e.ki(w.mant_mask))
    e("vadd.vx", ix, ix, e.ki(sqrt_half))          # m as bits
    e.release(xs, adj)
    f = e.tmp()
    e("vfsub.vf", f, ix, e.k(1.0))                  # f = m - 1 (exact)
    d = e.tmp()
    e("vfadd.vf", d, f, e.k(2.0))
    s = e.tmp()
    e("vfdiv.vv", s, f, d)                          # s = f / (2 + f)
    e.release(d, ix)
    z = e.tmp()
    e("vfmul.vv", z, s, s)
    p = e.horner(c.log_poly, z)                     # log m = 2s + s*z*p = f - hf + s*(hf + z*p)
    hf = e.tmp()
    e("vfmul.vv", hf, f, f)
    e("vfmul.vf", hf, hf, e.k(0.5))
    t = e.tmp()
    e("vmv.v.v", t, hf)
    e("vfmacc.vv", t, z, p)                         # hf + z*p
    e.release(p, z)
    return kk, f, s, hf, t


def _float_of(e: VMath, kk: str) -> str:
    kf = e.tmp()
    e("vfcvt.f.x.v", kf, kk)
    e.release(kk)
    return kf


def log_parts(e: VMath, x: str, split: bool = False):
    """f32: (k as float, log(m)) with x = 2^k * m, for finite x > 0; with ``split``, (k, hi, lo) with
    log(m) = hi + lo to a few bits beyond f32."""
    kk, f, s, hf, t = _log_reduce(e, x)
    lm = e.tmp()
    e("vfsub.vv", lm, f, hf)
    if split:
        lo = e.tmp()
        e("vfsub.vv", lo, f, lm)
        e("vfsub.vv", lo, lo, hf)                   # (f - hi) - hf: the subtraction's rounding error
        e("vfmacc.vv", lo, s, t)
    else:
        e("vfmacc.vv", lm, s, t)
    e.release(f, hf, s, t)
    kf = _float_of(e, kk)
    return (kf, lm, lo) if split else (kf, lm)


def _log_parts64(e: VMath, x: str):
    """f64: (k as double, f, hf, s*t) with x = 2^k (1 + f) and log(1 + f) = f - (hf - s*t)."""
    kk, f, s, hf, t = _log_reduce(e, x)
    e("vfmul.vv", t, t, s)                          # s (hf + z P(z))
    e.release(s)
    return _float_of(e, kk), f, hf, t


def log_fixups(e: VMath, r: str, x: str) -> None:
    e.set_where(r, lambda: e("vmflt.vf", "v0", x, e.k(0.0)), math.nan)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(0.0)), -math.inf)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(math.inf)), math.inf)
    e.nan_passthrough(r, x)


def log(e: VMath, x: str) -> str:
    c = CONSTS[e.w]
    if e.w == F64:
        kf, f, hf, st = _log_parts64(e, x)
        e("vfmacc.vf", st, e.k(c.ln2_lo), kf)       # s*t + k*LN2_LO
        e("vfsub.vv", hf, hf, st)
        e("vfsub.vv", hf, hf, f)                    # (hf - (...)) - f
        r = e.tmp()
        e("vfmul.vf", r, kf, e.k(c.ln2_hi))         # exact
        e("vfsub.vv", r, r, hf)
        e.release(kf, f, hf, st)
    else:
        kf, r = log_parts(e, x)
        e("vfmacc.vf", r, e.k(c.ln2_lo), kf)
        e("vfmacc.vf", r, e.k(c.ln2_hi), kf)
        e.release(kf)
    log_fixups(e, r, x)
    return r


def log2(e: VMath, x: str) -> str:
    c = CONSTS[e.w]
    if e.w != F64:
        kf, lm = log_parts(e, x)
        e("vfmul.vf", lm, lm, e.k(c.log2e))
        e("vfadd.vv", lm, lm, kf)
        e.release(kf)
        log_fixups(e, lm, x)
        return lm
    kf, f, hf, st = _log_parts64(e, x)
    hi = e.tmp()
    e("vfsub.vv", hi, f, hf)
    e("vand.vx", hi, hi, e.ki(~((1 << 32) - 1)))   # head of log(m): 21 significant bits
    lo = e.tmp()
    e("vfsub.vv", lo, f, hi)
    e("vfsub.vv", lo, lo, hf)
    e("vfadd.vv", lo, lo, st)                       # log(m) = hi + lo
    e.release(f, hf, st)
    vhi = e.tmp()
    e("vfmul.vf", vhi, hi, e.k(c.log2e_hi))         # exact: 21 bits times 32
    vlo = e.tmp()
    e("vfadd.vv", vlo, lo, hi)
    e("vfmul.vf", vlo, vlo, e.k(c.log2e_lo))
    e("vfmacc.vf", vlo, e.k(c.log2e_hi), lo)        # (hi + lo) LOG2E_LO + lo LOG2E_HI
    w = e.tmp()
    e("vfadd.vv", w, kf, vhi)
    e("vfsub.vv", kf, kf, w)
    e("vfadd.vv", kf, kf, vhi)                      # the rounding error of k + vhi
    e("vfadd.vv", vlo, vlo, kf)
    e("vfadd.vv", w, w, vlo)
    e.release(kf, hi, lo, vhi, vlo)
    log_fixups(e, w, x)
    return w


def log10(e: VMath, x: str) -> str:
    kf, hi, lo = log_parts(e, x, split=True)
    e("vfmul.vf", lo, lo, e.k(LOG10E))
    e("vfmacc.vf", lo, e.k(LOG10E_LO), hi)
    e("vfmacc.vf", lo, e.k(LOG10_2_LO), kf)
    e("vfmacc.vf", lo, e.k(LOG10E), hi)
    e("vfmacc.vf", lo, e.k(LOG10_2_HI), kf)
    e.release(kf, hi)
    log_fixups(e, lo, x)
    return lo


# ------------------------------------------------------------------------ log1p, expm1, hyperbolic

def log1p(e: VMath, x: str) -> str:
    """log(1 + x) = log(u) * x / (u - 1) with u = 1 + x (exact correction for the rounding of u)."""
    u = e.tmp()
    e("vfadd.vf", u, x, e.k(1.0))
    lu = log(e, u)
    d = e.tmp()
    e("vfsub.vf", d, u, e.k(1.0))
    q = e.tmp()
    e("vfdiv.vv", q, x, d)
    e("vfmul.vv", q, q, lu)
    e("vmfeq.vf", "v0", u, e.k(1.0))               # tiny x: log1p(x) = x
    e("vmerge.vvm", q, q, x, "v0")
    e("vmfeq.vf", "v0", u, e.k(math.inf))          # u overflowed, or x = inf: log(u)
    e("vmerge.vvm", q, q, lu, "v0")
    e("vmfle.vf", "v0", u, e.k(0.0))               # x <= -1: -inf or NaN, as log gives
    e("vmerge.vvm", q, q, lu, "v0")
    e.release(u, lu, d)
    e.nan_passthrough(q, x)
    return q


def expm1(e: VMath, x: str) -> str:
    """e^x - 1 = (u - 1) * x / log(u) with u = e^x (Kahan)."""
    u = exp(e, x)
    lu = log(e, u)
    d = e.tmp()
    e("vfsub.vf", d, u, e.k(1.0))
    q = e.tmp()
    e("vfdiv.vv", q, x, lu)
    e("vfmul.vv", q, q, d)
    e("vmfeq.vf", "v0", u, e.k(1.0))               # tiny x
    e("vmerge.vvm", q, q, x, "v0")
    e("vmfeq.vf", "v0", d, e.k(-1.0))              # very negative x: -1
    e("vmerge.vvm", q, q, d, "v0")
    e("vmfeq.vf", "v0", u, e.k(math.inf))          # overflow
    e("vmerge.vvm", q, q, u, "v0")
    e.release(u, lu, d)
    e.nan_passthrough(q, x)
    return q


def tanh(e: VMath, x: str) -> str:
    """copysign(m / (m + 2), x) with m = expm1(2 min(|x|, clamp)); tanh(clamp) rounds to 1."""
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vfmin.vf", a, a, e.k(CONSTS[e.w].tanh_clamp))
    e("vfadd.vv", a, a, a)
    m = expm1(e, a)
    d = e.tmp()
    e("vfadd.vf", d, m, e.k(2.0))
    e("vfdiv.vv", m, m, d)
    e("vfsgnj.vv", m, m, x)
    e.release(a, d)
    e.nan_passthrough(m, x)
    return m


def sinh(e: VMath, x: str) -> str:
    a = abs_(e, x)
    h = exp_core(e, a, half=True)
    t = e.tmp()
    e("vfrdiv.vf", t, h, e.k(-0.25))
    e("vfadd.vv", h, h, t)                           # e^a/2 - e^-a/2
    z = e.tmp()
    e("vfmul.vv", z, a, a)
    small = odd_poly(e, SINH_POLY, a, z)
    e("vmflt.vf", "v0", a, e.k(1.0))
    e("vmerge.vvm", h, h, small, "v0")
    e("vfsgnj.vv", h, h, x)
    e.release(a, t, z, small)
    e.nan_passthrough(h, x)
    return h


def cosh(e: VMath, x: str) -> str:
    a = abs_(e, x)
    h = exp_core(e, a, half=True)
    t = e.tmp()
    e("vfrdiv.vf", t, h, e.k(0.25))
    e("vfadd.vv", h, h, t)
    e.release(a, t)
    e.nan_passthrough(h, x)
    return h
