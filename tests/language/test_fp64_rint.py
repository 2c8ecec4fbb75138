"""libdevice.rint / nearbyint / llrint on float64: round half to even, exactly as numpy's rint (halfway
cases, signed zeros, values beyond 2**52, infinities and NaN), on seeded inputs over the int32 and int64
ranges (Triton's test_libdevice_rint's inputs)."""
import numpy as np
import pytest

from tests.language.harness import launch

KERNEL = '''
@triton.jit
def k(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Y + offs, libdevice.FN(tl.load(X + offs, mask=m)), mask=m)
'''


@pytest.mark.parametrize("fn", ["rint", "nearbyint"])
def test_rint_float64_matches_numpy(fn):
    rng = np.random.default_rng(13)
    special = [-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 0.49999999999999994, -0.49999999999999994,
               2.0 ** 52 - 0.5, -(2.0 ** 52) + 0.5, 2.0 ** 52 + 1, 2.0 ** 53 + 2, 1e300, 5e-324,
               np.inf, -np.inf, np.nan]
    x = np.concatenate([rng.uniform(-2.0 ** 31, 2.0 ** 31, 200), rng.uniform(-2.0 ** 63, 2.0 ** 63, 100),
                        rng.integers(-40, 40, 100) / 2.0, special])
    n = len(x)
    got = launch(KERNEL.replace("FN", fn), "*fp64,*fp64,i32", {"X": x, "Y": np.zeros(n), "n": np.array(n, np.int32)},
                 grid=(-(-n // 128),), defines=(("BLOCK", "128"),)).outputs["Y"]
    np.testing.assert_array_equal(got.view(np.uint64)[~np.isnan(x)], np.rint(x).view(np.uint64)[~np.isnan(x)])
    assert np.isnan(got[np.isnan(x)]).all()
