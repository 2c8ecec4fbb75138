"""The tutorial-style examples examples/softmax.py and rms_norm.py against their numpy references,
over several shapes including ragged ones (layer_norm.py, embedding_bag.py: test_examples_memory.py)."""
import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch
from tests.codegen.tensor.blocks.test_examples import reference as load_reference
from tests.conftest import EXAMPLES

F32, I32 = np.float32, np.int32


def _build(name, kernel, sig, **defines):
    return build(kernel, sig, path=EXAMPLES / f"{name}.py", **defines)


@pytest.mark.parametrize("M, N, block", [(4, 64, 64), (3, 37, 64), (2, 200, 256), (5, 1, 16)])
def test_softmax(tmp_path, M, N, block):
    x = (np.random.default_rng(M * N).standard_normal((M, N)) * 4).astype(F32)
    stride = N + 3  # rows not packed: strides are run-time values
    xin = np.zeros((M, stride), F32)
    xin[:, :N] = x
    out = launch(tmp_path, _build("softmax", "softmax_kernel", "*fp32,*fp32,i32,i32,i32", BLOCK_SIZE=block),
                 {"output_ptr": np.full(M * N, 7, F32), "input_ptr": xin.ravel(),
                  "input_row_stride": np.array(stride, I32), "output_row_stride": np.array(N, I32),
                  "n_cols": np.array(N, I32)}, (M,))
    y = out["output_ptr"].reshape(M, N)
    np.testing.assert_allclose(y, load_reference("softmax")(x), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("M, N, block", [(3, 64, 64), (2, 100, 32), (4, 7, 16), (1, 513, 128)])
def test_rms_norm(tmp_path, M, N, block):
    rng = np.random.default_rng(N)
    x = rng.standard_normal((M, N)).astype(F32)
    w = rng.uniform(0.5, 1.5, N).astype(F32)
    eps = 1e-5
    out = launch(tmp_path, _build("rms_norm", "rms_norm_kernel", "*fp32,*fp32,*fp32,i32,i32,fp32",
                                  BLOCK_SIZE=block),
                 {"X": x.ravel(), "Y": np.zeros(M * N, F32), "W": w, "stride": np.array(N, I32),
                  "N": np.array(N, I32), "eps": np.array(eps, F32)}, (M,))
    np.testing.assert_allclose(out["Y"].reshape(M, N), load_reference("rms_norm")(x, w, eps), rtol=1e-5, atol=1e-6)
