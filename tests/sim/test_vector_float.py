"""RVV floating-point ops against numpy for SEW 16/32/64 (float16/float32/float64)."""
import numpy as np
import pytest

from tests.sim.test_fma_rounding import reference as fma_reference
from tests.sim.vhelpers import FT, ST, UT, expected, vlmax, vrun


def fdata(sew, lmul, seed, progs=3, positive=False):
    rng = np.random.default_rng(seed)
    vm = vlmax(sew, lmul)
    ft = FT[sew]
    A = (rng.standard_normal((progs, vm)) * 4).astype(ft)
    B = (rng.standard_normal((progs, vm)) * 4).astype(ft)
    if positive:
        A = np.abs(A)
    A.reshape(-1)[:6] = np.array([0.0, -0.0, 1.0, -2.0, np.inf, -np.inf])[:6].astype(ft)
    B.reshape(-1)[:6] = np.array([-0.0, 0.0, 3.0, 0.0, 1.0, 5.0]).astype(ft)
    C = (rng.standard_normal((progs, vm))).astype(ft)
    M = rng.integers(0, 2, (progs, vm))
    N = np.array([vm, max(vm - 5, 0), vm // 3][:progs], np.int64)
    return A, B, C, M, N


def fbits(x, sew):
    return np.asarray(x, FT[sew]).view(UT[sew])


def scalar_bits(value, sew):
    """a5 bits that fmv.w.x turns into the f register operand for SEW (NaN-boxed half for SEW=16)."""
    if sew == 32:
        return int(np.float32(value).view(np.uint32))
    return int(np.float16(value).view(np.uint16)) | 0xFFFF0000 - (1 << 32)


def check(got, exp):
    np.testing.assert_array_equal(np.isnan(got), np.isnan(exp))
    np.testing.assert_array_equal(got[~np.isnan(got)], exp[~np.isnan(exp)])
    np.testing.assert_array_equal(np.signbit(got[got == 0]), np.signbit(exp[exp == 0]))


OPS = {"vfadd": np.add, "vfsub": np.subtract, "vfmul": np.multiply, "vfdiv": np.divide}
CONFIGS = [(16, 2), (32, 8), (64, 4), (32, 1)]


@pytest.mark.parametrize("sew,lmul", CONFIGS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_arithmetic_vv_masked_and_tails(op, sew, lmul):
    A, B, C, M, N = fdata(sew, lmul, seed=sew + lmul)
    with np.errstate(all="ignore"):
        ref = OPS[op](A, B)
    for masked in (False, True):
        got, _ = vrun(sew, lmul, f"{op}.vv v24, v8, v16" + (", v0.t" if masked else ""), A, B, C, M, N)
        check(got, expected(C, ref, M, N, masked))


@pytest.mark.parametrize("sew,lmul", [(16, 1), (32, 4)])
@pytest.mark.parametrize("op,fn", [("vfadd", np.add), ("vfsub", np.subtract), ("vfrsub", lambda a, b: b - a),
                                   ("vfmul", np.multiply), ("vfdiv", np.divide), ("vfrdiv", lambda a, b: b / a),
                                   ("vfmin", None), ("vfmax", None)])
def test_vf_forms(op, fn, sew, lmul):
    A, B, C, M, N = fdata(sew, lmul, seed=3)
    s = FT[sew](1.5)
    got, _ = vrun(sew, lmul, f"{op}.vf v24, v8, fa5", A, B, C, M, N, scalar=scalar_bits(1.5, sew))
    with np.errstate(all="ignore"):
        ref = fn(A, s) if fn else (np.fmin(A, s) if op == "vfmin" else np.fmax(A, s))
    check(got, expected(C, ref.astype(FT[sew]), M, N, False))


def test_min_max_zero_signs_and_nan_operands():
    sew, lmul = 32, 1
    A, B, C, M, N = fdata(sew, lmul, seed=4)
    A[0, 6], B[0, 6] = np.nan, 2.0
    A[0, 7], B[0, 7] = np.nan, np.nan
    got, _ = vrun(sew, lmul, "vfmin.vv v24, v8, v16", A, B, C, M, N)
    assert np.signbit(got[0, 0]) and np.signbit(got[0, 1])        # min(+0, -0) = -0 both ways
    assert got[0, 6] == 2.0 and fbits(got[0, 7], 32) == 0x7FC00000
    got, _ = vrun(sew, lmul, "vfmax.vv v24, v8, v16", A, B, C, M, N)
    assert not np.signbit(got[0, 0]) and not np.signbit(got[0, 1])


@pytest.mark.parametrize("op", ["vfsgnj", "vfsgnjn", "vfsgnjx"])
def test_sign_injection(op):
    sew, lmul = 16, 4
    A, B, C, M, N = fdata(sew, lmul, seed=5)
    got, _ = vrun(sew, lmul, f"{op}.vv v24, v8, v16", A, B, C, M, N)
    a, b = fbits(A, sew), fbits(B, sew)
    sign, mag = np.uint16(0x8000), np.uint16(0x7FFF)
    r = {"vfsgnj": (a & mag) | (b & sign), "vfsgnjn": (a & mag) | (~b & sign), "vfsgnjx": a ^ (b & sign)}[op]
    np.testing.assert_array_equal(fbits(got, sew), fbits(expected(C, r.view(np.float16), M, N, False), sew))


@pytest.mark.parametrize("sew", [16, 32, 64])
@pytest.mark.parametrize("op,signs", [("vfmacc", (1, 1)), ("vfnmacc", (-1, -1)), ("vfmsac", (1, -1)),
                                      ("vfnmsac", (-1, 1))])
def test_fma(op, signs, sew):
    """(+-a*b) + (+-c) rounded once: the exact reference of test_fma_rounding.py."""
    lmul = 2
    A, B, C, M, N = fdata(sew, lmul, seed=6)
    sp, sc = (FT[sew](s) for s in signs)

    def ref(a, b):
        a = np.broadcast_to(a, C.shape)
        return fma_reference((sp * a).ravel(), b.ravel(), (sc * C).ravel(), FT[sew]).reshape(C.shape)
    got, _ = vrun(sew, lmul, f"{op}.vv v24, v8, v16, v0.t", A, B, C, M, N)
    check(got, expected(C, ref(A, B), M, N, True))
    if sew != 64:
        got, _ = vrun(sew, lmul, f"{op}.vf v24, fa5, v16", A, B, C, M, N, scalar=scalar_bits(-0.75, sew))
        check(got, expected(C, ref(FT[sew](-0.75), B), M, N, False))


FCMP = {"vmfeq": np.equal, "vmfne": np.not_equal, "vmflt": np.less, "vmfle": np.less_equal}


@pytest.mark.parametrize("sew", [16, 32, 64])
@pytest.mark.parametrize("op", sorted(FCMP) + ["vmfgt", "vmfge"])
def test_float_compares(op, sew):
    lmul = 1
    A, B, C, M, N = fdata(sew, lmul, seed=7)
    A[1, 3] = np.nan
    B.reshape(-1)[::4] = A.reshape(-1)[::4]
    if op in FCMP:
        body, ref = f"{op}.vv v0, v8, v16\n    vmerge.vvm v24, v16, v8, v0", FCMP[op](A, B)
    else:
        if sew == 64:
            return
        body = f"{op}.vf v0, v8, fa5\n    vmerge.vvm v24, v16, v8, v0"
        ref = (np.greater if op == "vmfgt" else np.greater_equal)(A, FT[sew](0.5))
    got, _ = vrun(sew, lmul, body, A, B, C, M, N, scalar=scalar_bits(0.5, sew) if sew != 64 else 0)
    check(got, expected(C, np.where(ref, A, B), M, N, False))


def test_vfmerge_and_vfmv():
    sew, lmul = 32, 2
    A, B, C, M, N = fdata(sew, lmul, seed=8)
    got, _ = vrun(sew, lmul, "vfmerge.vfm v24, v8, fa5, v0", A, B, C, M, N, scalar=scalar_bits(9.5, 32))
    check(got, expected(C, np.where(M != 0, np.float32(9.5), A), M, N, False))
    got, _ = vrun(sew, lmul, "vfmv.v.f v24, fa5", A, B, C, M, N, scalar=scalar_bits(-2.25, 32))
    check(got, expected(C, np.float32(-2.25), M, N, False))
    got, _ = vrun(sew, lmul, "vfmv.f.s fa4, v8\n    vfmv.s.f v24, fa4", A, B, C, M, N)
    exp = C.copy()
    exp[:, 0] = A[:, 0]
    check(got, exp)


@pytest.mark.parametrize("sew", [16, 32, 64])
def test_sqrt_and_conversions(sew):
    lmul = 1
    A, B, C, M, N = fdata(sew, lmul, seed=9, positive=True)
    got, _ = vrun(sew, lmul, "vfsqrt.v v24, v8", A, B, C, M, N)
    with np.errstate(all="ignore"):
        ref = np.sqrt(A)
    check(got, expected(C, ref, M, N, False))
    st, ut, ft = ST[sew], UT[sew], FT[sew]
    X = (np.random.default_rng(1).standard_normal(A.shape) * 1000).astype(ft)
    X.reshape(-1)[:5] = np.array([0.5, 1.5, -2.5, 1e300 if sew == 64 else 6e4, np.nan]).astype(ft)
    ints = C.view(st).copy()
    lo, hi = np.iinfo(st).min, np.iinfo(st).max
    with np.errstate(all="ignore"):
        def sat(r, lo, hi):
            r = r.astype(np.float64)
            return np.where(np.isnan(r), hi, np.clip(np.nan_to_num(r), lo, hi))
        cases = {
            "vfcvt.x.f.v": sat(np.rint(X), lo, hi).astype(np.float64),
            "vfcvt.rtz.x.f.v": sat(np.trunc(X), lo, hi).astype(np.float64),
            "vfcvt.rtz.xu.f.v": sat(np.trunc(X), 0, np.iinfo(ut).max).astype(np.float64),
        }
    for op, ref in cases.items():
        unsigned = "xu" in op
        got, _ = vrun(sew, lmul, f"{op} v24, v8", X, B, ints.view(ft), M, N)
        ref_int = np.array([int(v) for v in ref.reshape(-1)], dtype=object).reshape(ref.shape)
        if sew == 64:  # float64 cannot hold every int64 exactly: compare in Python ints, saturated at the ends
            ref_int = np.where(ref >= 2.0 ** 63 if not unsigned else ref >= 2.0 ** 64,
                               (1 << 63) - 1 if not unsigned else (1 << 64) - 1, ref_int)
        want = np.array([int(v) & ((1 << sew) - 1) for v in ref_int.reshape(-1)], dtype=np.uint64).astype(ut)
        exp = expected(ints.view(ut), want.reshape(ref.shape), M, N, False)
        np.testing.assert_array_equal(got.view(ut), exp, err_msg=op)
    I = np.random.default_rng(2).integers(-1000, 1000, A.shape).astype(st)
    got, _ = vrun(sew, lmul, "vfcvt.f.x.v v24, v8", I.view(ft), B, C, M, N)
    check(got, expected(C, I.astype(ft), M, N, False))
    got, _ = vrun(sew, lmul, "vfcvt.f.xu.v v24, v8", I.view(ft), B, C, M, N)
    with np.errstate(all="ignore"):
        ref = I.view(ut).astype(ft)
    check(got, expected(C, ref, M, N, False))


@pytest.mark.parametrize("sew,lmul", [(16, 2), (32, 8), (64, 1)])
def test_float_reductions(sew, lmul):
    A, B, C, M, N = fdata(sew, lmul, seed=10)
    A.reshape(-1)[:6] = 1.0  # no infinities: sums stay finite
    ft = FT[sew]
    got, _ = vrun(sew, lmul, "vfredosum.vs v24, v8, v16, v0.t", A, B, C, M, N)
    exp = C.copy()
    for p in range(C.shape[0]):
        act = (np.arange(C.shape[1]) < N[p]) & (M[p] != 0)
        acc = B[p, 0]
        for v in A[p][act]:
            acc = ft(acc + v)
        if N[p]:
            exp[p, 0] = acc
    check(got, exp)
    got, _ = vrun(sew, lmul, "vfredusum.vs v24, v8, v16", A, B, C, M, N)
    for p in range(C.shape[0]):
        x = A[p, :N[p]].astype(np.float64)
        tol = 1e-2 if sew == 16 else 1e-5
        assert abs(float(got[p, 0]) - (float(B[p, 0]) + x.sum())) <= tol * (1 + np.abs(x).sum())
    for op, fn in (("vfredmax", np.max), ("vfredmin", np.min)):
        got, _ = vrun(sew, lmul, f"{op}.vs v24, v8, v16", A, B, C, M, N)
        exp = C.copy()
        for p in range(C.shape[0]):
            exp[p, 0] = fn(np.concatenate([[B[p, 0]], A[p, :N[p]]]))
        check(got, exp)
