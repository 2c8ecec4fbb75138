"""TorchInductor's ``triton_helpers``, written for mtiacc from the helpers' documented behaviour.

mtiacc reads this file like a module of the user's project (see mtiacc/frontend/inductor/runtime.py); it is
never imported by Python.  The element-wise helpers and the reductions are here; the random numbers, the
scans across programs (and the grid barrier) and the sort are in the ``helpers_*.py`` files beside it,
whose names this module re-exports, as Inductor's kernels reach every helper through this module.
The functions without ``@triton.jit`` run on the host in torch; a kernel calling one is an error.
"""
import triton
import triton.language as tl
from triton.language import math
from triton.language.extra import libdevice

from .helpers_random import _random_4x_to_block, rand4x, rand_eager_kernel, randint64, randn4x
from .helpers_scan import (exclusive_scan_decoupled_lookback, exclusive_scan_decoupled_lookback_64,
                           pack_value_flag, unpack_flag, unpack_value, x_grid_barrier)
from .helpers_sort import _bitonic_merge_with_index, _compare_and_swap_with_index, sort_with_index


# ------------------------------------------------------------------ host side (never in a kernel)

def set_driver_to_cpu():
    """Called at the top of Inductor's files for CPU kernels; nothing to do here."""


def set_driver_to_gpu():
    """Called at the top of Inductor's files; nothing to do here."""


def _is_backend_active(name, backend):
    """Host side: whether a Triton backend drives the current device."""


def get_backend_options():
    """Host side: the active Triton backend's options."""


def get_constexprs(kernel):
    """Host side: the positions of a kernel's constexpr parameters."""


def triton_builtin(f):
    """Host side: marks a function as evaluated while compiling (``constexpr_next_power_of_2``,
    ``if_mask`` below are written as ``@triton.jit`` functions of constants instead)."""
    return f


# ------------------------------------------------------------------ compile-time helpers

@triton.jit
def constexpr_next_power_of_2(n: tl.constexpr):
    # the smallest power of two >= n, as a constant
    return triton.next_power_of_2(n)


@triton.jit
def if_mask(mask, val):
    # `other=` of a load: no value when there is no mask
    return None if mask is None else val


@triton.jit
def is_floating(x):
    return promote_to_tensor(x).dtype.is_floating()


@triton.jit
def promote_to_tensor(x):
    # a scalar becomes a block of one element; a block keeps its shape and type
    return x + tl.zeros((1,), tl.int1)


# ------------------------------------------------------------------ element-wise

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
def pow_integer(base, exponent):
    # base ** exponent exactly, in the integers' own wrapping arithmetic: one squaring of the base
    # per bit of the exponent (its bits as unsigned)
    BITS: tl.constexpr = exponent.dtype.primitive_bitwidth
    result = tl.full(base.shape, 1, base.dtype)
    for k in tl.static_range(BITS):
        result = tl.where(((exponent >> k) & 1) != 0, result * base, result)
        base = base * base
    return result


@triton.jit
def fp8e4m3fn_to_float32(x):
    # x holds float8_e4m3fn bit patterns (as uint8): 1 sign bit, 4 exponent bits (bias 7), 3 mantissa
    # bits, no infinities and one NaN per sign (all exponent and mantissa bits set)
    bits = x.to(tl.int32) & 0xFF
    negative = (bits & 0x80) != 0
    e = (bits >> 3) & 0xF
    m = bits & 0x7
    scale = tl.where(e == 0, 1.0, (tl.full(e.shape, 1, tl.int32) << tl.maximum(e - 1, 0)).to(tl.float32))
    magnitude = tl.where(e == 0, m.to(tl.float32), (m + 8).to(tl.float32) * scale) * 0.001953125
    value = tl.where(negative, -magnitude, magnitude)
    return tl.where((e == 0xF) & (m == 0x7), float("nan"), value)


@triton.jit
def exp(x, use_fast_math: tl.constexpr):
    # one exponential for both settings here
    return libdevice.exp(x)


@triton.jit
def frexp(x):
    # (mantissa, exponent) with x == mantissa * 2**exponent and 0.5 <= |mantissa| < 1; zero gives
    # (0, 0), infinities and NaN give (x, 0); from the bits, subnormals scaled up first
    if x.dtype == tl.float64:
        tiny = tl.abs(x) < 2.2250738585072014e-308
        xs = tl.where(tiny, x * 18014398509481984.0, x)
        bits = xs.to(tl.int64, bitcast=True)
        e = ((bits >> 52) & 0x7FF).to(tl.int32) - 1022 - tl.where(tiny, 54, 0)
        m = ((bits & -9218868437227405313) | (1022 << 52)).to(tl.float64, bitcast=True)
        xf = x
    else:
        xf = x.to(tl.float32)
        tiny = tl.abs(xf) < 1.1754943508222875e-38
        xs = tl.where(tiny, xf * 16777216.0, xf)
        bits = xs.to(tl.int32, bitcast=True)
        e = ((bits >> 23) & 0xFF) - 126 - tl.where(tiny, 24, 0)
        m = ((bits & -2139095041) | (126 << 23)).to(tl.float32, bitcast=True)
    zero = xf == 0
    special = zero | (xf != xf) | (tl.abs(xf) == float("inf"))
    mantissa = tl.where(zero, 0.0, tl.where(special, xf, m))
    return mantissa.to(x.dtype), tl.where(special, 0, e)


@triton.jit
def device_assert_then(cond, msg, r):
    tl.device_assert(cond, msg)
    return r


@triton.jit
def _uint_bits(x):
    # x's bits as the unsigned integer of its width
    W: tl.constexpr = x.dtype.primitive_bitwidth
    if W == 64:
        u = x.to(tl.uint64, bitcast=True)
    elif W == 32:
        u = x.to(tl.uint32, bitcast=True)
    elif W == 16:
        u = x.to(tl.uint16, bitcast=True)
    else:
        u = x.to(tl.uint8, bitcast=True)
    return u


@triton.jit
def select_one(x, mask, dim, keep_dims=False):
    # the one element of x along `dim` where mask holds (bit for bit)
    u = _uint_bits(x)
    picked = tl.sum(tl.where(mask, u, 0), dim, keep_dims=keep_dims)
    return picked.to(u.dtype).to(x.dtype, bitcast=True)


@triton.jit
def inline_asm_pack(x, pack: tl.constexpr):
    # x as one dimension, padded with zeros (every other element) up to `pack` elements
    result = tl.reshape(x, (x.numel,))
    N: tl.constexpr = x.numel
    for s in tl.static_range(16):
        if N * (2 ** (s + 1)) <= pack:
            result = tl.reshape(tl.join(result, tl.zeros_like(result)), (N * (2 ** (s + 1)),))
    return result


@triton.jit
def inline_asm_unpack(x, orig, pack: tl.constexpr):
    # undoes inline_asm_pack: keeps the elements of orig, in orig's shape
    result = x
    N: tl.constexpr = orig.numel
    for s in tl.static_range(16):
        if N * (2 ** (s + 1)) <= pack:
            result, _ = tl.split(tl.reshape(result, (result.shape[0] // 2, 2)))
    return tl.reshape(result, orig.shape)


# ------------------------------------------------------------------ reductions

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
def _prod_accumulate(a, b):
    return a * b


@triton.jit
def _any_combine(a, b):
    return a | b


@triton.jit
def sum(a, dim):
    return tl.reduce(a, dim, _add)


@triton.jit
def prod(input, axis):
    return tl.reduce(input, axis, _prod_accumulate)


@triton.jit
def any(a, dim):
    return tl.reduce(a != 0, dim, _any_combine)


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
def online_softmax_reduce(lhs_max, lhs_sum, dim, use_fast_math: tl.constexpr):
    # merge per-lane (running max, sum of exp(x - max)) pairs along `dim`
    out_max = max2(lhs_max, dim)
    kept = tl.expand_dims(out_max, dim)
    shift = tl.where(kept == float("-inf"), 0.0, lhs_max - kept)
    return out_max, tl.sum(lhs_sum * exp(shift, use_fast_math), dim)


@triton.jit
def online_softmax_combine_with_sum(lhs_max, lhs_sum, rhs_max, rhs_sum, use_fast_math: tl.constexpr):
    # two (max, sum of exp(x - max)) pairs as one; an all -inf pair keeps its sum unscaled
    out_max = maximum(lhs_max, rhs_max)
    empty = out_max == float("-inf")
    lhs_scale = tl.where(empty, 1.0, exp(lhs_max - out_max, use_fast_math))
    rhs_scale = tl.where(empty, 1.0, exp(rhs_max - out_max, use_fast_math))
    return out_max, lhs_sum * lhs_scale + rhs_sum * rhs_scale


@triton.jit
def online_softmax_combine(lhs_max, lhs_sum, rhs_max, use_fast_math: tl.constexpr):
    # the running pair (lhs) and one new element (rhs_max, whose own sum is 1)
    out_max = maximum(lhs_max, rhs_max)
    empty = out_max == float("-inf")
    lhs_scale = tl.where(empty, 1.0, exp(lhs_max - out_max, use_fast_math))
    rhs_scale = tl.where(empty, 1.0, exp(rhs_max - out_max, use_fast_math))
    return out_max, lhs_sum * lhs_scale + rhs_scale


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
    # merge two partial (mean, m2, count) triples (Chan et al.); equal means (infinite ones too)
    # differ by 0, not by inf - inf
    delta = tl.where(mean_1 == mean_2, 0.0, mean_2 - mean_1)
    new_weight = weight_1 + weight_2
    w2_over_w = tl.where(new_weight == 0.0, 0.0, weight_2 / new_weight)
    return (mean_1 + delta * w2_over_w,
            m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w,
            new_weight)


@triton.jit
def welford(mean, m2, weight, dim):
    return tl.reduce((mean, m2, weight), dim, welford_combine)


# ------------------------------------------------------------------ searching

@triton.jit
def bucketize_binary_search(values, boundaries_ptr, BOUNDARIES_SIZE, BOUNDARIES_UNDERLYING_NUMEL,
                            BOUNDARIES_STRIDE, boundary_indices, indexing_dtype, right, sorter_ptr,
                            SORTER_STRIDE, sorter_indices):
    # For each value, its bucket among the sorted boundaries that start at boundary_indices (a step of
    # BOUNDARIES_STRIDE, BOUNDARIES_SIZE of them, in indexing_dtype): how many boundaries are below it
    # (`right`: at or below it).  NaN goes past the last one.  With a sorter, the k-th boundary in
    # order is at sorter[sorter_indices + k * SORTER_STRIDE].  Bisection on [lo, hi).
    lo = tl.zeros(values.shape, dtype=indexing_dtype)
    hi = tl.full(values.shape, BOUNDARIES_SIZE, dtype=indexing_dtype)
    span = BOUNDARIES_SIZE + 1
    while span > 1:
        mid = (lo + hi) // 2
        valid = (mid < BOUNDARIES_SIZE) & (boundary_indices + mid * BOUNDARIES_STRIDE < BOUNDARIES_UNDERLYING_NUMEL)
        if sorter_ptr is None:
            at = mid
        else:
            at = tl.load(sorter_ptr + sorter_indices + mid * SORTER_STRIDE, mask=valid, other=0)
        bound = tl.load(boundaries_ptr + boundary_indices + at * BOUNDARIES_STRIDE, mask=valid, other=0)
        if right:
            past = values >= bound
        else:
            past = values > bound
        past = past | (values != values)
        lo = tl.where(past & valid, mid + 1, lo)
        hi = tl.where(past, hi, mid)
        span = (span + 1) // 2
    return lo
