"""The Triton kernels :mod:`.lu`, :mod:`.qr` and :mod:`.spectral` lower dense linear algebra to: one program per
matrix of the batch, the whole matrix in one block (up to ``lu.MAX_N`` rows and columns), the factorization a loop
over its columns.

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
- :func:`check_kernel`: stops the run when an ``info`` is not zero (``_linalg_check_errors``);
- :func:`geqrf_kernel`: Householder QR as LAPACK's ``geqrf`` (``larfg``'s reflectors, packed, and ``tau``);
- :func:`ormqr_kernel`: the reflectors ``H_j = I - tau_j v_j v_j^T`` applied to a matrix one by one, first to
  last (``Q^T C``) or last to first (``Q C``);
- :func:`eigh_kernel`: cyclic Jacobi on a symmetric matrix until its off-diagonal part is small, the eigenvalues
  written ascending with their eigenvectors (each to the place of its rank);
- :func:`svd_kernel`: two-sided Jacobi on a square matrix (each pair's 2 x 2 made symmetric from the left, then
  a Jacobi rotation from both sides), the singular values descending, ``U`` padded with the identity;
- :func:`scaled_product_kernel`: ``L diag(d) R`` (pinv's product).
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


@triton.jit
def _jacobi_angle(app, aqq, apq):
    """``(c, s, t)`` of the rotation zeroing ``apq`` of a symmetric 2 x 2 (``t = s / c``; none when it is 0)."""
    zero = apq == 0.0
    theta = (aqq - app) / (2.0 * tl.where(zero, 1.0, apq))
    t = tl.where(theta >= 0.0, 1.0, -1.0) / (tl.abs(theta) + tl.sqrt(theta * theta + 1.0))
    t = tl.where(zero, 0.0, t)
    c = 1.0 / tl.sqrt(t * t + 1.0)
    return c, t * c, t


@triton.jit
def eigh_kernel(A, W, V, N, sab, sar, sac, swb, svb, svr, svc, tol, sweeps,
                BN: tl.constexpr, VECTORS: tl.constexpr):
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
    v = tl.where((rows[:, None] == cols[None, :]) & inside, 1.0, 0.0)
    diag = rows[:, None] == cols[None, :]
    total = tl.sum(tl.sum(s * s, axis=1), axis=0)
    off = tl.sum(tl.sum(tl.where(diag, 0.0, s * s), axis=1), axis=0)
    sweep = 0
    while (sweep < sweeps) & (off > tol * total):
        for p in range(N - 1):
            for q in range(p + 1, N):
                colp = tl.sum(tl.where(cols[None, :] == p, s, 0.0), axis=1)
                colq = tl.sum(tl.where(cols[None, :] == q, s, 0.0), axis=1)
                app = tl.sum(tl.where(rows == p, colp, 0.0), axis=0)
                aqq = tl.sum(tl.where(rows == q, colq, 0.0), axis=0)
                apq = tl.sum(tl.where(rows == q, colp, 0.0), axis=0)
                c, sn, t = _jacobi_angle(app, aqq, apq)
                newp = tl.where(rows == p, app - t * apq, tl.where(rows == q, 0.0, c * colp - sn * colq))
                newq = tl.where(rows == q, aqq + t * apq, tl.where(rows == p, 0.0, sn * colp + c * colq))
                s = tl.where(cols[None, :] == p, newp[:, None], tl.where(cols[None, :] == q, newq[:, None], s))
                s = tl.where(rows[:, None] == p, newp[None, :], tl.where(rows[:, None] == q, newq[None, :], s))
                if VECTORS:
                    vp = tl.sum(tl.where(cols[None, :] == p, v, 0.0), axis=1)
                    vq = tl.sum(tl.where(cols[None, :] == q, v, 0.0), axis=1)
                    v = tl.where(cols[None, :] == p, (c * vp - sn * vq)[:, None],
                                 tl.where(cols[None, :] == q, (sn * vp + c * vq)[:, None], v))
        off = tl.sum(tl.sum(tl.where(diag, 0.0, s * s), axis=1), axis=0)
        sweep += 1
    # ascending, as LAPACK's: eigenvalue i goes to the place of its rank (ties in the order they are in)
    d = tl.sum(tl.where(diag, s, 0.0), axis=1)
    dj = tl.sum(tl.where(diag, s, 0.0), axis=0)
    before = ((dj[None, :] < d[:, None]) | ((dj[None, :] == d[:, None]) & (cols[None, :] < rows[:, None]))) & \
        (cols[None, :] < N)
    rank = tl.sum(tl.where(before, 1, 0), axis=1)
    tl.store(W + b * swb + rank, d, mask=rows < N)
    if VECTORS:
        tl.store(V + b * svb + rows[:, None] * svr + rank[None, :] * svc, v, mask=inside)


@triton.jit
def svd_kernel(A, S, U, V, N, UM, UC, sab, sar, sac, ssb, sub, sur, suc, svb, svr, svc, tol, sweeps,
               BN: tl.constexpr, BU: tl.constexpr, UPPER: tl.constexpr, VECTORS: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BN)
    cols = tl.arange(0, BN)
    inside = (rows[:, None] < N) & (cols[None, :] < N)
    keep = inside
    if UPPER:
        keep = inside & (rows[:, None] <= cols[None, :])
    r = tl.load(A + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=keep, other=0.0)
    diag = rows[:, None] == cols[None, :]
    ut = tl.where(diag & inside, 1.0, 0.0)     # U^T: the left rotations, applied to its rows
    v = tl.where(diag & inside, 1.0, 0.0)      # V: the right rotations, applied to its columns
    total = tl.sum(tl.sum(r * r, axis=1), axis=0)
    off = tl.sum(tl.sum(tl.where(diag, 0.0, r * r), axis=1), axis=0)
    sweep = 0
    while (sweep < sweeps) & (off > tol * total):
        for p in range(N - 1):
            for q in range(p + 1, N):
                rowp = tl.sum(tl.where(rows[:, None] == p, r, 0.0), axis=0)
                rowq = tl.sum(tl.where(rows[:, None] == q, r, 0.0), axis=0)
                x = tl.sum(tl.where(cols == p, rowp, 0.0), axis=0)
                y = tl.sum(tl.where(cols == q, rowp, 0.0), axis=0)
                z = tl.sum(tl.where(cols == p, rowq, 0.0), axis=0)
                w = tl.sum(tl.where(cols == q, rowq, 0.0), axis=0)
                # a left rotation making the 2 x 2 [[x, y], [z, w]] symmetric, then the symmetric one's Jacobi
                # rotation from both sides
                h = tl.sqrt((x + w) * (x + w) + (z - y) * (z - y))
                flat = h == 0.0
                cs = tl.where(flat, 1.0, (x + w) / tl.where(flat, 1.0, h))
                sn = tl.where(flat, 0.0, (z - y) / tl.where(flat, 1.0, h))
                x1 = cs * x + sn * z
                y1 = cs * y + sn * w
                w1 = cs * w - sn * y
                c2, s2, t2 = _jacobi_angle(x1, w1, y1)
                lpp = c2 * cs + s2 * sn     # the left rotation [[lpp, lpq], [lqp, lqq]] = J^T G
                lpq = c2 * sn - s2 * cs
                lqp = s2 * cs - c2 * sn
                lqq = s2 * sn + c2 * cs
                r = tl.where(rows[:, None] == p, (lpp * rowp + lpq * rowq)[None, :],
                             tl.where(rows[:, None] == q, (lqp * rowp + lqq * rowq)[None, :], r))
                colp = tl.sum(tl.where(cols[None, :] == p, r, 0.0), axis=1)
                colq = tl.sum(tl.where(cols[None, :] == q, r, 0.0), axis=1)
                newp = tl.where(rows == q, 0.0, c2 * colp - s2 * colq)
                newq = tl.where(rows == p, 0.0, s2 * colp + c2 * colq)
                r = tl.where(cols[None, :] == p, newp[:, None], tl.where(cols[None, :] == q, newq[:, None], r))
                if VECTORS:
                    up = tl.sum(tl.where(rows[:, None] == p, ut, 0.0), axis=0)
                    uq = tl.sum(tl.where(rows[:, None] == q, ut, 0.0), axis=0)
                    ut = tl.where(rows[:, None] == p, (lpp * up + lpq * uq)[None, :],
                                  tl.where(rows[:, None] == q, (lqp * up + lqq * uq)[None, :], ut))
                    vp = tl.sum(tl.where(cols[None, :] == p, v, 0.0), axis=1)
                    vq = tl.sum(tl.where(cols[None, :] == q, v, 0.0), axis=1)
                    v = tl.where(cols[None, :] == p, (c2 * vp - s2 * vq)[:, None],
                                 tl.where(cols[None, :] == q, (s2 * vp + c2 * vq)[:, None], v))
        off = tl.sum(tl.sum(tl.where(diag, 0.0, r * r), axis=1), axis=0)
        sweep += 1
    # descending singular values (a negative diagonal entry's sign moved to its left vector)
    d = tl.sum(tl.where(diag, r, 0.0), axis=1)
    sigma = tl.abs(d)
    sj = tl.abs(tl.sum(tl.where(diag, r, 0.0), axis=0))
    before = ((sj[None, :] > sigma[:, None]) | ((sj[None, :] == sigma[:, None]) & (cols[None, :] < rows[:, None]))) & \
        (cols[None, :] < N)
    rank = tl.sum(tl.where(before, 1, 0), axis=1)
    tl.store(S + b * ssb + rank, sigma, mask=rows < N)
    if VECTORS:
        sign = tl.where(d < 0.0, -1.0, 1.0)
        tl.store(U + b * sub + cols[None, :] * sur + rank[:, None] * suc, ut * sign[:, None], mask=inside)
        ur = tl.arange(0, BU)
        uc = tl.arange(0, BU)
        pad = ((ur[:, None] >= N) | (uc[None, :] >= N)) & (ur[:, None] < UM) & (uc[None, :] < UC)
        tl.store(U + b * sub + ur[:, None] * sur + uc[None, :] * suc,
                 tl.where(ur[:, None] == uc[None, :], 1.0, 0.0), mask=pad)
        tl.store(V + b * svb + rows[:, None] * svr + rank[None, :] * svc, v, mask=inside)


@triton.jit
def scaled_product_kernel(L, D, R, X, M, N, K, slb, slm, slk, sdb, srb, srk, srn, sxb, sxm, sxn,
                          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    ks = tl.arange(0, BK)
    left = tl.load(L + b * slb + rows[:, None] * slm + ks[None, :] * slk,
                   mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
    right = tl.load(R + b * srb + ks[:, None] * srk + cols[None, :] * srn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
    d = tl.load(D + b * sdb + ks, mask=ks < K, other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(K):
        lk = tl.sum(tl.where(ks[None, :] == k, left, 0.0), axis=1)
        rk = tl.sum(tl.where(ks[:, None] == k, right, 0.0), axis=0)
        dk = tl.sum(tl.where(ks == k, d, 0.0), axis=0)
        acc += lk[:, None] * (dk * rk)[None, :]
    tl.store(X + b * sxb + rows[:, None] * sxm + cols[None, :] * sxn, acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))
