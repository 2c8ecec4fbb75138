"""The ``ieee`` fp32 dot's products: ``vfmacc.vf`` rounds each ``a[m, k] * b[k, :]`` once with its addition.

The simulator checks only the lanes whose float64 sum could be a midpoint of the narrow format (its bits below
the format's rounding bit all zero) for the double-rounding case; these tests hold it, differentially, to
the exact reference (rationals rounded half to even) over seeded dot-like accumulations: random operands
(few candidate lanes), small integers and bf16-exact values (every lane a candidate), crafted midpoint ties,
subnormal results, the overflow threshold, the negated forms and the vector-scalar broadcast."""
import numpy as np
import pytest

from mtiasim.semantics.fp import fused
from tests.numerics import FMT, reference
from tests.sim.vhelpers import vlmax, vrun

UINT = {np.float16: np.uint16, np.float32: np.uint32}


def _ties(dtype, n):
    """``(a, b, c)`` whose float64 sum ``a*b + c`` is a midpoint of ``dtype`` while the exact sum is not, on both
    sides, in both signs, at the overflow threshold and among the subnormals."""
    mant, emin, _ = FMT[dtype]
    h = (mant + 1) // 2
    x = dtype(1 + 2.0 ** -h)                          # x*x = 1 + 2^(1-h) + 2^-2h: below a midpoint by c
    tiny = dtype(2.0 ** (emin - mant + 1))
    big = dtype(np.finfo(dtype).max)
    rows = [(x, x, tiny), (x, x, -tiny), (-x, x, tiny), (-x, x, -tiny), (x, x, dtype(0)),
            (big, dtype(1 + 2.0 ** -mant), -big), (big, dtype(1), big * dtype(2.0 ** -(mant + 1))),
            (dtype(2.0 ** emin), dtype(0.5), dtype(2.0 ** (emin - mant - 1))),      # subnormal results
            (dtype(3 * 2.0 ** (emin - mant)), dtype(0.5), dtype(0))]
    rows = (rows * (n // len(rows) + 1))[:n]
    return [np.array(col, dtype) for col in zip(*rows)]


def _operands(dtype, kind, rng, shape):
    if kind == "normal":
        return [rng.standard_normal(shape).astype(dtype) for _ in range(3)]
    if kind == "integers":
        return [rng.integers(-8, 9, shape).astype(dtype) for _ in range(3)]
    if kind == "bf16":        # 8 significant bits: the products' low bits are zero, every lane a candidate
        return [((rng.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16) << 16)
                .view(np.float32).astype(dtype) for _ in range(3)]
    t = _ties(dtype, shape[0] * shape[1])
    return [v.reshape(shape) for v in t]


def _candidates(a, b, c, dtype):
    s = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    low = np.uint64((1 << (52 - np.finfo(dtype).nmant - 1)) - 1)
    return (s.view(np.uint64) & low) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("neg_prod, neg_add", [(False, False), (True, False), (False, True), (True, True)])
def test_a_dot_accumulated_by_fused_multiply_adds_matches_the_exact_reference(dtype, neg_prod, neg_add):
    """``out[:, :] = fma(a[:, k] (one value per row, broadcast), b[k, :], out)`` for each ``k``, as ``vfmacc.vf``
    accumulates an ``ieee`` dot, with rows of every kind of operand; each step against the exact reference."""
    rng = np.random.default_rng(29)
    G, N, K = 4, 24, 6
    kinds = ("normal", "integers", "bf16", "ties")
    for kind in kinds:
        a, b, out = _operands(dtype, kind, rng, (G, N))
        seen = np.zeros(2, bool)
        for k in range(K):
            col = np.ascontiguousarray(a[:, k % N][:, None])              # the scalar operand of each group
            bk = np.roll(b, k, axis=1)
            with np.errstate(all="ignore"):
                got = fused(col, bk, out, neg_prod, neg_add, dtype)
                cand = _candidates(-col if neg_prod else col, bk, -out if neg_add else out, dtype)
            seen |= [cand.any(), (~cand).any()]
            want = reference(np.broadcast_to(-col if neg_prod else col, bk.shape).ravel(), bk.ravel(),
                             (-out if neg_add else out).ravel(), dtype).reshape(G, N)
            np.testing.assert_array_equal(got.view(UINT[dtype]), want.view(UINT[dtype]), err_msg=f"{kind} k={k}")
            out = got
        if kind in ("integers", "bf16", "ties"):
            assert seen[0], kind                  # the midpoint check ran


def test_random_operands_skip_the_midpoint_check_on_most_lanes():
    rng = np.random.default_rng(1)
    a, b, c = _operands(np.float32, "normal", rng, (64, 64))
    assert _candidates(a, b, c, np.float32).mean() < 0.01


def test_the_ties_would_round_wrongly_twice():
    a, b, c = _ties(np.float32, 9)
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    want = reference(a, b, c, np.float32)
    assert (naive.view(np.uint32) != want.view(np.uint32)).sum() >= 2      # so the tests above can fail


def test_vfmacc_vf_in_the_simulator_rounds_ties_once():
    """The instruction, run by the simulator over two programs, each with its own scalar."""
    dtype, sew = np.float32, 32
    vm = vlmax(sew, 1)
    a, b, c = _ties(dtype, vm)
    B = np.stack([b, b[::-1]])
    C = np.stack([c, c[::-1]])
    for scalar in (a[0], a[2]):
        got, _ = vrun(sew, 1, "fmv.w.x fa5, a5\n    vfmacc.vf v24, fa5, v16", np.zeros((2, vm), dtype), B, C,
                      scalar=int(np.array(scalar, np.float32).view(np.int32)))
        for p in range(2):
            want = reference(np.full(vm, scalar, dtype), B[p], C[p], dtype)
            np.testing.assert_array_equal(got[p].view(np.uint32), want.view(np.uint32))
