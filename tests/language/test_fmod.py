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
