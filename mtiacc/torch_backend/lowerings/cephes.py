"""``special.ndtri`` and ``special.airy_ai`` as Triton helpers (see :mod:`.special`), by Cephes' method as in
PyTorch's CPU kernels.

- ndtri (the normal distribution's quantile): a rational function of ``y - 1/2`` near the middle, else of
  ``1 / sqrt(-2 log y)`` (two sets of coefficients, below and above 8), the tail ``1 - y`` mirrored;
- airy_ai: an asymptotic rational form in ``1 / zeta`` above 2.09 (alone beyond 8.32), one with sine and cosine
  below -2.09, and the Maclaurin series in between, its terms added until one is below fp32's epsilon
  relative to the sum (each element stops at its own term; the loop runs until every element has).
The coefficients are Cephes' (``ndtri.c``, ``airy.c``).
"""
from __future__ import annotations

from typing import Dict, Sequence, Tuple

NDTRI_P0 = (
    -59.96335010141079, 98.00107541859997, -56.67628574690703, 13.931260938727968,
    -1.2391658386738125,
)
NDTRI_Q0 = (
    1.0, 1.9544885833814176, 4.676279128988815, 86.36024213908905,
    -225.46268785411937, 200.26021238006066, -82.03722561683334, 15.90562251262117,
    -1.1833162112133,
)
NDTRI_P1 = (
    4.0554489230596245, 31.525109459989388, 57.16281922464213, 44.08050738932008,
    14.684956192885803, 2.1866330685079025, -0.1402560791713545, -0.03504246268278482,
    -0.0008574567851546854,
)
NDTRI_Q1 = (
    1.0, 15.779988325646675, 45.39076351288792, 41.3172038254672,
    15.04253856929075, 2.504649462083094, -0.14218292285478779, -0.03808064076915783,
    -0.0009332594808954574,
)
NDTRI_P2 = (
    3.2377489177694603, 6.915228890689842, 3.9388102529247444, 1.3330346081580755,
    0.20148538954917908, 0.012371663481782003, 0.00030158155350823543, 2.6580697468673755e-06,
    6.239745391849833e-09,
)
NDTRI_Q2 = (
    1.0, 6.02427039364742, 3.6798356385616087, 1.3770209948908132,
    0.21623699359449663, 0.013420400608854318, 0.00032801446468212774, 2.8924786474538068e-06,
    6.790194080099813e-09,
)
AIRY_AN = (
    0.346538101525629, 12.007595273964581, 76.27960536152345, 168.08922493463058,
    159.75639135016442, 70.53609068404442, 14.026469116338967, 1.0,
)
AIRY_AD = (
    0.5675945326387702, 14.75625625848472, 84.51389701414746, 177.31808814540045,
    164.2346928715297, 71.47784008255756, 14.095913560783403, 1.0,
)
AIRY_AFN = (
    -0.1316963234183318, -0.6264565444319123, -0.6931580360369335, -0.2797799815451191,
    -0.04919001326095003, -0.004062659235948854, -0.0001592764962392621, -2.776491081552329e-06,
    -1.6778769848911465e-08,
)
AIRY_AFD = (
    13.356042070655324, 32.682503279522464, 26.736704094149957, 9.187074029072596,
    1.4752914677166642, 0.11568717379518804, 0.004402916416152112, 7.547203482874142e-05,
    4.5185009297058035e-07,
)
AIRY_AGN = (
    0.01973399320916857, 0.39110302961568827, 1.0657989759959559, 0.9391692298166502,
    0.35146565610554764, 0.06338889196289255, 0.005858041130483885, 0.000282851600836737,
    6.98793669997261e-06, 8.117892395543892e-08, 3.415517847659236e-10,
)
AIRY_AGD = (
    9.30892908077442, 19.835292871831214, 15.564662893286462, 5.476860694229755,
    0.9542936116189619, 0.08645808263523921, 0.004126565238242226, 0.00010125908511650914,
    1.1716673321441352e-06, 4.9183457006293e-09,
)


def _polevl(out: str, x: str, coeffs: Sequence[float]) -> str:
    """Triton lines setting ``out`` to the polynomial ``coeffs`` (highest degree first) at ``x`` (Horner)."""
    lines = [f"    {out} = tl.zeros_like({x})"]
    lines += [f"    {out} = {out} * {x} + {v!r}" for v in coeffs]
    return "\n".join(lines) + "\n"


_NDTRI = """@triton.jit
def {name}(x):
    y0 = x.to(tl.float32)
    mirrored = y0 > 1.0 - 0.13533528323661269189
    y = tl.where(mirrored, 1.0 - y0, y0)
    # the middle: y - 1/2
    ym = y - 0.5
    y2 = ym * ym
""" + _polevl("p0", "y2", NDTRI_P0) + _polevl("q0", "y2", NDTRI_Q0) + """    middle = (ym + ym * (y2 * p0 / q0)) * 2.50662827463100050242
    # the tails: z = 1 / sqrt(-2 log y)
    t = tl.sqrt(-2.0 * tl.log(y))
    t0 = t - tl.log(t) / t
    z = 1.0 / t
""" + _polevl("p1", "z", NDTRI_P1) + _polevl("q1", "z", NDTRI_Q1) + _polevl("p2", "z", NDTRI_P2) \
    + _polevl("q2", "z", NDTRI_Q2) + """    tail = t0 - tl.where(t < 8.0, z * p1 / q1, z * p2 / q2)
    tail = tl.where(mirrored, tail, -tail)
    out = tl.where(y > 0.13533528323661269189, middle, tail)
    out = tl.where((y0 < 0.0) | (y0 > 1.0) | (y0 != y0), float("nan"), out)
    out = tl.where(y0 == 0.0, float("-inf"), out)
    return tl.where(y0 == 1.0, float("inf"), out)
"""

_AIRY_AI = """@triton.jit
def {name}(x):
    x = x.to(tl.float32)
    # x < -2.09: the oscillating asymptotic form
    ax = tl.abs(x)
    zt = -2.0 * x * tl.sqrt(ax) / 3.0
    zn = 1.0 / zt
    zz = zn * zn
""" + _polevl("afn", "zz", AIRY_AFN) + _polevl("afd", "zz", AIRY_AFD) + _polevl("agn", "zz", AIRY_AGN) \
    + _polevl("agd", "zz", AIRY_AGD) + """    th = zt + 0.25 * 3.141592653589793
    negative = 5.64189583547756286948e-01 / tl.sqrt(tl.sqrt(ax)) \
        * (tl.sin(th) * (1.0 + zz * afn / afd) - tl.cos(th) * (zn * agn / agd))
    # x >= 2.09: the decaying asymptotic form
    zeta = 2.0 * x * tl.sqrt(ax) / 3.0
    iz = 1.0 / zeta
""" + _polevl("an", "iz", AIRY_AN) + _polevl("ad", "iz", AIRY_AD) + """    positive = 5.64189583547756286948e-01 * (an / ad) / (2.0 * tl.sqrt(tl.sqrt(ax)) * tl.exp(zeta))
    # the Maclaurin series, each element until its term is below epsilon relative to the sum
    f = tl.full(x.shape, 1.0, tl.float32)
    g = x
    k = tl.full(x.shape, 1.0, tl.float32)
    m = tl.full(x.shape, 1.0, tl.float32)
    n = x
    z3 = x * x * x
    series = (ax <= 8.3203353) & (x >= -2.09)
    going = series
    while tl.max(going.to(tl.int32) + tl.zeros([1], tl.int32)) > 0:
        m2 = m * z3
        k2 = k + 1.0
        m2 = m2 / k2
        n2 = n * z3
        k2 = k2 + 1.0
        n2 = n2 / k2
        m2 = m2 / k2
        f2 = f + m2
        k2 = k2 + 1.0
        n2 = n2 / k2
        g2 = g + n2
        m = tl.where(going, m2, m)
        n = tl.where(going, n2, n)
        k = tl.where(going, k2, k)
        f = tl.where(going, f2, f)
        g = tl.where(going, g2, g)
        going = going & (tl.abs(m / f) > 1.1920928955078125e-07)
    small = 0.355028053887817239260 * f - 0.258819403792806798405 * g
    out = tl.where(x < -2.09, negative, tl.where(x >= 2.09, positive, small))
    out = tl.where(x > 103.892, 0.0, out)
    return tl.where(ax == float("inf"), float("nan"), out)
"""


def sources() -> Dict[str, Tuple[str, Tuple[str, ...]]]:
    """Inductor's ``ops`` name -> (the helper's source, helpers it calls)."""
    return {"ndtri": (_NDTRI, ()), "airy_ai": (_AIRY_AI, ())}
