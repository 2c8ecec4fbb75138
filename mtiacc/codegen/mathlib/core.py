"""The device math library: ``math.*`` ops as RVV instruction sequences on f32.

Every function is range reduction + a polynomial + fix-ups for the special values, written as a
straight sequence of vector instructions (no branches), so it runs on a whole strip of ``vl``
elements at once.  The loop runs at ``e32, m2``: the operands arrive in ``v8``, ``v16``, ``v24`` and
the twelve other even register groups are temporaries.  Constants are hoisted out of the loop into
``f``/``x`` registers (a dry run of the expansion collects them first).

f16 and bf16 operands are converted to f32 by the frontend before they get here (and the results
back), so only f32 is handled here; float64 expansions are in ``mathlib_f64.py`` (``expansion(op)``
picks by element type).  Accuracy, measured against numpy in float64, is in docs/language.md.

sin, cos and tan are in ``mathlib_trig.py``, the rest of libdevice (atan, asin, sinh, erfinv, ...) in
``mathlib_more.py``; both reuse this module's ``VMath`` and helpers.

Polynomials: Taylor series where they converge fast enough (exp, sin, cos, the atanh series of log,
erf near 0); for erfc a least-squares fit (numpy ``polyfit`` on Chebyshev nodes, degree 7 in
``t = 1/(1 + x/2)`` on [0.75, 4]) of ``erfc(x) * exp(x*x)``.
"""
from __future__ import annotations

import math
import struct
from typing import Callable, Dict, List

from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.arith.scalar import f32_bits
from mtiacc.codegen.vector.vloop import Src, VLoop, emit_loop
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import f32, f64, i32

TEMPS = ("v2", "v4", "v6", "v10", "v12", "v14", "v18", "v20", "v22", "v26", "v28", "v30")
LN2_HI, LN2_LO = 0.693145751953125, 1.428606765330187e-06   # ln 2 = HI + LO, HI has 16 bits
LOG2E = 1.4426950408889634
EXP_POLY = tuple(1.0 / math.factorial(k) for k in range(8, 1, -1))       # r^7/7! ... r^2/2!
LOG_POLY = (2 / 9, 2 / 7, 2 / 5, 2 / 3)                                    # atanh series in s^2
SIN_POLY = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(5, 0, -1))
COS_POLY = tuple((-1) ** k / math.factorial(2 * k) for k in range(6, 1, -1))
ERF_SMALL = tuple(2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                  for n in range(9, -1, -1))
ERFC_FIT = (0.11903271824121475, -0.47007760405540466, 0.5615748167037964, -0.10220247507095337,
            0.3471044600009918, 0.25989389419555664, 0.2848789095878601, -0.00015185237862169743)


class VMath:
    """Emits one expansion; in a dry run only records the constants it needs."""

    def __init__(self, b: MBuilder, consts: Dict[tuple, VReg], dry: bool):
        self.b = b
        self.consts = consts
        self.dry = dry
        self.free: List[str] = list(TEMPS)
        self.wide = False          # float64 expansions (mathlib_f64) set it: k() hoists doubles

    def __call__(self, *args) -> None:
        if not self.dry:
            self.b(*args)

    def tmp(self) -> str:
        if not self.free:
            raise CompileError("internal: the math library ran out of vector registers")
        return self.free.pop(0)

    def release(self, *regs: str) -> None:
        for r in regs:
            if r in TEMPS and r not in self.free:
                self.free.insert(0, r)

    def k(self, value: float):
        """An f register holding the constant ``value`` (f32, or f64 when ``wide``)."""
        key = ("d", struct.unpack("<q", struct.pack("<d", value))[0]) if self.wide else ("f", f32_bits(value))
        if key not in self.consts:
            self.consts[key] = None
        return self.consts[key]

    def ki(self, value: int):
        key = ("x", value)
        if key not in self.consts:
            self.consts[key] = None
        return self.consts[key]

    # ---- building blocks
    def splat(self, value: float) -> str:
        r = self.tmp()
        self("vfmv.v.f", r, self.k(value))
        return r

    def horner(self, coeffs, x: str) -> str:
        """coeffs[0]*x^(n-1) + ... + coeffs[-1] (each step one fused multiply-add)."""
        p = self.splat(coeffs[0])
        for c in coeffs[1:]:
            acc = self.splat(c)
            self("vfmacc.vv", acc, p, x)
            self.release(p)
            p = acc
        return p

    def nan_passthrough(self, res: str, x: str) -> None:
        """res = x where x is NaN (NaN in, NaN out)."""
        self("vmfne.vv", "v0", x, x)
        self("vmerge.vvm", res, res, x, "v0")

    def set_where(self, res: str, cond: Callable[[], None], value: float) -> None:
        """res = value where the mask that ``cond`` writes to v0 is set."""
        cond()
        self("vfmerge.vfm", res, res, self.k(value), "v0")

    def pow2i(self, n: str) -> str:
        """The f32 2^n for integer elements n in [-126, 127]."""
        r = self.tmp()
        self("vadd.vx", r, n, self.ki(127))
        self("vsll.vi", r, r, 23)
        return r

    def scale(self, p: str, n: str) -> None:
        """p *= 2^n for n in [-252, 254] (two steps, so subnormal and infinite results come out right)."""
        half = self.tmp()
        self("vsra.vi", half, n, 1)
        s = self.pow2i(half)
        self("vfmul.vv", p, p, s)
        self("vsub.vv", half, n, half)
        self.release(s)
        s = self.pow2i(half)
        self("vfmul.vv", p, p, s)
        self.release(s, half)


# ------------------------------------------------------------------------------------------ functions

def two_sum(e: VMath, a: str, b: str):
    """(s, err) with s + err == a + b exactly (Knuth's TwoSum; no magnitude order needed)."""
    s = e.tmp()
    e("vfadd.vv", s, a, b)
    bb = e.tmp()
    e("vfsub.vv", bb, s, a)
    t = e.tmp()
    e("vfsub.vv", t, s, bb)
    e("vfsub.vv", t, a, t)
    e("vfsub.vv", bb, b, bb)
    e("vfadd.vv", t, t, bb)
    e.release(bb)
    return s, t


def _exp_core(e: VMath, x: str, base2: bool = False, half: bool = False) -> str:
    """e^x (or 2^x; halved with ``half``) for non-NaN x; overflow gives inf, underflow 0 (subnormals
    on the way)."""
    xc = e.tmp()
    lo, hi = (-152.0, 130.0) if base2 else (-105.0, 90.0)
    e("vfmax.vf", xc, x, e.k(lo))
    e("vfmin.vf", xc, xc, e.k(hi))
    n = e.tmp()
    if base2:
        e("vfcvt.x.f.v", n, xc)                    # n = round(x)
    else:
        e("vfmul.vf", n, xc, e.k(LOG2E))
        e("vfcvt.x.f.v", n, n)                     # n = round(x / ln 2)
    nf = e.tmp()
    e("vfcvt.f.x.v", nf, n)
    r = e.tmp()
    e("vfsub.vv", r, xc, nf) if base2 else e("vmv.v.v", r, xc)
    if base2:
        e("vfmul.vf", r, r, e.k(math.log(2.0)))
    else:
        e("vfnmsac.vf", r, e.k(LN2_HI), nf)        # r = x - n*ln2 (Cody-Waite, two parts)
        e("vfnmsac.vf", r, e.k(LN2_LO), nf)
    e.release(nf, xc)
    p = e.horner(EXP_POLY, r)                      # p = r/2 + r^2/6 + ...  (so e^r = 1 + r + r^2 * p)
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
    r = _exp_core(e, x, base2)
    e.nan_passthrough(r, x)
    return r


def exp2(e: VMath, x: str) -> str:
    return exp(e, x, base2=True)


def _log_parts(e: VMath, x: str, split: bool = False):
    """(k as float, log(m)) with x = 2^k * m, m in [sqrt(1/2), sqrt(2)), for finite x > 0; with
    ``split``, (k, hi, lo) with log(m) = hi + lo to a few bits beyond f32."""
    xs = e.tmp()
    e("vfmul.vf", xs, x, e.k(2.0 ** 23))
    e("vmflt.vf", "v0", x, e.k(2.0 ** -126))      # subnormal (or <= 0): scale up first
    e("vmerge.vvm", xs, x, xs, "v0")
    adj = e.tmp()
    e("vmv.v.i", adj, 0)
    e("vmerge.vxm", adj, adj, e.ki(-23), "v0")
    ix = e.tmp()
    e("vadd.vx", ix, xs, e.ki(0x3F800000 - 0x3F3504F3))
    kk = e.tmp()
    e("vsra.vi", kk, ix, 23)
    e("vadd.vx", kk, kk, e.ki(-127))
    e("vadd.vv", kk, kk, adj)
    e("vand.vx", ix, ix, e.ki(0x007FFFFF))
    e("vadd.vx", ix, ix, e.ki(0x3F3504F3))         # m as bits
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
    p = e.horner(LOG_POLY, z)                       # log m = 2s + s*z*p = f - hf + s*(hf + z*p)
    hf = e.tmp()
    e("vfmul.vv", hf, f, f)
    e("vfmul.vf", hf, hf, e.k(0.5))
    t = e.tmp()
    e("vmv.v.v", t, hf)
    e("vfmacc.vv", t, z, p)                         # hf + z*p
    e.release(p, z)
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
    kf = e.tmp()
    e("vfcvt.f.x.v", kf, kk)
    e.release(kk)
    return (kf, lm, lo) if split else (kf, lm)


def _log_fixups(e: VMath, r: str, x: str) -> None:
    e.set_where(r, lambda: e("vmflt.vf", "v0", x, e.k(0.0)), math.nan)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(0.0)), -math.inf)
    e.set_where(r, lambda: e("vmfeq.vf", "v0", x, e.k(math.inf)), math.inf)
    e.nan_passthrough(r, x)


def log(e: VMath, x: str) -> str:
    kf, lm = _log_parts(e, x)
    e("vfmacc.vf", lm, e.k(LN2_LO), kf)
    e("vfmacc.vf", lm, e.k(LN2_HI), kf)
    e.release(kf)
    _log_fixups(e, lm, x)
    return lm


def log2(e: VMath, x: str) -> str:
    kf, lm = _log_parts(e, x)
    e("vfmul.vf", lm, lm, e.k(LOG2E))
    e("vfadd.vv", lm, lm, kf)
    e.release(kf)
    _log_fixups(e, lm, x)
    return lm


def log1p(e: VMath, x: str, log_: Callable = None) -> str:
    """log(1 + x) = log(u) * x / (u - 1) with u = 1 + x (exact correction for the rounding of u).
    ``log_``: the library's log (mathlib_f64 passes its own; these sequences serve both widths)."""
    u = e.tmp()
    e("vfadd.vf", u, x, e.k(1.0))
    lu = (log_ or log)(e, u)
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


def expm1(e: VMath, x: str, exp_: Callable = None, log_: Callable = None) -> str:
    """e^x - 1 = (u - 1) * x / log(u) with u = e^x (Kahan)."""
    u = (exp_ or exp)(e, x)
    lu = (log_ or log)(e, u)
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


def tanh(e: VMath, x: str, expm1_: Callable = None, clamp: float = 9.0) -> str:
    """copysign(m / (m + 2), x) with m = expm1(2 min(|x|, clamp)); tanh(clamp) rounds to 1 (9 in f32)."""
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vfmin.vf", a, a, e.k(clamp))
    e("vfadd.vv", a, a, a)
    m = (expm1_ or expm1)(e, a)
    d = e.tmp()
    e("vfadd.vf", d, m, e.k(2.0))
    e("vfdiv.vv", m, m, d)
    e("vfsgnj.vv", m, m, x)
    e.release(a, d)
    e.nan_passthrough(m, x)
    return m


def erf(e: VMath, x: str) -> str:
    """x * P(x^2) for |x| < 0.75, else copysign(1 - exp(-x^2) * Q(1 / (1 + |x|/2)), x)."""
    z = e.tmp()
    e("vfmul.vv", z, x, x)
    small = e.horner(ERF_SMALL, z)
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


def _rounding(e: VMath, x: str, mode: str) -> str:
    """floor / ceil / trunc / round-half-even, for |x| < 2^23 (larger floats are integers already)."""
    t = e.tmp()
    e("vfcvt.x.f.v" if mode == "round" else "vfcvt.rtz.x.f.v", t, x)
    e("vfcvt.f.x.v", t, t)
    if mode in ("floor", "ceil"):
        adj = e.tmp()
        if mode == "floor":
            e("vmflt.vv", "v0", x, t)              # t > x: t - 1
            e("vfsub.vf", adj, t, e.k(1.0))
        else:
            e("vmflt.vv", "v0", t, x)              # t < x: t + 1
            e("vfadd.vf", adj, t, e.k(1.0))
        e("vmerge.vvm", t, t, adj, "v0")
        e.release(adj)
    e("vfsgnj.vv", t, t, x)                        # -0.5 -> -0.0
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    e("vmflt.vf", "v0", a, e.k(2.0 ** 23))
    e("vmerge.vvm", a, x, t, "v0")                 # big, inf and NaN stay as they are
    e.release(t)
    return a


def sqrt(e: VMath, x: str) -> str:
    r = e.tmp()
    e("vfsqrt.v", r, x)
    return r


def rsqrt(e: VMath, x: str) -> str:
    r = sqrt(e, x)
    e("vfrdiv.vf", r, r, e.k(1.0))
    return r


def absf(e: VMath, x: str) -> str:
    r = e.tmp()
    e("vfsgnjx.vv", r, x, x)
    return r


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


def powf(e: VMath, x: str, y: str) -> str:
    """x^y = 2^n * 2^rest with n + rest = y * log2|x| (y * k kept exact), then C99's special cases."""
    a = pow_base(e, x)
    kf, lm = _log_parts(e, a)                       # log2|x| = kf + lm * log2(e)
    e("vfmul.vf", lm, lm, e.k(LOG2E))
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
    r = _exp_core(e, hi, base2=True)
    e.release(hi)
    nn = e.tmp()
    e("vmax.vx", nn, n, e.ki(-150))
    e("vmin.vx", nn, nn, e.ki(150))
    e("vsub.vv", n, n, nn)
    e.scale(r, nn)
    e.scale(r, n)                                   # 2^n in two clamped steps
    e.release(n, nn)
    e.release(a)
    pow_special(e, r, x, y, lambda v: _rounding(e, v, "trunc"))
    return r


def pow_special(e: VMath, r: str, x: str, y: str, trunc: Callable[[str], str]) -> None:
    """C99's special cases of ``pow`` applied to the result ``r`` (f32 and f64; ``trunc`` rounds to 0)."""
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
    yi = trunc(y)
    e("vfmul.vf", w, y, e.k(0.5))
    yh = trunc(w)
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


def fma(e: VMath, a: str, b: str, c: str) -> str:
    r = e.tmp()
    e("vmv.v.v", r, c)
    e("vfmacc.vv", r, a, b)
    return r


UNARY: Dict[str, Callable] = {
    "math.exp": exp, "math.exp2": exp2, "math.log": log, "math.log2": log2, "math.log1p": log1p,
    "math.expm1": expm1, "math.tanh": tanh, "math.erf": erf,
    "math.sqrt": sqrt, "math.rsqrt": rsqrt, "math.absf": absf,
    "math.floor": lambda e, x: _rounding(e, x, "floor"), "math.ceil": lambda e, x: _rounding(e, x, "ceil"),
    "math.trunc": lambda e, x: _rounding(e, x, "trunc"), "math.rint": lambda e, x: _rounding(e, x, "round"),
}
EXPANSIONS: Dict[str, Callable] = {**UNARY, "math.powf": powf, "math.fma": fma}
_EXTENDED = []


def _extend() -> None:
    """Add the expansions of mathlib_trig (sin, cos, tan) and mathlib_more (the rest of libdevice);
    they import this module's helpers, so they are loaded on first use."""
    if not _EXTENDED:
        from mtiacc.codegen.mathlib import libdevice as mathlib_more
        from mtiacc.codegen.mathlib import trig as mathlib_trig
        EXPANSIONS.update(mathlib_trig.EXPANSIONS)
        EXPANSIONS.update(mathlib_more.EXPANSIONS)
        _EXTENDED.append(True)


def expansion(op) -> Callable:
    """The expansion of math op ``op`` for its element type: f32 here and in the modules above, f64 in
    ``mathlib_f64`` (a CompileError for an f64 function it does not have)."""
    _extend()
    elem = op.result.type.element_type
    if elem == f64:
        from mtiacc.codegen.mathlib import f64 as mathlib_f64
        if op.name not in mathlib_f64.EXPANSIONS:
            raise CompileError(f"'{op.name}' on f64 is not supported yet")
        return mathlib_f64.EXPANSIONS[op.name]
    if elem != f32:
        raise CompileError(f"'{op.name}' on {elem} is not supported yet (the frontend computes in f32)")
    return EXPANSIONS[op.name]


def is_math(op) -> bool:
    _extend()
    return op.name in EXPANSIONS


def _materialize(b: MBuilder, consts: Dict[tuple, VReg]) -> None:
    for key in consts:
        kind, value = key
        if kind == "x":
            consts[key] = b.li(value, "k")
        elif kind == "d":
            r = b.f("k")
            b("fmv.d.x", r, b.li(value))
            consts[key] = r
        else:
            r = b.f("k")
            b("fmv.w.x", r, b.li(value))
            consts[key] = r


def lower_math(b: MBuilder, op, srcs: List[Src], dst: Src) -> None:
    """Emit the strip-mined loop computing math op `op` (f32) from `srcs` into `dst`."""
    elem = op.result.type.element_type
    if elem == f64 and op.name == "math.sqrt":   # the frontend keeps only sqrt in f64
        def compute64(loop: VLoop, g: List[str]) -> str:
            loop.ensure(f64)
            b("vfsqrt.v", g[0], g[0])
            return g[0]
        emit_loop(b, op.result.type.numel, srcs, dst, compute64, comment=op.name, lmul=4)
        return
    fn = expansion(op)
    consts: Dict[tuple, VReg] = {}
    fn(VMath(b, consts, dry=True), *("v8", "v16", "v24")[:len(srcs)])
    _materialize(b, consts)

    def compute(loop: VLoop, g: List[str]) -> str:
        loop.ensure(elem)
        return fn(VMath(b, consts, dry=False), *g)

    emit_loop(b, op.result.type.numel, srcs, dst, compute, comment=op.name, lmul=2)


def lower_math_scalar(b: MBuilder, op, get) -> VReg:
    """A math op on f32 scalars: run the vector expansion with vl = 1."""
    if op.result.type == f64 and op.name == "math.sqrt":
        r = b.f("math")
        b("fsqrt.d", r, get(op.operands[0]))
        return r
    fn = expansion(op)
    consts: Dict[tuple, VReg] = {}
    fn(VMath(b, consts, dry=True), *("v8", "v16", "v24")[:len(op.operands)])
    _materialize(b, consts)
    vl = b.x("vl")
    b("vsetivli", vl, 1, "e64, m2, ta, ma" if op.result.type == f64 else "e32, m2, ta, ma")
    groups = []
    for g, v in zip(("v8", "v16", "v24"), op.operands):
        b("vfmv.s.f", g, get(v))
        groups.append(g)
    res = fn(VMath(b, consts, dry=False), *groups)
    r = b.f("math")
    b("vfmv.f.s", r, res)
    return r


__all__ = ["lower_math", "lower_math_scalar", "is_math", "EXPANSIONS", "i32"]
