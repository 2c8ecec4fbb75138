"""Adaptive 3-D average pooling under backend="mtia" (lowerings/pooling.py) against eager on seeded inputs: windows
that overlap and differ in size (8 -> 5, 8 -> 7, 6 -> 4), one window over the whole input, an unbatched input,
an empty batch, float16; on the chip with nothing left to aten."""
import torch
import torch.nn.functional as F

from mtiacc.torch_backend import report


def _check(fn, *args, **tol):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    torch.testing.assert_close(got, fn(*args), **tol)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


def test_adaptive_avg_pool3d():
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(2, 3, 8, 8, 6, generator=g), torch.randn(3, 4, 3, 7, generator=g)
    _check(lambda x, y: (F.adaptive_avg_pool3d(x, (5, 7, 4)), F.adaptive_avg_pool3d(y, (1, 1, 1)),
                         F.adaptive_avg_pool3d(x[:0], (5, 7, 4))), x, y)


def test_adaptive_avg_pool3d_half():
    x = torch.randn(1, 2, 8, 5, 6, generator=torch.Generator().manual_seed(1)).half()
    _check(lambda x: F.adaptive_avg_pool3d(x, (3, 2, 4)), x, atol=1e-3, rtol=1e-3)
