"""The SE's numbers (the ``se:`` section of the machine YAML) and its numeric model.

A function ``f`` with ``bits`` is a table lookup with interpolation whose relative error stays below
``2^-bits``: the model computes ``f`` in float64 and rounds the result to ``bits`` significant bits (round to
nearest, ties to even), then to the element type.  With ``abs_bits`` (sin, cos) the error is absolute: the
argument is reduced modulo 2 pi in float64 and the result rounded to a multiple of ``2^-abs_bits``.  NaN in gives
the canonical NaN out; the limits are IEEE's (``log(0) = -inf``, ``log(-1) = NaN``, ``recip(0) = inf``,
``exp`` overflows to inf, ``rsqrt(-0) = -inf``).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict, Optional, Tuple

import numpy as np

from mtiacc.asm.isa import SE_FUNCTIONS
from mtiacc.diagnostics import UserError


@dataclasses.dataclass(frozen=True)
class Accuracy:
    """How close one function's table gets: a relative bound ``2^-bits`` or an absolute one ``2^-abs_bits``."""

    bits: Optional[int] = None
    abs_bits: Optional[int] = None

    def describe(self) -> str:
        return f"relative error < 2^-{self.bits}" if self.bits else f"absolute error < 2^-{self.abs_bits}"


@dataclasses.dataclass(frozen=True)
class SeConfig:
    """The SE of a PE (``se:`` in the YAML)."""

    elements_per_cycle: float = 32.0
    functions: Tuple[Tuple[str, Accuracy], ...] = tuple((f, Accuracy(bits=22)) for f in SE_FUNCTIONS)

    def accuracy(self, fn: str) -> Accuracy:
        return dict(self.functions)[fn]


def parse_se(sec, path: str) -> SeConfig:
    """The ``se:`` section (the defaults of :class:`SeConfig` when it is absent)."""
    if sec is None:
        return SeConfig()
    if not isinstance(sec, dict):
        raise UserError(f"machine description {path}: 'se' must be a mapping")
    dflt = SeConfig()
    rate = float(sec.get("elements_per_cycle", dflt.elements_per_cycle))
    if rate <= 0:
        raise UserError(f"machine description {path}: se.elements_per_cycle must be positive")
    raw = sec.get("functions", {})
    if not isinstance(raw, dict):
        raise UserError(f"machine description {path}: se.functions must be a mapping")
    unknown = set(raw) - set(SE_FUNCTIONS)
    if unknown:
        raise UserError(f"machine description {path}: se.functions: unknown function '{sorted(unknown)[0]}' "
                        f"(the SE's functions: {', '.join(SE_FUNCTIONS)})")
    funcs = dict(dflt.functions)
    for name, v in raw.items():
        if not isinstance(v, dict) or len(set(v) & {"bits", "abs_bits"}) != 1:
            raise UserError(f"machine description {path}: se.functions.{name} needs one of 'bits' or 'abs_bits'")
        key, val = next((k, v[k]) for k in ("bits", "abs_bits") if k in v)
        if isinstance(val, bool) or not isinstance(val, int) or not 1 <= val <= 52:
            raise UserError(f"machine description {path}: se.functions.{name}.{key} must be an integer 1..52")
        funcs[name] = Accuracy(**{key: val})
    return SeConfig(rate, tuple((f, funcs[f]) for f in SE_FUNCTIONS))


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


def round_bits(v: np.ndarray, bits: int) -> np.ndarray:
    """``v`` (float64) rounded to ``bits`` significant bits, ties to even; 0, inf and NaN unchanged."""
    m, e = np.frexp(v)                       # v = m 2^e, 0.5 <= |m| < 1
    return np.ldexp(np.rint(np.ldexp(m, bits)), e - bits)


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
