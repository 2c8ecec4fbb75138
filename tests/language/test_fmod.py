"""``%`` on float blocks is C's fmod: exact, with the sign of the dividend, over the whole f32 range
(huge exponent differences, subnormals, zeros, infinities, NaN), and on fp16 / bf16 (rounded back)."""
import numpy as np
import pytest

from tests.language.dtypes import DTYPES, as_f32, from_real
from tests.language.harness import launch

KERNEL = '''
@triton.jit
def k(X, Z, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(Y + offs, tl.load(X + offs, mask=m) % tl.load(Z + offs, mask=m), mask=m)
'''
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e-39, 1.1754944e-38, 3.4e38, -3.4e38, 1.0,
           -1.0, 0.1, 7.0, -7.0, 1e10]


def operands(t: str):
    rng = np.random.default_rng(11)
    n = 600
    lo, hi = (-16, 11) if t == "float16" else (-100, 88)
    mag = lambda k: np.exp(rng.uniform(lo, hi, k)) * rng.choice([-1, 1], k)  # noqa: E731
    x = np.concatenate([mag(n), np.repeat(SPECIAL, len(SPECIAL))])
    z = np.concatenate([mag(n), np.tile(SPECIAL, len(SPECIAL))])
    with np.errstate(over="ignore"):
        return from_real(x, t), from_real(z, t)


@pytest.mark.parametrize("t", ["float32", "float16", "bfloat16"])
def test_fmod_exact(t):
    x, z = operands(t)
    n = len(x)
    sig = ",".join([f"*{DTYPES[t][0]}"] * 3 + ["i32"])
    got = launch(KERNEL, sig, {"X": x, "Z": z, "Y": np.zeros(n, DTYPES[t][1]), "N": np.array(n, np.int32)},
                 grid=(-(-n // 256),), defines=(("BLOCK", "256"),)).outputs["Y"]
    with np.errstate(invalid="ignore"):
        want = from_real(np.fmod(as_f32(x, t), as_f32(z, t)), t)   # exact in float64, representable
    g, w = as_f32(got, t), as_f32(want, t)
    same = (g == w) & (np.signbit(g) == np.signbit(w)) | (np.isnan(g) & np.isnan(w))
    bad = np.flatnonzero(~same)
    assert not len(bad), f"{len(bad)} wrong, e.g. {as_f32(x, t)[bad[0]]!r} % {as_f32(z, t)[bad[0]]!r}: " \
                         f"got {g[bad[0]]!r}, want {w[bad[0]]!r}"
    assert np.isfinite(w).sum() > 300 and (np.abs(w) > 0).sum() > 200


SPECIAL64 = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, 1.7e308,
             -1.7e308, 1.0, -1.0, 0.1, 7.0, -7.0, 1e10, 3.0 * 2.0 ** 60]


def test_fmod_float64_exact_over_the_whole_range():
    """float64 ``%``: exponent differences up to the whole range (1.7e308 % 5e-324), subnormals, both signs,
    against numpy's fmod bit for bit, in blocks whose elements need different numbers of reduction steps."""
    rng = np.random.default_rng(12)
    n = 400
    mag = lambda k: np.exp(rng.uniform(-700, 700, k)) * rng.choice([-1, 1], k)  # noqa: E731
    x = np.concatenate([mag(n), rng.standard_normal(n) * 100, np.repeat(SPECIAL64, len(SPECIAL64))])
    z = np.concatenate([mag(n), rng.standard_normal(n), np.tile(SPECIAL64, len(SPECIAL64))])
    m = len(x)
    got = launch(KERNEL, "*fp64,*fp64,*fp64,i32", {"X": x, "Z": z, "Y": np.zeros(m), "N": np.array(m, np.int32)},
                 grid=(-(-m // 256),), defines=(("BLOCK", "256"),)).outputs["Y"]
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, z)
    same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert not len(bad), f"{len(bad)} wrong, e.g. {x[bad[0]]!r} % {z[bad[0]]!r}: got {got[bad[0]]!r}, want {want[bad[0]]!r}"


SCALAR64 = """
@triton.jit
def k(X, Z, Y):
    for i in range(4):
        tl.store(Y + i, tl.load(X + i) % tl.load(Z + i))
    tl.store(Y + 4, tl.load(X) % 3.0)
"""


def test_fmod_float64_on_scalars():
    x = np.array([1e300, -7.5, 5e-324, 10.0])
    z = np.array([3e-300, 2.0, 1.0, -0.0])
    got = launch(SCALAR64, "*fp64,*fp64,*fp64", {"X": x, "Z": z, "Y": np.zeros(5)}).outputs["Y"]
    with np.errstate(invalid="ignore"):
        want = np.append(np.fmod(x, z), np.fmod(x[0], 3.0))
    np.testing.assert_array_equal(got.view(np.uint64)[:3], want.view(np.uint64)[:3])
    assert np.isnan(got[3]) and got[4] == want[4]
