"""``<``, ``<=``, ``>`` and ``>=`` on int1 blocks, as mask logicals (false < true, as Triton's int1 compares
unsigned): ``a > b`` is ``a & ~b``, ``a >= b`` is ``a | ~b``.  (Were "comparison predicate 'ugt' on i1 blocks is
not supported yet": Inductor's max_pool2d with ``ceil_mode=True`` compares masks so.)"""
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
    c = a ^ b                          # a fused neighbour, so the compares are lowered inside a region too
    tl.store(Out + offs, ((a > b) ^ c).to(tl.int8), mask=m)
    tl.store(Out + n + offs, (a >= b).to(tl.int8), mask=m)
    tl.store(Out + 2 * n + offs, (a < b).to(tl.int8), mask=m)
    tl.store(Out + 3 * n + offs, (a <= b).to(tl.int8), mask=m)
"""


@pytest.mark.parametrize("n", [4, 37])
def test_bool_compare(n):
    rng = np.random.default_rng(n)
    a = rng.integers(0, 2, n).astype(np.int8)
    b = rng.integers(0, 2, n).astype(np.int8)
    a[:4], b[:4] = [0, 0, 1, 1], [0, 1, 0, 1]      # every pair of truth values
    out = launch(KERNEL, "*i8,*i8,*i8,i32", {"A": a, "B": b, "Out": np.zeros(4 * n, np.int8),
                                             "n": np.array(n, np.int32)}, defines=(("BLOCK", "64"),)).outputs["Out"]
    pa, pb = a.astype(bool), b.astype(bool)
    np.testing.assert_array_equal(out[:n], ((pa > pb) ^ (pa ^ pb)).astype(np.int8))
    np.testing.assert_array_equal(out[n:2 * n], (pa >= pb).astype(np.int8))
    np.testing.assert_array_equal(out[2 * n:3 * n], (pa < pb).astype(np.int8))
    np.testing.assert_array_equal(out[3 * n:4 * n], (pa <= pb).astype(np.int8))
