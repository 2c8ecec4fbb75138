"""``//``, ``%``, ``<<`` and ``>>`` on int1 blocks and scalars stay int1 and compute at one bit, as Triton
does (its interpreter: ``(op(a.astype(int8), b.astype(int8)) & 1)``); dividing by False is undefined, so
only the defined lanes are compared for ``//`` and ``%``.  (Were "'arith.divui' on i1 blocks is not
supported yet".)"""
import numpy as np
import pytest

from tests.language.harness import launch

KERNEL = """
@triton.jit
def k(A, B, Out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(A + offs, mask=m) != 0
    b = tl.load(B + offs, mask=m) != 0
    tl.static_assert((a // b).dtype == tl.int1 and (a << b).dtype == tl.int1)
    c = a ^ b                          # a fused neighbour, so the ops are lowered inside a region too
    tl.store(Out + offs, ((a // b) ^ c).to(tl.int8), mask=m)
    tl.store(Out + n + offs, ((a % b) | c).to(tl.int8), mask=m)
    tl.store(Out + 2 * n + offs, (a << b).to(tl.int8), mask=m)
    tl.store(Out + 3 * n + offs, (a >> b).to(tl.int8), mask=m)
    sa = tl.load(A) != 0
    sb = tl.load(B + 1) != 0
    tl.store(Out + 4 * n, (sa // sb).to(tl.int8))
    tl.store(Out + 4 * n + 1, (sa << sb).to(tl.int8))
"""


@pytest.mark.parametrize("n", [4, 37])
def test_bool_divide_and_shift(n):
    rng = np.random.default_rng(n)
    a = rng.integers(0, 2, n).astype(np.int8)
    b = rng.integers(0, 2, n).astype(np.int8)
    a[:4], b[:4] = [0, 1, 0, 1], [1, 1, 1, 1]      # the first two lanes reach the scalars: b[1] == 1
    out = launch(KERNEL, "*i8,*i8,*i8,i32", {"A": a, "B": b, "Out": np.zeros(4 * n + 2, np.int8),
                                             "n": np.array(n, np.int32)}, defines=(("BLOCK", "64"),)).outputs["Out"]
    c = a ^ b
    ok = b == 1
    np.testing.assert_array_equal(out[:n][ok], ((a & b) ^ c)[ok])
    np.testing.assert_array_equal(out[n:2 * n][ok], c[ok])
    np.testing.assert_array_equal(out[2 * n:3 * n], a & (1 - b))
    np.testing.assert_array_equal(out[3 * n:4 * n], a & (1 - b))
    np.testing.assert_array_equal(out[4 * n:], [a[0] & b[1], a[0] & (1 - b[1])])
