"""TorchInductor's ``triton_helpers.sort_with_index`` and the bitonic network under it, written for mtiacc
from their documented behaviour; Triton source read by mtiacc (see runtime.py), never imported.

The network sorts runs of 2, 4, ... elements in alternating directions, then merges them: element
p meets p ^ d for d = run / 2, ..., 1.  Each compare-exchange here splits the block into the
elements and their partners with reshape, permute and split, and puts them back with join.
"""
import triton
import triton.language as tl


@triton.jit
def _goes_first(xa, ia, xb, ib, rnumel, descending: tl.constexpr):
    # does (xa, ia) come before (xb, ib)?  Indices >= rnumel are padding and go last; NaN is the
    # largest value (torch.sort's order); ties keep index order
    a_nan = xa != xa
    b_nan = xb != xb
    if descending:
        by_value = (xa > xb) | (a_nan & ~b_nan)
    else:
        by_value = (xa < xb) | (b_nan & ~a_nan)
    tie = (xa == xb) | (a_nan & b_nan)
    first = by_value | (tie & (ia < ib))
    if rnumel is not None:
        a_ok = ia < rnumel
        b_ok = ib < rnumel
        first = (a_ok & ~b_ok) | ((a_ok == b_ok) & first)
    return first


@triton.jit
def _pairs(x, DIST: tl.constexpr):
    # x (numel a multiple of 2 * DIST) as (the elements p with p & DIST == 0, their partners p + DIST)
    A: tl.constexpr = x.numel // (2 * DIST)
    return tl.split(tl.permute(tl.reshape(x, [A, 2, DIST]), (0, 2, 1)))


@triton.jit
def _unpairs(lo, hi, shape):
    return tl.reshape(tl.permute(tl.join(lo, hi), (0, 2, 1)), shape)


@triton.jit
def _compare_and_swap_with_index(x, idxs, rnumel, flip, i: tl.constexpr, n_dims: tl.constexpr,
                                 stable: tl.constexpr, descending: tl.constexpr):
    # One compare-exchange pass along the last dimension (2**n_dims elements): element p meets
    # p ^ 2**(n_dims - 1 - i).  `flip` is None (or False) or a 0/1 block of x's shape: 1 where that element's
    # pair goes the other way.  Ties keep index order whether `stable` or not (a stable order is a
    # valid unstable one).
    DIST: tl.constexpr = 2 ** (n_dims - 1 - i)
    lo, hi = _pairs(x, DIST)
    ilo, ihi = _pairs(idxs, DIST)
    keep = _goes_first(lo, ilo, hi, ihi, rnumel, descending)
    if flip is not None:
        f, _ = _pairs(tl.broadcast_to(flip, x.shape), DIST)
        keep = tl.where(f != 0, _goes_first(hi, ihi, lo, ilo, rnumel, descending), keep)
    x = _unpairs(tl.where(keep, lo, hi), tl.where(keep, hi, lo), x.shape)
    idxs = _unpairs(tl.where(keep, ilo, ihi), tl.where(keep, ihi, ilo), idxs.shape)
    return x, idxs


@triton.jit
def _bitonic_merge_with_index(x, idxs, rnumel, stage: tl.constexpr, alternating: tl.constexpr,
                              n_dims: tl.constexpr, stable: tl.constexpr, descending: tl.constexpr):
    # Sorts runs of 2**stage elements along the last dimension (2**n_dims elements), each made of two
    # runs sorted in opposite directions; `alternating`: odd runs go the other way.
    ROW: tl.constexpr = 2 ** n_dims
    if alternating:
        pos = tl.arange(0, ROW)
        flip = tl.broadcast_to((pos >> stage) & 1, x.shape)
    else:
        flip = None
    for k in tl.static_range(stage):
        x, idxs = _compare_and_swap_with_index(x, idxs, rnumel, flip, n_dims - stage + k, n_dims, stable,
                                               descending)
    return x, idxs


@triton.jit
def sort_with_index(x, idxs, rnumel, dim: tl.constexpr = None, stable: tl.constexpr = False,
                    descending: tl.constexpr = False):
    # (values, indices) sorted along the last dimension (a power of two), padding (indices >= rnumel)
    # last
    x, idxs = tl.broadcast(x, idxs)
    RANK: tl.constexpr = len(x.shape)
    tl.static_assert(dim is None or dim == RANK - 1 or dim == -1,
                     "sort_with_index sorts along the last dimension")
    ROW: tl.constexpr = x.shape[RANK - 1]
    for n in tl.static_range(1, 16):
        if 2 ** n == ROW:
            for s in tl.static_range(1, n + 1):
                x, idxs = _bitonic_merge_with_index(x, idxs, rnumel, s, s < n, n, stable, descending)
    return x, idxs
