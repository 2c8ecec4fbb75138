"""Flash attention for the chip: the Triton kernels :mod:`.attention` lowers scaled dot-product attention to.

One program computes a ``BLOCK_M`` block of query rows of one (batch, head) against every key block it sees
(FlashAttention-2's online softmax): ``S = Q K^T`` and ``O += P V`` on the matrix engine, the running row maximum
and sum on the vector unit, in base 2 (``exp2``, the scale folded into ``log2(e) * scale``).  What the kernels
take beyond Q, K, V:

- **causal** (``IS_CAUSAL``): key ``j`` is seen by query ``i`` when ``j <= i`` (``torch.ones(L, S).tril()``, as
  PyTorch aligns it: top-left); a program's key loop stops at its last row;
- **a mask** (``HAS_MASK``): an additive float mask broadcast to (batch, heads, L, S) by its strides (0 on a
  broadcast dimension); a boolean mask reaches the kernels as the additive one PyTorch makes of it;
- **GQA / MQA**: query head ``h`` reads key/value head ``h // (H // H_KV)``; the backward's key/value program
  sums the gradients of the ``H // H_KV`` query heads that share its key/value head;
- rows every key of which is masked out give 0 (no NaN) and a log-sum-exp of ``-inf``.

The forward writes the output and the log-sum-exp of each row (natural log, as PyTorch's CPU flash attention
does, so either side's backward can use it).  The backward is three kernels: ``delta = rowsum(O * dO)``, then
``dK, dV`` (a program per key block, looping over the query blocks), then ``dQ`` (a program per query block,
looping over the key blocks), recomputing ``P`` from the log-sum-exp.

Dots take their operands rounded to bf16 when ``DOT_BF16`` says so, with ``input_precision=INPUT_PRECISION``
(:mod:`.precision`: fp32 follows ``torch.set_float32_matmul_precision``); ``P`` and ``dS`` go to the value type
before their dot, as on GPUs.
"""
import triton
import triton.language as tl



@triton.jit
def _mm(a, b, DOT_BF16: tl.constexpr, INPUT_PRECISION: tl.constexpr):
    """``a @ b`` on the matrix engine, fp32 accumulation; with ``DOT_BF16`` the operands rounded to bf16 first."""
    if DOT_BF16:
        return tl.dot(a.to(tl.bfloat16), b.to(tl.bfloat16), input_precision=INPUT_PRECISION)
    return tl.dot(a, b, input_precision=INPUT_PRECISION)


@triton.jit
def _fwd_block(acc, l_i, m_i, q, k_base, v_base, mask_base, start_n, offs_m, offs_n, offs_d, row_ok, d_ok,
               qk_scale, skn, skd, svn, svd, smm, smn, S, HAS_MASK: tl.constexpr, IS_CAUSAL: tl.constexpr,
               DOT_BF16: tl.constexpr, INPUT_PRECISION: tl.constexpr, MASKED: tl.constexpr = False):
    """One key block of the forward's online softmax.  ``MASKED``: the block may reach past ``S`` or (causal)
    past a row's last key, so its scores are masked; else every score is seen (a masked block's ``where`` and
    the guard of rows with no key seen would change nothing)."""
    cols = start_n + offs_n
    col_ok = cols < S
    kt = tl.load(k_base + cols[None, :] * skn + offs_d[:, None] * skd, mask=col_ok[None, :] & d_ok[:, None],
                 other=0.0)
    s = _mm(q, kt, DOT_BF16, INPUT_PRECISION) * qk_scale
    if HAS_MASK:
        add = tl.load(mask_base + offs_m[:, None] * smm + cols[None, :] * smn,
                      mask=row_ok[:, None] & col_ok[None, :], other=0.0)
        s = s + add.to(tl.float32) * 1.4426950408889634
    if MASKED:
        seen = col_ok[None, :]
        if IS_CAUSAL:
            seen = seen & (cols[None, :] <= offs_m[:, None])
        s = tl.where(seen, s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    if MASKED or HAS_MASK:
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_use = m_new
    p = tl.math.exp2(s - m_use[:, None])
    alpha = tl.math.exp2(m_i - m_use)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = tl.load(v_base + cols[:, None] * svn + offs_d[None, :] * svd, mask=col_ok[:, None] & d_ok[None, :],
                other=0.0)
    acc = acc * alpha[:, None]
    acc += _mm(p.to(v.dtype), v, DOT_BF16, INPUT_PRECISION)
    return acc, l_i, m_new


@triton.jit
def sdpa_fwd_kernel(Q, K, V, Mask, Out, Lse, sm_scale,
                    sqz, sqh, sqm, sqd, skz, skh, skn, skd, svz, svh, svn, svd,
                    smz, smh, smm, smn, soz, soh, som, sod, slz, slh, slm,
                    H, H_KV, L, S, D,
                    HAS_MASK: tl.constexpr, IS_CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, DOT_BF16: tl.constexpr,
                    INPUT_PRECISION: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    off_hk = off_h // (H // H_KV)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    row_ok = offs_m < L
    d_ok = offs_d < D
    q = tl.load(Q + off_z * sqz + off_h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=row_ok[:, None] & d_ok[None, :], other=0.0)
    k_base = K + off_z * skz + off_hk * skh
    v_base = V + off_z * svz + off_hk * svh
    mask_base = Mask + off_z * smz + off_h * smh
    sm_scale = sm_scale.to(tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    hi = S
    if IS_CAUSAL:
        hi = tl.minimum(S, (start_m + 1) * BLOCK_M)
    lo = 0
    if IS_CAUSAL:   # the key blocks before the block's first row (and inside S): every row sees every key, no mask
        lo = tl.minimum((S // BLOCK_N) * BLOCK_N, (start_m * BLOCK_M // BLOCK_N) * BLOCK_N)
        for start_n in range(0, lo, BLOCK_N):
            acc, l_i, m_i = _fwd_block(acc, l_i, m_i, q, k_base, v_base, mask_base, start_n, offs_m, offs_n,
                                       offs_d, row_ok, d_ok, qk_scale, skn, skd, svn, svd, smm, smn, S, HAS_MASK,
                                       IS_CAUSAL, DOT_BF16, INPUT_PRECISION)
    for start_n in range(lo, hi, BLOCK_N):   # the diagonal (causal), and every block otherwise: masked
        acc, l_i, m_i = _fwd_block(acc, l_i, m_i, q, k_base, v_base, mask_base, start_n, offs_m, offs_n, offs_d,
                                   row_ok, d_ok, qk_scale, skn, skd, svn, svd, smm, smn, S, HAS_MASK, IS_CAUSAL,
                                   DOT_BF16, INPUT_PRECISION, True)
    empty = l_i == 0.0
    out = acc / tl.where(empty, 1.0, l_i)[:, None]
    tl.store(Out + off_z * soz + off_h * soh + offs_m[:, None] * som + offs_d[None, :] * sod,
             out.to(Out.dtype.element_ty), mask=row_ok[:, None] & d_ok[None, :])
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(tl.where(empty, 1.0, l_i))) * 0.6931471805599453)
    tl.store(Lse + off_z * slz + off_h * slh + offs_m * slm, lse, mask=row_ok)


@triton.jit
def sdpa_bwd_delta_kernel(Out, DO, Delta, soz, soh, som, sod, sdz, sdh, sdm, sdd, H, L, D,
                          BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    ok = (offs_m < L)[:, None] & (offs_d < D)[None, :]
    o = tl.load(Out + off_z * soz + off_h * soh + offs_m[:, None] * som + offs_d[None, :] * sod, mask=ok, other=0.0)
    do = tl.load(DO + off_z * sdz + off_h * sdh + offs_m[:, None] * sdm + offs_d[None, :] * sdd, mask=ok,
                 other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), 1)
    tl.store(Delta + off_hz * L + offs_m, delta, mask=offs_m < L)


@triton.jit
def sdpa_bwd_dkdv_kernel(Q, K, V, Mask, DO, Lse, Delta, DK, DV, sm_scale,
                         sqz, sqh, sqm, sqd, skz, skh, skn, skd, svz, svh, svn, svd,
                         smz, smh, smm, smn, sdz, sdh, sdm, sdd, slz, slh, slm, sgz, sgh, sgn, sgd,
                         H, H_KV, L, S, D,
                         HAS_MASK: tl.constexpr, IS_CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, DOT_BF16: tl.constexpr,
                         INPUT_PRECISION: tl.constexpr):
    """dK and dV of a ``BLOCK_N`` block of keys of one (batch, key/value head), over the query heads sharing
    it; dK and dV have the same strides (``sg*``)."""
    start_n = tl.program_id(0)
    off_hkz = tl.program_id(1)
    off_z = off_hkz // H_KV
    off_hk = off_hkz % H_KV
    group = H // H_KV
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    col_ok = offs_n < S
    d_ok = offs_d < D
    kv_ok = col_ok[:, None] & d_ok[None, :]
    k = tl.load(K + off_z * skz + off_hk * skh + offs_n[:, None] * skn + offs_d[None, :] * skd, mask=kv_ok,
                other=0.0)
    v = tl.load(V + off_z * svz + off_hk * svh + offs_n[:, None] * svn + offs_d[None, :] * svd, mask=kv_ok,
                other=0.0)
    sm_scale = sm_scale.to(tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    dk = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
    dv = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
    lo = 0
    if IS_CAUSAL:
        lo = (start_n * BLOCK_N // BLOCK_M) * BLOCK_M
    for g in range(0, group):
        off_h = off_hk * group + g
        q_base = Q + off_z * sqz + off_h * sqh
        do_base = DO + off_z * sdz + off_h * sdh
        mask_base = Mask + off_z * smz + off_h * smh
        row_base = (off_z * H + off_h) * L
        lse_base = Lse + off_z * slz + off_h * slh
        for start_m in range(lo, L, BLOCK_M):
            rows = start_m + offs_m
            row_ok = rows < L
            qt = tl.load(q_base + rows[None, :] * sqm + offs_d[:, None] * sqd,
                         mask=row_ok[None, :] & d_ok[:, None], other=0.0)
            st = _mm(k, qt, DOT_BF16, INPUT_PRECISION) * qk_scale
            if HAS_MASK:
                add = tl.load(mask_base + rows[None, :] * smm + offs_n[:, None] * smn,
                              mask=row_ok[None, :] & col_ok[:, None], other=0.0)
                st = st + add.to(tl.float32) * 1.4426950408889634
            lse = tl.load(lse_base + rows * slm, mask=row_ok, other=0.0) * 1.4426950408889634
            seen = row_ok[None, :] & col_ok[:, None] & (lse[None, :] != float("-inf"))
            if IS_CAUSAL:
                seen = seen & (offs_n[:, None] <= rows[None, :])
            pt = tl.where(seen, tl.math.exp2(st - lse[None, :]), 0.0)
            do = tl.load(do_base + rows[:, None] * sdm + offs_d[None, :] * sdd,
                         mask=row_ok[:, None] & d_ok[None, :], other=0.0)
            dv += _mm(pt.to(do.dtype), do, DOT_BF16, INPUT_PRECISION)
            dot = tl.load(do_base + rows[None, :] * sdm + offs_d[:, None] * sdd,
                          mask=row_ok[None, :] & d_ok[:, None], other=0.0)
            dpt = _mm(v, dot, DOT_BF16, INPUT_PRECISION)
            delta = tl.load(Delta + row_base + rows, mask=row_ok, other=0.0)
            dst = pt * (dpt - delta[None, :])
            q = tl.load(q_base + rows[:, None] * sqm + offs_d[None, :] * sqd,
                        mask=row_ok[:, None] & d_ok[None, :], other=0.0)
            dk += _mm(dst.to(q.dtype), q, DOT_BF16, INPUT_PRECISION)
    out = off_z * sgz + off_hk * sgh + offs_n[:, None] * sgn + offs_d[None, :] * sgd
    tl.store(DK + out, (dk * sm_scale).to(DK.dtype.element_ty), mask=kv_ok)
    tl.store(DV + out, dv.to(DV.dtype.element_ty), mask=kv_ok)


@triton.jit
def sdpa_bwd_dq_kernel(Q, K, V, Mask, DO, Lse, Delta, DQ, sm_scale,
                       sqz, sqh, sqm, sqd, skz, skh, skn, skd, svz, svh, svn, svd,
                       smz, smh, smm, smn, sdz, sdh, sdm, sdd, slz, slh, slm, sgz, sgh, sgm, sgd,
                       H, H_KV, L, S, D,
                       HAS_MASK: tl.constexpr, IS_CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, DOT_BF16: tl.constexpr,
                       INPUT_PRECISION: tl.constexpr):
    """dQ of a ``BLOCK_M`` block of query rows of one (batch, head); dQ's strides are ``sg*``."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    off_hk = off_h // (H // H_KV)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    row_ok = offs_m < L
    d_ok = offs_d < D
    q_ok = row_ok[:, None] & d_ok[None, :]
    q = tl.load(Q + off_z * sqz + off_h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd, mask=q_ok,
                other=0.0)
    do = tl.load(DO + off_z * sdz + off_h * sdh + offs_m[:, None] * sdm + offs_d[None, :] * sdd, mask=q_ok,
                 other=0.0)
    lse = tl.load(Lse + off_z * slz + off_h * slh + offs_m * slm, mask=row_ok, other=0.0) * 1.4426950408889634
    delta = tl.load(Delta + off_hz * L + offs_m, mask=row_ok, other=0.0)
    k_base = K + off_z * skz + off_hk * skh
    v_base = V + off_z * svz + off_hk * svh
    mask_base = Mask + off_z * smz + off_h * smh
    sm_scale = sm_scale.to(tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    dq = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    hi = S
    if IS_CAUSAL:
        hi = tl.minimum(S, (start_m + 1) * BLOCK_M)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        col_ok = cols < S
        kt = tl.load(k_base + cols[None, :] * skn + offs_d[:, None] * skd,
                     mask=col_ok[None, :] & d_ok[:, None], other=0.0)
        s = _mm(q, kt, DOT_BF16, INPUT_PRECISION) * qk_scale
        if HAS_MASK:
            add = tl.load(mask_base + offs_m[:, None] * smm + cols[None, :] * smn,
                          mask=row_ok[:, None] & col_ok[None, :], other=0.0)
            s = s + add.to(tl.float32) * 1.4426950408889634
        seen = row_ok[:, None] & col_ok[None, :] & (lse[:, None] != float("-inf"))
        if IS_CAUSAL:
            seen = seen & (cols[None, :] <= offs_m[:, None])
        p = tl.where(seen, tl.math.exp2(s - lse[:, None]), 0.0)
        vt = tl.load(v_base + cols[None, :] * svn + offs_d[:, None] * svd,
                     mask=col_ok[None, :] & d_ok[:, None], other=0.0)
        dp = _mm(do, vt, DOT_BF16, INPUT_PRECISION)
        ds = p * (dp - delta[:, None])
        k = tl.load(k_base + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=col_ok[:, None] & d_ok[None, :], other=0.0)
        dq += _mm(ds.to(k.dtype), k, DOT_BF16, INPUT_PRECISION)
    tl.store(DQ + off_z * sgz + off_h * sgh + offs_m[:, None] * sgm + offs_d[None, :] * sgd,
             (dq * sm_scale).to(DQ.dtype.element_ty), mask=q_ok)
