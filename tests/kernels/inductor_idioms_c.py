"""An argsort users write because tl.sort returns no indices: a bitonic network over (value, index)
pairs built from tl.reshape to rank 3, tl.permute, tl.split/tl.join and tl.static_range, stable
(ties keep index order), NaN as the largest value (torch.sort's order), ragged rows padded with
elements that sort last.  Written for these tests."""
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
