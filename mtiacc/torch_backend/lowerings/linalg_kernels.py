"""The Triton kernels :mod:`.linalg` lowers dense linear algebra to: one program per matrix of the batch, the
whole matrix in one block (up to ``linalg.MAX_N`` rows and columns), the factorization a loop over its columns.

Every kernel reads its matrices through row and column strides it is given, so a transposed operand (an upper
triangle read as a lower one, ``A^T X = B``) costs nothing: the lowering swaps the strides.  A row or column of a
block is picked by a masked sum, and a row is swapped by two ``where``\\ s: the vector unit's operations, no
gather.

- :func:`lu_kernel`: LU with partial pivoting, as LAPACK's ``getrf`` (the pivot the first row of largest
  magnitude; a zero pivot sets ``info`` to its 1-based column and leaves its column unscaled), writing the packed
  ``LU``, the 1-based ``pivots``, ``info``, and the permutation the swaps make (row ``i`` of ``P^T A`` is row
  ``perm[i]`` of ``A``);
- :func:`cholesky_kernel`: ``A = L L^T`` from the lower triangle (right-looking); a pivot that is not positive
  sets ``info`` and stops the factorization, as LAPACK's ``potrf``; the upper triangle written as zeros;
- :func:`trsm_kernel`: ``X = T^-1 B`` for a triangular ``T`` (lower or upper, unit diagonal or not), ``B``'s rows
  optionally read through a permutation and ``X``'s written through one (an LU solve's ``P``);
- :func:`pivots_kernel`: the permutation of a ``pivots`` vector (``lu_unpack``);
- :func:`check_kernel`: stops the run when an ``info`` is not zero (``_linalg_check_errors``).
"""
import triton
import triton.language as tl


@triton.jit
def lu_kernel(A, LU, PIV, PERM, INFO, M, N, K, sab, sam, san, slb, slm, sln, spb, sqb, sib,
              BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    a = tl.load(A + b * sab + rows[:, None] * sam + cols[None, :] * san, mask=inside, other=0.0)
    perm = rows
    info = tl.sum(rows * 0, axis=0)
    for k in range(K):
        colk = tl.sum(tl.where(cols[None, :] == k, a, 0.0), axis=1)
        mag = tl.where((rows >= k) & (rows < M), tl.abs(colk), -1.0)
        top = tl.max(mag, axis=0)
        p = tl.min(tl.where(mag == top, rows, BM), axis=0)
        p = tl.where(p < M, p, k)   # a NaN column: no swap
        row_k = tl.sum(tl.where(rows[:, None] == k, a, 0.0), axis=0)
        row_p = tl.sum(tl.where(rows[:, None] == p, a, 0.0), axis=0)
        a = tl.where(rows[:, None] == k, row_p[None, :], tl.where(rows[:, None] == p, row_k[None, :], a))
        perm_k = tl.sum(tl.where(rows == k, perm, 0), axis=0)
        perm_p = tl.sum(tl.where(rows == p, perm, 0), axis=0)
        perm = tl.where(rows == k, perm_p, tl.where(rows == p, perm_k, perm))
        tl.store(PIV + b * spb + k, p + 1)
        pivot = tl.sum(tl.where(cols == k, row_p, 0.0), axis=0)
        info = tl.where((pivot == 0.0) & (info == 0), k + 1, info)
        colk = tl.sum(tl.where(cols[None, :] == k, a, 0.0), axis=1)
        below = rows > k
        scaled = tl.where(pivot != 0.0, colk / pivot, colk)
        lcol = tl.where(below, scaled, 0.0)
        urow = tl.where(cols > k, row_p, 0.0)
        a = a - lcol[:, None] * urow[None, :]
        a = tl.where(below[:, None] & (cols[None, :] == k), lcol[:, None], a)
    tl.store(LU + b * slb + rows[:, None] * slm + cols[None, :] * sln, a, mask=inside)
    tl.store(PERM + b * sqb + rows, perm, mask=rows < M)
    tl.store(INFO + b * sib, info)


@triton.jit
def cholesky_kernel(A, L, INFO, N, sab, sar, sac, slb, slr, slc, sib, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    inside = (rows[:, None] < N) & (cols[None, :] < N)
    lower = rows[:, None] >= cols[None, :]
    base = A + b * sab
    a = tl.load(base + rows[:, None] * sar + cols[None, :] * sac, mask=inside & lower, other=0.0)
    at = tl.load(base + cols[None, :] * sar + rows[:, None] * sac, mask=inside & (rows[:, None] < cols[None, :]),
                 other=0.0)
    s = tl.where(lower, a, at)      # the symmetric matrix of the lower triangle
    info = tl.sum(rows * 0, axis=0)
    for k in range(N):
        colk = tl.sum(tl.where(cols[None, :] == k, s, 0.0), axis=1)
        rowk = tl.sum(tl.where(rows[:, None] == k, s, 0.0), axis=0)
        d = tl.sum(tl.where(rows == k, colk, 0.0), axis=0)
        going = info == 0
        info = tl.where(going & ((d <= 0.0) | (d != d)), k + 1, info)
        going = info == 0
        r = tl.sqrt(tl.where(going, d, 1.0))
        lr = tl.where(rows > k, colk / r, 0.0)
        lc = tl.where(cols > k, rowk / r, 0.0)
        lcol = tl.where(rows == k, r, lr)
        step = tl.where((cols[None, :] == k) & (rows[:, None] >= k), lcol[:, None], s - lr[:, None] * lc[None, :])
        s = tl.where(going, step, s)
    tl.store(L + b * slb + rows[:, None] * slr + cols[None, :] * slc, tl.where(lower, s, 0.0), mask=inside)
    tl.store(INFO + b * sib, info)


@triton.jit
def trsm_kernel(T, B, X, PIN, POUT, N, NRHS, stb, str_, stc, sbb, sbr, sbc, sxb, sxr, sxc, spb, sqb,
                BN: tl.constexpr, BK: tl.constexpr, LOWER: tl.constexpr, UNIT: tl.constexpr,
                PERM_IN: tl.constexpr, PERM_OUT: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    rhs = tl.arange(0, BK)
    t = tl.load(T + b * stb + rows[:, None] * str_ + cols[None, :] * stc,
                mask=(rows[:, None] < N) & (cols[None, :] < N), other=0.0)
    src = rows
    if PERM_IN:
        src = tl.load(PIN + b * spb + rows, mask=rows < N, other=0)
    inside = (rows[:, None] < N) & (rhs[None, :] < NRHS)
    x = tl.load(B + b * sbb + src[:, None] * sbr + rhs[None, :] * sbc, mask=inside, other=0.0)
    for i in range(N):
        if LOWER:
            k = i
        else:
            k = N - 1 - i
        colk = tl.sum(tl.where(cols[None, :] == k, t, 0.0), axis=1)
        xk = tl.sum(tl.where(rows[:, None] == k, x, 0.0), axis=0)
        if not UNIT:
            xk = xk / tl.sum(tl.where(rows == k, colk, 0.0), axis=0)
        if LOWER:
            after = rows > k
        else:
            after = rows < k
        x = tl.where(rows[:, None] == k, xk[None, :], x - tl.where(after, colk, 0.0)[:, None] * xk[None, :])
    dst = rows
    if PERM_OUT:
        dst = tl.load(POUT + b * sqb + rows, mask=rows < N, other=0)
    tl.store(X + b * sxb + dst[:, None] * sxr + rhs[None, :] * sxc, x, mask=inside)


@triton.jit
def pivots_kernel(PIV, PERM, M, K, spb, sqb, BM: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    perm = rows
    for k in range(K):
        p = tl.load(PIV + b * spb + k) - 1
        perm_k = tl.sum(tl.where(rows == k, perm, 0), axis=0)
        perm_p = tl.sum(tl.where(rows == p, perm, 0), axis=0)
        perm = tl.where(rows == k, perm_p, tl.where(rows == p, perm_k, perm))
    tl.store(PERM + b * sqb + rows, perm, mask=rows < M)


@triton.jit
def check_kernel(INFO, COUNT, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    info = tl.load(INFO + offs, mask=offs < COUNT, other=0)
    tl.device_assert(info == 0, "linalg: the input is singular or not positive-definite (info != 0)")


@triton.jit
def geqrf_kernel(A, QR, TAU, M, N, K, sab, sam, san, sqb, sqm, sqn, stb,
                 BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    a = tl.load(A + b * sab + rows[:, None] * sam + cols[None, :] * san, mask=inside, other=0.0)
    for j in range(K):
        x = tl.sum(tl.where(cols[None, :] == j, a, 0.0), axis=1)
        alpha = tl.sum(tl.where(rows == j, x, 0.0), axis=0)
        tail = tl.where(rows > j, x, 0.0)
        xnorm = tl.sqrt(tl.sum(tail * tail, axis=0))
        norm = tl.sqrt(alpha * alpha + xnorm * xnorm)
        beta = tl.where(alpha >= 0.0, -norm, norm)
        keep = xnorm == 0.0          # H = I (tau 0), as LAPACK's larfg
        tau = tl.where(keep, 0.0, (beta - alpha) / tl.where(keep, 1.0, beta))
        scale = tl.where(keep, 0.0, 1.0 / tl.where(keep, 1.0, alpha - beta))
        v = tl.where(rows == j, 1.0, tail * scale)
        w = tl.sum(v[:, None] * a, axis=0)
        w = tl.where(cols > j, w, 0.0)
        a = a - (tau * v)[:, None] * w[None, :]
        newcol = tl.where(rows == j, tl.where(keep, alpha, beta), tl.where(rows > j, v, x))
        a = tl.where(cols[None, :] == j, newcol[:, None], a)
        tl.store(TAU + b * stb + j, tau)
    tl.store(QR + b * sqb + rows[:, None] * sqm + cols[None, :] * sqn, a, mask=inside)


@triton.jit
def ormqr_kernel(V, TAU, C, X, M, NC, K, svb, svm, svn, stb, scb, scm, scn, sxb, sxm, sxn,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, FORWARD: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    refl = tl.arange(0, BK)
    v = tl.load(V + b * svb + rows[:, None] * svm + refl[None, :] * svn,
                mask=(rows[:, None] < M) & (refl[None, :] < K), other=0.0)
    taus = tl.load(TAU + b * stb + refl, mask=refl < K, other=0.0)
    inside = (rows[:, None] < M) & (cols[None, :] < NC)
    c = tl.load(C + b * scb + rows[:, None] * scm + cols[None, :] * scn, mask=inside, other=0.0)
    for i in range(K):
        if FORWARD:
            j = i
        else:
            j = K - 1 - i
        vj = tl.sum(tl.where(refl[None, :] == j, v, 0.0), axis=1)
        vj = tl.where(rows == j, 1.0, tl.where(rows > j, vj, 0.0))
        tau = tl.sum(tl.where(refl == j, taus, 0.0), axis=0)
        w = tl.sum(vj[:, None] * c, axis=0)
        c = c - (tau * vj)[:, None] * w[None, :]
    tl.store(X + b * sxb + rows[:, None] * sxm + cols[None, :] * sxn, c, mask=inside)
