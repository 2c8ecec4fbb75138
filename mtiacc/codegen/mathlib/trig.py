"""sin and cos (f32 and f64) and tan (f32), with their reductions by pi/2.

The two widths reduce differently, so each has its own reduction and polynomial evaluation; they
share the Taylor tables' form and the quadrant selection at the end.

f32, accurate over every finite f32 (see docs/language.md, "Math").  Argument reduction to
``x = n * pi/2 + r``, ``|r| <= pi/4``, with ``r`` kept as two f32s ``rh + rl``:

* ``|x| < 2**16`` (the fast path): Cody-Waite with pi/2 split into three 24-bit f32 parts
  ``A + B + C``.  ``x - n*A`` is exact under a fused multiply-add (both are multiples of ``ulp(A)``
  and the difference is below 2), ``n*B`` is split exactly into a product and its rounding error,
  and the subtraction is a Fast2Sum (exact: ``x - n*A`` is a multiple of ``ulp(n*B)``), so ``rh + rl``
  carries ``r`` to ~2**-48 relative even when ``x`` is next to a multiple of pi/2 (the earlier
  reduction, with 8- and 11-bit parts of pi/2, lost up to 6e4 ULP of ``r`` there: 622 ULP of
  ``cos(252.89821)``).
* larger ``|x|`` (Payne-Hanek, in 32-bit integer lanes, exact): with ``|x| = m * 2**(E-150)`` (24-bit
  ``m``), the bits of 2/pi whose products with ``m`` are multiples of 4 are skipped; the next 96 bits
  ``W`` (three 32-bit words, selected per element from a table of 2/pi's bits by the exponent and
  shifted into place) give ``m * W mod 2**96``, whose top two bits are the quadrant and the next 62
  the fraction, computed with ``vmul``/``vmulhu`` and a carry.  The fraction goes to f32 through
  three exactly converted pieces and a 2Sum, then times pi/2 in two parts.  Bits of 2/pi beyond the
  window and below the second word change the fraction by < 2**-60, far below the smallest
  ``|x mod pi/2|`` of any f32 at or above 2**16 (2**-29.86 of a quadrant, from the continued fractions
  of 2/pi * 2**k; tests/language/test_libdevice.py checks it).  The large path runs only on strips that
  hold such an element (one reduction and a branch test per strip), merged in where it applies.

Polynomials on ``|r| <= pi/4`` (``z = rh*rh``): Taylor series for sin and cos, a
least-squares fit for tan (``fit.py``).

f64: ``x = n pi/2 + r``, pi/2 in four parts of at most 32 significant bits (``n * part`` exact for
``|n| < 2^21``), the sums carried as double-doubles (TwoSum), so ``r = rh + rl`` is good to ~2^-114
absolute even next to a multiple of pi/2; Taylor series to ``r^19`` (sin) and ``r^20`` (cos) with
``rl``'s first-order term, ``1 - z/2`` with its rounding error added back.  ``|x| > 2^21`` (no
Payne-Hanek reduction for doubles yet), inf and NaN give NaN.
"""
from __future__ import annotations

import math
from fractions import Fraction

from mtiacc.codegen.mathlib.base import F32, F64, PI, VMath, f32_parts, taylor_cos, taylor_sin, two_sum

# sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2): Taylor series to r^11 / r^12 (f32), r^19 / r^20 (f64)
POLYS = {F32: (taylor_sin(5), taylor_cos(6)), F64: (taylor_sin(9), taylor_cos(10))}

# ------------------------------------------------------------------------------------------ f32
PIO2_A, PIO2_B, PIO2_C = f32_parts(PI / 2, 3)                  # pi/2 in three f32 parts
FAST_LIMIT_BITS = 0x47800000                                   # 2**16: the fast path below
PAD = 9                                                        # zero bits ahead of 2/pi's first bit
# 2/pi's bits, PAD zeros first, as seven 32-bit words (224 bits cover the windows of every exponent)
_P = (2 << (224 - PAD)) * PI.denominator // PI.numerator       # floor(2/pi * 2**(224 - PAD))
P_WORDS = tuple((_P >> (32 * (6 - i))) & 0xFFFFFFFF for i in range(7))
# pi/2 * 2**-46 in two parts: the large path's fraction is in units of 2**-46 quadrants
K_HI, K_LO = f32_parts(PI / 2 / (1 << 46), 2)
# tan(r) = r + r*z*TAN_POLY(z), z = r*r, |r| <= pi/4 (fit.tan_fit)
TAN_POLY = (0.004369916394352913, 0.00010368525545345619, 0.010823366232216358, 0.02128765918314457,
            0.05405867099761963, 0.13332676887512207, 0.33333349227905273)


def _s32(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


def _fast(e: VMath, x: str):
    """(n, rh, rl): the quadrant (int) and r = x - n*pi/2 as rh + rl, for |x| < 2**16."""
    n = e.tmp()
    e("vfmul.vf", n, x, e.k(2 / math.pi))
    e("vfcvt.x.f.v", n, n)                      # n = round(x * 2/pi)
    nf = e.tmp()
    e("vfcvt.f.x.v", nf, n)
    r1 = e.tmp()
    e("vmv.v.v", r1, x)
    e("vfnmsac.vf", r1, e.k(PIO2_A), nf)        # x - n*A, exact
    t = e.tmp()
    e("vfmul.vf", t, nf, e.k(-PIO2_B))          # -n*B rounded ...
    tl = e.tmp()
    e("vmv.v.v", tl, t)
    e("vfmacc.vf", tl, e.k(PIO2_B), nf)         # ... and its rounding error, negated: n*B + t
    rh = e.tmp()
    e("vfadd.vv", rh, r1, t)
    err = e.tmp()
    e("vfsub.vv", err, r1, rh)
    e("vfadd.vv", err, err, t)                  # Fast2Sum: exact, as r1 is a multiple of ulp(t)
    e.release(r1, t)
    e("vfmacc.vf", tl, e.k(PIO2_C), nf)         # what is still to subtract: n*C + (n*B + t)
    e("vfsub.vv", err, err, tl)
    e.release(tl, nf)
    return n, rh, err


def _select(e: VMath, q: str):
    """The words P_WORDS[q + i], i = 0..3, for each element's q in 0..3 (one compare per q)."""
    words = []
    for i in range(4):
        w = e.tmp()
        e("vmv.v.x", w, e.ki(_s32(P_WORDS[i])))
        words.append(w)
    for t in (1, 2, 3):
        e("vmseq.vi", "v0", q, t)
        for i, w in enumerate(words):
            e("vmerge.vxm", w, w, e.ki(_s32(P_WORDS[t + i])), "v0")
    return words


def _window(e: VMath, hi: str, lo: str, k: str, kc: str) -> None:
    """hi = (hi << k) | (lo >> (32 - k)) for k in 0..31 (the second shift split: lo >> 1 >> (31 - k))."""
    t = e.tmp()
    e("vsll.vv", hi, hi, k)
    e("vsrl.vi", t, lo, 1)
    e("vsrl.vv", t, t, kc)
    e("vor.vv", hi, hi, t)
    e.release(t)


def _large(e: VMath, x: str):
    """(n, rh, rl) by Payne-Hanek for |x| >= 2**16 (other elements get values not used)."""
    ex = e.tmp()
    e("vsll.vi", ex, x, 1)
    e("vsrl.vi", ex, ex, 24)                    # biased exponent E
    e("vadd.vx", ex, ex, e.ki(PAD - 152))       # j0: the window's first bit in the padded table
    e("vmax.vx", ex, ex, "zero")
    k = e.tmp()
    e("vand.vx", k, ex, e.ki(31))
    kc = e.tmp()
    e("vrsub.vx", kc, k, e.ki(31))
    e("vsrl.vi", ex, ex, 5)                     # q = j0 / 32: word index 0..3
    w0, w1, w2, d = _select(e, ex)
    e.release(ex)
    _window(e, w0, w1, k, kc)                   # the 96-bit window W = w0:w1:w2
    _window(e, w1, w2, k, kc)
    _window(e, w2, d, k, kc)
    e.release(d, k, kc)
    m = e.tmp()
    e("vand.vx", m, x, e.ki(0x7FFFFF))
    e("vor.vx", m, m, e.ki(0x800000))           # 24-bit significand
    # m * (w0:w1:w2) mod 2**96, top two words r0:r1
    r1 = e.tmp()
    e("vmulhu.vv", r1, m, w2)
    e.release(w2)
    lo1 = e.tmp()
    e("vmul.vv", lo1, m, w1)
    e("vadd.vv", r1, r1, lo1)
    e("vmsltu.vv", "v0", r1, lo1)               # carry out of the middle word
    e("vmulhu.vv", w1, m, w1)
    e("vmul.vv", w0, m, w0)
    e("vadd.vv", w0, w0, w1)
    e("vmv.v.i", lo1, 0)
    e("vmerge.vim", lo1, lo1, 1, "v0")
    e("vadd.vv", w0, w0, lo1)                   # r0
    e.release(m, w1)
    # nearest quadrant: n = top two bits of r0 + 2**29, fraction fr = the rest - 2**29 (signed)
    e("vadd.vx", w0, w0, e.ki(1 << 29))
    n = e.tmp()
    e("vsrl.vi", n, w0, 30)
    e("vand.vx", w0, w0, e.ki(0x3FFFFFFF))
    e("vadd.vx", w0, w0, e.ki(-(1 << 29)))
    # F = fr * 2**32 + r1 (units 2**-62 quadrant) as three f32 pieces in units of 2**-46, each exact
    p1 = e.tmp()
    e("vand.vx", p1, w0, e.ki(-256))
    e("vfcvt.f.x.v", p1, p1)
    e("vfmul.vf", p1, p1, e.k(2.0 ** 16))       # (fr with its low 8 bits cleared) * 2**16
    p2 = lo1
    e("vand.vx", p2, w0, e.ki(0xFF))
    e.release(w0)
    e("vsll.vi", p2, p2, 16)
    t = e.tmp()
    e("vsrl.vi", t, r1, 16)
    e("vor.vv", p2, p2, t)
    e("vfcvt.f.xu.v", p2, p2)                   # (fr & 255) << 16 | r1 >> 16: 24 bits
    e("vand.vx", t, r1, e.ki(0xFFFF))
    e("vfcvt.f.xu.v", t, t)
    e("vfmul.vf", t, t, e.k(2.0 ** -16))        # (r1 & 0xFFFF) / 2**16
    e.release(r1)
    s, err = two_sum(e, p1, p2)
    e.release(p1, p2)
    e("vfadd.vv", err, err, t)
    # r = (s + err) * pi/2 * 2**-46, as rh + rl
    e("vfmul.vf", t, err, e.k(K_HI))
    e("vfmacc.vf", t, e.k(K_LO), s)
    rh = e.tmp()
    e("vmv.v.v", rh, t)
    e("vfmacc.vf", rh, e.k(K_HI), s)
    e("vmv.v.v", err, rh)
    e("vfmsac.vf", err, e.k(K_HI), s)           # s*K_HI - rh, one rounding
    e("vfadd.vv", err, err, t)                  # rl
    e.release(s, t)
    # the sign of x: r -> -r, n -> -n
    sg = e.tmp()
    e("vsra.vi", sg, x, 31)
    e("vxor.vv", n, n, sg)
    e("vsub.vv", n, n, sg)
    e("vfsgnjx.vv", rh, rh, x)
    e("vfsgnjx.vv", err, err, x)
    e.release(sg)
    return n, rh, err


def reduce_pio2(e: VMath, x: str):
    """(n, rh, rl) with x = n*pi/2 + rh + rl, |rh| <= pi/4 (about), for finite x."""
    n, rh, rl = _fast(e, x)
    b = e.b
    skip = None if e.dry else b.new_label("trig_small")
    a = e.tmp()
    e("vsll.vi", a, x, 1)                       # |x|'s bits, shifted: unsigned order is |x|'s order
    e("vredmaxu.vs", a, a, a)
    big = None if e.dry else b.x("big")
    e("vmv.x.s", big, a)
    e.release(a)
    e("bltu", big, e.ki(_s32(FAST_LIMIT_BITS << 1)), skip)  # every element below 2**16 (vmv.x.s sign-extends)
    n2, rh2, rl2 = _large(e, x)
    a = e.tmp()
    e("vsll.vi", a, x, 1)
    e("vmsgtu.vx", "v0", a, e.ki((FAST_LIMIT_BITS << 1) - 1))
    e("vmerge.vvm", n, n, n2, "v0")
    e("vmerge.vvm", rh, rh, rh2, "v0")
    e("vmerge.vvm", rl, rl, rl2, "v0")
    e.release(n2, rh2, rl2, a)
    if not e.dry:
        b.label(skip)
    return n, rh, rl


def _sincos32(e: VMath, x: str, cosine: bool) -> str:
    n, rh, rl = reduce_pio2(e, x)
    if cosine:
        e("vadd.vi", n, n, 1)                      # cos(x) = sin(x + pi/2)
    sin_poly, cos_poly = POLYS[F32]
    z = e.tmp()
    e("vfmul.vv", z, rh, rh)
    ps = e.horner(sin_poly, z)
    e("vfmul.vv", ps, ps, z)
    sin_r = e.tmp()
    e("vmv.v.v", sin_r, rl)
    e("vfmacc.vv", sin_r, ps, rh)                  # rl + rh^3 * S(z)
    e("vfadd.vv", sin_r, sin_r, rh)
    e.release(ps)
    pc = e.horner(cos_poly, z)
    e("vfmul.vv", pc, pc, z)
    e("vfmul.vv", pc, pc, z)                       # z^2 * C(z)
    e("vfnmsac.vv", pc, rh, rl)                    # - rh*rl: cos(rh + rl) ~ cos(rh) - rl*sin(rh)
    cos_r = e.tmp()
    e("vfmv.v.f", cos_r, e.k(1.0))
    e("vfnmsac.vf", cos_r, e.k(0.5), z)            # 1 - z/2
    e("vfadd.vv", cos_r, cos_r, pc)
    e.release(pc, z, rh, rl)
    q = _quadrant(e, n, sin_r, cos_r)
    e.release(q, cos_r, n)
    _fixups(e, sin_r, x, keep_zero=not cosine)
    return sin_r


def _fixups(e: VMath, res: str, x: str, keep_zero: bool) -> None:
    """NaN for infinite or NaN x; sin(+-0) and tan(+-0) are x."""
    if keep_zero:
        e("vmfeq.vf", "v0", x, e.k(0.0))
        e("vmerge.vvm", res, res, x, "v0")
    q = e.tmp()
    e("vfsub.vv", q, x, x)                         # NaN where x is inf or NaN
    e("vmfne.vv", "v0", q, q)
    e("vmerge.vvm", res, res, q, "v0")
    e.release(q)


def tan(e: VMath, x: str) -> str:
    """tan(r) for even quadrants, -1/tan(r) for odd ones."""
    n, rh, rl = reduce_pio2(e, x)
    z = e.tmp()
    e("vfmul.vv", z, rh, rh)
    p = e.horner(TAN_POLY, z)
    e("vfmul.vv", p, p, z)
    t = e.tmp()
    e("vmv.v.v", t, rl)
    e("vfmacc.vv", t, p, rh)                       # rl + rh^3 * P(z)
    e("vfadd.vv", t, t, rh)
    e("vfrdiv.vf", p, t, e.k(-1.0))
    e("vand.vi", z, n, 1)
    e("vmsne.vi", "v0", z, 0)
    e("vmerge.vvm", t, t, p, "v0")
    e.release(z, p, n, rh, rl)
    _fixups(e, t, x, keep_zero=True)
    return t


# ------------------------------------------------------------------------------------------ f64

def _pio2_parts(count: int = 4, bits: int = 33):
    """pi/2 as ``count`` doubles of ``bits`` significant bits each (truncations of what is left), so
    ``n * part`` is exact for |n| < 2^(53 - bits)."""
    rest = PI / 2
    out = []
    for _ in range(count):
        e = math.floor(math.log2(rest))
        scale = Fraction(2) ** (bits - 1 - e)
        part = Fraction(math.floor(rest * scale)) / scale
        out.append(float(part))
        rest -= part
    return tuple(out), float(2 / PI)


PIO2, INV_PIO2 = _pio2_parts()
TRIG_LIMIT = 2.0 ** 21          # |n| < 2^21 there, and the parts have at most 32 significant bits


def _reduce64(e: VMath, x: str):
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


def _kernels64(e: VMath, rh: str, rl: str):
    """(sin(rh + rl), cos(rh + rl)) for |rh| <= ~pi/4."""
    sin_poly, cos_poly = POLYS[F64]
    z = e.tmp()
    e("vfmul.vv", z, rh, rh)
    ps = e.horner(sin_poly, z)                      # sin = rh + rh z ps(z) + rl (1 - z/2)
    e("vfmul.vv", ps, ps, z)
    e("vfmul.vv", ps, ps, rh)
    t = e.tmp()
    e("vfmul.vf", t, z, e.k(-0.5))
    e("vfmul.vv", t, t, rl)
    e("vfadd.vv", t, t, rl)
    e("vfadd.vv", ps, ps, t)
    e("vfadd.vv", ps, ps, rh)
    pc = e.horner(cos_poly, z)                      # cos = 1 - z/2 + z^2 pc(z) - rh rl
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


def _sincos64(e: VMath, x: str, cosine: bool) -> str:
    n, rh, rl = _reduce64(e, x)
    s, c = _kernels64(e, rh, rl)
    e.release(rh, rl)
    if cosine:
        e("vadd.vi", n, n, 1)                       # cos(x) = sin(x + pi/2)
    q = _quadrant(e, n, s, c)
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


# ------------------------------------------------------------------------------------- both widths

def _quadrant(e: VMath, n: str, s: str, c: str) -> str:
    """s = sin(x) for x = n pi/2 + r from s = sin(r), c = cos(r) (c is clobbered); returns the
    temporary it used, for the caller to release."""
    q = e.tmp()
    e("vand.vi", q, n, 1)
    e("vmsne.vi", "v0", q, 0)                       # odd quadrant: the other kernel
    e("vmerge.vvm", s, s, c, "v0")
    e("vand.vi", q, n, 2)
    e("vmsne.vi", "v0", q, 0)                       # quadrants 2 and 3: negated
    e("vfsgnjn.vv", c, s, s)
    e("vmerge.vvm", s, s, c, "v0")
    return q


def sin(e: VMath, x: str) -> str:
    return (_sincos64 if e.w == F64 else _sincos32)(e, x, cosine=False)


def cos(e: VMath, x: str) -> str:
    return (_sincos64 if e.w == F64 else _sincos32)(e, x, cosine=True)


