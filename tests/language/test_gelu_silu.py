"""examples/gelu_silu.py against numpy over several sizes, ragged ones included."""
import math

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.conftest import EXAMPLES

_erf = np.vectorize(math.erf)


@pytest.mark.parametrize("activation", [0, 1])
@pytest.mark.parametrize("n", [1, 100, 1024, 3001])
def test_gelu_silu_matches_numpy(tmp_path, activation, n):
    opts = Options(defines={"ACTIVATION": str(activation), "BLOCK_SIZE": "512"}, signature="*fp32,*fp32,i32")
    path = tmp_path / "k.bin"
    path.write_bytes(compile_kernel(str(EXAMPLES / "gelu_silu.py"), opts).binary)
    x = (np.random.default_rng(n).standard_normal(n) * 4).astype(np.float32)
    out = run(str(path), {"X": x, "Y": np.zeros(n, np.float32), "N": np.array(n, np.int32)},
              grid=(-(-n // 512),)).outputs["Y"]
    xd = x.astype(np.float64)
    if activation == 1:
        np.testing.assert_allclose(out, xd / (1 + np.exp(-xd)), rtol=1e-6, atol=1e-7)
        return
    # GELU: erf is within 2 ULP of fp32 (the SIMD engine's table by default, docs/language.md "Math"); half of x
    # times that, plus a few roundings of the result
    e = _erf(xd / math.sqrt(2))
    want = 0.5 * xd * (1 + e)
    ulp = lambda v: np.spacing(np.abs(v).astype(np.float32)).astype(np.float64)
    err = np.abs(out - want)
    bound = 0.5 * np.abs(xd) * 2 * ulp(e) + 3 * ulp(want)
    assert (err <= bound).all(), (xd[err > bound], err[err > bound], bound[err > bound])
