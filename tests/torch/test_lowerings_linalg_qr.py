"""Householder QR under backend="mtia" (lowerings/linalg/qr.py): geqrf, linalg_qr, householder_product and
ormqr against eager (LAPACK) on seeded inputs (batched, tall, wide, rank-deficient, a column already zero below
the diagonal), on the chip with nothing left to aten; other dtypes and larger matrices stay with aten."""
import pytest
import torch

from mtiacc.torch_backend import report

LA = torch.linalg
TOL = dict(atol=1e-5, rtol=1e-4)


def _check(fn, *args, **tol):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    torch.testing.assert_close(got, fn(*args), **tol)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
    return got


def test_geqrf_and_qr():
    """Every mode of linalg.qr on a batch of tall matrices, a wide one (its Q square, R wide) and a
    rank-deficient tall one whose first column is already zero below the diagonal and whose third is zero (LAPACK's
    larfg leaves such a column alone: tau 0, R's diagonal 0 for the zero one); geqrf's packed reflectors and
    taus."""
    g = torch.Generator().manual_seed(0)
    tall, wide = torch.randn(2, 6, 4, generator=g), torch.randn(3, 5, generator=g)
    low = torch.randn(6, 5, generator=g)
    low[:, 0] = torch.tensor([-3.0, 0, 0, 0, 0, 0])
    low[:, 2] = 0.0                       # rank 4
    _check(lambda t, w, r: (torch.geqrf(t), torch.geqrf(w), torch.geqrf(r), LA.qr(t), LA.qr(t, mode="complete"),
                            LA.qr(t, mode="r"), LA.qr(w), LA.qr(w, mode="complete"), LA.qr(r)),
           tall, wide, low, **TOL)


def test_ormqr_and_householder_product():
    """Q C, Q^T C, C Q and C Q^T with a batch of eager's reflectors, of a tall and a wide factorization; Q's
    columns (orgqr) of as many reflectors as columns and of fewer."""
    g = torch.Generator().manual_seed(1)
    tall, wide = torch.randn(2, 6, 4, generator=g), torch.randn(2, 3, 5, generator=g)
    r, tau = torch.geqrf(tall)
    rw, tauw = torch.geqrf(wide)
    c, cr = torch.randn(2, 6, 3, generator=g), torch.randn(2, 3, 6, generator=g)
    cw = torch.randn(2, 3, 5, generator=g)
    _check(lambda r, tau, rw, tauw, c, cr, cw: (
        torch.ormqr(r, tau, c), torch.ormqr(r, tau, c, transpose=True), torch.ormqr(r, tau, cr, left=False),
        torch.ormqr(r, tau, cr, left=False, transpose=True), torch.ormqr(rw, tauw, cw),
        LA.householder_product(r, tau), LA.householder_product(r, tau[..., :2]),
        LA.householder_product(rw[..., :3], tauw)),
        r, tau, rw, tauw, c, cr, cw, **TOL)


def test_empty_and_others_stay_with_aten():
    """Matrices with no element need no kernel; float64 and matrices past 64 rows stay with aten."""
    empty = torch.randn(3, 0)
    got = torch.compile(lambda a: LA.qr(a, mode="complete"), backend="mtia", fullgraph=True)(empty)
    torch.testing.assert_close(got, LA.qr(empty, mode="complete"))
    assert report()["aten_ops"] == []
    g = torch.Generator().manual_seed(2)
    for a in (torch.randn(4, 3, generator=g, dtype=torch.float64), torch.randn(65, 3, generator=g)):
        got = torch.compile(torch.geqrf, backend="mtia", fullgraph=True)(a)
        torch.testing.assert_close(got, torch.geqrf(a))
        assert [e["name"] for e in report()["aten_ops"]] == ["geqrf"]
        torch._dynamo.reset()


@pytest.mark.slow
def test_qr_of_the_largest_matrices():
    """64 x 64 and 64 x 40: the largest the chip takes, one program each."""
    g = torch.Generator().manual_seed(3)
    _check(lambda a, b: (LA.qr(a), LA.qr(b, mode="complete")), torch.randn(64, 64, generator=g),
           torch.randn(64, 40, generator=g), atol=1e-4, rtol=1e-3)
