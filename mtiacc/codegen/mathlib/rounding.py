"""The short functions: rounding to an integer (floor, ceil, trunc, rint), sqrt, rsqrt and fma.

``rounding`` is one body for f32 and f64 (it is pow's ``trunc`` at both widths); the registry
offers the others on f32 only (the frontend computes f64 sqrt and rounding itself, exactly; abs is ``base.abs_``).
"""
from __future__ import annotations

from mtiacc.codegen.mathlib.base import VMath


def rounding(e: VMath, x: str, mode: str) -> str:
    """floor / ceil / trunc / round-half-even, for |x| < 2^mant (larger floats are integers already)."""
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
    e("vmflt.vf", "v0", a, e.k(e.w.integral))
    e("vmerge.vvm", a, x, t, "v0")                 # big, inf and NaN stay as they are
    e.release(t)
    return a


def floor(e: VMath, x: str) -> str:
    return rounding(e, x, "floor")


def ceil(e: VMath, x: str) -> str:
    return rounding(e, x, "ceil")


def trunc(e: VMath, x: str) -> str:
    return rounding(e, x, "trunc")


def rint(e: VMath, x: str) -> str:
    return rounding(e, x, "round")


def sqrt(e: VMath, x: str) -> str:
    r = e.tmp()
    e("vfsqrt.v", r, x)
    return r


def rsqrt(e: VMath, x: str) -> str:
    r = sqrt(e, x)
    e("vfrdiv.vf", r, r, e.k(1.0))
    return r


def fma(e: VMath, a: str, b: str, c: str) -> str:
    r = e.tmp()
    e("vmv.v.v", r, c)
    e("vfmacc.vv", r, a, b)
    return r
