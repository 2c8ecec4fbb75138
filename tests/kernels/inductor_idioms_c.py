"""An argsort users write because tl.sort returns no indices: a bitonic network over (value, index)
pairs built from tl.reshape to rank 3, tl.permute, tl.split/tl.join and tl.static_range, stable
(ties keep index order), NaN as the largest value (torch.sort's order), ragged rows padded with
elements that sort last.  Written for these tests.  Then torch.sort as Inductor lowers it, through
triton_helpers.sort_with_index."""
import triton
import triton.language as tl


@triton.jit
def _goes_first(xa, ia, xb, ib, n, DESCENDING: tl.constexpr):
    # does (xa, ia) come before (xb, ib)?  Padding (index >= n) last, then values, then indices.
    a_nan = xa != xa
    b_nan = xb != xb
    if DESCENDING:
        by_value = (xa > xb) | (a_nan & ~b_nan)
    else:
        by_value = (xa < xb) | (b_nan & ~a_nan)
    tie = (xa == xb) | (a_nan & b_nan)
    a_ok = ia < n
    b_ok = ib < n
    return (a_ok & ~b_ok) | ((a_ok == b_ok) & (by_value | (tie & (ia < ib))))


@triton.jit
def _exchange(x, ids, n, SIZE: tl.constexpr, DIST: tl.constexpr, ROW: tl.constexpr,
              DESCENDING: tl.constexpr):
    # one compare-exchange pass: element p meets p ^ DIST; blocks of SIZE alternate direction
    A: tl.constexpr = x.numel // (2 * DIST)
    pairs = tl.permute(tl.reshape(x, [A, 2, DIST]), (0, 2, 1))
    ipairs = tl.permute(tl.reshape(ids, [A, 2, DIST]), (0, 2, 1))
    lo, hi = tl.split(pairs)
    ilo, ihi = tl.split(ipairs)
    first = tl.arange(0, A)[:, None] * (2 * DIST) % ROW
    down = (first & SIZE) != 0
    swap = tl.where(down, _goes_first(lo, ilo, hi, ihi, n, DESCENDING),
                    _goes_first(hi, ihi, lo, ilo, n, DESCENDING))
    new_lo = tl.where(swap, hi, lo)
    new_hi = tl.where(swap, lo, hi)
    inew_lo = tl.where(swap, ihi, ilo)
    inew_hi = tl.where(swap, ilo, ihi)
    x = tl.reshape(tl.permute(tl.join(new_lo, new_hi), (0, 2, 1)), x.shape)
    ids = tl.reshape(tl.permute(tl.join(inew_lo, inew_hi), (0, 2, 1)), ids.shape)
    return x, ids


@triton.jit
def argsort_rows(X, Vals, Idx, n_rows, n_cols, ROWS: tl.constexpr, LOG: tl.constexpr,
                 DESCENDING: tl.constexpr):
    N: tl.constexpr = 2 ** LOG
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    col = tl.arange(0, N)[None, :]
    mask = (row < n_rows) & (col < n_cols)
    x = tl.load(X + row * n_cols + col, mask=mask, other=0.0)
    ids = tl.broadcast_to(col, [ROWS, N])
    for s in tl.static_range(1, LOG + 1):
        for d in tl.static_range(s):
            x, ids = _exchange(x, ids, n_cols, 2 ** s, 2 ** (s - 1 - d), N, DESCENDING)
    tl.store(Vals + row * n_cols + col, x, mask=mask)
    tl.store(Idx + row * n_cols + col, ids, mask=mask)


from torch._inductor.runtime import triton_helpers  # noqa: E402


@triton.jit
def triton_per_fused_sort_0(in_ptr0, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK: tl.constexpr,
                            R0_BLOCK: tl.constexpr, DESC: tl.constexpr):
    # torch.sort as Inductor lowers it: int16 indices from the iota, padding implied by r0_numel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0.0)
    tmp1 = r0_index.to(tl.int16)
    tmp2 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
    tmp4, tmp5, = triton_helpers.sort_with_index(tmp2, tmp3, r0_numel, 1, stable=True, descending=DESC)
    tl.store(out_ptr0 + (r0_index + r0_numel*x0), tmp4, r0_mask & xmask)
    tl.store(out_ptr1 + (r0_index + r0_numel*x0), tmp5.to(tl.int64), r0_mask & xmask)


@triton.jit
def triton_per_fused_median_1(in_ptr0, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK: tl.constexpr,
                              R0_BLOCK: tl.constexpr):
    # torch.median(x, dim=1) as a sort-based lowering: sort with indices, pick the lower middle
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel*x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(r0_index.to(tl.int16), [XBLOCK, R0_BLOCK])
    tmp2 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3, tmp4, = triton_helpers.sort_with_index(tmp2, tmp1, r0_numel, 1, stable=False, descending=False)
    tmp5 = (r0_numel - 1) // 2
    tmp6 = r0_index == tmp5
    tmp7 = tl.sum(tl.where(tmp6, tmp3, 0.0), 1)[:, None]
    tmp8 = tl.sum(tl.where(tmp6, tmp4.to(tl.int64), 0), 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp7, xmask)
    tl.store(out_ptr1 + (x0), tmp8, xmask)
