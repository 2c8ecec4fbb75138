"""Scalar RV64F semantics against numpy float32, one program per operand pair."""
import numpy as np
import pytest

from tests.sim.helpers import run_per_element

SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, 3.25, np.inf, -np.inf, np.nan, 1e-45, 3.4e38, 2.5, -2.5, 0.5, 7.0],
                   np.float32)


def operands(seed=0, n=64):
    rng = np.random.default_rng(seed)
    a = np.concatenate([np.repeat(SPECIAL, len(SPECIAL)), (rng.standard_normal(n) * 100).astype(np.float32)])
    b = np.concatenate([np.tile(SPECIAL, len(SPECIAL)), (rng.standard_normal(n) * 10).astype(np.float32)])
    return a.astype(np.float32), b.astype(np.float32)


def run_body(body, a, b):
    loads = ["flw fa0, 1024(zero)", "flw fa1, 1032(zero)", "lw a0, 1024(zero)", "lw a1, 1032(zero)", "li a2, 0"]
    return run_per_element(body, loads, a, b).outputs["C"]


def f32_result(out):
    return (out & 0xFFFFFFFF).astype(np.uint32).view(np.float32)


CANON = 0x7FC00000


def bits(x):
    return np.asarray(x, np.float32).view(np.uint32)


@pytest.mark.parametrize("op,fn", [("fadd.s", np.add), ("fsub.s", np.subtract), ("fmul.s", np.multiply),
                                   ("fdiv.s", np.divide)])
def test_arithmetic_bit_exact_with_canonical_nan(op, fn):
    a, b = operands(1)
    got = run_body(f"{op} fa2, fa0, fa1\n    fmv.x.w a2, fa2", a, b)
    with np.errstate(all="ignore"):
        exp = fn(a, b)
    exp_bits = np.where(np.isnan(exp), CANON, bits(exp))
    np.testing.assert_array_equal(got & 0xFFFFFFFF, exp_bits.astype(np.int64))
    # fmv.x.w sign-extends
    assert np.all((got < 0) == ((exp_bits >> 31) == 1))


def test_sqrt_min_max_sign_injection():
    a, b = operands(2)
    with np.errstate(all="ignore"):
        got = run_body("fsqrt.s fa2, fa0\n    fmv.x.w a2, fa2", a, b)
        exp = np.sqrt(a)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, np.where(np.isnan(exp), CANON, bits(exp)))
    got = run_body("fmin.s fa2, fa0, fa1\n    fmv.x.w a2, fa2", a, b)
    exp = np.fmin(a, b)
    exp = np.where((a == 0) & (b == 0), np.where(np.signbit(a) | np.signbit(b), -0.0, 0.0), exp).astype(np.float32)
    exp_bits = np.where(np.isnan(a) & np.isnan(b), CANON, bits(exp))
    np.testing.assert_array_equal(got & 0xFFFFFFFF, exp_bits)
    got = run_body("fmax.s fa2, fa0, fa1\n    fmv.x.w a2, fa2", a, b)
    exp = np.fmax(a, b)
    exp = np.where((a == 0) & (b == 0), np.where(np.signbit(a) & np.signbit(b), -0.0, 0.0), exp).astype(np.float32)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, np.where(np.isnan(a) & np.isnan(b), CANON, bits(exp)))
    got = run_body("fsgnjn.s fa2, fa0, fa1\n    fmv.x.w a2, fa2", a, b)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, (bits(a) & 0x7FFFFFFF) | (~bits(b) & 0x80000000))
    got = run_body("fsgnjx.s fa2, fa0, fa1\n    fmv.x.w a2, fa2", a, b)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, bits(a) ^ (bits(b) & 0x80000000))


@pytest.mark.parametrize("op,fn", [("feq.s", np.equal), ("flt.s", np.less), ("fle.s", np.less_equal)])
def test_compares(op, fn):
    a, b = operands(3)
    got = run_body(f"{op} a2, fa0, fa1", a, b)
    np.testing.assert_array_equal(got, fn(a, b).astype(np.int64))


@pytest.mark.parametrize("op,fn", [("fmadd.s", lambda a, b, c: a * b + c), ("fmsub.s", lambda a, b, c: a * b - c),
                                   ("fnmsub.s", lambda a, b, c: -(a * b) + c),
                                   ("fnmadd.s", lambda a, b, c: -(a * b) - c)])
def test_fused_multiply_add(op, fn):
    a, b = operands(4)
    got = run_body(f"fadd.s fa3, fa0, fa1\n    {op} fa2, fa0, fa1, fa3\n    fmv.x.w a2, fa2", a, b)
    with np.errstate(all="ignore"):
        c = (a + b).astype(np.float32)
        exp = fn(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, np.where(np.isnan(exp), CANON, bits(exp)))


@pytest.mark.parametrize("rm,fn", [("rne", np.rint), ("rtz", np.trunc), ("rdn", np.floor), ("rup", np.ceil),
                                   ("rmm", lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x)), ("", np.rint)])
def test_float_to_int_rounding_and_saturation(rm, fn):
    a, b = operands(5)
    suffix = f", {rm}" if rm else ""
    got = run_body(f"fcvt.w.s a2, fa0{suffix}", a, b)
    r = fn(a.astype(np.float64))
    exp = np.where(np.isnan(r), 2 ** 31 - 1, np.clip(np.nan_to_num(r, posinf=2 ** 40, neginf=-2 ** 40),
                                                       -2 ** 31, 2 ** 31 - 1)).astype(np.int64)
    np.testing.assert_array_equal(got, exp)
    got = run_body(f"fcvt.lu.s a2, fa0{suffix}", a, b)
    exp = [2 ** 64 - 1 if np.isnan(v) or v >= 2.0 ** 64 else 0 if v < 0 else int(v) for v in r]
    assert [int(v) for v in got.view(np.uint64)] == exp


def test_wu_saturates_and_sign_extends():
    a = np.array([-1.0, 0.0, 4294967295.0, 5e9, 3e9, np.nan], np.float32)
    got = run_body("fcvt.wu.s a2, fa0, rtz", a, a)
    exp = [0, 0, -1, -1, np.int32(np.uint32(3000000000).view(np.int32)), -1]
    assert [int(v) for v in got] == [int(e) for e in exp]


def test_int_to_float_conversions():
    a = np.array([1, -1, 16777217, -16777217, 2 ** 31 - 1, -2 ** 31, 123456789], np.int32).view(np.float32)
    got = run_body("fcvt.s.w fa2, a0\n    fmv.x.w a2, fa2", a, a)
    ints = a.view(np.int32)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, bits(ints.astype(np.float32)))
    got = run_body("fcvt.s.w fa2, a0, rtz\n    fmv.x.w a2, fa2", a, a)
    exp = np.array([np.float32(v) if abs(int(np.float32(v))) <= abs(int(v)) else
                    np.nextafter(np.float32(v), np.float32(0)) for v in ints], np.float32)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, bits(exp))
    got = run_body("fcvt.s.wu fa2, a0\n    fmv.x.w a2, fa2", a, a)
    np.testing.assert_array_equal(got & 0xFFFFFFFF, bits(ints.view(np.uint32).astype(np.float32)))


def test_fmv_round_trips_nan_payloads():
    a = np.array([0x7F800001, 0xFFC12345, 0x00000001, 0x80000000], np.uint32).view(np.float32)
    got = run_body("fmv.w.x fa2, a0\n    fsw fa2, 1048(zero)\n    lwu a2, 1048(zero)", a, a)
    np.testing.assert_array_equal(got, a.view(np.uint32).astype(np.int64))
