"""What the OpInfo run (benchmarks/opinfo.py, docs/opinfo.md) left to the host, now on the chip: each against
eager on seeded inputs, with every kernel on the chip and nothing left to aten."""
import pytest
import torch

from mtiacc.torch_backend import report


def _check(fn, *args, **tol):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    torch.testing.assert_close(got, fn(*args), **tol)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


def test_addbmm():
    """beta and alpha of 1, others, and beta 0 (a NaN in the input ignored, as aten does); a broadcast input."""
    g = torch.Generator().manual_seed(0)
    inp, row = torch.randn(5, 7, generator=g), torch.randn(7, generator=g)
    inp[1, 2] = float("nan")
    b1, b2 = torch.randn(3, 5, 6, generator=g), torch.randn(3, 6, 7, generator=g)
    keep = torch.randn(5, 7, generator=g)
    _check(lambda i, r, k, x, y: (torch.addbmm(k, x, y), torch.addbmm(k, x, y, beta=0.5, alpha=-2.0),
                                  torch.addbmm(i, x, y, beta=0), torch.addbmm(r, x, y)), inp, row, keep, b1, b2)


def test_bilinear_and_trilinear():
    """bilinear with and without bias; aten._trilinear with a summed dimension given negative, and none."""
    g = torch.Generator().manual_seed(2)
    x1, x2 = torch.randn(2, 3, 4, generator=g), torch.randn(2, 3, 5, generator=g)
    w, b = torch.randn(6, 4, 5, generator=g), torch.randn(6, generator=g)
    a, c, d = torch.randn(3, 4, generator=g), torch.randn(5, 4, generator=g), torch.randn(3, 5, generator=g)
    tri = torch.ops.aten._trilinear
    _check(lambda x1, x2, w, b, a, c, d: (
        torch.nn.functional.bilinear(x1, x2, w, b), torch.nn.functional.bilinear(x1, x2, w),
        tri(a, c, d, [1], [0], [2], [-1]), tri(a, c, d, [1], [0], [2], [])), x1, x2, w, b, a, c, d)


def test_cdist():
    """Every p, batch dimensions broadcast (and of another rank), equal rows (distance 0) among them; no features."""
    g = torch.Generator().manual_seed(4)
    x1, x2 = torch.randn(2, 1, 4, 5, generator=g), torch.randn(3, 6, 5, generator=g)
    x2[1, 2] = x1[1, 0, 3]
    x1[0, 0, 1, 2] = x2[0, 4, 2]
    e1, e2 = torch.randn(4, 0, generator=g), torch.randn(3, 0, generator=g)
    _check(lambda a, b, c, d: tuple(torch.cdist(a, b, p) for p in (0.0, 1.0, 2.0, 1.5, float("inf")))
           + (torch.cdist(c, d) + 1,), x1, x2, e1, e2)


@pytest.mark.parametrize("n", [2, 7])
def test_pdist(n):
    """One pair and many, every p, a distance of 0."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(n, 4, generator=g)
    x[n - 1] = x[0]
    _check(lambda a: tuple(torch.nn.functional.pdist(a, p) for p in (0.0, 1.0, 2.0, 3.0, float("inf"))), x)


def test_nonzero_static():
    """Fewer, as many and more rows than nonzeros (the rest filled), in 3-D and 1-D, float and bool."""
    g = torch.Generator().manual_seed(6)
    x = torch.randn(2, 3, 4, generator=g)
    x[x.abs() < 1.0] = 0                     # about a third not zero
    x[1, 2, 3] = float("nan")                # NaN is not zero
    b = torch.tensor([False, True, True, False, True])
    n = int((x != 0).sum())
    _check(lambda a, c: tuple(torch.nonzero_static(a, size=s) for s in (1, n, n + 4))
           + (torch.nonzero_static(c, size=5, fill_value=7), torch.nonzero_static(c, size=2)), x, b)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float16])
def test_addbmm_other_dtypes_stay_with_aten(dtype):
    """Integer and half-precision addbmm stay with aten: the result's dtype and values are aten's."""
    g = torch.Generator().manual_seed(9)
    inp, b1, b2 = (torch.randint(-5, 5, s, generator=g).to(dtype) for s in ((3, 4), (2, 3, 5), (2, 5, 4)))
    f = torch.compile(lambda i, x, y: torch.addbmm(i, x, y, beta=2, alpha=3), backend="mtia", fullgraph=True)
    got = f(inp, b1, b2)
    assert got.dtype == dtype
    torch.testing.assert_close(got, torch.addbmm(inp, b1, b2, beta=2, alpha=3), rtol=0, atol=0)
    assert [e["name"] for e in report()["aten_ops"]] == ["addbmm"], report()["aten_ops"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_var_mean_of_no_elements(dtype):
    """The mean over no elements is NaN, as aten's (Inductor's Welford reduction gave 0); the variance NaN too;
    reductions over elements are unchanged."""
    g = torch.Generator().manual_seed(6)
    x = torch.randn(3, 4, generator=g).to(dtype)
    fn = torch.compile(lambda e, x: (torch.var_mean(e, 0, correction=0), torch.var_mean(e), torch.var_mean(x, 1)),
                       backend="mtia", fullgraph=True)
    got = fn(torch.empty(0, 3, dtype=dtype), x)
    assert torch.isnan(got[0][1]).all() and torch.isnan(got[1][1]) and torch.isnan(got[0][0]).all()
    torch.testing.assert_close(got[2], torch.var_mean(x, 1))
    assert report()["aten_ops"] == []


def test_segment_reduce():
    """Every reduction, by lengths (an empty segment among them) and by 2-D offsets along axis 1, with and without
    ``initial``."""
    g = torch.Generator().manual_seed(7)
    d, d2 = torch.randn(7, 3, generator=g), torch.randn(2, 3, generator=g)
    lengths = torch.tensor([2, 0, 4, 1])
    offsets = torch.tensor([[0, 1, 1, 3], [0, 2, 2, 2]])

    def fn(d, lengths, d2, offsets):
        return [x for r in ("sum", "mean", "max", "min", "prod")
                for x in (torch.segment_reduce(d, r, lengths=lengths),
                          torch.segment_reduce(d, r, lengths=lengths, initial=1.5),
                          torch.segment_reduce(d2, r, offsets=offsets, axis=1))]
    _check(fn, d, lengths, d2, offsets, equal_nan=True)
