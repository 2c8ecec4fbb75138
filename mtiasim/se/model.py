"""The SE's numeric model (its numbers: the ``se:`` section of the machine description, :class:`SeConfig`).

A function ``f`` with ``bits`` is a table lookup with interpolation whose relative error stays below
``2^-bits``: the model computes ``f`` in float64 and rounds the result to ``bits`` significant bits (round to
nearest, ties to even), then to the element type.  With ``abs_bits`` (sin, cos) the error is absolute: the
argument is reduced modulo 2 pi in float64 and the result rounded to a multiple of ``2^-abs_bits``.  NaN in gives
the canonical NaN out; the limits are IEEE's (``log(0) = -inf``, ``log(-1) = NaN``, ``recip(0) = inf``,
``exp`` overflows to inf, ``rsqrt(-0) = -inf``).
"""
from __future__ import annotations

import math
from typing import Dict

import numpy as np

from mtiacc.machine.simulator import Accuracy, SeConfig  # noqa: F401 - the se: section, read by mtiacc.machine


# ----------------------------------------------------------------------------------------------------------------
# The functions in float64
# ----------------------------------------------------------------------------------------------------------------
_erf = np.frompyfunc(math.erf, 1, 1)
TWO_PI = 2.0 * math.pi


def _sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _reduced(x):
    """``x`` modulo 2 pi, in [-pi, pi] (float64; exact enough for |x| below 2^30, degrading beyond)."""
    with np.errstate(invalid="ignore"):
        return x - TWO_PI * np.rint(x / TWO_PI)


EXACT: Dict[str, object] = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sigmoid": _sigmoid, "tanh": np.tanh,
    "erf": lambda x: _erf(x).astype(np.float64), "recip": lambda x: 1.0 / x, "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sqrt": np.sqrt, "sin": lambda x: np.sin(_reduced(x)), "cos": lambda x: np.cos(_reduced(x)),
}
# the exact functions the measurement compares with (sin and cos without the SE's reduction)
REFERENCE: Dict[str, object] = {**EXACT, "sin": np.sin, "cos": np.cos}


_EXPONENT = np.uint64(0x7FF0_0000_0000_0000)


def _round_bits_frexp(v: np.ndarray, bits: int) -> np.ndarray:
    m, e = np.frexp(v)                       # v = m 2^e, 0.5 <= |m| < 1
    return np.ldexp(np.rint(np.ldexp(m, bits)), e - bits)


def round_bits(v: np.ndarray, bits: int) -> np.ndarray:
    """``v`` (float64) rounded to ``bits`` significant bits, ties to even; 0, inf and NaN unchanged.

    A normal double has 53 significant bits: rounding its bit pattern at bit ``53 - bits`` (add half an ulp of the
    result less one, plus the kept lowest bit, then clear the dropped bits) rounds the magnitude to nearest, ties
    to even, a carry out of the significand stepping the exponent (up to inf) -- the value ``frexp`` / ``rint`` /
    ``ldexp`` give, several times faster.  Zeros, subnormals, inf and NaN take that exact path."""
    drop = 53 - bits
    v = np.ascontiguousarray(v, np.float64)
    if drop <= 0:
        return v.copy()
    if drop >= 52:      # the kept lowest bit would be the implicit one
        return _round_bits_frexp(v, bits)
    u = v.view(np.uint64)
    half = np.uint64((1 << (drop - 1)) - 1)
    keep = np.uint64(~((1 << drop) - 1) & 0xFFFF_FFFF_FFFF_FFFF)
    r = ((u + half + ((u >> np.uint64(drop)) & np.uint64(1))) & keep).view(np.float64)
    e = u & _EXPONENT
    special = (e == 0) | (e == _EXPONENT)
    if special.any():
        r[special] = _round_bits_frexp(v[special], bits)
    return r


def evaluate(fn: str, x: np.ndarray, acc: Accuracy) -> np.ndarray:
    """What the SE returns for ``x`` (a float32 or float16 array), in ``x``'s dtype."""
    with np.errstate(all="ignore"):
        v = EXACT[fn](x.astype(np.float64))
        if acc.bits:
            v = round_bits(v, acc.bits)
        else:
            q = float(2 ** acc.abs_bits)
            v = np.rint(v * q) / q
        r = v.astype(x.dtype)
    nan = r != r
    if nan.any():
        r[nan] = np.array(np.nan, x.dtype)     # the canonical NaN (numpy's nan is 0x7fc00000 / 0x7e00)
    return r
