"""Householder QR on the chip: LAPACK's ``geqrf`` (the reflectors packed below the diagonal, ``R`` on and above
it, ``tau``) as one program per matrix, and products with the ``Q`` of its reflectors (``ormqr``, ``orgqr``),
the kernels of :mod:`.kernels`.

- ``geqrf``: column ``j``'s reflector ``H = I - tau v v^T`` as LAPACK's ``larfg`` makes it (``v[j] = 1``,
  ``beta = -sign(alpha) ||x||``, ``tau = (beta - alpha) / beta``; a column already zero below the diagonal
  gives ``tau = 0``), applied to the columns after ``j``;
- ``ormqr``: ``Q C``, ``Q^T C``, ``C Q``, ``C Q^T`` as the reflectors applied one by one (``C Q`` as
  ``(Q^T C^T)^T``: the kernel takes ``C``'s strides, so the transposes cost nothing);
- ``linalg_householder_product`` (``orgqr``): ``Q``'s first columns, the reflectors applied to the identity's;
- ``linalg_qr`` (``reduced``, ``complete``, ``r``): ``geqrf``, then ``R`` its upper triangle and ``Q`` the
  reflectors' product, as aten computes them.

float32, static sizes, matrices of at most ``lu.MAX_N`` rows and columns; anything else stays with aten.
"""
from __future__ import annotations

import torch

from mtiacc.torch_backend.lowerings import lowering
from mtiacc.torch_backend.lowerings.linalg.lu import (Mat, _as_mat, _batch_of, _empty, _fallback, _ints, _launch,
                                                   _mat, _numel, _ok, _pow2)

aten = torch.ops.aten


def geqrf(a: Mat, batch_shape):
    """``(packed, tau)`` of the matrices ``a``: buffers ``(*batch, m, n)`` and ``(*batch, min(m, n))``."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    m, n = a.rows, a.cols
    k = min(m, n)
    packed = _empty([*batch_shape, m, n])
    tau = _empty([*batch_shape, k])
    if k > 0:
        _launch(K.geqrf_kernel, a.batch, dict(A=a.box, QR=packed, TAU=tau, M=m, N=n, K=k, sab=a.sb, sam=a.sr,
                                              san=a.sc, sqb=m * n, sqm=n, sqn=1, stb=k, BM=_pow2(m), BN=_pow2(n)))
    return packed, tau


def reflect(v: Mat, tau, k: int, c: Mat, out: Mat, *, forward: bool) -> None:
    """``out = H_0 ... H_{k-1} C`` (``forward``: ``H_{k-1} ... H_0 C``, i.e. ``Q^T C``), the reflectors ``H_j``
    in ``v``'s columns below the diagonal (``v.rows == c.rows``) and ``tau`` (a contiguous ``(batch, >= k)``)."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    if c.rows == 0 or c.cols == 0:
        return
    stb = _ints(tau.get_size())[-1]
    _launch(K.ormqr_kernel, out.batch, dict(
        V=v.box, TAU=tau, C=c.box, X=out.box, M=c.rows, NC=c.cols, K=k, svb=v.sb, svm=v.sr, svn=v.sc, stb=stb,
        scb=c.sb, scm=c.sr, scn=c.sc, sxb=out.sb, sxm=out.sr, sxn=out.sc, BM=_pow2(c.rows), BN=_pow2(c.cols),
        BK=_pow2(max(k, v.cols)), FORWARD=forward))


def identity(batch: int, m: int, n: int) -> Mat:
    """The first ``n`` columns of the ``m x m`` identity, for every matrix of a batch (batch stride 0)."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    eye = ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, ranges=[m, n], inner_fn=lambda i: (
        ops.where(ops.eq(ops.index_expr(i[0], torch.int64), ops.index_expr(i[1], torch.int64)),
                  ops.constant(1.0, torch.float32), ops.constant(0.0, torch.float32))))
    return _mat(eye)._replace(sb=0, batch=batch)


def q_columns(packed, tau, batch_shape, m: int, n: int, k: int, cols: int):
    """``Q[:, :cols]`` (a buffer ``(*batch, m, cols)``) of ``k`` reflectors packed in ``(*batch, m, n)``."""
    out = _empty([*batch_shape, m, cols])
    batch = _numel(batch_shape)
    reflect(_as_mat(packed, batch_shape, m, n), tau, k, identity(batch, m, cols), _as_mat(out, batch_shape, m, cols),
            forward=False)
    return out


def upper(packed, batch_shape, rows: int, n: int):
    """The upper triangle of ``packed``'s first ``rows`` rows (zeros below the diagonal)."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    load = packed.make_loader()

    def fn(idx):
        *b, r, c = idx
        rr, cc = ops.index_expr(r, torch.int64), ops.index_expr(c, torch.int64)
        return ops.where(ops.le(rr, cc), load([*b, r, c]), ops.constant(0.0, torch.float32))
    return ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, inner_fn=fn,
                               ranges=[*batch_shape, rows, n])


@lowering(aten.geqrf.default)
def geqrf_lowering(A):
    if not _ok(A):
        return _fallback(aten.geqrf.default, A)
    return geqrf(_mat(A), _batch_of(A))


@lowering(aten.linalg_qr.default)
def linalg_qr(A, mode="reduced"):
    if not _ok(A) or mode not in ("reduced", "complete", "r"):
        return _fallback(aten.linalg_qr.default, A, mode)
    batch = _batch_of(A)
    m, n = _ints(A.get_size())[-2:]
    k = min(m, n)
    packed, tau = geqrf(_mat(A), batch)
    complete = mode == "complete"
    r = upper(packed, batch, m if complete else k, n)
    if mode == "r":
        return _empty([0]), r
    return q_columns(packed, tau, batch, m, n, k, m if complete else k), r


@lowering(aten.linalg_householder_product.default)
def householder_product(A, tau):
    if not _ok(A) or tau.get_dtype() != torch.float32 or _ints(tau.get_size()) is None or \
            _ints(tau.get_size())[:-1] != _batch_of(A):
        return _fallback(aten.linalg_householder_product.default, A, tau)
    batch = _batch_of(A)
    m, n = _ints(A.get_size())[-2:]
    k = _ints(tau.get_size())[-1]
    if k == 0:
        return q_columns(_empty([*batch, m, n]), _empty([*batch, 0]), batch, m, n, 0, n)
    a, t = _mat(A), _mat(_unsqueeze(tau))
    return q_columns(a.box, t.box, batch, m, n, k, n)


def _unsqueeze(x):
    from torch._inductor import lowering as L
    return L.lowerings[aten.unsqueeze.default](x, -2)


@lowering(aten.ormqr.default)
def ormqr(A, tau, C, left=True, transpose=False):
    sizes = [_ints(x.get_size()) for x in (A, tau, C)]
    if not _ok(A, C) or tau.get_dtype() != torch.float32 or sizes[1] is None or \
            not (sizes[0][:-2] == sizes[1][:-1] == sizes[2][:-2]):
        return _fallback(aten.ormqr.default, A, tau, C, left, transpose)
    batch = _batch_of(C)
    m, n = sizes[2][-2:]
    k = sizes[1][-1]
    out = _empty([*batch, m, n])
    x = _as_mat(out, batch, m, n)
    c = _mat(C)
    t = _mat(_unsqueeze(tau)).box if k > 0 else _empty([*batch, 0])
    v = _mat(A)
    if left:     # Q C: H_0 (... (H_{k-1} C)); Q^T C: H_{k-1} (... (H_0 C))
        reflect(v, t, k, c, x, forward=transpose)
    else:        # C Q = (Q^T C^T)^T, C Q^T = (Q C^T)^T
        reflect(v, t, k, c.T, x.T, forward=not transpose)
    return out
