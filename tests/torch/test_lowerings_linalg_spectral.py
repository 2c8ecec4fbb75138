"""Symmetric eigendecomposition and SVD under backend="mtia" (lowerings/linalg/spectral.py) against eager (LAPACK)
on seeded inputs: batched, tall, wide, ill-conditioned and rank-deficient matrices, on the chip with nothing left
to aten.  Eigenvectors and singular vectors are defined up to sign: where the values are distinct they are
compared by magnitude, as OpInfo compares them; where they are not (repeated or zero values) the factors are
checked for what defines them (orthonormal, reproducing the matrix).  The suite runs the eigendecomposition and
the SVD of a random matrix; the other SVDs, the ill-conditioned, rank-deficient and repeated cases, the ops made of
them and larger matrices run with -m slow."""
import pytest
import torch

from mtiacc.torch_backend import report

LA = torch.linalg
TOL = dict(atol=1e-5, rtol=1e-4)


def _compiled(fn, *args):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
    return got


def _orthonormal(q, dim=-2):
    k = q.shape[-1] if dim == -2 else q.shape[-2]
    gram = q.mT @ q if dim == -2 else q @ q.mT
    torch.testing.assert_close(gram, torch.eye(k).expand_as(gram), atol=2e-6, rtol=0)


def _with_spectrum(g, values, m=None):
    """A matrix ``U diag(values) V^T`` (``m x n``, ``n = len(values)``) of random orthogonal factors, or the
    symmetric ``V diag(values) V^T`` (``m`` None)."""
    n = len(values)
    v = LA.qr(torch.randn(n, n, generator=g, dtype=torch.float64))[0]
    if m is None:
        return (v @ torch.diag(values) @ v.T).float()
    u = LA.qr(torch.randn(m, n, generator=g, dtype=torch.float64))[0]
    return (u @ torch.diag(values) @ v.T).float()


def test_eigh():
    """A batch of random symmetric matrices from either triangle, eigenvalues ascending and eigenvectors by
    magnitude; an ill-conditioned one (eigenvalues from 1e-6 to 1); eigvalsh."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(2, 5, 5, generator=g)
    ill = _with_spectrum(g, torch.tensor([1e-6, 1e-4, -1e-2, 0.5, 1.0], dtype=torch.float64))
    w, v = _compiled(lambda a: LA.eigh(a), a)
    ew, ev = LA.eigh(a)
    torch.testing.assert_close((w, v.abs()), (ew, ev.abs()), **TOL)
    got = _compiled(lambda a, ill: (LA.eigh(a, UPLO="U"), LA.eigvalsh(a), LA.eigvalsh(ill)), a, ill)
    want = (LA.eigh(a, UPLO="U"), LA.eigvalsh(a), LA.eigvalsh(ill))
    torch.testing.assert_close((got[0][0], got[0][1].abs(), got[1]), (want[0][0], want[0][1].abs(), want[1]), **TOL)
    torch.testing.assert_close(got[2], want[2], atol=1e-6, rtol=1e-4)


@pytest.mark.slow
def test_eigh_repeated_eigenvalues():
    """Repeated eigenvalues (the identity's, and a double one): the eigenvalues match, the eigenvectors are an
    orthonormal basis that diagonalizes the matrix."""
    g = torch.Generator().manual_seed(1)
    rep = _with_spectrum(g, torch.tensor([2.0, 2.0, -1.0, 3.0], dtype=torch.float64))
    w, v = _compiled(lambda a, e: (LA.eigh(a), LA.eigh(e)), rep, torch.eye(3))
    torch.testing.assert_close(w[0], LA.eigvalsh(rep), **TOL)
    _orthonormal(w[1])
    torch.testing.assert_close(w[1] @ torch.diag(w[0]) @ w[1].mT, rep, atol=1e-5, rtol=0)
    torch.testing.assert_close(v, (torch.ones(3), torch.eye(3)))


def test_svd_of_a_tall_matrix():
    """The suite's slice of test_svd (run whole with -m slow): a tall matrix's reduced SVD (QR, Jacobi on R, the
    reflectors applied to U_R)."""
    g = torch.Generator().manual_seed(7)
    tall = torch.randn(6, 4, generator=g)
    u, s, vh = _compiled(lambda t: LA.svd(t, full_matrices=False), tall)
    eu, es, evh = LA.svd(tall, full_matrices=False)
    torch.testing.assert_close((u.abs(), s, vh.abs()), (eu.abs(), es, evh.abs()), **TOL)
    torch.testing.assert_close(u @ torch.diag(s) @ vh, tall, **TOL)


@pytest.mark.slow
def test_svd():
    """Tall, wide and batched square matrices, reduced and full: the singular values descending, the vectors by
    magnitude (full U's and V's further columns orthonormal), U @ Vh as OpInfo checks it; svdvals."""
    g = torch.Generator().manual_seed(2)
    tall, wide, sq = torch.randn(6, 4, generator=g), torch.randn(3, 5, generator=g), torch.randn(2, 4, 4, generator=g)
    fns = lambda t, w, s: (LA.svd(t, full_matrices=False), LA.svd(t), LA.svd(w), LA.svd(w, full_matrices=False),
                           LA.svd(s), torch.svd(t), LA.svdvals(w))
    got, want = _compiled(fns, tall, wide, sq), fns(tall, wide, sq)
    for (u, s, vh), (eu, es, evh) in zip(got[:5], want[:5]):
        k = s.shape[-1]
        torch.testing.assert_close((u[..., :k].abs(), s, vh[..., :k, :].abs()),
                                   (eu[..., :k].abs(), es, evh[..., :k, :].abs()), **TOL)
        _orthonormal(u)
        _orthonormal(vh, dim=-1)
        torch.testing.assert_close(u[..., :k] @ vh[..., :k, :], eu[..., :k] @ evh[..., :k, :], **TOL)
    u, s, v = got[5]
    torch.testing.assert_close((u.abs(), s, v.abs()), (want[5][0].abs(), want[5][1], want[5][2].abs()), **TOL)
    torch.testing.assert_close(got[6], want[6], **TOL)


@pytest.mark.slow
def test_svd_ill_conditioned_and_rank_deficient():
    """Singular values from 1 to 1e-5 (condition 1e5), each matched to eager's within its own size; rank 2 of 5
    (zero singular values: their vectors an orthonormal completion, U diag(S) Vh the matrix)."""
    g = torch.Generator().manual_seed(3)
    ill = _with_spectrum(g, torch.tensor([1.0, 1e-1, 1e-2, 1e-3, 1e-5], dtype=torch.float64), m=6)
    low = _with_spectrum(g, torch.tensor([3.0, 1.0, 0.0, 0.0, 0.0], dtype=torch.float64), m=5)
    (s_ill, (u, s, vh)) = _compiled(lambda i, r: (LA.svdvals(i), LA.svd(r)), ill, low)
    torch.testing.assert_close(s_ill, LA.svdvals(ill), atol=1e-7, rtol=1e-3)
    torch.testing.assert_close(s, LA.svdvals(low), atol=1e-6, rtol=1e-5)
    _orthonormal(u)
    _orthonormal(vh, dim=-1)
    torch.testing.assert_close(u @ torch.diag(s) @ vh, low, atol=1e-5, rtol=0)


@pytest.mark.slow
def test_made_of_svd_and_eigh():
    """pinv (default, rtol, atol and hermitian tolerances; a rank-deficient matrix's), matrix_rank (plain and
    hermitian), cond, matrix_norm of ord 2, -2 and nuc: the ops aten builds of svd and eigh."""
    g = torch.Generator().manual_seed(4)
    a = torch.randn(2, 5, 3, generator=g)
    sym = torch.randn(4, 4, generator=g)
    sym = sym + sym.T
    low = _with_spectrum(g, torch.tensor([3.0, 1.0, 0.0, 0.0], dtype=torch.float64), m=5)
    fns = lambda a, s, low: (LA.pinv(a), LA.pinv(a, rtol=torch.tensor(0.5)), LA.pinv(a, atol=1.0),
                             LA.pinv(s, hermitian=True), LA.pinv(low), LA.matrix_rank(low), LA.matrix_rank(a),
                             LA.matrix_rank(s, hermitian=True), LA.cond(s), LA.matrix_norm(a, ord=2),
                             LA.matrix_norm(a, ord=-2), LA.matrix_norm(a, ord="nuc"))
    torch.testing.assert_close(_compiled(fns, a, sym, low), fns(a, sym, low), atol=1e-4, rtol=1e-4)


def test_empty_and_others_stay_with_aten():
    """Matrices with no element need no Jacobi sweep (full U the identity, as aten's); float64 and matrices past
    64 rows stay with aten."""
    empty = torch.randn(3, 0)
    got = torch.compile(lambda a: (LA.svd(a), LA.eigh(a[:0])), backend="mtia", fullgraph=True)(empty)
    torch.testing.assert_close(got, (LA.svd(empty), LA.eigh(empty[:0])))
    assert report()["aten_ops"] == []
    g = torch.Generator().manual_seed(5)
    for a in (torch.randn(4, 4, generator=g, dtype=torch.float64), torch.randn(65, 3, generator=g)):
        got = torch.compile(LA.svdvals, backend="mtia", fullgraph=True)(a)
        torch.testing.assert_close(got, LA.svdvals(a))
        assert [e["name"] for e in report()["aten_ops"]] == ["_linalg_svd"]
        torch._dynamo.reset()


@pytest.mark.slow
def test_larger_matrices():
    """A 16 x 16 eigendecomposition and a 24 x 12 SVD (QR, then Jacobi on a 12 x 12 R), one program each.  The
    sweeps' rotations are sequential (each one a few passes over the whole block): 2.8 million cycles for the
    16 x 16 eigenvalues, about 8 times as many per doubling of the size, so a 64 x 64 one is left out of the
    suite."""
    g = torch.Generator().manual_seed(6)
    a, b = torch.randn(16, 16, generator=g), torch.randn(24, 12, generator=g)
    got = _compiled(lambda a, b: (LA.eigvalsh(a), LA.svdvals(b)), a, b)
    torch.testing.assert_close(got, (LA.eigvalsh(a), LA.svdvals(b)), atol=1e-4, rtol=1e-4)
