"""How the device math library's fitted polynomials were derived (run: ``python -m mtiacc.codegen.mathlib.fit``).

Each table is a weighted least-squares fit (numpy, float64) on Chebyshev nodes, reweighted a few
times towards the points of largest error (a cheap approach to minimax), then rounded to f32.  The
printed tuples are pasted into ``trig.py``, ``inverse.py`` and ``special.py``; the maximum relative
errors printed are those of the f32-rounded coefficients evaluated in float64.
"""
from __future__ import annotations

import math

import numpy as np


def cheb_nodes(lo: float, hi: float, n: int = 4000) -> np.ndarray:
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def _lsq(u, target, deg, w, rounds):
    boost = np.ones_like(u)
    for _ in range(rounds):
        V = np.vander(u, deg + 1) * (w * boost)[:, None]
        c, *_ = np.linalg.lstsq(V, target * w * boost, rcond=None)
        err = np.abs(np.polyval(c, u) - target) * w
        boost *= 1 + err / err.max()
    return c


def fit(u: np.ndarray, target: np.ndarray, deg: int, rel_to: np.ndarray, rounds: int = 30):
    """Coefficients (highest power first) of a degree-``deg`` polynomial P with P(u) ~ target, the
    error measured relative to ``rel_to``; returns (coeffs as f32 floats, max error).  The
    coefficients are rounded to f32 one at a time from the constant term up, the higher ones refit
    after each rounding so that they absorb its error."""
    w = 1.0 / np.abs(rel_to)
    fixed = []                                   # constant term first
    rest = target.copy()
    for j in range(deg + 1):
        c = _lsq(u, rest / u ** j, deg - j, w * np.abs(u) ** j, rounds)
        cj = float(np.float32(c[-1]))
        fixed.append(cj)
        rest = rest - cj * u ** j
    c32 = tuple(reversed(fixed))
    err = np.abs(np.polyval(c32, u) - target) * w
    return c32, float(err.max())


def tan_fit(deg: int = 6):
    """tan(r) = r + r*z*P(z), z = r*r, |r| <= pi/4: P(z) = (tan r - r) / r^3."""
    r = cheb_nodes(1e-4, math.pi / 4)
    z = r * r
    return fit(z, (np.tan(r) - r) / (r * z), deg, np.tan(r) / (r * z))


def atan_fit(deg: int = 7):
    """atan(t) = t + t*z*P(z), z = t*t, |t| <= 1/2."""
    t = cheb_nodes(1e-4, 0.5)
    z = t * t
    return fit(z, (np.arctan(t) - t) / (t * z), deg, np.arctan(t) / (t * z))


def asin_fit(deg: int = 5):
    """asin(s) = s + s*z*P(z), z = s*s, 0 <= s <= 1/2."""
    s = cheb_nodes(1e-4, 0.5)
    z = s * s
    return fit(z, (np.arcsin(s) - s) / (s * z), deg, np.arcsin(s) / (s * z))


def acosh_fit(deg: int = 7):
    """acosh(1 + t) = sqrt(2t) * P(t), 0 <= t <= 1."""
    t = cheb_nodes(1e-6, 1.0)
    r = np.arccosh(1 + t) / np.sqrt(2 * t)
    return fit(t, r, deg, r)


def atanh_fit(deg: int = 6):
    """atanh(a) = a + a*z*P(z), z = a*a, 0 <= a <= 1/2."""
    a = cheb_nodes(1e-4, 0.5)
    z = a * a
    return fit(z, (np.arctanh(a) - a) / (a * z), deg, np.arctanh(a) / (a * z))


_lgamma = np.vectorize(math.lgamma)


def lgamma_fits(deg1: int = 12, deg2: int = 10):
    """lgamma(1 + t) = t * P1(t) and lgamma(2 + t) = t * P2(t), |t| <= 1/2."""
    t = cheb_nodes(-0.5, 0.5)
    t = t[np.abs(t) > 1e-9]
    out = []
    for base, deg in ((1, deg1), (2, deg2)):
        q = _lgamma(base + t) / t
        out.append(fit(t, q, deg, q))
    return tuple(out)


_erfc = np.vectorize(math.erfc)


def erfc_fits(deg1: int = 10, deg2: int = 9):
    """erfc(x) = exp(-x*x) * Q(x): on [0.5, 2] Q = P1(x - 1.25); on [2, 10.1] Q = P2(1/x) / x."""
    x = cheb_nodes(0.5, 2.0)
    q = _erfc(x) * np.exp(x * x)
    p1 = fit(x - 1.25, q, deg1, q)
    x = cheb_nodes(2.0, 10.1)
    q = _erfc(x) * np.exp(x * x) * x
    p2 = fit(1 / x, q, deg2, q)
    return p1, p2


def _erfinv(x: np.ndarray, one_minus: np.ndarray) -> np.ndarray:
    """erfinv by Newton's method on erf (erfc near 1, given 1 - x accurately), float64."""
    y = np.where(x < 0.9, x * math.sqrt(math.pi) / 2, np.sqrt(-np.log(one_minus)))
    erf = np.vectorize(math.erf)
    for _ in range(60):
        f = np.where(x < 0.5, erf(y) - x, one_minus - _erfc(y))
        y = y - f / (2 / math.sqrt(math.pi) * np.exp(-y * y))
    return y


def erfinv_fits(deg1: int = 11, deg2: int = 10):
    """erfinv(x) = x * P(w), w = -log((1-x)(1+x)): w <= 5: P1(w - 2.5); w > 5: P2(sqrt(w) - 3)."""
    out = []
    for lo, hi, deg, var in ((1e-6, 5.0, deg1, lambda w: w - 2.5), (math.sqrt(5.0), 4.2, deg2, lambda s: s - 3)):
        u = cheb_nodes(lo, hi)
        w = u if deg == deg1 else u * u
        om = np.exp(-w)                       # 1 - x^2
        x = np.sqrt(-np.expm1(-w))
        one_minus = om / (1 + x)
        y = _erfinv(x, one_minus)
        out.append(fit(var(u), y / x, deg, y / x))
    return tuple(out)


def tables():
    """name -> (coefficients, max relative error) for every fitted table."""
    (n1, n2), (i1, i2), (g1, g2) = erfc_fits(), erfinv_fits(), lgamma_fits()
    return {"TAN_POLY": tan_fit(), "ATAN_POLY": atan_fit(), "ASIN_POLY": asin_fit(), "ACOSH_POLY": acosh_fit(),
            "ATANH_POLY": atanh_fit(), "ERFC_NEAR": n1,
            "ERFC_FAR": n2, "ERFINV_CENTRAL": i1, "ERFINV_TAIL": i2,
            "LGAMMA_1": g1, "LGAMMA_2": g2}


if __name__ == "__main__":
    for name, (c, err) in tables().items():
        print(f"{name} = {c}  # max rel err {err:.2e}")
