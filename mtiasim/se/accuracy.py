"""Measure the SE's accuracy: each function's error against float64, over many fp32 inputs.

``python -m mtiasim.se.accuracy [--n N] [--seed S] [--config YAML]`` prints a Markdown table (the one in
docs/architecture.md, "The SIMD engine"): per function, over ``N`` seeded inputs from its domain (uniform over the
range where it varies, and random bit patterns across every binade of the domain), the largest error in fp32 ULPs
of the float64 result (``|se(x) - f(x)| / ulp(f(x))``, ``f`` in float64), the largest distance in ULPs from the
correctly rounded fp32 result, and the largest absolute error.
"""
from __future__ import annotations

import argparse
from typing import Dict, Tuple

import numpy as np

from .model import REFERENCE, Accuracy, SeConfig, evaluate

F32_MAX = float(np.finfo(np.float32).max)
# function -> (domain as (lo, hi) for the random bit patterns, the range where it varies for the uniform part)
DOMAINS: Dict[str, Tuple[Tuple[float, float], Tuple[float, float]]] = {
    "exp": ((-103.9, 88.7), (-20.0, 20.0)), "exp2": ((-149.0, 127.9), (-30.0, 30.0)),
    "log": ((0.0, F32_MAX), (0.0, 4.0)), "log2": ((0.0, F32_MAX), (0.0, 4.0)),
    "sigmoid": ((-103.0, F32_MAX), (-20.0, 20.0)), "tanh": ((-F32_MAX, F32_MAX), (-5.0, 5.0)),
    "erf": ((-F32_MAX, F32_MAX), (-4.0, 4.0)), "recip": ((-2.0 ** 126, 2.0 ** 126), (-4.0, 4.0)),
    "rsqrt": ((0.0, F32_MAX), (0.0, 4.0)), "sqrt": ((0.0, F32_MAX), (0.0, 4.0)),
    "sin": ((-65536.0, 65536.0), (-7.0, 7.0)), "cos": ((-65536.0, 65536.0), (-7.0, 7.0)),
}


def inputs(fn: str, n: int, seed: int) -> np.ndarray:
    """``n`` fp32 inputs of ``fn``: half uniform over its varying range, half random bit patterns in its domain."""
    rng = np.random.default_rng(seed)
    (lo, hi), (ulo, uhi) = DOMAINS[fn]
    uni = rng.uniform(ulo, uhi, n // 2).astype(np.float32)
    bits = rng.integers(0, 0x7F800000, 4 * n, dtype=np.uint32)
    sign = rng.integers(0, 2, 4 * n, dtype=np.uint32) << np.uint32(31)
    pat = (bits | sign).view(np.float32)
    pat = pat[(pat >= lo) & (pat <= hi)][: n - n // 2]
    return np.concatenate([uni, pat])


def _ulp(v: np.ndarray) -> np.ndarray:
    """The fp32 ULP at float64 value ``v`` (the spacing of fp32 numbers at its magnitude; subnormals' below)."""
    a = np.abs(v)
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -126)))
    return 2.0 ** (e - 23)


def measure(fn: str, acc: Accuracy, n: int = 200_000, seed: int = 0) -> Dict[str, float]:
    """The largest errors of ``fn`` (see the module docstring) over :func:`inputs`."""
    x = inputs(fn, n, seed)
    got = evaluate(fn, x, acc).astype(np.float64)
    with np.errstate(all="ignore"):
        ref = REFERENCE[fn](x.astype(np.float64))
        ref32 = ref.astype(np.float32)
    fin = np.isfinite(ref32) & np.isfinite(got)
    same_special = (~np.isfinite(ref32)) & ((got == ref32) | (np.isnan(got) & np.isnan(ref32)))
    bad = ~fin & ~same_special
    g, r, r32 = got[fin], ref[fin], ref32[fin]
    ulps = np.abs(g - r) / _ulp(r)
    # distance in representable fp32 values from the correctly rounded result (ordered integers of the bits)
    def ordered(f):
        i = f.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    dist = np.abs(ordered(g) - ordered(r32))
    return {"inputs": int(x.size), "max_ulp_f64": float(ulps.max()), "max_ulp_f32": int(dist.max()),
            "max_abs": float(np.abs(g - r).max()), "special_mismatches": int(bad.sum()),
            "lo": float(x.min()), "hi": float(x.max())}


def table(cfg: SeConfig, n: int, seed: int) -> str:
    rows = ["| function | table accuracy (YAML) | inputs | max error, ULP of the float64 result | "
            "max ULP from the rounded fp32 result | max absolute error |", "|---|---|---|---|---|---|"]
    for fn, acc in cfg.functions:
        r = measure(fn, acc, n, seed)
        ulp = f"{r['max_ulp_f64']:.3g}" if acc.bits else f"unbounded near zeros ({r['max_ulp_f64']:.3g})"
        rows.append(f"| `{fn}` | {acc.describe()} | {r['inputs']:,} | {ulp} | "
                    f"{r['max_ulp_f32'] if acc.bits else '-'} | {'-' if acc.bits else format(r['max_abs'], '.3g')} |")
    return "\n".join(rows)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m mtiasim.se.accuracy", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="inputs per function")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--machine", "--config", dest="config", default=None,
                    help="a built-in machine or a machine YAML (default: mtia2i)")
    a = ap.parse_args(argv)
    from mtiacc.machine.simulator import load_config
    print(table(load_config(a.config).se, a.n, a.seed))


if __name__ == "__main__":
    main()
