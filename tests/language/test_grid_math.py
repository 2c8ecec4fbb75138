"""Differential grid: every unary math function over fp16, bf16 and fp32 blocks, against numpy.

fp16 and bf16 operands are widened to f32, the f32 function runs, and the result is rounded back to
the operand type (nearest even).  The reference is the float64 function of the (exactly representable)
input, rounded once to the output type.  Tolerances are in ULPs of the output type: fp32 uses the
bounds stated in docs/language.md (test_math.UNARY); on fp16 and bf16 an f32 result within a few f32
ULPs rounds to the correctly rounded narrow value except next to a rounding boundary, so the bound is
1 ULP of the narrow type (0 for the exact functions: abs, floor, ceil, trunc, rint, sqrt).
"""
import numpy as np
import pytest

from tests.language.dtypes import DTYPES, as_f32, from_real
from tests.language.harness import launch
from tests.language.test_math import UNARY

KERNEL = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, FN(x), mask=m)
'''
TYPES = ["float16", "bfloat16", "float32"]
EXACT = {"tl.abs", "tl.floor", "tl.ceil", "libdevice.trunc", "libdevice.rint", "tl.sqrt", "tl.sqrt_rn"}
LIMIT = {"float16": 65504.0, "bfloat16": 3.0e38, "float32": 3.0e38}
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.5, -2.5, 1.0, -1.0, 2.0, 1e-3, -1e-3, 6e-5, 6e-8]
N = 700


def ordered(bits: np.ndarray, w: int) -> np.ndarray:
    """Bit patterns of ``w``-bit floats as integers ordered like the values (-0 == +0)."""
    b = bits.astype(np.int64) & ((1 << w) - 1)
    sign = 1 << (w - 1)
    return np.where(b & sign, -(b & (sign - 1)), b)


def narrow_ulps(got: np.ndarray, want: np.ndarray, t: str) -> np.ndarray:
    """ULP distance in type ``t`` of two storage arrays; NaN matches NaN only."""
    w = 32 if t == "float32" else 16
    ui = {32: np.uint32, 16: np.uint16}[w]
    g, r = got.view(ui), want.view(ui)
    gn, rn = np.isnan(as_f32(got, t)), np.isnan(as_f32(want, t))
    d = np.abs(ordered(g, w) - ordered(r, w))
    return np.where(gn & rn, 0, np.where(gn | rn, 1 << 40, d))


def inputs(fn: str, t: str, seed: int) -> np.ndarray:
    lim = min(UNARY[fn][2], LIMIT[t])
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-lim, lim, N - 200 - len(EDGES)), rng.standard_normal(200), EDGES])
    with np.errstate(over="ignore"):
        return from_real(x, t)


def bound(fn: str, t: str) -> int:
    if t == "float32":
        return UNARY[fn][1]
    return 0 if fn in EXACT else 1


CASES = [(fn, t) for fn in sorted(UNARY) for t in TYPES]


@pytest.mark.parametrize("fn,t", CASES, ids=[f"{fn}-{t}" for fn, t in CASES])
def test_unary_math_grid(fn, t):
    x = inputs(fn, t, seed=len(fn) * 7 + len(t))
    n = len(x)
    sig = f"*{DTYPES[t][0]},*{DTYPES[t][0]},i32"
    data = {"X": x, "Y": np.zeros(n, DTYPES[t][1]), "N": np.array(n, np.int32)}
    got = launch(KERNEL.replace("FN", fn), sig, data, grid=(-(-n // 256),), defines=(("BLOCK", "256"),)).outputs["Y"]
    with np.errstate(all="ignore"):
        exact = UNARY[fn][0](as_f32(x, t))
        want = from_real(exact, t)
    u = narrow_ulps(got, want, t)
    if t != "float16":  # a float64 reference below f32's smallest normal may round differently (test_math)
        tiny = np.abs(exact) < 1.2e-38
        with np.errstate(invalid="ignore"):
            near = np.abs(as_f32(got, t) - exact) < 2e-38
        u = np.where(tiny, np.where(near, 0, 1 << 40), u)
    worst = int(np.argmax(u))
    assert u.max() <= bound(fn, t), \
        f"{fn} on {t}: {u.max()} ULP at x={as_f32(x, t)[worst]!r}: got {as_f32(got, t)[worst]!r}, " \
        f"want {as_f32(want, t)[worst]!r}"
    assert n > 400
