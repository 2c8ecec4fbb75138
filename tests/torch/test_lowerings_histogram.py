"""histc under backend="mtia" (lowerings/histogram.py): against eager on seeded inputs, on the chip."""
import torch

from mtiacc.torch_backend import report


def test_histc():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(300, generator=g) * 4
    x[0], x[1], x[2], x[3] = 10.0, 0.0, float("nan"), 5.0     # both ends, NaN (not counted), an edge
    fn = lambda a: (torch.histc(a, bins=7, min=0, max=10),
                    torch.histc(a[3:]),                        # the range from the data
                    torch.histc(a[5:6], bins=3),               # one element: the range widened by 1
                    torch.histc(a[3].reshape(()), bins=1, min=0, max=10))
    got = torch.compile(fn, backend="mtia", fullgraph=True)(x)
    for g_, w in zip(got, fn(x)):
        torch.testing.assert_close(g_, w)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
