"""float64 ``pow`` (libdevice.pow) at e64: ``2^(y log2|x|)`` with ``log2|x|`` and the product as
double-doubles, then C99's special cases.

- ``_log2_dd``: ``|x| = 2^k m``, ``m`` in ``[sqrt(3)/2, sqrt(3))``, ``m = bp (1 + s)/(1 - s)`` with
  ``bp`` 1 or 1.5 (``|s| <= 0.101``), ``s = s_h + s_l`` with ``s_h`` cut to 17 bits; ``log2(m/bp) =
  (2s + 2s^3/3 + s z^2 P(z)) / ln 2``: ``2 s_h / ln 2`` (18 x 32 bits) and ``2 s_h^3 / (3 ln 2)``
  (a Veltkamp split against a 26-bit head of the constant) are formed exactly, the rest (< 2^-9) in
  one double; the parts summed by TwoSums: ~2^-70 absolute.
- ``y * (hi + lo)``: Dekker's exact product (Veltkamp splits, so it needs no fused multiply-add), ``|y|`` clamped to 2^80 (beyond,
  ``|y log2|x||`` > 1100 unless ``x = 1``, and the split stays finite).
- ``2^w``: ``n = round(w_hi)``, ``r = (w_hi - n) + w_lo``, ``e^(r ln 2)`` by ``mathlib_f64``'s
  ``exp`` core, times ``2^n`` in two steps.

Measured: at most 1 ULP against numpy (tests/language/test_fp64_math.py, docs/language.md).
"""
from __future__ import annotations

import decimal
import math
from fractions import Fraction

from mtiacc.codegen.mathlib.core import VMath, pow_base, pow_special, two_sum
from mtiacc.codegen.mathlib.f64 import (LN2, LN2_TAIL, LOG2E, LOG2E_HI, LOG2E_LO, MANT, _bits, _exp_core,
                                        _from_bits, _scale)


def _log2_dd_constants():
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        inv_ln2 = 1 / decimal.Decimal(2).ln()
        l15 = decimal.Decimal("1.5").ln() * inv_ln2
        head = _from_bits(_bits(float(l15)) & ~((1 << 21) - 1))
        k3 = 2 * inv_ln2 / 3
        k3_head = _from_bits(_bits(float(k3)) & ~((1 << 27) - 1))
        return head, float(l15 - decimal.Decimal(head)), k3_head, float(k3 - decimal.Decimal(k3_head))


# log2(1.5) = HI (32 bits) + LO;  K3 = 2/(3 ln 2) = HI (26 bits) + LO
LOG2_15_HI, LOG2_15_LO, K3_HI, K3_LO = _log2_dd_constants()
LOG2_TAIL = tuple(float(Fraction(2, 2 * n + 1)) for n in range(11, 1, -1))   # 2/23 ... 2/5
HIGH21 = ~((1 << 32) - 1)                                           # keeps 21 significant bits
HIGH17 = ~((1 << 36) - 1)                                           # keeps 17 significant bits
SPLIT = 2.0 ** 27 + 1


def _split(e: VMath, a: str):
    """Veltkamp: (hi, lo) with a = hi + lo exactly, each of at most 26 significant bits."""
    c = e.tmp()
    e("vfmul.vf", c, a, e.k(SPLIT))
    hi = e.tmp()
    e("vfsub.vv", hi, c, a)
    e("vfsub.vv", hi, c, hi)
    e("vfsub.vv", c, a, hi)
    return hi, c


def _two_prod_err(e: VMath, a: str, b: str, p: str) -> str:
    """a*b - p exactly, for p = a*b rounded (Dekker; no fused multiply-add needed)."""
    ah, al = _split(e, a)
    bh, bl = _split(e, b)
    err = e.tmp()
    e("vfmul.vv", err, ah, bh)
    e("vfsub.vv", err, err, p)
    t = e.tmp()
    e("vfmul.vv", t, ah, bl)
    e("vfadd.vv", err, err, t)
    e("vfmul.vv", t, al, bh)
    e("vfadd.vv", err, err, t)
    e("vfmul.vv", t, al, bl)
    e("vfadd.vv", err, err, t)
    e.release(ah, al, bh, bl, t)
    return err


def _log2_dd(e: VMath, a: str):
    """(hi, lo): log2(a) = hi + lo to ~2^-70 absolute, for finite a > 0.  a = 2^k m with m in
    [sqrt(3)/2, sqrt(3)), m = bp (1 + s)/(1 - s) with bp = 1 or 1.5 (|s| <= 0.101); s = s_h + s_l with
    s_h of 17 bits; log2(m / bp) = (2s + 2s^3/3 + s z^2 P(z)) / ln 2, z = s^2, where 2 s_h / ln 2 and
    2 s_h^3 / (3 ln 2) are formed exactly as double-doubles and the rest (< 2^-9) in one double."""
    xs = e.tmp()
    e("vfmul.vf", xs, a, e.k(2.0 ** 54))
    e("vmflt.vf", "v0", a, e.k(2.0 ** -1022))
    e("vmerge.vvm", xs, a, xs, "v0")
    kk = e.tmp()
    e("vmv.v.i", kk, 0)
    e("vmerge.vxm", kk, kk, e.ki(-54), "v0")
    ex = e.tmp()
    e("vsrl.vx", ex, xs, e.ki(52))
    e("vadd.vv", kk, kk, ex)
    e("vadd.vx", kk, kk, e.ki(-1023))
    e("vand.vx", xs, xs, e.ki(MANT))
    e("vor.vx", xs, xs, e.ki(1023 << 52))         # m in [1, 2)
    e("vmfge.vf", "v0", xs, e.k(math.sqrt(3.0)))
    e("vfmul.vf", ex, xs, e.k(0.5))
    e("vmerge.vvm", xs, xs, ex, "v0")
    e("vadd.vi", ex, kk, 1)
    e("vmerge.vvm", kk, kk, ex, "v0")
    kf = e.tmp()
    e("vfcvt.f.x.v", kf, kk)
    e.release(kk, ex)
    bp = e.splat(1.0)
    dh = e.splat(0.0)
    dl = e.splat(0.0)
    e("vmfge.vf", "v0", xs, e.k(math.sqrt(1.5)))
    e("vfmerge.vfm", bp, bp, e.k(1.5), "v0")
    e("vfmerge.vfm", dh, dh, e.k(LOG2_15_HI), "v0")
    e("vfmerge.vfm", dl, dl, e.k(LOG2_15_LO), "v0")
    u = e.tmp()
    e("vfsub.vv", u, xs, bp)                       # exact
    vh = e.tmp()
    e("vfadd.vv", vh, xs, bp)
    vl = e.tmp()
    e("vfsub.vv", vl, vh, bp)                      # exact
    e("vfsub.vv", vl, xs, vl)                      # m + bp = vh + vl
    e.release(xs, bp)
    sh = e.tmp()
    e("vfdiv.vv", sh, u, vh)
    e("vand.vx", sh, sh, e.ki(HIGH17))
    th = e.tmp()
    e("vand.vx", th, vh, e.ki(HIGH21))
    tl = e.tmp()
    e("vfsub.vv", tl, vh, th)
    e("vfadd.vv", tl, tl, vl)                      # m + bp = th + tl
    e("vfnmsac.vv", u, sh, th)                     # u - sh*th: exact (21 x 21 bits, cancelling)
    e("vfnmsac.vv", u, sh, tl)
    e("vfdiv.vv", u, u, vh)                        # s_l
    e.release(vh, vl, th, tl)
    sl = u
    s = e.tmp()
    e("vfadd.vv", s, sh, sl)
    z = e.tmp()
    e("vfmul.vv", z, s, s)
    p = e.horner(LOG2_TAIL, z)                     # 2/5 + 2z/7 + ...
    e("vfmul.vv", p, p, z)
    e("vfmul.vv", p, p, z)
    e("vfmul.vv", p, p, s)                         # s z^2 P(z)
    e.release(z, s)
    c3 = e.tmp()                                   # s^3 = sh^3 + sl (3 sh^2 + sl (3 sh + sl))
    e("vfmul.vv", c3, sh, sh)                      # exact: 17 bits squared
    q = e.tmp()
    e("vfmul.vf", q, sh, e.k(3.0))
    e("vfadd.vv", q, q, sl)
    e("vfmul.vv", q, q, sl)
    e("vfmacc.vf", q, e.k(3.0), c3)
    e("vfmul.vv", q, q, sl)
    e("vfmacc.vf", p, e.k(2.0 / 3.0), q)           # + 2/3 (s^3 - sh^3)
    e("vfmacc.vf", p, e.k(2.0), sl)                # + 2 s_l
    e.release(q, sl)
    e("vfmul.vv", c3, c3, sh)                      # sh^3: exact (51 bits)
    big = e.tmp()
    e("vfadd.vv", big, sh, sh)                     # 2 s_h, 18 bits
    e.release(sh)
    e("vfmul.vf", p, p, e.k(LOG2E))
    e("vfmacc.vf", p, e.k(LOG2E_LO), big)
    e("vfmul.vf", big, big, e.k(LOG2E_HI))         # exact: 18 x 32 bits
    p3 = e.tmp()                                   # sh^3 * 2/(3 ln 2) = p3 + (exact error) + sh^3 K3_LO
    e("vfmul.vf", p3, c3, e.k(K3_HI))
    ch, cl = _split(e, c3)
    err = e.tmp()
    e("vfmul.vf", err, ch, e.k(K3_HI))             # exact: 26 x 26 bits
    e("vfsub.vv", err, err, p3)
    e("vfmacc.vf", err, e.k(K3_HI), cl)
    e("vfmacc.vf", err, e.k(K3_LO), c3)
    e("vfadd.vv", p, p, err)
    e.release(ch, cl, c3, err)
    e("vfadd.vv", kf, kf, dh)                      # exact: k + log2(1.5)'s 32-bit head
    e("vfadd.vv", p, p, dl)
    e.release(dh, dl)
    h1, err = two_sum(e, kf, big)
    e("vfadd.vv", p, p, err)
    e.release(kf, big, err)
    hi, err = two_sum(e, h1, p3)
    e("vfadd.vv", p, p, err)
    e.release(h1, p3, err)
    h2 = e.tmp()
    e("vfadd.vv", h2, hi, p)                       # renormalize: Fast2Sum
    d = e.tmp()
    e("vfsub.vv", d, h2, hi)
    e("vfsub.vv", p, p, d)
    e.release(hi, d)
    return h2, p


def _trunc(e: VMath, x: str) -> str:
    """trunc(x) for every double (|x| >= 2^52, inf and NaN are their own)."""
    t = e.tmp()
    e("vfcvt.rtz.x.f.v", t, x)
    e("vfcvt.f.x.v", t, t)
    e("vfsgnj.vv", t, t, x)
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vmflt.vf", "v0", a, e.k(2.0 ** 52))
    e("vmerge.vvm", a, x, t, "v0")
    e.release(t)
    return a


def pow(e: VMath, x: str, y: str) -> str:
    """x^y = 2^(y log2|x|) with log2|x| and the product as double-doubles, then C99's special cases."""
    a = pow_base(e, x)
    hi, lo = _log2_dd(e, a)
    e.release(a)
    yc = e.tmp()
    e("vmv.v.v", yc, y)
    e("vmfne.vv", "v0", y, y)                      # NaN and inf y: 0 here, fixed up below
    e("vfmerge.vfm", yc, yc, e.k(0.0), "v0")
    w = e.tmp()
    e("vfsgnjx.vv", w, y, y)
    e("vmfeq.vf", "v0", w, e.k(math.inf))
    e("vfmerge.vfm", yc, yc, e.k(0.0), "v0")
    e("vfmax.vf", yc, yc, e.k(-2.0 ** 80))        # |y log2|x|| > 1100 beyond (unless x = 1), and
    e("vfmin.vf", yc, yc, e.k(2.0 ** 80))         # the split below stays finite
    e("vfmul.vv", w, yc, hi)
    err = _two_prod_err(e, yc, hi, w)
    e("vfmacc.vv", err, yc, lo)                    # y*(hi + lo) = w + err
    e.release(hi, lo, yc)
    t = e.tmp()
    e("vfsgnjx.vv", t, w, w)
    e("vmfgt.vf", "v0", t, e.k(1100.0))            # far beyond overflow / underflow: drop err
    e("vfmerge.vfm", err, err, e.k(0.0), "v0")
    e("vfmax.vf", w, w, e.k(-1100.0))
    e("vfmin.vf", w, w, e.k(1100.0))
    n = e.tmp()
    e("vfcvt.x.f.v", n, w)
    e("vfcvt.f.x.v", t, n)
    e("vfsub.vv", w, w, t)                         # exact
    e("vfadd.vv", w, w, err)                       # r in [-1/2, 1/2] (a little more)
    e.release(err)
    e("vfmul.vf", t, w, e.k(LN2_TAIL))
    e("vfmacc.vf", t, e.k(LN2), w)                 # r ln 2
    e.release(w)
    r = _exp_core(e, t)
    e.release(t)
    _scale(e, r, n)
    e.release(n)
    pow_special(e, r, x, y, lambda v: _trunc(e, v))
    return r
