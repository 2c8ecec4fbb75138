"""Exact references for the tests: a fused multiply-add rounded once (``fma``), from rationals.

Rationals rounded to the format with round-half-even by integer arithmetic, independent of the simulator's
method; what a kernel computes when ``contract-fma`` (Triton's ``enable_fp_fusion``) contracts ``a * b + c``."""
from fractions import Fraction

import numpy as np

FMT = {np.float16: (10, -14, 16), np.float32: (23, -126, 128), np.float64: (52, -1022, 1024)}


def round_exact(q: Fraction, dtype) -> float:
    """``q`` rounded to nearest-even in ``dtype`` (subnormals and overflow to inf included)."""
    mant, emin, emax = FMT[dtype]
    if q == 0:
        return 0.0
    sign, q = (-1.0 if q < 0 else 1.0), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    e = e - 1 if Fraction(2) ** e > q else e               # 2**e <= q < 2**(e+1)
    ulp = Fraction(2) ** (max(e, emin) - mant)
    r = round(q / ulp) * ulp                               # Fraction's round(): half to even
    return sign * (float("inf") if r >= Fraction(2) ** emax else float(r))


def reference(a, b, c, dtype):
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        if not all(np.isfinite([x, y, z])):
            with np.errstate(all="ignore"):
                out.append(x * y + z)
            continue
        q = Fraction(x) * Fraction(y) + Fraction(z)
        out.append(round_exact(q, dtype) if q != 0 else (x * y + z if x * y == 0 and z == 0 else 0.0))
    return np.array(out, dtype)


def fma(a, b, c, dtype=np.float32):
    """``a * b + c`` rounded once to ``dtype``, elementwise (numpy broadcasting)."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype) for x in (a, b, c)))
    return reference(a.ravel(), b.ravel(), c.ravel(), dtype).reshape(a.shape)
