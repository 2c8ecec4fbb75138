"""What the OpInfo runs (benchmarks/opinfo.py) left to the host or got wrong, now on the chip: each against eager
on seeded inputs, with every kernel on the chip and nothing left to aten."""
import pytest
import torch

from mtiacc.torch_backend import report


def _check(fn, *args, **tol):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    torch.testing.assert_close(got, fn(*args), **tol)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 1)])
def test_addbmm(beta, alpha):
    g = torch.Generator().manual_seed(0)
    inp = torch.randn(5, 7, generator=g)
    if beta == 0:
        inp[1, 2] = float("nan")             # ignored with beta == 0, as aten does
    b1, b2 = torch.randn(3, 5, 6, generator=g), torch.randn(3, 6, 7, generator=g)
    _check(lambda i, x, y: torch.addbmm(i, x, y, beta=beta, alpha=alpha), inp, b1, b2)


def test_addbmm_broadcast_input():
    g = torch.Generator().manual_seed(1)
    inp, b1, b2 = torch.randn(7, generator=g), torch.randn(4, 5, 3, generator=g), torch.randn(4, 3, 7, generator=g)
    _check(torch.addbmm, inp, b1, b2)


@pytest.mark.parametrize("bias", [True, False])
def test_bilinear(bias):
    g = torch.Generator().manual_seed(2)
    x1, x2 = torch.randn(2, 3, 4, generator=g), torch.randn(2, 3, 5, generator=g)
    w, b = torch.randn(6, 4, 5, generator=g), torch.randn(6, generator=g)
    _check(lambda a, c, w, b: torch.nn.functional.bilinear(a, c, w, b if bias else None), x1, x2, w, b)


def test_trilinear_direct():
    """aten._trilinear with a summed dimension given negative, and one operand expanded twice."""
    g = torch.Generator().manual_seed(3)
    a, b, c = torch.randn(3, 4, generator=g), torch.randn(5, 4, generator=g), torch.randn(3, 5, generator=g)
    _check(lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [1], [0], [2], [-1]), a, b, c)
    _check(lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [1], [0], [2], []), a, b, c)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 1.5, float("inf")])
def test_cdist(p):
    """Every p, batch dimensions broadcast (and of another rank), equal rows (distance 0) among them."""
    g = torch.Generator().manual_seed(4)
    x1, x2 = torch.randn(2, 1, 4, 5, generator=g), torch.randn(3, 6, 5, generator=g)
    x2[1, 2] = x1[1, 0, 3]
    x1[0, 0, 1, 2] = x2[0, 4, 2]
    _check(lambda a, b: torch.cdist(a, b, p), x1, x2)


def test_cdist_without_features():
    g = torch.Generator().manual_seed(5)
    _check(lambda a, b: torch.cdist(a, b, 2.0) + 1, torch.randn(4, 0, generator=g), torch.randn(3, 0, generator=g))


@pytest.mark.parametrize("size", [1, 5, 12])
def test_nonzero_static(size):
    """Fewer, as many and more rows than nonzeros (the rest filled), in 3-D and 1-D, float and bool."""
    g = torch.Generator().manual_seed(6)
    x = torch.randn(2, 3, 4, generator=g)
    x[x.abs() < 1.0] = 0                     # about a third not zero
    x[1, 2, 3] = float("nan")                # NaN is not zero
    b = torch.tensor([False, True, True, False, True])
    _check(lambda a, c: (torch.nonzero_static(a, size=size), torch.nonzero_static(c, size=size, fill_value=7)), x, b)


@pytest.mark.parametrize("n,p", [(2, 2.0), (3, 1.0), (7, 2.0), (7, 0.0), (6, 3.0), (5, float("inf"))])
def test_pdist(n, p):
    g = torch.Generator().manual_seed(7)
    x = torch.randn(n, 4, generator=g)
    x[n - 1] = x[0]                           # a distance of 0
    _check(lambda a: torch.nn.functional.pdist(a, p), x)
