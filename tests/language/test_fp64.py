"""float64: differential tests against numpy (exact for + - * / sqrt, casts, floor/ceil, min/max, reductions
of exactly summable data) on scalars and blocks, an Inductor-style tril_indices kernel, and the errors for
fp64 math that would need a double-precision library."""
import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from tests.language.dtypes import f32_to_bf16
from tests.language.harness import build, launch
from tests.numerics import fma

N = 100
BLOCK = (("BLOCK", "128"),)
RNG = np.random.default_rng(64)
X = np.concatenate([RNG.uniform(-1e3, 1e3, N - 12), [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.0 ** 60, -3e300, 1e-310,
                                                       np.inf, -np.inf, 1 + 2.0 ** -11 + 2.0 ** -40]])
Y = np.concatenate([RNG.uniform(-50, 50, N - 12), [3.0, -0.0, 0.0, 7.0, np.nan, 1e-300, 3.0, 2.0, -1e308,
                                                  np.inf, 1.0, 3.0]])


def _eq(got, want):
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))


def _nan_eq(got, want):
    """Equal values, NaN where numpy has NaN (RISC-V's canonical NaN differs from numpy's in sign)."""
    got, want = np.asarray(got), np.asarray(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    _eq(got[ok], want[ok])


ARITH = """
@triton.jit
def k(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=1.0)
    y = tl.load(Y + offs, mask=m, other=1.0)
    tl.store(Z + offs, x + y, mask=m)
    tl.store(Z + n + offs, x - y, mask=m)
    tl.store(Z + 2 * n + offs, x * y, mask=m)
    tl.store(Z + 3 * n + offs, x / y, mask=m)
    tl.store(Z + 4 * n + offs, tl.sqrt(tl.abs(x)), mask=m)
    tl.store(Z + 5 * n + offs, tl.where(x < y, x, -y), mask=m)
    tl.store(Z + 6 * n + offs, tl.minimum(x, y), mask=m)
    tl.store(Z + 7 * n + offs, tl.maximum(x, y) * 0.1, mask=m)
    tl.store(Z + 8 * n + offs, libdevice.floor(x), mask=m)
    tl.store(Z + 9 * n + offs, libdevice.ceil(x), mask=m)
    tl.store(Z + 10 * n + offs, libdevice.sqrt_rn(x * x), mask=m)
"""


def _arith_expected(x, y):
    with np.errstate(all="ignore"):
        return [x + y, x - y, x * y, x / y, np.sqrt(np.abs(x)), np.where(x < y, x, -y),
                np.where(np.isnan(y), x, np.minimum(x, y)), np.where(np.isnan(y), x, np.maximum(x, y)) * 0.1,
                np.floor(x), np.ceil(x), np.sqrt(x * x)]


def test_block_arithmetic_is_exact():
    out = launch(ARITH, "*fp64,*fp64,*fp64,i32", {"X": X, "Y": Y, "Z": np.zeros(11 * N), "n": np.array(N, np.int32)},
                 defines=BLOCK).outputs["Z"].reshape(11, N)
    for i, want in enumerate(_arith_expected(X, Y)):
        _nan_eq(out[i], want)


SCALAR = """
@triton.jit
def k(X, Y, Z, I, s):
    i = tl.program_id(0)
    x = tl.load(X + i)
    y = tl.load(Y + i)
    tl.store(Z + i * 12, x + y)
    tl.store(Z + i * 12 + 1, x - y)
    tl.store(Z + i * 12 + 2, x * y)
    tl.store(Z + i * 12 + 3, x / y)
    tl.store(Z + i * 12 + 4, tl.sqrt(tl.abs(x)))
    tl.store(Z + i * 12 + 5, tl.where(x < y, x, -y))
    tl.store(Z + i * 12 + 6, tl.minimum(x, y))
    tl.store(Z + i * 12 + 7, tl.maximum(x, y) * 0.1)
    tl.store(Z + i * 12 + 8, libdevice.floor(x))
    tl.store(Z + i * 12 + 9, libdevice.ceil(x))
    tl.store(Z + i * 12 + 10, libdevice.sqrt_rn(x * x))
    tl.store(Z + i * 12 + 11, x * s + 1)
    tl.store(I + i * 4, (x >= y).to(tl.int32) + (x == y).to(tl.int32) * 2 + (x != y).to(tl.int32) * 4)
    tl.store(I + i * 4 + 1, x.to(tl.int64, bitcast=True))
"""


def test_scalar_arithmetic_is_exact():
    s = np.float64(1.0 / 3.0)
    r = launch(SCALAR, "*fp64,*fp64,*fp64,*i64,fp64", {"X": X, "Y": Y, "Z": np.zeros(12 * N),
                                                       "I": np.zeros(4 * N, np.int64), "s": np.array(s)},
               grid=(N,)).outputs
    out = r["Z"].reshape(N, 12).T
    for i, want in enumerate(_arith_expected(X, Y)):
        _nan_eq(out[i], want)
    with np.errstate(all="ignore"):
        _nan_eq(out[11], fma(X, s, 1.0, np.float64))   # contract-fma: one rounding
    ints = r["I"].reshape(N, 4).T
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ints[0], (X >= Y) + 2 * (X == Y) + 4 * (X != Y))
    np.testing.assert_array_equal(ints[1], X.view(np.int64))


CASTS = """
@triton.jit
def k(X, F32, F16, BF, I8, I32, I64, U32, U64, BACK, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(F32 + offs, x.to(tl.float32), mask=m)
    tl.store(F16 + offs, x.to(tl.float16), mask=m)
    tl.store(BF + offs, x.to(tl.bfloat16), mask=m)
    tl.store(I8 + offs, x.to(tl.int8), mask=m)
    tl.store(I32 + offs, x.to(tl.int32), mask=m)
    tl.store(I64 + offs, x.to(tl.int64), mask=m)
    tl.store(U32 + offs, x.to(tl.uint32), mask=m)
    tl.store(U64 + offs, x.to(tl.uint64), mask=m)
    a = tl.load(F32 + offs, mask=m).to(tl.float64) + tl.load(F16 + offs, mask=m).to(tl.float64)
    b = tl.load(BF + offs, mask=m).to(tl.float64) + tl.load(I8 + offs, mask=m).to(tl.float64)
    c = tl.load(I64 + offs, mask=m).to(tl.float64) + tl.load(U64 + offs, mask=m).to(tl.float64)
    d = tl.load(I32 + offs, mask=m).to(tl.float64) + tl.load(U32 + offs, mask=m).to(tl.float64)
    tl.store(BACK + offs, a, mask=m)
    tl.store(BACK + n + offs, b, mask=m)
    tl.store(BACK + 2 * n + offs, c, mask=m)
    tl.store(BACK + 3 * n + offs, d, mask=m)
"""

SCALAR_CASTS = CASTS.replace("offs = tl.arange(0, BLOCK)", "offs = tl.program_id(0)")   # one element a program


def _cast_inputs(x):
    n = len(x)
    z = {"F32": np.float32, "F16": np.float16, "BF": np.uint16, "I8": np.int8, "I32": np.int32, "I64": np.int64,
         "U32": np.uint32, "U64": np.uint64}
    d = {k: np.zeros(n, t) for k, t in z.items()}
    return {"X": x, **d, "BACK": np.zeros(4 * n), "n": np.array(n, np.int32)}


def _f64_to_bf16(x):
    """Round f64 to bf16 once (nearest even), NaN -> 0x7fc0: truncate to f32, mark inexact results in the last
    bit (round to odd), then round that f32 to bf16 -- f32 keeps more than two extra bits, so this is exact."""
    with np.errstate(all="ignore"):
        r = x.astype(np.float32)
        back = r.astype(np.float64)
    r = np.where(np.abs(back) > np.abs(x), np.nextafter(r, np.float32(0)), r).astype(np.float32)
    bits = r.view(np.uint32) | (back != x).astype(np.uint32)
    return f32_to_bf16(np.where(np.isnan(x), np.float32(np.nan), bits.view(np.float32)))


@pytest.mark.parametrize("scalar", [False, True], ids=["block", "scalar"])
def test_casts_to_and_from_every_type(scalar):
    # in range of every destination (Triton leaves out-of-range float -> int undefined)
    x = np.concatenate([RNG.uniform(0, 127, 40), [0.0, -0.0, 0.5, 1.5, 2.5, 126.99, 1 + 2.0 ** -11 + 2.0 ** -40,
                                                  1 + 2.0 ** -8 + 2.0 ** -40, 65519.99, 1e-8, 100.25, 3.0]])
    src = SCALAR_CASTS if scalar else CASTS
    sig = "*fp64,*fp32,*fp16,*bf16,*i8,*i32,*i64,*u32,*u64,*fp64,i32"
    r = launch(src, sig, _cast_inputs(x), grid=(len(x),) if scalar else (1,),
               defines=(("BLOCK", "64"),)).outputs
    _eq(r["F32"], x.astype(np.float32))
    _eq(r["F16"], x.astype(np.float16))          # numpy rounds f64 -> f16 once
    _eq(r["BF"], _f64_to_bf16(x))
    for k, t in [("I8", np.int8), ("I32", np.int32), ("I64", np.int64), ("U32", np.uint32), ("U64", np.uint64)]:
        _eq(r[k], x.astype(t))
    back = r["BACK"].reshape(4, len(x))
    from tests.language.dtypes import bf16_to_f32
    _eq(back[0], x.astype(np.float32).astype(np.float64) + x.astype(np.float16).astype(np.float64))
    _eq(back[1], bf16_to_f32(_f64_to_bf16(x)).astype(np.float64) + x.astype(np.int8).astype(np.float64))
    _eq(back[2], x.astype(np.int64).astype(np.float64) + x.astype(np.uint64).astype(np.float64))
    _eq(back[3], x.astype(np.int32).astype(np.float64) + x.astype(np.uint32).astype(np.float64))


def test_big_integers_round_once_to_double():
    src = """
@triton.jit
def k(A, B, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Z + offs, tl.load(A + offs, mask=m).to(tl.float64), mask=m)
    tl.store(Z + n + offs, tl.load(B + offs, mask=m).to(tl.float64), mask=m)
"""
    a = RNG.integers(-2 ** 63, 2 ** 63 - 1, 64, dtype=np.int64)
    b = RNG.integers(0, 2 ** 64 - 1, 64, dtype=np.uint64)
    z = launch(src, "*i64,*u64,*fp64,i32", {"A": a, "B": b, "Z": np.zeros(128), "n": np.array(64, np.int32)},
               defines=(("BLOCK", "64"),)).outputs["Z"]
    _eq(z[:64], a.astype(np.float64))
    _eq(z[64:], b.astype(np.float64))


REDUCE = """
@triton.jit
def k(X, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Z, tl.sum(x, axis=0))
    tl.store(Z + 1, tl.max(x, axis=0))
    tl.store(Z + 2, tl.min(x, axis=0))
"""


def test_reductions():
    # multiples of 2**-20 below 2**30: every partial sum is exact in f64, so any order gives numpy's sum
    x = np.round(RNG.uniform(-2 ** 20, 2 ** 20, 256) * 2 ** 20) / 2 ** 20
    x[7] = 2.0 ** 29 + 2.0 ** -20     # not representable in f32: an f32 path would lose it
    z = launch(REDUCE, "*fp64,*fp64", {"X": x, "Z": np.zeros(3)}, defines=(("BLOCK", "256"),)).outputs["Z"]
    _eq(z, np.array([x.sum(), x.max(), x.min()]))


TRIL = """
@triton.jit
def triton_poi_fused_tril_indices_0(out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = x0.to(tl.int64)
    tmp1 = tmp0.to(tl.float64)
    tmp2 = tl.full([1], 2.0, tl.float64)
    tmp3 = tmp1 * tmp2
    tmp4 = tl.full([1], 0.25, tl.float64)
    tmp5 = tmp3 + tmp4
    tmp6 = libdevice.sqrt(tmp5)
    tmp7 = tl.full([1], 0.5, tl.float64)
    tmp8 = tmp6 - tmp7
    tmp9 = libdevice.floor(tmp8)
    tmp10 = tmp9.to(tl.int64)
    tmp11 = tl.full([1], 1, tl.int64)
    tmp12 = tmp10 + tmp11
    tmp13 = tmp10 * tmp12
    tmp14 = tl.full([1], 2, tl.int64)
    tmp15 = tmp13 // tmp14
    tmp16 = tmp0 - tmp15
    tl.store(out_ptr0 + (x0), tmp10, xmask)
    tl.store(out_ptr0 + (xnumel + x0), tmp16, xmask)
"""


@pytest.mark.parametrize("rows", [10, 300])
def test_inductor_tril_indices(rows):
    n = rows * (rows + 1) // 2
    out = launch(TRIL, "*i64,i32", {"out_ptr0": np.zeros(2 * n, np.int64), "xnumel": np.array(n, np.int32)},
                 grid=(-(-n // 1024),), defines=(("XBLOCK", "1024"),)).outputs["out_ptr0"]
    r, c = np.tril_indices(rows)
    np.testing.assert_array_equal(out[:n], r)
    np.testing.assert_array_equal(out[n:], c)


def test_promotion_follows_triton():
    src = """
@triton.jit
def k(X, I, H, Z):
    x = tl.load(X)
    i = tl.load(I)
    h = tl.load(H)
    tl.store(Z, i * x)              # int64 * fp64 -> fp64
    tl.store(Z + 1, h + x)          # fp32 + fp64 -> fp64
    tl.store(Z + 2, x * 0.1)        # the literal is weak: fp64 multiply by 0.1 as a double
    tl.store(Z + 3, h * 0.1)        # and stays fp32 with fp32
"""
    x, i, h = np.float64(1.0 / 3.0), np.int64(2 ** 53 + 1), np.float32(0.1)
    z = launch(src, "*fp64,*i64,*fp32,*fp64", {"X": np.array([x]), "I": np.array([i]), "H": np.array([h]),
                                               "Z": np.zeros(4)}).outputs["Z"]
    _eq(z, np.array([np.float64(i) * x, np.float64(h) + x, x * 0.1, np.float64(h * np.float32(0.1))]))


@pytest.mark.parametrize("expr,what", [("libdevice.atan(x)", "libdevice.atan"), ("libdevice.cbrt(x)", "libdevice.cbrt"),
                                       ("libdevice.asin(x)", "libdevice.asin")])
def test_unsupported_fp64_math_is_an_error_at_its_location(tmp_path, expr, what):
    src = f"""
@triton.jit
def k(X, Z):
    x = tl.load(X)
    tl.store(Z, {expr})
"""
    with pytest.raises(CompileError) as info:
        build(src, "*fp64,*fp64")
    text = info.value.render()
    assert f"`{what}` on float64 is not supported yet" in text
    loc = info.value.loc
    assert (loc.line, loc.col) == (10, 17)          # HEADER adds 5 lines; the operand starts at column 17
    assert f":10:17: error: `{what}`" in text and f"    tl.store(Z, {expr})\n                ^" in text
    assert "Traceback" not in text
