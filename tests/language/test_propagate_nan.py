"""``tl.minimum`` / ``tl.maximum`` / ``tl.clamp`` with ``propagate_nan=tl.PropagateNan.NONE`` or ``.ALL``,
chosen through ``getattr(tl, FUNC)`` and ``getattr(tl.PropagateNan, MODE)`` as Triton's tests write them:
run on the simulator against numpy (``fmin``/``fmax`` ignore a NaN, ``minimum``/``maximum`` propagate it),
over blocks with NaNs in either operand and both."""
from __future__ import annotations

import numpy as np
import pytest

from tests.language.harness import launch

SRC = """
@triton.jit
def k(A, B, C, MODE: tl.constexpr, FUNC: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    if FUNC == "clamp":
        c = getattr(tl, FUNC)(a, -tl.abs(b), tl.abs(b), propagate_nan=getattr(tl.PropagateNan, MODE))
    else:
        c = getattr(tl, FUNC)(a, b, propagate_nan=getattr(tl.PropagateNan, MODE))
    tl.store(C + offs, c)
"""


def inputs(dtype):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(16).astype(dtype)
    b = rng.standard_normal(16).astype(dtype)
    a[[1, 5]] = np.nan
    b[[5, 9]] = np.nan
    return a, b


@pytest.mark.parametrize("dtype, sig", [(np.float32, "fp32"), (np.float16, "fp16")])
@pytest.mark.parametrize("func", ["minimum", "maximum", "clamp"])
@pytest.mark.parametrize("mode", ["NONE", "ALL"])
def test_propagate_nan_matches_numpy(dtype, sig, func, mode):
    a, b = inputs(dtype)
    out = launch(SRC, f"*{sig},*{sig},*{sig}", {"A": a, "B": b, "C": np.zeros(16, dtype)},
                 defines=(("MODE", f"'{mode}'"), ("FUNC", f"'{func}'"))).outputs["C"]
    if func == "clamp":   # NaN bounds are undefined in Triton: compare where they are numbers
        lo, hi = -np.abs(b), np.abs(b)
        want = np.fmin(np.fmax(a, lo), hi)
        if mode == "ALL":
            want = np.where(np.isnan(a), a, want)
        keep = ~np.isnan(b)
        np.testing.assert_array_equal(out[keep], want[keep])
        return
    fn = {("minimum", "NONE"): np.fmin, ("maximum", "NONE"): np.fmax,
          ("minimum", "ALL"): np.minimum, ("maximum", "ALL"): np.maximum}[func, mode]
    np.testing.assert_array_equal(out, fn(a, b))
