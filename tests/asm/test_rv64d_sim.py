"""RV64D on mtiasim against numpy float64, one program per operand pair; NaN-boxing of singles."""
import numpy as np
import pytest

from tests.sim.helpers import run_asm, run_per_element

SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, 3.25, np.inf, -np.inf, np.nan, 5e-324, 1.7e308, 2.5, -2.5, 0.1, 1e300,
                    2.0 ** 63, -(2.0 ** 63), 4e9, -3e9, 1e-310], np.float64)
CANON = np.int64(0x7FF8000000000000)


def operands(seed, n=48):
    rng = np.random.default_rng(seed)
    a = np.concatenate([np.repeat(SPECIAL, len(SPECIAL)), rng.standard_normal(n) * 1e3])
    b = np.concatenate([np.tile(SPECIAL, len(SPECIAL)), rng.standard_normal(n) * 7])
    return a, b


def run_body(body, a, b):
    return run_per_element(body, ["fld fa0, 1024(zero)", "fld fa1, 1032(zero)", "ld a0, 1024(zero)", "li a2, 0"],
                           a, b).outputs["C"]


def bits(x):
    x = np.asarray(x, np.float64)
    return np.where(np.isnan(x), CANON, x.view(np.int64))


@pytest.mark.parametrize("op,fn", [("fadd.d", np.add), ("fsub.d", np.subtract), ("fmul.d", np.multiply),
                                   ("fdiv.d", np.divide), ("fmin.d", None), ("fmax.d", None)])
def test_arithmetic_bit_exact(op, fn):
    a, b = operands(1)
    got = run_body(f"{op} fa2, fa0, fa1\n    fmv.x.d a2, fa2", a, b)
    with np.errstate(all="ignore"):
        if fn is None:
            is_max = op == "fmax.d"
            exp = np.fmax(a, b) if is_max else np.fmin(a, b)
            z = (a == 0) & (b == 0)
            neg = (np.signbit(a) & np.signbit(b)) if is_max else (np.signbit(a) | np.signbit(b))
            exp = np.where(z, np.where(neg, -0.0, 0.0), exp)
        else:
            exp = fn(a, b)
    np.testing.assert_array_equal(got, bits(exp))


def test_sqrt_sign_injection_and_compares():
    a, b = operands(2)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(run_body("fsqrt.d fa2, fa0\n    fmv.x.d a2, fa2", a, b), bits(np.sqrt(a)))
    ab, bb = a.view(np.uint64), b.view(np.uint64)
    sign = np.uint64(1 << 63)
    got = run_body("fsgnjn.d fa2, fa0, fa1\n    fmv.x.d a2, fa2", a, b)
    np.testing.assert_array_equal(got.view(np.uint64), (ab & ~sign) | (~bb & sign))
    got = run_body("fabs.d fa2, fa0\n    fmv.x.d a2, fa2", a, b)
    np.testing.assert_array_equal(got.view(np.uint64), ab & ~sign)
    for op, fn in [("feq.d", np.equal), ("flt.d", np.less), ("fle.d", np.less_equal)]:
        np.testing.assert_array_equal(run_body(f"{op} a2, fa0, fa1", a, b), fn(a, b).astype(np.int64))


def test_fused_multiply_add_rounds_once():
    a, b = operands(3)
    # c = -(a*b rounded): a*b + c is then the rounding error of the product, which only a fused op sees
    got = run_body("fmul.d fa3, fa0, fa1\n    fneg.d fa3, fa3\n    fmadd.d fa2, fa0, fa1, fa3\n"
                   "    fmv.x.d a2, fa2", a, b)
    from fractions import Fraction
    with np.errstate(all="ignore"):
        p = a * b
    exp = []
    for x, y, q in zip(a, b, p):
        if np.isfinite(x) and np.isfinite(y) and np.isfinite(q):
            exp.append(float(Fraction(x) * Fraction(y) - Fraction(q)))
        else:
            with np.errstate(all="ignore"):
                exp.append(x * y - q)
    exp = np.array(exp)
    ok = np.isfinite(exp)
    assert (exp[ok] != 0).sum() > 20   # the error term is visible: the test can tell fused from unfused
    np.testing.assert_array_equal(got[ok], bits(exp[ok]))


@pytest.mark.parametrize("op,signed,width,rm,fn", [
    ("fcvt.l.d", True, 64, "rtz", np.trunc), ("fcvt.w.d", True, 32, "rdn", np.floor),
    ("fcvt.wu.d", False, 32, "rup", np.ceil), ("fcvt.lu.d", False, 64, "rne", np.rint)])
def test_float_to_int_saturates(op, signed, width, rm, fn):
    a, b = operands(4)
    got = run_body(f"{op} a2, fa0, {rm}", a, b)
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    exp = []
    for x in a:
        if np.isnan(x):
            v = hi
        else:
            r = float(fn(x))   # Python compares floats with ints exactly
            v = lo if r < lo else hi if r > hi else int(r)
        if width == 32:   # sign-extended into the 64-bit register
            v = (v & 0xFFFFFFFF) - ((v & 0x80000000) << 1)
        v &= (1 << 64) - 1
        exp.append(v - (1 << 64) if v >> 63 else v)
    np.testing.assert_array_equal(got, np.array(exp, np.int64))


def test_int_to_double_and_single_double_round_trip():
    a, b = operands(5)
    x = a.view(np.int64)   # every 64-bit pattern as an integer operand
    np.testing.assert_array_equal(run_body("fcvt.d.l fa2, a0\n    fmv.x.d a2, fa2", a, b), bits(x.astype(np.float64)))
    np.testing.assert_array_equal(run_body("fcvt.d.lu fa2, a0\n    fmv.x.d a2, fa2", a, b),
                                  bits(x.view(np.uint64).astype(np.float64)))
    np.testing.assert_array_equal(run_body("fcvt.d.w fa2, a0\n    fmv.x.d a2, fa2", a, b),
                                  bits(x.astype(np.int32).astype(np.float64)))
    # double -> single (boxed: fmv.x.d shows the ones above it) -> double
    with np.errstate(all="ignore"):
        s = a.astype(np.float32)
    got = run_body("fcvt.s.d fa2, fa0\n    fmv.x.d a2, fa2", a, b)
    sb = np.where(np.isnan(s), np.uint32(0x7FC00000), s.view(np.uint32)).astype(np.uint64)
    np.testing.assert_array_equal(got.view(np.uint64), sb | np.uint64(0xFFFFFFFF00000000))
    got = run_body("fcvt.s.d fa2, fa0\n    fcvt.d.s fa3, fa2\n    fmv.x.d a2, fa3", a, b)
    np.testing.assert_array_equal(got, bits(s.astype(np.float64)))


def test_single_ops_on_an_unboxed_register_see_the_canonical_nan():
    a, b = operands(6)
    got = run_body("fadd.s fa2, fa0, fa0\n    fmv.x.w a2, fa2", a, b)   # fa0 holds a double: not boxed
    np.testing.assert_array_equal(got, np.full(len(a), 0x7FC00000, np.int64))
    got = run_body("fmv.w.x fa2, a0\n    fmv.x.d a2, fa2", a, b)           # fmv.w.x boxes
    np.testing.assert_array_equal(got.view(np.uint64) >> np.uint64(32), np.full(len(a), 0xFFFFFFFF, np.uint64))


def test_fmv_moves_all_64_bits_nan_payloads_too():
    a = np.array([0x7FF0000000000001, 0xFFF8000000012345, 1, 0x8000000000000000, 0x3FF0000000000000,
                  0xFFFFFFFF7FC00001], np.uint64).view(np.float64)
    got = run_body("fmv.d.x fa2, a0\n    fmv.x.d a2, fa2", a, a)
    np.testing.assert_array_equal(got, a.view(np.int64))
    got = run_body("fmv.d.x fa2, a0\n    fmv.x.w a2, fa2", a, a)   # the low half, sign-extended
    np.testing.assert_array_equal(got, a.view(np.int64).astype(np.int32).astype(np.int64))


def test_fclass():
    a, b = operands(7)
    got = run_body("fclass.d a2, fa0", a, b)
    exp = []
    for x in a:
        if np.isnan(x):
            c = 9
        elif np.isinf(x):
            c = 0 if x < 0 else 7
        elif x == 0:
            c = 3 if np.signbit(x) else 4
        elif abs(x) < 2.2250738585072014e-308:
            c = 2 if x < 0 else 5
        else:
            c = 1 if x < 0 else 6
        exp.append(1 << c)
    np.testing.assert_array_equal(got, np.array(exp, np.int64))


def test_fsd_and_timing_classes():
    a, b = operands(8, n=0)
    got = run_body("fmul.d fa2, fa0, fa1\n    fsd fa2, 1040(zero)\n    ld a2, 1040(zero)", a, b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got, bits(a * b))
    from mtiacc.asm.isa import BY_NAME
    assert BY_NAME["fdiv.d"].timing == "DDiv" and BY_NAME["fadd.d"].timing == "DPU"


def _vector_busy(sew: int, op: str) -> float:
    asm = f"""
kernel:
    li t0, 64
    vsetvli t1, t0, e{sew}, m8, ta, ma
    {op} v8, v16, v24
    {op} v8, v16, v24
    ret
"""
    return float(run_asm(asm).stats.pe_vector_busy.max())


def test_fp64_vector_arithmetic_runs_at_a_quarter_of_fp32s_rate():
    # 64 elements on the 256-bit datapath: fp32 2 x 8 cycles; fp64 twice the bits and fp64_slowdown = 2
    assert _vector_busy(32, "vfadd.vv") == 16
    assert _vector_busy(64, "vfadd.vv") == 64
    assert _vector_busy(64, "vfmul.vv") == 64
    assert _vector_busy(64, "vadd.vv") == 32      # integer ops at SEW=64 only pay for their width
