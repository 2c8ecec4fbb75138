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


def _matches_on_chip(fn, *args):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    want = fn(*args)
    for g_, w in zip(got, want):
        torch.testing.assert_close(g_.hist, w.hist, equal_nan=True)
        for a, b in zip(g_.bin_edges, w.bin_edges):        # the edges bit for bit: the bins depend on them
            assert torch.equal(a, b), (a, b)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


def test_histogram():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(60, generator=g) * 3
    x[0] = float("nan")                                         # in no bin
    x[1:7] = torch.tensor([-2.0, -1.0, 0.0, 2.0, 3.0, 3.5])     # on the edges of range=(-2, 3), and outside
    w = torch.rand(60, generator=g)
    e = torch.tensor([-4.0, -1.0, -1.0, 0.5, 2.0, 6.0])         # an empty bin (its density 0/0 = NaN, as eager's)
    fn = lambda x, w, e: (torch.histogram(x[1:], bins=7),                       # the range from the data
                          torch.histogram(x, bins=5, range=(-2.0, 3.0), weight=w),
                          torch.histogram(x, bins=e, density=True),
                          torch.histogram(x[9:10], bins=3),                     # one element: widened by 1/2
                          torch.histogram(x.reshape(3, -1), bins=37, range=(-3.3, 4.1), density=True))
    _matches_on_chip(fn, x, w, e)


def test_histogramdd():
    g = torch.Generator().manual_seed(2)
    y = torch.randn(40, 2, generator=g)
    w = torch.rand(40, generator=g)
    e = [torch.tensor([-2.0, -0.5, 0.0, 1.5]), torch.tensor([-1.0, 1.0, 1.0, 3.0])]
    fn = lambda y, w, e0, e1: (torch.histogramdd(y, bins=[3, 4]),
                               torch.histogramdd(y, bins=[2, 5], range=[-1.0, 1.0, 0.0, 2.0], weight=w, density=True),
                               torch.histogramdd(y, bins=[e0, e1], weight=w))
    _matches_on_chip(fn, y, w, *e)


def test_linspace_edges_bit_for_bit():
    """Aten's edges are fused multiply-adds from both ends (one rounding each): bin counts and ranges (given, and
    from the data) where ``start + step * i`` rounded twice would differ in 2 to 78 edges."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(64, generator=g) * 7 + 1.3
    fn = lambda x: tuple(torch.histogram(x, bins=b) for b in (3, 10, 100, 255)) + \
        (torch.histogram(x, bins=97, range=(-1.7, 12.9)),)
    _matches_on_chip(fn, x)


def test_bincount():
    """Its length from the data (a size the graph binds at run time), minlength below and above it, weights,
    int32 values, no values at all."""
    g = torch.Generator().manual_seed(4)
    x = torch.randint(0, 9, (40,), generator=g)
    w = torch.rand(40, generator=g)
    fn = lambda x, w: (torch.bincount(x), torch.bincount(x, w, minlength=3), torch.bincount(x, minlength=15),
                       torch.bincount(x.to(torch.int32)[:7]), torch.bincount(x[:0], minlength=4),
                       torch.bincount(x[:9], x[9:18]))                          # int weights: a float64 result
    got = torch.compile(fn, backend="mtia", fullgraph=True)(x, w)
    for g_, w_ in zip(got, fn(x, w)):
        assert g_.dtype == w_.dtype and g_.shape == w_.shape, (g_, w_)
        torch.testing.assert_close(g_, w_)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
