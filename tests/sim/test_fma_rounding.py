"""Fused multiply-adds round once (RISC-V fmadd.s/.d and vfmacc & co. at SEW 16/32/64).

The reference is exact: rationals rounded to the format with round-half-even by integer arithmetic,
independent of the simulator's method (float64 + TwoSum for the narrow formats, rationals for float64).
Crafted cases put the float64 sum exactly on a midpoint of the narrow format while the exact sum is not
(where rounding twice goes wrong), and make float64's own product inexact."""
import numpy as np
import pytest

from mtiasim.semantics.fp import fused
from tests.numerics import FMT, reference, round_exact  # noqa: F401
from tests.sim.vhelpers import FT, vlmax, vrun

def crafted(dtype):
    mant = FMT[dtype][0]
    h = (mant + 1) // 2                                     # (1 + 2^-h)^2 = 1 + 2^(1-h) + 2^-2h
    a = dtype(1 + 2.0 ** -h)
    tiny = dtype(2.0 ** (FMT[dtype][1] + 2))
    rows = [(a, a, tiny), (a, a, -tiny), (-a, a, tiny), (a, a, dtype(0)),
            (dtype(1 + 2.0 ** -mant), dtype(1 - 2.0 ** -mant), dtype(-1)),      # exact product not a double
            (dtype(np.finfo(dtype).max), dtype(1 + 2.0 ** -mant), -dtype(np.finfo(dtype).max)),
            (dtype(np.finfo(dtype).max), dtype(1), dtype(np.finfo(dtype).max) * dtype(2 ** -(mant + 1)))]
    return [np.array(col, dtype) for col in zip(*rows)]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_fused_rounds_once(dtype):
    rng = np.random.default_rng(7)
    n = 3000 if dtype != np.float64 else 800
    a = (rng.standard_normal(n) * 8).astype(dtype)
    b = (1 + rng.integers(-64, 64, n) * np.finfo(dtype).eps).astype(dtype)   # products near a's grid
    c = -(a * b).astype(dtype) * (1 + rng.integers(-4, 4, n) * np.finfo(dtype).eps).astype(dtype)
    ca, cb, cc = crafted(dtype)
    a, b, c = np.concatenate([ca, a]), np.concatenate([cb, b]), np.concatenate([cc, c])
    with np.errstate(all="ignore"):
        got = fused(a, b, c, False, False, dtype)
    want = reference(a, b, c, dtype)
    np.testing.assert_array_equal(got.view(FT_INT[dtype]), want.view(FT_INT[dtype]))


FT_INT = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}


def test_the_midpoint_case_differs_from_rounding_twice():
    a, b, c = crafted(np.float32)
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert naive[0] != reference(a, b, c, np.float32)[0]    # so test_fused_rounds_once can fail


@pytest.mark.parametrize("sew", [32, 64])
def test_vfmacc_rounds_once_in_the_simulator(sew):
    dtype = FT[sew]
    a, b, c = crafted(dtype)
    n, vm = len(a), vlmax(sew, 1)
    A, B, C = (np.concatenate([x, np.zeros(vm - n, dtype)])[None, :] for x in (a, b, c))
    got, _ = vrun(sew, 1, "vfmacc.vv v24, v8, v16", A, B, C, np.ones((1, vm), np.int64), np.array([n]))
    want = reference(a, b, c, dtype)
    np.testing.assert_array_equal(got[0, :n].view(FT_INT[dtype]), want.view(FT_INT[dtype]))


@pytest.mark.parametrize("sew", [32, 64])
@pytest.mark.parametrize("op, sign_prod, sign_add", [("vfmadd", 1, 1), ("vfnmadd", -1, -1), ("vfmsub", 1, -1),
                                                     ("vfnmsub", -1, 1)])
def test_vfmadd_and_co_overwrite_a_factor_and_round_once(sew, op, sign_prod, sign_add):
    """``vfmadd.vv vd, vs1, vs2`` is ``vd = +(vs1 * vd) + vs2``: vd a factor, vs2 the addend (vfmacc's roles of
    vd and vs2 swapped), the negated forms likewise, one rounding."""
    dtype = FT[sew]
    a, b, c = crafted(dtype)
    n, vm = len(a), vlmax(sew, 1)
    A, B, C = (np.concatenate([x, np.zeros(vm - n, dtype)])[None, :] for x in (a, c, b))   # v8 a, v16 c, v24 b
    got, _ = vrun(sew, 1, f"{op}.vv v24, v8, v16", A, B, C, np.ones((1, vm), np.int64), np.array([n]))
    want = reference(dtype(sign_prod) * a, b, dtype(sign_add) * c, dtype)
    np.testing.assert_array_equal(got[0, :n].view(FT_INT[dtype]), want.view(FT_INT[dtype]))


def test_vfmacc_vf_at_sew64_uses_the_scalar_in_every_lane():
    n, vm = 5, vlmax(64, 1)
    A = np.zeros((2, vm))
    B = np.arange(2 * vm, dtype=np.float64).reshape(2, vm) / 8
    C = np.full((2, vm), 0.25)
    got, _ = vrun(64, 1, "fmv.d.x fa5, a5\n    vfmacc.vf v24, fa5, v16", A, B, C, np.ones((2, vm), np.int64), np.array([n, n]),
                  scalar=int(np.float64(-1.5).view(np.int64)))
    np.testing.assert_array_equal(got[:, :n], -1.5 * B[:, :n] + 0.25)



def _wide_doubles(rng, n):
    """Doubles over the whole range: random significands, exponents from the subnormals to near overflow."""
    return np.ldexp(rng.uniform(0.5, 1.0, n) * rng.choice([-1, 1], n), rng.integers(-1074, 1024, n))


@pytest.mark.parametrize("neg_prod, neg_add", [(False, False), (True, False), (False, True), (True, True)])
def test_fused_double_rounds_once_over_the_whole_range(neg_prod, neg_add):
    """float64 by error-free transformations (and rationals outside their range) against the exact reference:
    products near c's negation (cancellation down to subnormal results), c tiny or huge beside the product,
    operands from the subnormals to near overflow, signed zeros, infinities."""
    rng = np.random.default_rng(11)
    n = 1500
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-40, 40, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-40, 40, n)
    near = -(a * b) * (1 + rng.integers(-3, 4, n) * 2.0 ** -52)
    scaled = (a * b) * 2.0 ** rng.integers(-120, 120, n) * rng.choice([-1, 1], n)
    c = np.where(rng.random(n) < 0.5, near, scaled)
    wa, wb, wc = _wide_doubles(rng, 300), _wide_doubles(rng, 300), _wide_doubles(rng, 300)
    edge = np.array([[0.0, -0.0, 0.0], [-0.0, 1.0, 0.0], [1.0, -0.0, -0.0], [np.inf, 1.0, 1.0],
                     [2.0 ** 1000, 2.0 ** 23, -(2.0 ** 1023)], [2.0 ** -537, 2.0 ** -537, 2.0 ** -1074],
                     [1 + 2.0 ** -26, 1 + 2.0 ** -27, -1.0], [3.0, 2.0 ** -1074, -(2.0 ** -1073)],
                     # the sum's remainder rounded to nearest would land on a midpoint: rounding to odd must not
                     [1 - 2.0 ** -27, (1 + 2.0 ** -27) * 2.0 ** -53, 1 + 2.0 ** -52]])
    a = np.concatenate([a, wa, edge[:, 0]])
    b = np.concatenate([b, wb, edge[:, 1]])
    c = np.concatenate([c, wc, edge[:, 2]])
    with np.errstate(all="ignore"):
        got = fused(a, b, c, neg_prod, neg_add, np.float64)
    want = reference(a, -b if neg_prod else b, -c if neg_add else c, np.float64)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_fused_double_takes_the_fast_path_for_ordinary_values():
    from mtiasim.semantics.fp import _fused_double
    rng = np.random.default_rng(3)
    a, b, c = rng.standard_normal((3, 1000))
    _out, exact = _fused_double(a, b, c)
    assert exact.all()
