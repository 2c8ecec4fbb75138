"""Symmetric eigendecomposition and SVD on the chip by Jacobi rotations (the kernels of :mod:`.kernels`, one
program per matrix), and what is made of them.

- ``_linalg_eigh`` (``eigh``, ``eigvalsh``): cyclic Jacobi on the symmetric matrix of the ``UPLO`` triangle,
  sweeps of rotations over every pair ``(p, q)`` until the off-diagonal part is below ``TOL`` of the whole (or
  ``SWEEPS`` sweeps); the eigenvalues ascending, as LAPACK returns them, with their eigenvectors (each one's sign
  is its own: eigenvectors are defined up to sign);
- ``_linalg_svd`` (``svd``, ``svdvals`` and the ops built of them: ``matrix_rank``, ``cond``, ``matrix_norm`` of
  ord 2, -2 and ``nuc``): a tall matrix is first factored ``A = Q R`` (Householder, :mod:`.qr`), a wide
  one transposed, then two-sided (Kogbetliantz) Jacobi on the square ``R``: each pair's 2 x 2 made symmetric by a
  rotation from the left and diagonalized by a Jacobi rotation from both sides, so ``U`` and ``V`` are
  orthogonal even where singular values are zero; the singular values descending, a negative one's sign moved
  to its left vector; ``U = Q [U_R 0; 0 I]`` (the reflectors applied to the padded ``U_R``: ``full_matrices``
  completes it with ``Q``'s last columns);
- ``linalg_pinv`` (``pinv``, ``pinverse``): ``V diag(1/s) U^T`` over the singular values above
  ``max(atol, rtol * s_max)`` (aten's default ``rtol``: ``eps * max(m, n)``), or ``V diag(1/l) V^T`` of the
  eigendecomposition for ``hermitian``, as aten computes it.

float32, static sizes, matrices of at most ``lu.MAX_N`` rows and columns; anything else stays with aten.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering
from mtiacc.torch_backend.lowerings.linalg.lu import (Mat, _as_mat, _batch_of, _empty, _fallback, _ints, _launch,
                                                   _mat, _numel, _ok, _pow2)
from mtiacc.torch_backend.lowerings.linalg.qr import geqrf, reflect

aten = torch.ops.aten
TOL = 1e-14       # the off-diagonal part's share of the squared Frobenius norm where the sweeps stop
SWEEPS = 30       # at most (quadratic convergence: a few sweeps past the first ones)


def eigh(a: Mat, batch_shape, vectors: bool):
    """``(eigenvalues, eigenvectors)`` of the symmetric matrices of ``a``'s lower triangle (``vectors`` False: an
    empty second buffer)."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    n = a.rows
    w = _empty([*batch_shape, n])
    v = _empty([*batch_shape, n, n] if vectors else [0])
    if n > 0:
        _launch(K.eigh_kernel, a.batch, dict(A=a.box, W=w, V=v if vectors else w, N=n, sab=a.sb, sar=a.sr,
                                             sac=a.sc, swb=n, svb=n * n, svr=n, svc=1, tol=TOL, sweeps=SWEEPS,
                                             BN=_pow2(n), VECTORS=vectors))
    return w, v


@lowering(aten._linalg_eigh.default)
def linalg_eigh(A, UPLO="L", compute_v=True):
    if not _ok(A, square=(A,)) or UPLO not in ("L", "U"):
        return _fallback(aten._linalg_eigh.default, A, UPLO, compute_v)
    a = _mat(A)
    return eigh(a.T if UPLO == "U" else a, _batch_of(A), compute_v)


def _eye(batch_shape, m: int, n: int):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    return ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, ranges=[*batch_shape, m, n],
                               inner_fn=lambda i: ops.where(
                                   ops.eq(ops.index_expr(i[-2], torch.int64), ops.index_expr(i[-1], torch.int64)),
                                   ops.constant(1.0, torch.float32), ops.constant(0.0, torch.float32)))


def _svd_tall(a: Mat, batch_shape, s, u: Mat, v: Mat, vectors: bool) -> None:
    """The SVD of tall (or square) matrices ``a``: ``s`` (a buffer ``(batch, n)``), ``u`` (``m x ucols``,
    ``ucols`` ``n`` or ``m``) and ``v`` (``n x n``, the right vectors as columns) written through their strides."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    m, n = a.rows, a.cols
    packed = tau = None
    r, upper = a, False
    if m > n:
        packed, tau = geqrf(a, batch_shape)
        r, upper = _as_mat(packed, batch_shape, m, n), True
    pad = u
    if vectors and m > n:
        pad = _as_mat(_empty([*batch_shape, m, u.cols]), batch_shape, m, u.cols)
    strides = dict(U=pad.box, sub=pad.sb, sur=pad.sr, suc=pad.sc, V=v.box, svb=v.sb, svr=v.sr, svc=v.sc) \
        if vectors else dict(U=s, sub=0, sur=0, suc=0, V=s, svb=0, svr=0, svc=0)     # no vector written
    ucols = u.cols if vectors else 0
    _launch(K.svd_kernel, a.batch, dict(
        A=r.box, S=s, N=n, UM=m, UC=ucols, sab=r.sb, sar=r.sr, sac=r.sc, ssb=n, tol=TOL, sweeps=SWEEPS,
        BN=_pow2(n), BU=_pow2(max(m, ucols)), UPPER=upper, VECTORS=vectors, **strides))
    if vectors and m > n:
        reflect(r, tau, n, pad, u, forward=False)


def svd(a: Mat, batch_shape, full: bool, vectors: bool):
    """``(U, S, Vh)`` buffers as ``_linalg_svd`` returns them."""
    m, n = a.rows, a.cols
    k = min(m, n)
    s = _empty([*batch_shape, k])
    if not vectors:
        if k > 0:
            dummy = _as_mat(s, batch_shape, 1, k)
            _svd_tall(a if m >= n else a.T, batch_shape, s, dummy, dummy, False)
        return _empty([0]), s, _empty([0])
    ucols, vrows = (m, n) if full else (k, k)
    if k == 0:
        return _eye(batch_shape, m, ucols), s, _eye(batch_shape, vrows, n)
    u = _empty([*batch_shape, m, ucols])
    vh = _empty([*batch_shape, vrows, n])
    um, vhm = _as_mat(u, batch_shape, m, ucols), _as_mat(vh, batch_shape, vrows, n)
    if m >= n:      # A = U S V^T: the kernel's V is Vh transposed
        _svd_tall(a, batch_shape, s, um, vhm.T, True)
    else:           # A^T = (V) S (U)^T: the kernel's U is Vh^T, its V is U
        _svd_tall(a.T, batch_shape, s, vhm.T, um, True)
    return u, s, vh


@lowering(aten._linalg_svd.default)
def linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None):
    if not _ok(A):
        return _fallback(aten._linalg_svd.default, A, full_matrices, compute_uv, driver=driver)
    return svd(_mat(A), _batch_of(A), full_matrices, compute_uv)


# ---- pinv --------------------------------------------------------------------------------------------------------

def scaled_product(left: Mat, d, right: Mat, out: Mat) -> None:
    """``out = left diag(d) right`` (``d`` a contiguous ``(batch, k)``)."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    if out.rows == 0 or out.cols == 0:
        return
    k = left.cols
    _launch(K.scaled_product_kernel, out.batch, dict(
        L=left.box, D=d, R=right.box, X=out.box, M=out.rows, N=out.cols, K=k, slb=left.sb, slm=left.sr,
        slk=left.sc, sdb=k, srb=right.sb, srk=right.sr, srn=right.sc, sxb=out.sb, sxm=out.sr, sxn=out.sc,
        BM=_pow2(out.rows), BN=_pow2(out.cols), BK=_pow2(k)))


def _tolerance(atol, rtol, smax, m: int, n: int):
    """``max(atol, rtol * smax)`` with aten's defaults (``rtol`` ``eps * max(m, n)`` unless only ``atol`` is
    given and positive), in float32."""
    from torch._inductor import lowering as L
    f32 = torch.float32
    default = torch.finfo(f32).eps * max(m, n)
    if atol is not None:
        atol = L.to_dtype(atol, f32)
    if rtol is not None:
        rtol = L.to_dtype(rtol, f32)
    elif atol is not None:
        rtol = L.lowerings[aten.where.self](L.lowerings[aten.gt.Scalar](atol, 0.0), _scalar(0.0), _scalar(default))
    rel = L.lowerings[aten.mul.Tensor](smax, default if rtol is None else _last(rtol))
    return rel if atol is None else L.lowerings[aten.maximum.default](_last(atol), rel)


def _scalar(value: float):
    from torch._inductor import lowering as L
    return L.lowerings[aten.full.default]([], value, dtype=torch.float32, device=torch.device("cpu"))


def _last(x):
    from torch._inductor import lowering as L
    return L.lowerings[aten.unsqueeze.default](x, -1)


def _tensor_ok(x, batch) -> bool:
    size = None if x is None else _ints(x.get_size())
    return x is None or (size is not None and list(torch.broadcast_shapes(tuple(size), tuple(batch))) == list(batch)
                         and x.get_dtype() in (torch.float32, torch.float64))


@lowering(aten.linalg_pinv.atol_rtol_tensor)
def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False):
    from torch._inductor import lowering as L
    if not _ok(A) or not _tensor_ok(atol, _batch_of(A)) or not _tensor_ok(rtol, _batch_of(A)) or \
            (hermitian and not _ok(A, square=(A,))):
        return _fallback(aten.linalg_pinv.atol_rtol_tensor, A, atol=atol, rtol=rtol, hermitian=hermitian)
    batch = _batch_of(A)
    m, n = _ints(A.get_size())[-2:]
    out = _empty([*batch, n, m])
    if min(m, n) == 0:
        return L.lowerings[aten.full.default]([*batch, n, m], 0.0, dtype=torch.float32, device=torch.device("cpu"))
    k = min(m, n)
    lw = L.lowerings
    if hermitian:
        w, v = eigh(_mat(A), batch, True)
        mag = lw[aten.abs.default](w)
        tol = _tolerance(atol, rtol, lw[aten.amax.default](mag, [-1], True), m, n)
        d = lw[aten.where.self](lw[aten.gt.Tensor](mag, tol), lw[aten.reciprocal.default](w),
                                _scalar(0.0))
        vm = _as_mat(v, batch, n, n)
        left, right = vm, vm.T
    else:
        u, s, vh = svd(_mat(A), batch, False, True)
        smax = lw[aten.slice.Tensor](s, -1, 0, 1)
        tol = _tolerance(atol, rtol, smax, m, n)
        d = lw[aten.where.self](lw[aten.gt.Tensor](s, tol), lw[aten.reciprocal.default](s),
                                _scalar(0.0))
        left, right = _as_mat(vh, batch, k, n).T, _as_mat(u, batch, m, k).T
    dm = _mat(lw[aten.unsqueeze.default](d, -2))
    scaled_product(left, dm.box, right, _as_mat(out, batch, n, m))
    return out
