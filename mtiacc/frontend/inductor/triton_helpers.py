"""TorchInductor's ``triton_helpers``, written for mtiacc from the helpers' documented behaviour.

mtiacc reads this file like a module of the user's project (see mtiacc/frontend/inductor.py); it is
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
