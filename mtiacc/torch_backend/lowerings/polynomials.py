"""Orthogonal polynomials of ``torch.special`` as Triton helpers (see :mod:`.special`): Chebyshev T, U, V, W and
their shifted forms, Hermite H and He, Laguerre L, Legendre P, each ``f(x, n)`` with ``n`` truncated to an
integer.  As in PyTorch's CPU kernels: the three-term recurrence from degrees 0 and 1 up to ``n`` (its trip
count the block's largest ``n``, each element's terms frozen past its own), with the closed trigonometric form
for Chebyshev polynomials of high degree inside (-1, 1) and the values at the interval's ends given exactly.
"""
from __future__ import annotations

from typing import Dict, Tuple

# kind -> (value at degree 1 from y, high-degree form inside (-1, 1), value at y == 1, value at y == -1)
_CHEBYSHEV = {
    "t": ("y", "tl.cos(nf * th)", "1.0", "tl.where(even, 1.0, -1.0)"),
    "u": ("y + y", "tl.where(tl.sin(th) != 0.0, tl.sin((nf + 1.0) * th) / tl.sin(th), "
                   "(nf + 1.0) * tl.cos((nf + 1.0) * th) / y)",
          "nf + 1.0", "tl.where(even, nf + 1.0, -(nf + 1.0))"),
    "v": ("y + y - 1.0", "tl.where(tl.sin(th / 2.0) != 1.0, tl.cos((nf + 0.5) * th) / tl.cos(th / 2.0), "
                         "tl.where(even, nf + nf + 1.0, -(nf + nf + 1.0)))",
          "1.0", "tl.where(even, nf + nf + 1.0, -(nf + nf + 1.0))"),
    "w": ("y + y + 1.0", "tl.where(tl.cos(th / 2.0) != 1.0, tl.sin((nf + 0.5) * th) / tl.sin(th / 2.0), "
                         "tl.where(y > 0.0, nf + nf + 1.0, tl.where(even, 1.0, -1.0)))",
          "nf + nf + 1.0", "tl.where(even, 1.0, -1.0)"),
}
# degree above which the trigonometric form is used: (unshifted, shifted)
_TRIG_FROM = {"t": (6, 6), "u": (8, 6), "v": (8, 6), "w": (8, 4)}

_HEAD = """@triton.jit
def {name}(x, n):
    # one block shape for both (a 0-d operand comes as a scalar), so the loop's values keep their type
    x, n = tl.broadcast(x.to(tl.float32) + tl.zeros([1], tl.float32), n.to(tl.float32) + tl.zeros([1], tl.float32))
    nf = libdevice.trunc(n)
    even = libdevice.fmod(nf, 2.0) == 0.0
"""
# the recurrence's trip count: the largest degree in the block among the elements that need it (a block of
# one element for a 0-d operand, which Inductor loads as a scalar)
_NMAX = """    nmax = tl.max(tl.where({need}, tl.minimum(tl.maximum(nf, 0.0), {cap}), 0.0) + tl.zeros([1], tl.float32)).to(tl.int32)
"""


def _chebyshev(kind: str, shifted: bool) -> str:
    one, trig, at_one, at_minus_one = _CHEBYSHEV[kind]
    y = "x + x - 1.0" if shifted else "x"
    trig_from = _TRIG_FROM[kind][int(shifted)]
    need = f"~((nf > {trig_from}.0) & (tl.abs(y) < 1.0))"
    return _HEAD + f"""    y = {y}
    th = libdevice.acos(y)
""" + _NMAX.format(need=need, cap="1.0e7") + f"""    p = tl.full(y.shape, 1.0, tl.float32)
    q = {one}
    for k in range(2, nmax + 1):
        more = (k <= nf) & (q == q)
        r = (y + y) * q - p
        p = tl.where(more, q, p)
        q = tl.where(more, r, q)
    res = tl.where(nf == 0.0, 1.0, q)
    res = tl.where((nf > {trig_from}.0) & (tl.abs(y) < 1.0), {trig}, res)
    res = tl.where(y == 1.0, {at_one}, tl.where(y == -1.0, {at_minus_one}, res))
    return tl.where(nf < 0.0, 0.0, res)
"""


_HERMITE_H = _HEAD + _NMAX.format(need="nf == nf", cap="129.0") + """    p = tl.full(x.shape, 1.0, tl.float32)
    q = x + x
    for k in range(1, nmax):
        more = k < nf
        r = (x + x) * q - (k + k) * p
        p = tl.where(more, q, p)
        q = tl.where(more, r, q)
    res = tl.where(nf == 0.0, 1.0, q)
    res = tl.where(nf > 128.0, float("nan"), res)
    return tl.where(nf < 0.0, 0.0, res)
"""

_HERMITE_HE = _HEAD + _NMAX.format(need="nf == nf", cap="129.0") + """    p = tl.full(x.shape, 1.0, tl.float32)
    q = x
    for k in range(1, nmax):
        more = k < nf
        r = x * q - k * p
        p = tl.where(more, q, p)
        q = tl.where(more, r, q)
    res = tl.where(nf == 0.0, 1.0, q)
    res = tl.where(nf > 128.0, float("nan"), res)
    return tl.where(nf < 0.0, 0.0, res)
"""

_LAGUERRE = _HEAD + _NMAX.format(need="nf == nf", cap="1.0e7") + """    p = tl.full(x.shape, 1.0, tl.float32)
    q = 1.0 - x
    for k in range(1, nmax):
        more = (k < nf) & (q == q)
        r = (((k + k) + (1.0 - x)) * q - k * p) / (k + 1)
        p = tl.where(more, q, p)
        q = tl.where(more, r, q)
    res = tl.where(nf == 0.0, 1.0, q)
    res = tl.where(x == 0.0, 1.0, res)
    return tl.where(nf < 0.0, 0.0, res)
"""

_LEGENDRE = _HEAD + _NMAX.format(need="nf == nf", cap="1.0e7") + """    p = tl.full(x.shape, 1.0, tl.float32)
    q = x
    for k in range(1, nmax):
        more = (k < nf) & (q == q)
        r = ((k + k + 1) * x * q - k * p) / (k + 1)
        p = tl.where(more, q, p)
        q = tl.where(more, r, q)
    res = tl.where(nf == 0.0, 1.0, q)
    res = tl.where(tl.abs(x) == 1.0, tl.where((x > 0.0) | even, 1.0, -1.0), res)
    return tl.where(nf < 0.0, 0.0, res)
"""


def sources() -> Dict[str, Tuple[str, Tuple[str, ...]]]:
    """Inductor's ``ops`` name -> (the helper's source, helpers it calls)."""
    out: Dict[str, Tuple[str, Tuple[str, ...]]] = {}
    for kind in "tuvw":
        out[f"chebyshev_polynomial_{kind}"] = (_chebyshev(kind, False), ())
        out[f"shifted_chebyshev_polynomial_{kind}"] = (_chebyshev(kind, True), ())
    out["hermite_polynomial_h"] = (_HERMITE_H, ())
    out["hermite_polynomial_he"] = (_HERMITE_HE, ())
    out["laguerre_polynomial_l"] = (_LAGUERRE, ())
    out["legendre_polynomial_p"] = (_LEGENDRE, ())
    return out
