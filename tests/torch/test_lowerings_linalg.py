"""Dense linear algebra under backend="mtia" (lowerings/linalg/lu.py): LU, Cholesky, triangular solves and what is
made of them, against eager (LAPACK) on seeded inputs, on the chip with nothing left to aten; singular inputs
stop the run on the chip; other dtypes stay with aten."""
import pytest
import torch

from mtiacc.torch_backend import report

LA = torch.linalg


def _check(fn, *args, **tol):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    torch.testing.assert_close(got, fn(*args), **tol)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
    return got


def _spd(g, *shape):
    a = torch.randn(*shape, generator=g)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1])


def test_lu_factorizations():
    """Square and wide / tall batches; a column whose largest magnitudes tie (the first row is the pivot, as
    LAPACK's) and a singular matrix (a zero pivot: info is its column, the column left unscaled)."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(2, 3, 5, 5, generator=g)
    a[0, 0, :, 0] = torch.tensor([1.0, -3.0, 3.0, 2.0, -3.0])
    wide, tall = torch.randn(2, 3, 6, generator=g), torch.randn(7, 4, generator=g)
    sing = torch.randn(4, 4, generator=g)
    sing[:, 2] = sing[:, 0] * 2.0          # rank 3: the last pivot is exactly zero
    sing[:, 3] = 0.0
    _check(lambda a, w, t, s: (LA.lu_factor_ex(a), LA.lu_factor_ex(w), LA.lu(t), LA.lu(w),
                               torch.lu_unpack(*LA.lu_factor(a)), LA.lu_factor_ex(s)), a, wide, tall, sing)


def test_determinants():
    """det, slogdet and logdet of batches with odd and even numbers of row swaps and a negative determinant;
    the transposed operand aten factors when the input is contiguous, and a non-contiguous input."""
    g = torch.Generator().manual_seed(1)
    a = torch.randn(3, 6, 6, generator=g)
    p = _spd(g, 5, 5)
    _check(lambda a, p: (LA.det(a), LA.slogdet(a), torch.logdet(p), LA.det(a.mT[:, 1:, 1:]), LA.slogdet(-a)),
           a, p)


def test_a_solve_a_cholesky_and_a_triangular_solve():
    """The suite's slice of the two tests below (run whole with -m slow): one LU solve with a batch, one Cholesky
    factor, one triangular solve from the right."""
    g = torch.Generator().manual_seed(5)
    a, b, p = torch.randn(2, 5, 5, generator=g), torch.randn(2, 5, 3, generator=g), _spd(g, 5, 5)
    t, right = torch.randn(5, 5, generator=g) + 4 * torch.eye(5), torch.randn(3, 5, generator=g)
    _check(lambda a, b, p, t, right: (LA.solve(a, b), LA.cholesky(p), LA.solve_triangular(t.triu(), right,
                                                                                         upper=True, left=False)),
           a, b, p, t, right, atol=1e-5, rtol=1e-4)


@pytest.mark.slow
def test_solves_and_inverse():
    """solve with a matrix, a vector and a batch-broadcast right-hand side, and from the right; inv; lu_solve
    (plain, adjoint, from the right) with pivots from eager's factorization."""
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(2, 5, 5, generator=g), torch.randn(2, 5, 3, generator=g)
    one, vec, right = torch.randn(5, 4, generator=g), torch.randn(2, 5, generator=g), torch.randn(2, 3, 5, generator=g)
    lu, piv = LA.lu_factor(a)
    _check(lambda a, b, one, vec, right: (LA.solve(a, b), LA.solve(a, vec), LA.solve(a, one), LA.solve_ex(a, b),
                                          LA.solve(a, right, left=False), LA.inv(a), LA.inv_ex(a)),
           a, b, one, vec, right, atol=1e-5, rtol=1e-4)
    _check(lambda lu, piv, b, right: (LA.lu_solve(lu, piv, b), LA.lu_solve(lu, piv, b, adjoint=True),
                                      LA.lu_solve(lu, piv, right, left=False),
                                      LA.lu_solve(lu, piv, right, left=False, adjoint=True)),
           lu, piv, b, right, atol=1e-5, rtol=1e-4)


@pytest.mark.slow
def test_cholesky_and_triangular_solves():
    g = torch.Generator().manual_seed(3)
    p = _spd(g, 2, 5, 5)
    low, up = LA.cholesky(p), LA.cholesky(p, upper=True)
    b, right = torch.randn(2, 5, 3, generator=g), torch.randn(3, 5, generator=g)
    t = torch.randn(2, 5, 5, generator=g) + 4 * torch.eye(5)
    not_pd = p.clone()
    not_pd[1, 2, 2] = -1.0                 # info 3 (the factor itself is LAPACK's partial one: not compared)
    _check(lambda p, n: (LA.cholesky(p), LA.cholesky(p, upper=True), torch.cholesky(p),
                         LA.cholesky_ex(n)[1]), p, not_pd)
    _check(lambda b, low, up, t, right: (
        torch.cholesky_solve(b, low), torch.cholesky_solve(b, up, upper=True), torch.cholesky_inverse(low),
        torch.cholesky_inverse(up, upper=True),
        torch.triangular_solve(b, t.triu()), torch.triangular_solve(b, t.tril(), upper=False, transpose=True),
        torch.triangular_solve(b, t, unitriangular=True),
        LA.solve_triangular(t.tril(), b, upper=False), LA.solve_triangular(t.triu(), right, upper=True, left=False),
        LA.solve_triangular(t, right, upper=False, left=False, unitriangular=True)),
        b, low, up, t, right, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("fn", [LA.inv, LA.cholesky, lambda a: LA.solve(a, a)], ids=["inv", "cholesky", "solve"])
def test_singular_input_stops_on_the_chip(fn):
    """The check aten makes on the host (``_linalg_check_errors``) is an assertion in a kernel: the run stops."""
    with pytest.raises(Exception, match="the input is singular or not positive-definite"):
        torch.compile(fn, backend="mtia", fullgraph=True)(torch.zeros(2, 3, 3))
    assert report()["aten_ops"] == []


def test_other_dtypes_stay_with_aten():
    a = torch.randn(4, 4, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    got = torch.compile(LA.det, backend="mtia", fullgraph=True)(a)
    torch.testing.assert_close(got, LA.det(a))
    assert [e["name"] for e in report()["aten_ops"]] == ["_linalg_det"]
