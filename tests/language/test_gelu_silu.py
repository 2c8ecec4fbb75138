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
    want = 0.5 * xd * (1 + _erf(xd / math.sqrt(2))) if activation == 0 else xd / (1 + np.exp(-xd))
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
