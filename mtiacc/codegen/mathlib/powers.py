"""Powers and roots: pow (f32 and f64, C99's special cases shared), cbrt and hypot (f32).

pow is written twice: at f32 it is ``2^(y log2|x|)`` with ``y * k`` kept exact by a fused
multiply-add and the rest in one f32; at f64 the logarithm and the product need double-double steps
the f32 path does not (and no fused multiply-add, which mtiasim rounded twice at SEW=64 when it was
written).  Both start from ``pow_base`` and end with ``pow_special``, written once.

- f32: ``log2|x| = k + log(m) log2 e`` (exp_log's parts), ``n + rest = y * log2|x|``, ``2^rest`` by
  the exp2 core and ``2^n`` in two clamped steps.
- f64 ``_log2_dd``: ``|x| = 2^k m``, ``m`` in ``[sqrt(3)/2, sqrt(3))``, ``m = bp (1 + s)/(1 - s)`` with
  ``bp`` 1 or 1.5 (``|s| <= 0.101``), ``s = s_h + s_l`` with ``s_h`` cut to 17 bits; ``log2(m/bp) =
  (2s + 2s^3/3 + s z^2 P(z)) / ln 2``: ``2 s_h / ln 2`` (18 x 32 bits) and ``2 s_h^3 / (3 ln 2)``
  (a Veltkamp split against a 26-bit head of the constant) are formed exactly, the rest (< 2^-9) in
  one double; the parts summed by TwoSums: ~2^-70 absolute.  ``y * (hi + lo)``: Dekker's exact
  product (Veltkamp splits), ``|y|`` clamped to 2^80 (beyond, ``|y log2|x||`` > 1100 unless ``x = 1``,
  and the split stays finite).  ``2^w``: ``n = round(w_hi)``, ``r = (w_hi - n) + w_lo``, ``e^(r ln 2)``
  by the exp core, times ``2^n`` in two steps.  Measured: at most 1 ULP against numpy.
- ``cbrt``: a bit-pattern estimate, three Newton steps, a fourth with an exact residual.
- ``hypot``: the larger operand scaled to [1, 2) by a power of two, ``sqrt(fma(a, a, b*b))``.
"""
from __future__ import annotations

import decimal
import math

from mtiacc.codegen.mathlib.base import F32, F64, VMath, abs_, atanh_series, head, two_sum
from mtiacc.codegen.mathlib.exp_log import CONSTS, exp_core, log_parts
from mtiacc.codegen.mathlib.rounding import rounding

C32, C64 = CONSTS[F32], CONSTS[F64]


def powf(e: VMath, x: str, y: str) -> str:
    """x^y (libdevice.pow)."""
    return (_pow64 if e.w == F64 else _pow32)(e, x, y)


def pow_base(e: VMath, x: str) -> str:
    """|x| for pow's main path, with 0, inf and NaN replaced by 1 (``pow_special`` fixes those up)."""
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    for bad in (0.0, math.inf):                     # |x| = 0 or inf computes on 1; fixed up below
        e("vmfeq.vf", "v0", a, e.k(bad))
        e("vfmerge.vfm", a, a, e.k(1.0), "v0")
    e("vmfne.vv", "v0", a, a)
    e("vfmerge.vfm", a, a, e.k(1.0), "v0")
    return a


def pow_special(e: VMath, r: str, x: str, y: str) -> None:
    """C99's special cases of ``pow`` applied to the result ``r`` (f32 and f64)."""
    ax = e.tmp()
    e("vfsgnjx.vv", ax, x, x)
    v = e.tmp()
    # |x| = 0: 0 if y > 0 else inf;  |x| = inf: inf if y > 0 else 0
    e("vmv.v.i", v, 0)
    e("vmflt.vf", "v0", y, e.k(0.0))
    e("vfmerge.vfm", v, v, e.k(math.inf), "v0")
    e("vmfeq.vf", "v0", ax, e.k(0.0))
    e("vmerge.vvm", r, r, v, "v0")
    e("vmv.v.i", v, 0)
    e("vmfgt.vf", "v0", y, e.k(0.0))
    e("vfmerge.vfm", v, v, e.k(math.inf), "v0")
    e("vmfeq.vf", "v0", ax, e.k(math.inf))
    e("vmerge.vvm", r, r, v, "v0")
    # y = +-inf: inf if (|x| < 1) == (y < 0), else 0; 1 when |x| = 1
    w = e.tmp()
    e("vmv.v.i", v, 0)
    e("vmflt.vf", "v0", ax, e.k(1.0))
    e("vmerge.vim", v, v, 1, "v0")
    e("vmv.v.i", w, 0)
    e("vmflt.vf", "v0", y, e.k(0.0))
    e("vmerge.vim", w, w, 1, "v0")
    e("vmseq.vv", "v0", v, w)
    e("vmv.v.i", v, 0)
    e("vfmerge.vfm", v, v, e.k(math.inf), "v0")
    e("vmfeq.vf", "v0", ax, e.k(1.0))
    e("vfmerge.vfm", v, v, e.k(1.0), "v0")
    e("vfsgnjx.vv", w, y, y)
    e("vmfeq.vf", "v0", w, e.k(math.inf))
    e("vmerge.vvm", r, r, v, "v0")
    # x < 0: an odd integer y negates; a non-integer y gives NaN (x = -inf: +inf or 0)
    yi = rounding(e, y, "trunc")
    e("vfmul.vf", w, y, e.k(0.5))
    yh = rounding(e, w, "trunc")
    e("vmfne.vv", "v0", yh, w)                     # y/2 is not an integer ...
    e("vmfne.vv", "v1", yi, y)
    e("vmandn.mm", "v0", "v0", "v1")               # ... but y is: y is odd
    e("vmslt.vx", "v1", x, "zero")                 # the sign bit (-0.0 included: (-0)^-1 = -inf)
    e("vmand.mm", "v0", "v0", "v1")
    e("vfsgnjn.vv", v, r, r)
    e("vmerge.vvm", r, r, v, "v0")
    e("vmflt.vf", "v1", x, e.k(0.0))
    e("vmfne.vv", "v0", yi, y)
    e("vmand.mm", "v0", "v0", "v1")
    e("vmfeq.vf", "v1", ax, e.k(math.inf))
    e("vmandn.mm", "v0", "v0", "v1")
    e("vfmerge.vfm", r, r, e.k(math.nan), "v0")
    e.release(yi, yh)
    # NaN in, NaN out; but x^0 = 1 and 1^y = 1 (also for NaN)
    e("vmfne.vv", "v0", x, x)
    e("vmfne.vv", "v1", y, y)
    e("vmor.mm", "v0", "v0", "v1")
    e("vfmerge.vfm", r, r, e.k(math.nan), "v0")
    e("vmfeq.vf", "v0", y, e.k(0.0))
    e("vmfeq.vf", "v1", x, e.k(1.0))
    e("vmor.mm", "v0", "v0", "v1")
    e("vfmerge.vfm", r, r, e.k(1.0), "v0")
    e.release(ax, v, w)


# ------------------------------------------------------------------------------------------ f32

def _pow32(e: VMath, x: str, y: str) -> str:
    """x^y = 2^n * 2^rest with n + rest = y * log2|x| (y * k kept exact), then C99's special cases."""
    a = pow_base(e, x)
    kf, lm = log_parts(e, a)                       # log2|x| = kf + lm * log2(e)
    e("vfmul.vf", lm, lm, e.k(C32.log2e))
    hi = e.tmp()
    e("vfmul.vv", hi, y, kf)
    lo = e.tmp()
    e("vfsgnjn.vv", lo, hi, hi)
    e("vfmacc.vv", lo, y, kf)                       # lo = y*kf - hi, exactly
    e("vfmul.vv", lm, lm, y)                        # L = y * lm
    n = e.tmp()
    e("vfadd.vv", n, hi, lm)
    e("vfmax.vf", n, n, e.k(-400.0))
    e("vfmin.vf", n, n, e.k(400.0))
    e("vfcvt.x.f.v", n, n)
    e("vfcvt.f.x.v", kf, n)
    e("vfsub.vv", hi, hi, kf)
    e("vfadd.vv", hi, hi, lm)
    e("vfadd.vv", hi, hi, lo)                       # rest = (hi - n) + L + lo
    e.release(lo, lm, kf)
    r = exp_core(e, hi, base2=True)
    e.release(hi)
    nn = e.tmp()
    e("vmax.vx", nn, n, e.ki(-150))
    e("vmin.vx", nn, nn, e.ki(150))
    e("vsub.vv", n, n, nn)
    e.scale(r, nn)
    e.scale(r, n)                                   # 2^n in two clamped steps
    e.release(n, nn)
    e.release(a)
    pow_special(e, r, x, y)
    return r


# ------------------------------------------------------------------------------------------ f64

def _log2_dd_constants():
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        inv_ln2 = 1 / decimal.Decimal(2).ln()
        l15 = decimal.Decimal("1.5").ln() * inv_ln2
        l15_head = head(float(l15), 32)
        k3 = 2 * inv_ln2 / 3
        k3_head = head(float(k3), 26)
        return l15_head, float(l15 - decimal.Decimal(l15_head)), k3_head, float(k3 - decimal.Decimal(k3_head))


# log2(1.5) = HI (32 bits) + LO;  K3 = 2/(3 ln 2) = HI (26 bits) + LO
LOG2_15_HI, LOG2_15_LO, K3_HI, K3_LO = _log2_dd_constants()
LOG2_TAIL = atanh_series(11)[:-1]                                   # 2/23 ... 2/5
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
    e("vand.vx", xs, xs, e.ki(F64.mant_mask))
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
    e("vfmul.vf", p, p, e.k(C64.log2e))
    e("vfmacc.vf", p, e.k(C64.log2e_lo), big)
    e("vfmul.vf", big, big, e.k(C64.log2e_hi))         # exact: 18 x 32 bits
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


def _pow64(e: VMath, x: str, y: str) -> str:
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
    e("vfmul.vf", t, w, e.k(C64.ln2_tail))
    e("vfmacc.vf", t, e.k(C64.ln2), w)                 # r ln 2
    e.release(w)
    r = exp_core(e, t)
    e.release(t)
    e.scale(r, n)
    e.release(n)
    pow_special(e, r, x, y)
    return r


# ------------------------------------------------------------------------------------ cbrt, hypot

def cbrt(e: VMath, x: str) -> str:
    a = abs_(e, x)
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
    a, b = abs_(e, x), abs_(e, y)
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
