"""The regularized incomplete gamma functions ``igamma(a, x)`` (P, ``torch.special.gammainc``) and ``igammac(a,
x)`` (Q = 1 - P, ``gammaincc``) as Triton helpers (see :mod:`.special`), by Cephes' method as PyTorch's CPU
kernels compute it, in fp32:

- the prefactor ``x^a e^-x / Gamma(a)``: ``exp(a log x - x - lgamma(a))`` (0 below fp32's smallest exponent)
  unless ``a`` and ``x`` are within 40% of ``a``, where the Lanczos approximation (g = 6.0247, 13 terms) keeps
  the cancellation out;
- P's power series (DLMF 8.11.4) where ``x`` is small against ``a``; Q's continued fraction (DLMF 8.9.2,
  rescaled by 2^-24 as its terms grow) for ``x > 1.1`` past ``a``; Q's series (DLMF 8.7.3) for small ``x``;
  each the other's complement, chosen by Cephes' thresholds (``x`` against 0.5, 1.1 and ``a``);
- each series and the fraction run until a term is below 2^-24 relative to the sum (at most 2000 steps), each
  element stopping at its own term; a block's loop runs until every element has;
- the edges as PyTorch's: NaN for a negative operand or both zero, P(0, x > 0) = 1, P(a, 0) = 0, infinite
  ``a`` or ``x``.

PyTorch (after SciPy) adds Temme's uniform asymptotic expansion for ``a`` above 20 with ``x`` within 30% of it;
there the series and the fraction are used here, which converge in ``O(sqrt(a))`` steps and agree with it to
fp32's rounding (the tests compare both regions with eager).  The Lanczos coefficients are Boost's
``lanczos13m53`` as Cephes' ports use them.
"""
from __future__ import annotations

from typing import Dict, Sequence, Tuple

LANCZOS_G = 6.024680040776729583740234375
# the numerator and denominator of lanczos_sum_expg_scaled, highest degree first
LANCZOS_NUM = (
    0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859,
)
LANCZOS_DEN = (1.0, 66.0, 1925.0, 32670.0, 357423.0, 2637558.0, 13339535.0, 45995730.0, 105258076.0,
               150917976.0, 120543840.0, 39916800.0, 0.0)
EPS = 5.9604644775390625e-08          # 2^-24: the series' and the fraction's stopping point
MAXITER = 2000


def _horner(out: str, x: str, coeffs: Sequence[float]) -> str:
    lines = [f"    {out} = tl.zeros_like({x})"] + [f"    {out} = {out} * {x} + {c!r}" for c in coeffs]
    return "\n".join(lines) + "\n"


# x^a e^-x / Gamma(a), for a > 0 and x > 0
_FAC = """@triton.jit
def {name}(a, x):
    ax = a * tl.log(x) - x - libdevice.lgamma(a)
    direct = tl.where(ax < -88.72283905206835, 0.0, tl.exp(ax))
    # the Lanczos form: a rational function of a (of 1/a past 1, its coefficients reversed)
    big = a > 1.0
    y = tl.where(big, 1.0 / a, a)
""" + _horner("nd", "y", LANCZOS_NUM) + _horner("dd", "y", LANCZOS_DEN) \
    + _horner("nr", "y", LANCZOS_NUM[::-1]) + _horner("dr", "y", LANCZOS_DEN[::-1]) + """\
    lanczos = tl.where(big, nr / dr, nd / dd)
    fac = a + {g!r} - 0.5
    res = tl.sqrt(fac / 2.718281828459045) / lanczos
    num = x - a - {g!r} + 0.5
    nf = num / fac
    small = res * tl.exp(a - x) * libdevice.pow(x / fac, a)
    large = res * tl.exp(a * (libdevice.log1p(nf) - nf) + x * (0.5 - {g!r}) / fac)
    near = tl.where((a < 200.0) & (x < 200.0), small, large)
    return tl.where(tl.abs(a - x) > 0.4 * tl.abs(a), direct, near)
""".replace("{g!r}", repr(LANCZOS_G))

# P(a, x) by its power series, where `going`
_P_SERIES = """@triton.jit
def {name}(a, x, going):
    ax = __igam_fac__(a, x)
    going = going & (ax != 0.0)
    r = a
    c = tl.full(a.shape, 1.0, tl.float32)
    ans = tl.full(a.shape, 1.0, tl.float32)
    i = 0
    while (tl.max(going.to(tl.int32) + tl.zeros([1], tl.int32)) > 0) & (i < MAXITER):
        r2 = r + 1.0
        c2 = c * (x / r2)
        ans2 = ans + c2
        r = tl.where(going, r2, r)
        c = tl.where(going, c2, c)
        ans = tl.where(going, ans2, ans)
        going = going & (c2 > EPS * ans2)
        i += 1
    return tl.where(ax == 0.0, 0.0, ans * ax / a)
"""

# Q(a, x) by DLMF 8.7.3 (small x), where `going`
_Q_SERIES = """@triton.jit
def {name}(a, x, going):
    fac = tl.full(a.shape, 1.0, tl.float32)
    total = tl.zeros_like(a)
    n = tl.full(a.shape, 1.0, tl.float32)
    i = 1
    while (tl.max(going.to(tl.int32) + tl.zeros([1], tl.int32)) > 0) & (i < MAXITER):
        fac2 = fac * (-x / n)
        term = fac2 / (a + n)
        total2 = total + term
        fac = tl.where(going, fac2, fac)
        total = tl.where(going, total2, total)
        n = tl.where(going, n + 1.0, n)
        going = going & (tl.abs(term) > EPS * tl.abs(total2))
        i += 1
    logx = tl.log(x)
    head = -libdevice.expm1(a * logx - libdevice.lgamma(1.0 + a))
    return head - tl.exp(a * logx - libdevice.lgamma(a)) * total
"""

# Q(a, x) by its continued fraction (x > 1.1 and x >= a), where `going`
_Q_FRACTION = """@triton.jit
def {name}(a, x, going):
    ax = __igam_fac__(a, x)
    going = going & (ax != 0.0)
    y = 1.0 - a
    z = x + y + 1.0
    c = tl.zeros_like(a)
    pkm2 = tl.full(a.shape, 1.0, tl.float32)
    qkm2 = x
    pkm1 = x + 1.0
    qkm1 = z * x
    ans = pkm1 / qkm1
    i = 0
    while (tl.max(going.to(tl.int32) + tl.zeros([1], tl.int32)) > 0) & (i < MAXITER):
        c2 = c + 1.0
        y2 = y + 1.0
        z2 = z + 2.0
        yc = y2 * c2
        pk = pkm1 * z2 - pkm2 * yc
        qk = qkm1 * z2 - qkm2 * yc
        r = pk / tl.where(qk != 0.0, qk, 1.0)
        t = tl.where(qk != 0.0, tl.abs((ans - r) / r), 1.0)
        ans2 = tl.where(qk != 0.0, r, ans)
        scale = tl.where(tl.abs(pk) > 16777216.0, EPS, 1.0)
        c = tl.where(going, c2, c)
        y = tl.where(going, y2, y)
        z = tl.where(going, z2, z)
        ans = tl.where(going, ans2, ans)
        pkm2 = tl.where(going, pkm1 * scale, pkm2)
        qkm2 = tl.where(going, qkm1 * scale, qkm2)
        pkm1 = tl.where(going, pk * scale, pkm1)
        qkm1 = tl.where(going, qk * scale, qkm1)
        going = going & (t > EPS)
        i += 1
    return tl.where(ax == 0.0, 0.0, ans * ax)
"""

# Q(a, x) for a > 0, x > 0 (finite): Cephes' choice of method
_Q = """@triton.jit
def {name}(a, x, going):
    above = x > 1.1
    low = x <= 0.5
    p_series = tl.where(above, x < a, tl.where(low, -0.4 / tl.log(x) < a, x * 1.1 < a))
    fraction = above & ~p_series
    q_series = ~above & ~p_series
    p = __igam_p_series__(a, x, going & p_series)
    f = __igamc_fraction__(a, x, going & fraction)
    s = __igamc_series__(a, x, going & q_series)
    return tl.where(p_series, 1.0 - p, tl.where(fraction, f, s))
"""

_EDGES = """    a = a.to(tl.float32)
    x = x.to(tl.float32)
    a, x = tl.broadcast(a + tl.zeros([1], tl.float32), x + tl.zeros([1], tl.float32))
    nan = (x < 0.0) | (a < 0.0) | (x != x) | (a != a) | ((a == 0.0) & (x <= 0.0)) \\
        | ((a == float("inf")) & (x == float("inf")))
    interior = ~nan & (a > 0.0) & (x > 0.0) & (a != float("inf")) & (x != float("inf"))
    # interior values away from the edges (the methods only see those)
    a_in = tl.where(interior, a, 1.0)
    x_in = tl.where(interior, x, 1.0)
"""

_IGAMMA = """@triton.jit
def {name}(a, x):
""" + _EDGES + """    upper = (x_in > 1.0) & (x_in > a_in)
    q = __igammac_interior__(a_in, x_in, interior & upper)
    p = __igam_p_series__(a_in, x_in, interior & ~upper)
    out = tl.where(upper, 1.0 - q, p)
    # P(0, x > 0) = 1, P(a, 0) = 0, P(inf, x) = 0, P(a, inf) = 1
    out = tl.where(a == 0.0, 1.0, tl.where(x == 0.0, 0.0, tl.where(a == float("inf"), 0.0,
                   tl.where(x == float("inf"), 1.0, out))))
    return tl.where(nan, float("nan"), out)
"""

_IGAMMAC = """@triton.jit
def {name}(a, x):
""" + _EDGES + """    out = __igammac_interior__(a_in, x_in, interior)
    out = tl.where(a == 0.0, 0.0, tl.where(x == 0.0, 1.0, tl.where(a == float("inf"), 1.0,
                   tl.where(x == float("inf"), 0.0, out))))
    return tl.where(nan, float("nan"), out)
"""


def _consts(text: str) -> str:
    return text.replace("MAXITER", str(MAXITER)).replace("EPS", repr(EPS))


def sources() -> Dict[str, Tuple[str, Tuple[str, ...]]]:
    """Inductor's ``ops`` name (or a helper's) -> (the helper's source, helpers it calls)."""
    return {
        "igam_fac": (_FAC, ()),
        "igam_p_series": (_consts(_P_SERIES), ("igam_fac",)),
        "igamc_series": (_consts(_Q_SERIES), ()),
        "igamc_fraction": (_consts(_Q_FRACTION), ("igam_fac",)),
        "igammac_interior": (_Q, ("igam_p_series", "igamc_fraction", "igamc_series")),
        "igamma": (_IGAMMA, ("igammac_interior", "igam_p_series")),
        "igammac": (_IGAMMAC, ("igammac_interior",)),
    }
