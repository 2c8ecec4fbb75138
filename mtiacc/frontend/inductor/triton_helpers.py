"""TorchInductor's ``triton_helpers``, written for mtiacc from the helpers' documented behaviour.

mtiacc reads this file like a module of the user's project (see mtiacc/frontend/inductor/runtime.py); it is
never imported by Python.
"""
import triton
import triton.language as tl
from triton.language import math
from triton.language.extra import libdevice


def set_driver_to_gpu():
    """Called at the top of Inductor's files; nothing to do here."""


@triton.jit
def promote_to_tensor(x):
    # a scalar becomes a block of one element; a block keeps its shape and type
    return x + tl.zeros((1,), tl.int1)


@triton.jit
def maximum(a, b):
    # NaN wins (torch.maximum propagates NaN); `a != a` is false for integers
    mask = (a > b) | (a != a)
    return tl.where(mask, a, b)


@triton.jit
def minimum(a, b):
    mask = (a < b) | (a != a)
    return tl.where(mask, a, b)


@triton.jit
def max2(a, dim):
    return tl.reduce(a, dim, maximum)


@triton.jit
def min2(a, dim):
    return tl.reduce(a, dim, minimum)


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _or(a, b):
    return a | b


@triton.jit
def sum(a, dim):
    return tl.reduce(a, dim, _add)


@triton.jit
def prod(a, dim):
    return tl.reduce(a, dim, _mul)


@triton.jit
def any(a, dim):
    return tl.reduce(a != 0, dim, _or)


@triton.jit
def maximum_with_index(a_value, a_index, b_value, b_index):
    # the larger value (NaN counts as the largest); on a tie the smaller index
    a_nan = a_value != a_value
    b_nan = b_value != b_value
    mask = (a_value > b_value) | (a_nan & (b_nan == 0))
    equal = (a_value == b_value) | (a_nan & b_nan)
    mask = mask | (equal & (a_index < b_index))
    return tl.where(mask, a_value, b_value), tl.where(mask, a_index, b_index)


@triton.jit
def minimum_with_index(a_value, a_index, b_value, b_index):
    # the smaller value (NaN counts as the smallest); on a tie the smaller index
    a_nan = a_value != a_value
    b_nan = b_value != b_value
    mask = (a_value < b_value) | (a_nan & (b_nan == 0))
    equal = (a_value == b_value) | (a_nan & b_nan)
    mask = mask | (equal & (a_index < b_index))
    return tl.where(mask, a_value, b_value), tl.where(mask, a_index, b_index)


@triton.jit
def max_with_index(value, index, dim):
    return tl.reduce((value, index), dim, maximum_with_index)


@triton.jit
def min_with_index(value, index, dim):
    return tl.reduce((value, index), dim, minimum_with_index)


@triton.jit
def welford_reduce(value, mean, m2, weight, first_iteration):
    # one more sample per lane: Welford's running mean and sum of squared deviations
    if first_iteration:
        new_weight = tl.full(weight.shape, 1, weight.dtype)
        new_mean = value
        new_m2 = tl.zeros_like(m2)
    else:
        delta = value - mean
        new_weight = weight + 1
        new_mean = mean + delta / new_weight
        new_m2 = m2 + delta * (value - new_mean)
    return new_mean, new_m2, new_weight


@triton.jit
def welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    # merge two partial (mean, m2, count) triples (Chan et al.)
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = tl.where(new_weight == 0.0, 0.0, weight_2 / new_weight)
    return (mean_1 + delta * w2_over_w,
            m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w,
            new_weight)


@triton.jit
def welford(mean, m2, weight, dim):
    return tl.reduce((mean, m2, weight), dim, welford_combine)


@triton.jit
def div_floor_integer(a, b):
    # Python's floor division from C's truncating one
    quot = a // b
    rem = a % b
    fixed = tl.where(rem != 0, quot - 1, quot)
    return tl.where((a < 0) != (b < 0), fixed, quot)


@triton.jit
def remainder_integer(a, b):
    # Python's modulo (the sign of the divisor) from C's remainder
    rem = a % b
    return tl.where((rem != 0) & ((rem < 0) != (b < 0)), rem + b, rem)


@triton.jit
def _sort_goes_first(xa, ia, xb, ib, rnumel, descending: tl.constexpr):
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
def _sort_exchange(x, idxs, rnumel, SIZE: tl.constexpr, DIST: tl.constexpr, ROW: tl.constexpr,
                   descending: tl.constexpr):
    # one compare-exchange pass of a bitonic network along the last dimension: element p meets
    # p ^ DIST, and runs of SIZE elements alternate direction
    A: tl.constexpr = x.numel // (2 * DIST)
    lo, hi = tl.split(tl.permute(tl.reshape(x, [A, 2, DIST]), (0, 2, 1)))
    ilo, ihi = tl.split(tl.permute(tl.reshape(idxs, [A, 2, DIST]), (0, 2, 1)))
    down = ((tl.arange(0, A)[:, None] * (2 * DIST) % ROW) & SIZE) != 0
    swap = tl.where(down, _sort_goes_first(lo, ilo, hi, ihi, rnumel, descending),
                    _sort_goes_first(hi, ihi, lo, ilo, rnumel, descending))
    x = tl.reshape(tl.permute(tl.join(tl.where(swap, hi, lo), tl.where(swap, lo, hi)), (0, 2, 1)), x.shape)
    idxs = tl.reshape(tl.permute(tl.join(tl.where(swap, ihi, ilo), tl.where(swap, ilo, ihi)), (0, 2, 1)),
                      idxs.shape)
    return x, idxs


@triton.jit
def sort_with_index(x, idxs, rnumel, dim: tl.constexpr = None, stable: tl.constexpr = False,
                    descending: tl.constexpr = False):
    # (values, indices) sorted along the last dimension; `stable` or not, ties keep index order (a
    # stable order is also a valid unstable one)
    RANK: tl.constexpr = len(x.shape)
    tl.static_assert(dim is None or dim == RANK - 1 or dim == -1,
                     "sort_with_index sorts along the last dimension")
    ROW: tl.constexpr = x.shape[RANK - 1]
    for s in tl.static_range(1, 16):
        if 2 ** s <= ROW:
            for d in tl.static_range(s):
                x, idxs = _sort_exchange(x, idxs, rnumel, 2 ** s, 2 ** (s - 1 - d), ROW, descending)
    return x, idxs
