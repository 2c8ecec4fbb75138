"""Dense linear algebra Inductor leaves to aten (LAPACK on the host), on the chip: three factorizations and
solves written as Triton kernels (:mod:`.kernels`, one program per matrix of the batch), and what is made of
them.

- ``linalg_lu_factor_ex``, ``linalg_lu``, ``lu_unpack``: LU with partial pivoting (LAPACK's ``getrf`` order of
  operations and choice of pivots; ``P``, ``L``, ``U`` picked out of the packed factor by pointwise kernels);
- ``linalg_lu_solve``, ``_linalg_solve_ex``, ``linalg_inv_ex``: ``P L U X = B`` as two triangular solves, ``B``'s
  rows read through the permutation (or ``X``'s written through it, for ``adjoint``); ``left=False`` as the
  transposed system; ``inv`` solves for the identity (read with a batch stride of 0);
- ``_linalg_det``, ``_linalg_slogdet``: the product of ``U``'s diagonal and the pivots' parity, as aten computes
  them;
- ``linalg_cholesky_ex``, ``cholesky``, ``cholesky_solve``, ``cholesky_inverse``: ``A = L L^T``; an upper factor
  is the lower factor of the transposed matrix, written transposed;
- ``triangular_solve``, ``linalg_solve_triangular``;
- ``_linalg_check_errors``: a kernel that stops the run when an ``info`` is not zero (the error is raised on the
  chip, where aten raises ``LinAlgError`` on the host).

Where aten factors ``A^T`` instead of ``A`` (``solve``, ``det``, ``slogdet`` of a contiguous real ``A``: its
backward formulas assume that ``LU``), so does this.  A transposed operand costs nothing: the kernels take every
matrix's row and column strides.  Only float32 goes to the chip, matrices of up to ``MAX_N`` rows and columns
with static sizes; anything else stays with aten.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional

import torch

from mtiacc.torch_backend.lowerings import lowering

aten = torch.ops.aten
MAX_N = 64


class Mat(NamedTuple):
    """A batch of matrices in a buffer: ``(batch, rows, cols)`` with its batch stride (0: one matrix for all) and
    its row and column strides."""
    box: object
    batch: int
    rows: int
    cols: int
    sb: int
    sr: int
    sc: int

    @property
    def T(self) -> "Mat":
        return self._replace(rows=self.cols, cols=self.rows, sr=self.sc, sc=self.sr)


def _pow2(n: int) -> int:
    return max(2, 1 << (max(n, 1) - 1).bit_length())


def _ints(sizes) -> Optional[List[int]]:
    import sympy
    out = []
    for s in sizes:
        if isinstance(s, int):
            out.append(s)
        elif isinstance(s, sympy.Integer):
            out.append(int(s))
        else:
            return None
    return out


def _ok(*xs, square=()) -> bool:
    """Whether the chip takes the operands ``xs``: float32, static sizes, matrices of at most ``MAX_N``."""
    for x in xs:
        size = _ints(x.get_size())
        if x.get_dtype() != torch.float32 or size is None or len(size) < 2 or max(size[-2:]) > MAX_N:
            return False
    for x in square:
        size = _ints(x.get_size())
        if size[-1] != size[-2]:
            return False
    return True


def _fallback(op, *args, **kwargs):
    from torch._inductor import lowering as L
    return L.fallback_handler(op, add_to_fallback_set=False)(*args, **kwargs)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _mat(x, batch_shape=None) -> Mat:
    """``x`` (``(*batch, rows, cols)``), expanded to ``batch_shape``, as a contiguous buffer."""
    from torch._inductor import ir
    from torch._inductor import lowering as L
    size = _ints(x.get_size())
    if batch_shape is not None and list(size[:-2]) != list(batch_shape):
        x = L.expand(x, [*batch_shape, *size[-2:]])
        size = [*batch_shape, *size[-2:]]
    r, c = size[-2:]
    if _numel(size) == 0:     # nothing to read (and Inductor's copy to contiguous strides fails on it)
        return Mat(_empty(size, x.get_dtype()), _numel(size[:-2]), r, c, r * c, c, 1)
    x = ir.ExternKernel.require_contiguous(ir.ExternKernel.realize_input(x))
    x = x if isinstance(x, ir.TensorBox) else ir.TensorBox(x)
    return Mat(x, _numel(size[:-2]), r, c, r * c, c, 1)


def _empty(shape, dtype=torch.float32):
    from torch._inductor import ir
    from torch._inductor.lowering import empty_strided
    return empty_strided(list(shape), ir.FlexibleLayout.contiguous_strides(list(shape)), dtype=dtype,
                         device=torch.device("cpu"))


def _zeros(shape):
    """int32 zeros (an ``info`` with nothing to factor)."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    return ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.int32, ranges=list(shape),
                               inner_fn=lambda idx: ops.constant(0, torch.int32))


def _identity_perm(batch_shape, m):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    return ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.int32, ranges=[*batch_shape, m],
                               inner_fn=lambda idx: ops.index_expr(idx[-1], torch.int32))


def _pivots_perm(pivots, batch_shape, m, k):
    """The permutation (int32 ``(*batch_shape, m)``) of LAPACK's 1-based ``pivots`` (``(*, k)``)."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    if k == 0 or m == 0:
        return _identity_perm(batch_shape, m)
    piv = _mat(_unsqueeze(pivots), batch_shape)
    perm = _empty([*batch_shape, m], torch.int32)
    _launch(K.pivots_kernel, piv.batch, dict(PIV=piv.box, PERM=perm, M=m, K=k, spb=k, sqb=m, BM=_pow2(m)))
    return perm


def _launch(kernel, batch: int, args: dict, cls=None) -> None:
    from torch._higher_order_ops.triton_kernel_wrap import kernel_side_table
    from torch._inductor import ir
    if batch == 0:
        return
    (cls or ir.UserDefinedTritonKernel)(kernel_idx=kernel_side_table.add_kernel(kernel), grid=[(batch, 1, 1)],
                                        tma_descriptor_metadata={}, kernel_args=args)


def _as_mat(box, batch_shape, rows, cols) -> Mat:
    return Mat(box, _numel(batch_shape), rows, cols, rows * cols, cols, 1)


def _batch_of(x) -> List[int]:
    return _ints(x.get_size())[:-2]


def _broadcast(*shapes) -> List[int]:
    return list(torch.broadcast_shapes(*[tuple(s) for s in shapes]))


# ---- kernels' launches -------------------------------------------------------------------------------------------

def _lu(a: Mat, batch_shape):
    """``(LU, pivots, perm, info)`` of the matrices ``a`` (LU in ``(*batch_shape, rows, cols)``)."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    m, n = a.rows, a.cols
    k = min(m, n)
    lu = _empty([*batch_shape, m, n])
    piv = _empty([*batch_shape, k], torch.int32)
    if k == 0:    # matrices with no element: no pivot, no swap
        return lu, piv, _identity_perm(batch_shape, m), _zeros(batch_shape)
    perm = _empty([*batch_shape, m], torch.int32)
    info = _empty(batch_shape, torch.int32)
    _launch(K.lu_kernel, a.batch, dict(A=a.box, LU=lu, PIV=piv, PERM=perm, INFO=info, M=m, N=n, K=k,
                                       sab=a.sb, sam=a.sr, san=a.sc, slb=m * n, slm=n, sln=1, spb=k, sqb=m,
                                       sib=1, BM=_pow2(m), BN=_pow2(n)))
    return lu, piv, perm, info


def _trsm(t: Mat, b: Mat, out: Mat, *, lower: bool, unit: bool = False, perm_in=None, perm_out=None) -> None:
    """``out = T^-1 B`` (``B``'s rows through ``perm_in``, ``out``'s through ``perm_out``: int32 ``(batch, n)``)."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    n = t.rows
    if n == 0 or b.cols == 0:
        return
    perm = perm_in if perm_in is not None else perm_out
    _launch(K.trsm_kernel, out.batch, dict(
        T=t.box, B=b.box, X=out.box, PIN=perm_in if perm_in is not None else t.box,
        POUT=perm_out if perm_out is not None else t.box, N=n, NRHS=b.cols,
        stb=t.sb, str_=t.sr, stc=t.sc, sbb=b.sb, sbr=b.sr, sbc=b.sc, sxb=out.sb, sxr=out.sr, sxc=out.sc,
        spb=n if perm is not None else 0, sqb=n if perm is not None else 0,
        BN=_pow2(n), BK=_pow2(b.cols), LOWER=lower, UNIT=unit, PERM_IN=perm_in is not None,
        PERM_OUT=perm_out is not None))


def _lu_solve(lu: Mat, perm, b: Mat, out: Mat, adjoint: bool) -> None:
    """``out = A^-1 B`` (``A^-T B`` with ``adjoint``) for ``A = P L U`` given as ``lu`` and ``perm``."""
    tmp = _as_mat(_empty([b.batch, b.rows, b.cols]), [b.batch], b.rows, b.cols)
    if not adjoint:
        _trsm(lu, b, tmp, lower=True, unit=True, perm_in=perm)
        _trsm(lu, tmp, out, lower=False)
    else:
        _trsm(lu.T, b, tmp, lower=True)
        _trsm(lu.T, tmp, out, lower=False, unit=True, perm_out=perm)


def _cholesky(a: Mat, batch_shape, upper: bool):
    """``(factor, info)``: ``L`` from ``a``'s lower triangle, or ``U`` (``upper``) from its upper one."""
    from mtiacc.torch_backend.lowerings.linalg import kernels as K
    n = a.rows
    out = _empty([*batch_shape, n, n])
    if n == 0:
        return out, _zeros(batch_shape)
    info = _empty(batch_shape, torch.int32)
    src = a.T if upper else a
    slr, slc = (1, n) if upper else (n, 1)
    _launch(K.cholesky_kernel, a.batch, dict(A=src.box, L=out, INFO=info, N=n, sab=src.sb, sar=src.sr,
                                             sac=src.sc, slb=n * n, slr=slr, slc=slc, sib=1, BN=_pow2(n)))
    return out, info


def _check(info, batch_shape) -> None:
    from torch._inductor import ir
    from mtiacc.torch_backend.lowerings.linalg import kernels as K

    class Check(ir.UserDefinedTritonKernel):
        """It writes nothing (the run stops or goes on): an operation kept for its effect, with a buffer of no
        layout as its output, as Inductor's fallbacks returning None have (``_linalg_check_errors`` is an
        effectful operation: Inductor orders such operations by their output buffers)."""
        def __init__(self, **kwargs):
            from torch._inductor.virtualized import V
            super().__init__(**kwargs)
            self.name = V.graph.register_buffer(self)

        def get_outputs(self):
            return [self]

        def has_side_effects(self) -> bool:
            return True
    count = _numel(batch_shape)
    from torch._higher_order_ops.triton_kernel_wrap import kernel_side_table
    # launched even with nothing to check: Inductor wants an operation for every effectful one
    Check(kernel_idx=kernel_side_table.add_kernel(K.check_kernel), grid=[(1, 1, 1)],
          tma_descriptor_metadata={}, kernel_args=dict(INFO=info, COUNT=count, BLOCK=_pow2(count)))


def _fake_input(i: int):
    from torch._inductor.virtualized import V
    arg = V.graph.current_node.args[i]
    return arg.meta["val"] if hasattr(arg, "meta") else None


def _factor_transposed(i: int = 0) -> bool:
    """aten factors ``A^T`` when ``A`` is contiguous (and real)."""
    fake = _fake_input(i)
    return fake is not None and fake.is_contiguous()


# ---- LU ----------------------------------------------------------------------------------------------------------

@lowering(aten.linalg_lu_factor_ex.default)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    if not pivot or not _ok(A):
        return _fallback(aten.linalg_lu_factor_ex.default, A, pivot=pivot, check_errors=check_errors)
    batch = _batch_of(A)
    lu, piv, _, info = _lu(_mat(A), batch)
    if check_errors:
        _check(info, batch)
    return lu, piv, info


def _perm_matrix(perm, batch_shape, m):
    """``P`` (float32, ``(*batch, m, m)``) with ``A = P L U``: ``P[perm[c], c] = 1``."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    load = perm.make_loader()

    def fn(idx):
        *b, r, c = idx
        hit = ops.eq(load([*b, c]), ops.index_expr(r, torch.int32))
        return ops.where(hit, ops.constant(1.0, torch.float32), ops.constant(0.0, torch.float32))
    return ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, inner_fn=fn,
                               ranges=[*batch_shape, m, m])


def _unpack(lu, batch_shape, m, n):
    """``(L, U)`` of a packed factor: ``L`` unit lower ``(m, k)``, ``U`` upper ``(k, n)``."""
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    k = min(m, n)
    load = lu.make_loader()

    def lower(idx):
        *b, r, c = idx
        v = load([*b, r, c])
        rr, cc = ops.index_expr(r, torch.int64), ops.index_expr(c, torch.int64)
        return ops.where(ops.gt(rr, cc), v, ops.where(ops.eq(rr, cc), ops.constant(1.0, torch.float32),
                                                      ops.constant(0.0, torch.float32)))

    def upper(idx):
        *b, r, c = idx
        v = load([*b, r, c])
        rr, cc = ops.index_expr(r, torch.int64), ops.index_expr(c, torch.int64)
        return ops.where(ops.le(rr, cc), v, ops.constant(0.0, torch.float32))
    dev = torch.device("cpu")
    return (ir.Pointwise.create(device=dev, dtype=torch.float32, inner_fn=lower, ranges=[*batch_shape, m, k]),
            ir.Pointwise.create(device=dev, dtype=torch.float32, inner_fn=upper, ranges=[*batch_shape, k, n]))


@lowering(aten.linalg_lu.default)
def linalg_lu(A, *, pivot=True):
    if not pivot or not _ok(A):
        return _fallback(aten.linalg_lu.default, A, pivot=pivot)
    batch = _batch_of(A)
    a = _mat(A)
    lu, _, perm, _ = _lu(a, batch)
    low, up = _unpack(lu, batch, a.rows, a.cols)
    return _perm_matrix(perm, batch, a.rows), low, up


@lowering(aten.lu_unpack.default)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if not _ok(LU_data) or LU_pivots.get_dtype() != torch.int32 or \
            _ints(LU_pivots.get_size()) != [*_batch_of(LU_data), min(_ints(LU_data.get_size())[-2:])]:
        return _fallback(aten.lu_unpack.default, LU_data, LU_pivots, unpack_data, unpack_pivots)
    batch = _batch_of(LU_data)
    m, n = _ints(LU_data.get_size())[-2:]
    k = min(m, n)
    if unpack_data:
        low, up = _unpack(LU_data, batch, m, n)
    else:
        low, up = _empty([0]), _empty([0])
    if unpack_pivots:
        p = _perm_matrix(_pivots_perm(LU_pivots, batch, m, k), batch, m)
    else:
        p = _empty([0])
    return p, low, up


def _unsqueeze(x):
    from torch._inductor import lowering as L
    return L.lowerings[aten.unsqueeze.default](x, -2)


def _vector_rhs(A, B) -> bool:
    """torch.linalg.solve's rule: ``B`` is a batch of vectors when it is 1-D or has ``A``'s shape but the last."""
    a, b = _ints(A.get_size()), _ints(B.get_size())
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


def _column(B):
    from torch._inductor import lowering as L
    return L.lowerings[aten.unsqueeze.default](B, -1)


def _solve_lu(lu: Mat, perm, B, batch, left: bool, adjoint: bool):
    """``X`` (a TensorBox, ``B``'s shape broadcast) solving ``op(A) X = B`` (``left``) or ``X op(A) = B``."""
    b = _mat(B, batch)
    rows, cols = b.rows, b.cols
    out = _empty([*batch, rows, cols])
    x = _as_mat(out, batch, rows, cols)
    if left:
        _lu_solve(lu, perm, b, x, adjoint)
    else:   # X A = B  <=>  A^T X^T = B^T
        _lu_solve(lu, perm, b.T, x.T, not adjoint)
    return out


@lowering(aten.linalg_lu_solve.default)
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    if not _ok(LU, B, square=(LU,)) or pivots.get_dtype() != torch.int32:
        return _fallback(aten.linalg_lu_solve.default, LU, pivots, B, left=left, adjoint=adjoint)
    n = _ints(LU.get_size())[-1]
    batch = _broadcast(_batch_of(LU), _batch_of(B))
    lu = _mat(LU, batch)
    return _solve_lu(lu, _pivots_perm(pivots, batch, n, n), B, batch, left, adjoint)


@lowering(aten._linalg_solve_ex.default)
def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    from torch._inductor import lowering as L
    vector = _vector_rhs(A, B)
    Bm = _column(B) if vector else B
    if not _ok(A, Bm, square=(A,)) or B.get_dtype() != torch.float32:
        return _fallback(aten._linalg_solve_ex.default, A, B, left=left, check_errors=check_errors)
    abatch = _batch_of(A)
    batch = _broadcast(abatch, _batch_of(Bm))
    transposed = _factor_transposed(0)
    a = _mat(A)
    lu, piv, perm, info = _lu(a.T if transposed else a, abatch)
    if check_errors:
        _check(info, abatch)
    lum = _mat(lu, batch)
    perm_m = _mat(_unsqueeze(perm), batch)
    out = _solve_lu(lum, perm_m.box, Bm, batch, left, transposed)
    if vector:
        out = L.lowerings[aten.squeeze.dim](out, -1)
    return out, lu, piv, info


@lowering(aten.linalg_inv_ex.default)
def linalg_inv_ex(A, *, check_errors=False):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    if not _ok(A, square=(A,)):
        return _fallback(aten.linalg_inv_ex.default, A, check_errors=check_errors)
    batch = _batch_of(A)
    n = _ints(A.get_size())[-1]
    lu, _, perm, info = _lu(_mat(A), batch)
    if check_errors:
        _check(info, batch)
    eye = ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, ranges=[n, n], inner_fn=lambda i: (
        ops.where(ops.eq(ops.index_expr(i[0], torch.int64), ops.index_expr(i[1], torch.int64)),
                  ops.constant(1.0, torch.float32), ops.constant(0.0, torch.float32))))
    e = _mat(eye)._replace(sb=0)
    out = _empty([*batch, n, n])
    _lu_solve(_as_mat(lu, batch, n, n), perm, e._replace(batch=_numel(batch)), _as_mat(out, batch, n, n), False)
    return out, info


def _diag_lu(A, op):
    """``(LU, pivots, diagonal of U)`` as aten's determinants factor ``A``."""
    from torch._inductor import lowering as L
    batch = _batch_of(A)
    a = _mat(A)
    lu, piv, _, _ = _lu(a.T if _factor_transposed(0) else a, batch)
    return lu, piv, L.lowerings[aten.diagonal.default](lu, 0, -2, -1)


def _pivot_sign(piv, n):
    """``-1.0`` for an odd number of swaps (pivots that are not their own row), ``1.0`` for an even one."""
    from torch._inductor import ir
    from torch._inductor import lowering as L
    from torch._inductor.virtualized import ops
    load = piv.make_loader()
    size = _ints(piv.get_size())

    def moved(idx):
        return ops.to_dtype(ops.ne(load(idx), ops.index_expr(idx[-1] + 1, torch.int32)), torch.int32)
    swaps = ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.int32, inner_fn=moved, ranges=size)
    count = L.lowerings[aten.sum.dim_IntList](swaps, [-1])
    cload = count.make_loader()

    def sign(idx):
        odd = ops.ne(ops.bitwise_and(cload(idx), ops.constant(1, torch.int32)), ops.constant(0, torch.int32))
        return ops.where(odd, ops.constant(-1.0, torch.float32), ops.constant(1.0, torch.float32))
    return ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, inner_fn=sign, ranges=size[:-1])


@lowering(aten._linalg_det.default)
def linalg_det(A):
    from torch._inductor import lowering as L
    if not _ok(A, square=(A,)):
        return _fallback(aten._linalg_det.default, A)
    lu, piv, diag = _diag_lu(A, "det")
    n = _ints(A.get_size())[-1]
    det = L.lowerings[aten.mul.Tensor](_pivot_sign(piv, n), L.lowerings[aten.prod.dim_int](diag, -1))
    return det, lu, piv


@lowering(aten._linalg_slogdet.default)
def linalg_slogdet(A):
    from torch._inductor import lowering as L
    if not _ok(A, square=(A,)):
        return _fallback(aten._linalg_slogdet.default, A)
    lu, piv, diag = _diag_lu(A, "slogdet")
    n = _ints(A.get_size())[-1]
    sgn = L.lowerings[aten.prod.dim_int](L.lowerings[aten.sign.default](diag), -1)
    sign = L.lowerings[aten.mul.Tensor](sgn, _pivot_sign(piv, n))
    logabs = L.lowerings[aten.sum.dim_IntList](L.lowerings[aten.log.default](L.lowerings[aten.abs.default](diag)),
                                               [-1])
    return sign, logabs, lu, piv


# ---- triangular solves -------------------------------------------------------------------------------------------

def _triangular(A, B, *, upper: bool, left: bool, transpose: bool, unit: bool):
    """``X`` with ``op(A) X = B`` (``left``) or ``X op(A) = B``, ``op`` the transpose when ``transpose``."""
    batch = _broadcast(_batch_of(A), _batch_of(B))
    a, b = _mat(A, batch), _mat(B, batch)
    rows, cols = b.rows, b.cols
    out = _empty([*batch, rows, cols])
    x = _as_mat(out, batch, rows, cols)
    t = a.T if transpose else a
    lower = upper == transpose
    if left:
        _trsm(t, b, x, lower=lower, unit=unit)
    else:   # X T = B  <=>  T^T X^T = B^T
        _trsm(t.T, b.T, x.T, lower=not lower, unit=unit)
    return out, batch


@lowering(aten.linalg_solve_triangular.default)
def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    if not _ok(A, B, square=(A,)):
        return _fallback(aten.linalg_solve_triangular.default, A, B, upper=upper, left=left,
                         unitriangular=unitriangular)
    return _triangular(A, B, upper=upper, left=left, transpose=False, unit=unitriangular)[0]


@lowering(aten.triangular_solve.default)
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    from torch._inductor import lowering as L
    if not _ok(A, b, square=(A,)):
        return _fallback(aten.triangular_solve.default, b, A, upper, transpose, unitriangular)
    out, batch = _triangular(A, b, upper=upper, left=True, transpose=transpose, unit=unitriangular)
    n = _ints(A.get_size())[-1]
    return out, L.clone(L.expand(A, [*batch, n, n]))


# ---- Cholesky ----------------------------------------------------------------------------------------------------

@lowering(aten.linalg_cholesky_ex.default)
def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    if not _ok(A, square=(A,)):
        return _fallback(aten.linalg_cholesky_ex.default, A, upper=upper, check_errors=check_errors)
    batch = _batch_of(A)
    out, info = _cholesky(_mat(A), batch, upper)
    if check_errors:
        _check(info, batch)
    return out, info


@lowering(aten.cholesky.default)
def cholesky(A, upper=False):
    if not _ok(A, square=(A,)):
        return _fallback(aten.cholesky.default, A, upper)
    batch = _batch_of(A)
    out, info = _cholesky(_mat(A), batch, upper)
    _check(info, batch)
    return out


def _cholesky_solve(factor: Mat, b: Mat, out: Mat, upper: bool) -> None:
    """``out = A^-1 B`` for ``A = L L^T`` (``factor`` is ``L``) or ``U^T U`` (``upper``: ``factor`` is ``U``)."""
    tmp = _as_mat(_empty([b.batch, b.rows, b.cols]), [b.batch], b.rows, b.cols)
    low = factor.T if upper else factor
    _trsm(low, b, tmp, lower=True)
    _trsm(low.T, tmp, out, lower=False)


@lowering(aten.cholesky_solve.default)
def cholesky_solve(B, L_, upper=False):
    if not _ok(B, L_, square=(L_,)):
        return _fallback(aten.cholesky_solve.default, B, L_, upper)
    batch = _broadcast(_batch_of(B), _batch_of(L_))
    b, f = _mat(B, batch), _mat(L_, batch)
    out = _empty([*batch, b.rows, b.cols])
    _cholesky_solve(f, b, _as_mat(out, batch, b.rows, b.cols), upper)
    return out


@lowering(aten.cholesky_inverse.default)
def cholesky_inverse(L_, upper=False):
    from torch._inductor import ir
    from torch._inductor.virtualized import ops
    if not _ok(L_, square=(L_,)):
        return _fallback(aten.cholesky_inverse.default, L_, upper)
    batch = _batch_of(L_)
    n = _ints(L_.get_size())[-1]
    eye = ir.Pointwise.create(device=torch.device("cpu"), dtype=torch.float32, ranges=[n, n], inner_fn=lambda i: (
        ops.where(ops.eq(ops.index_expr(i[0], torch.int64), ops.index_expr(i[1], torch.int64)),
                  ops.constant(1.0, torch.float32), ops.constant(0.0, torch.float32))))
    e = _mat(eye)._replace(sb=0, batch=_numel(batch))
    out = _empty([*batch, n, n])
    _cholesky_solve(_mat(L_), e, _as_mat(out, batch, n, n), upper)
    return out


@lowering(aten._linalg_check_errors.default)
def linalg_check_errors(info, api_name, *, is_matrix):
    size = _ints(info.get_size())
    if info.get_dtype() != torch.int32 or size is None:
        return _fallback(aten._linalg_check_errors.default, info, api_name, is_matrix=is_matrix)
    from torch._inductor import ir
    x = ir.ExternKernel.require_contiguous(ir.ExternKernel.realize_input(info))
    _check(x if isinstance(x, ir.TensorBox) else ir.TensorBox(x), size)
    return None
