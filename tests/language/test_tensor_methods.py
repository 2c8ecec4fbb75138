"""The free functions Triton also makes tensor methods (``x.abs()``, ``x.exp()``, ``x.sigmoid()``,
``p.store(v)``, ...) are the same functions with the receiver first, against numpy.  (Was "`x.abs` is not
supported yet (values have no attribute 'abs' here)", Triton's test_tensor_member.)"""
import numpy as np

from tests.language.harness import launch

KERNEL = """
@triton.jit
def k(X, Y):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    (Y + offs).store(x.abs() + x.exp().log() + x.sigmoid() + x.floor() + (x * x).sqrt())
    tl.store(Y + 16, x.sum())
    tl.store(Y + 17, (offs.cdiv(3)).to(tl.float32).sum())
"""


def test_tensor_member_functions():
    x = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    y = launch(KERNEL, "*fp32,*fp32", {"X": x, "Y": np.zeros(18, np.float32)}).outputs["Y"]
    want = np.abs(x) + x + 1 / (1 + np.exp(-x)) + np.floor(x) + np.abs(x)
    np.testing.assert_allclose(y[:16], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y[16], x.sum(), rtol=1e-5)
    assert y[17] == ((np.arange(16) + 2) // 3).sum()
