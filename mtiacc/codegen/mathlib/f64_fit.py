"""How the float64 math library's fitted tables were derived (run: ``python -m mtiacc.codegen.mathlib.f64_fit``).

``ERFC_CHEB`` (``special.py``): ``Q(x) = erfc(x) exp(x^2)`` on ``1 <= x <= 6`` as a Chebyshev series in
``t = 1 / (1 + x)`` (mapped onto [-1, 1]), evaluated by Clenshaw's recurrence.  The reference values
come from ``decimal`` at 80 digits (``erf`` by its Taylor series, ``pi`` from ``base.PI``); the
coefficients are the discrete Chebyshev transform of those values on 64 Chebyshev nodes, cut after
degree 18.  The printed error is the largest ``|exp(-x^2) (P - Q)|`` in units of 2^-53 (an ULP of erf
just below 1; ``erf = 1 - exp(-x^2) Q`` is what it feeds), for the double coefficients evaluated in
float64 (numpy's Clenshaw).
"""
from __future__ import annotations

import decimal
from decimal import Decimal as D

import numpy as np
from numpy.polynomial import chebyshev as C

from mtiacc.codegen.mathlib.base import two_over_sqrtpi

ERFC_RANGE = (1.0, 6.0)          # in x; t = 1 / (1 + x) runs over [1/7, 1/2]
ERFC_DEGREE = 18


def _ctx():
    ctx = decimal.Context(prec=80)
    return decimal.localcontext(ctx)


def erf_decimal(x: float) -> D:
    """erf(x) by its Taylor series (80 digits: enough for |x| <= 6, where terms reach 1e15)."""
    with _ctx():
        two_sqrtpi = two_over_sqrtpi()
        x = D(x)
        x2, term, s, n = x * x, x, x, 0
        while True:
            n += 1
            term = -term * x2 / n
            d = term / (2 * n + 1)
            s += d
            if abs(d) < D(10) ** -70:
                return two_sqrtpi * s


def fit_erfc(n: int = 64):
    """(Chebyshev coefficients c_0 .. c_deg, t_lo, t_hi, max error in 2^-53): the series of Q in u
    (``t`` mapped onto [-1, 1]) by the discrete Chebyshev transform on ``n`` Chebyshev nodes, cut after
    ``ERFC_DEGREE`` (the next terms are below 1e-16)."""
    a, b = ERFC_RANGE
    ta, tb = 1 / (1 + b), 1 / (1 + a)
    theta = np.pi * (np.arange(n) + 0.5) / n
    u = np.cos(theta)
    x = 1 / ((ta + tb) / 2 + (tb - ta) / 2 * u) - 1
    with _ctx():
        q = np.array([float((1 - erf_decimal(v)) * (D(v) * D(v)).exp()) for v in x])
    c = np.array([2 / n * np.sum(q * np.cos(j * theta)) for j in range(ERFC_DEGREE + 1)])
    c[0] /= 2
    uu = np.linspace(-1, 1, 1001)
    xx = 1 / ((ta + tb) / 2 + (tb - ta) / 2 * uu) - 1
    with _ctx():
        worst = max(abs((D(float(e)) - (1 - erf_decimal(v)) * (D(v) * D(v)).exp()) * (-(D(v) * D(v))).exp())
                    for e, v in zip(C.chebval(uu, c), xx))
    return [float(v) for v in c], ta, tb, float(worst) * 2.0 ** 53


if __name__ == "__main__":
    coeffs, ta, tb, err = fit_erfc()
    print(f"ERFC_T = ({ta!r}, {tb!r})")
    print("ERFC_CHEB = (" + ", ".join(repr(v) for v in coeffs) + ")")
    print(f"# max |exp(-x^2) (P - Q)| = {err:.3f} * 2^-53")
    print(f"TWO_OVER_SQRTPI = {float(two_over_sqrtpi())!r}")
