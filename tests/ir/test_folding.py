"""Op fold hooks against numpy: wrap-around integers, C division, float32 precision."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mtiacc.ir import folding as F
from mtiacc.ir import ops
from mtiacc.ir.types import BlockType, bf16, f16, f32, i1, i8, i32, i64, u8, u32


def const(v, t):
    return ops.ConstantOp.get(F.normalize(v, t.element_type), t).result


def fold(cls, a, b, t):
    return cls.get(const(a, t), const(b, t)).fold()


I32 = st.integers(-2**31, 2**31 - 1)
NP = {i32: np.int32, i8: np.int8, u8: np.uint8, u32: np.uint32}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([i8, u8, i32, u32]), I32, I32,
       st.sampled_from([("addi", np.add), ("subi", np.subtract), ("muli", np.multiply),
                        ("andi", np.bitwise_and), ("ori", np.bitwise_or), ("xori", np.bitwise_xor)]))
def test_wrapping_integer_ops_match_numpy(t, a, b, op):
    name, np_fn = op
    cls = {"addi": ops.AddIOp, "subi": ops.SubIOp, "muli": ops.MulIOp, "andi": ops.AndIOp,
           "ori": ops.OrIOp, "xori": ops.XOrIOp}[name]
    a, b = F.normalize(a, t), F.normalize(b, t)
    with np.errstate(over="ignore"):
        expected = int(np_fn(NP[t](a), NP[t](b)))
    assert fold(cls, a, b, t) == expected


@settings(max_examples=200, deadline=None)
@given(I32, I32.filter(lambda b: b != 0))
def test_signed_division_truncates_like_c(a, b):
    if a == -2**31 and b == -1:
        assert fold(ops.DivSIOp, a, b, i32) is None  # overflow: left alone
        return
    q, r = fold(ops.DivSIOp, a, b, i32), fold(ops.RemSIOp, a, b, i32)
    assert q == int(np.trunc(np.float64(a) / np.float64(b))) or abs(a) >= 2**53
    assert q * b + r == a and (r == 0 or (r < 0) == (a < 0))


def test_division_by_zero_does_not_fold():
    for cls in (ops.DivSIOp, ops.DivUIOp, ops.RemSIOp, ops.RemUIOp):
        assert fold(cls, 1, 0, i32) is None
    assert fold(ops.DivFOp, 1.0, 0.0, f32) == math.inf


def test_unsigned_ops_read_bits_as_unsigned():
    assert fold(ops.DivUIOp, -2, 2, i32) == 2**31 - 1
    assert fold(ops.RemUIOp, -1, 10, i32) == (2**32 - 1) % 10
    assert fold(ops.ShRUIOp, -8, 1, i32) == 2**31 - 4
    assert fold(ops.ShRSIOp, -8, 1, i32) == -4
    assert fold(ops.ShLIOp, 1, 32, i32) is None  # shift by the width or more: undefined
    assert fold(ops.MaxUIOp, -1, 1, i32) == -1 and fold(ops.MaxSIOp, -1, 1, i32) == 1


@settings(max_examples=200, deadline=None)
@given(st.floats(width=32), st.floats(width=32),
       st.sampled_from([(ops.AddFOp, np.add), (ops.SubFOp, np.subtract), (ops.MulFOp, np.multiply),
                        (ops.DivFOp, np.divide), (ops.MaxNumFOp, np.fmax), (ops.MinNumFOp, np.fmin)]))
def test_float_ops_are_float32(a, b, op):
    cls, np_fn = op
    with np.errstate(all="ignore"):
        expected = float(np_fn(np.float32(a), np.float32(b)))
    got = fold(cls, a, b, f32)
    assert (math.isnan(got) and math.isnan(expected)) or got == expected
    if got == 0:
        assert math.copysign(1, got) == math.copysign(1, expected)


@pytest.mark.parametrize("pred, a, b, expected", [
    ("slt", -1, 1, True), ("ult", -1, 1, False), ("eq", 5, 5, True), ("sge", 2, 3, False),
    ("ugt", -1, 0, True), ("ne", 1, 2, True),
])
def test_cmpi(pred, a, b, expected):
    assert ops.CmpIOp.get(pred, const(a, i32), const(b, i32)).fold() is expected


@pytest.mark.parametrize("pred, a, b, expected", [
    ("olt", 1.0, 2.0, True), ("olt", math.nan, 2.0, False), ("ult", math.nan, 2.0, True),
    ("une", math.nan, math.nan, True), ("oeq", 0.0, -0.0, True), ("one", 1.0, 1.0, False),
])
def test_cmpf(pred, a, b, expected):
    assert ops.CmpFOp.get(pred, const(a, f32), const(b, f32)).fold() is expected


def test_make_range_comparisons_fold_from_the_range():
    r = ops.MakeRangeOp.get(0, 64).result
    c = ops.SplatOp.get(const(64, i32), (64,)).result
    assert ops.CmpIOp.get("slt", r, c).fold() is True
    assert ops.CmpIOp.get("sge", r, c).fold() is False
    assert ops.CmpIOp.get("slt", r, ops.SplatOp.get(const(10, i32), (64,)).result).fold() is None


@pytest.mark.parametrize("cls, v, src, dst, expected", [
    (ops.ExtSIOp, -1, i8, i32, -1), (ops.ExtUIOp, -1, i8, i32, 255), (ops.ExtSIOp, True, i1, i32, -1),
    (ops.ExtUIOp, True, i1, i32, 1), (ops.TruncIOp, 300, i32, u8, 44), (ops.TruncIOp, 3, i32, i1, True),
    (ops.SIToFPOp, -3, i32, f32, -3.0), (ops.UIToFPOp, -1, i32, f32, 4294967296.0),
    (ops.FPToSIOp, -2.9, f32, i32, -2), (ops.FPToSIOp, 1e10, f32, i32, None),
    (ops.FPToUIOp, -1.0, f32, u32, None), (ops.FPToSIOp, math.nan, f32, i32, None),
    (ops.TruncFOp, 0.1, f32, f16, float(np.float16(0.1))), (ops.TruncFOp, 1.00390625, f32, bf16, 1.0),
    (ops.TruncFOp, 1.01171875, f32, bf16, 1.015625), (ops.ExtFOp, 0.5, f16, f32, 0.5),
    (ops.BitcastOp, 1.0, f32, i32, 0x3F800000), (ops.BitcastOp, -1, i32, u32, 2**32 - 1),
    (ops.BitcastOp, 0x3F800000, i32, f32, 1.0),
])
def test_cast_folds(cls, v, src, dst, expected):
    assert cls.get(const(v, src), dst).fold() == expected


def test_splat_select_and_broadcast_folds():
    x = const(3, i32)
    assert ops.SplatOp.get(x, (8,)).fold() == 3
    blk = ops.ConstantOp.get(2.5, BlockType((1, 4), f32)).result
    assert ops.BroadcastOp.get(blk, (8, 4)).fold() == 2.5
    y = ops.MakeRangeOp.get(0, 4).result
    z = ops.MakeRangeOp.get(4, 8).result
    cond = ops.ConstantOp.get(False, BlockType((4,), i1)).result
    assert ops.SelectOp.get(cond, y, z).fold() is z
    assert ops.SelectOp.get(ops.CmpIOp.get("slt", y, z).result, y, y).fold() is y
    assert ops.NegFOp.get(const(0.0, f32)).fold() == 0.0 and str(ops.NegFOp.get(const(0.0, f32)).fold()) == "-0.0"


def test_normalize_and_fits():
    assert F.normalize_int(2**31, i32) == -2**31
    assert F.normalize_int(-1, u8) == 255
    assert F.normalize_int(3, i1) is True
    assert F.fits_int(255, i8) and not F.fits_int(255, i8, allow_wrap=False) and not F.fits_int(256, u8)
    assert F.fits_int(2**63, i64) and not F.fits_int(2**64, i64)


def _np_round(x, kind):
    with np.errstate(over="ignore", invalid="ignore"):
        return float({"f16": np.float16, "f32": np.float32}[kind](x))


_ROUNDING_EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 65504.0, 65519.99, 65520.0, -65520.0, 3.4028235e38,
                   3.4028235677973366e38, 3.402823669209385e38, -1e39, 2.9802322387695312e-08, 5.960464477539063e-08,
                   7.006492321624085e-46, 7.006492321624086e-46, 1.401298464324817e-45, 1e-300, 0.1, 1 / 3,
                   1 + 2.0 ** -24, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -24, 1 + 3 * 2.0 ** -11]


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(_ROUNDING_EDGES)),
       st.sampled_from([(f16, "f16"), (f32, "f32")]))
def test_rounding_a_constant_matches_numpy_bit_for_bit(x, t):
    """round_float rounds without numpy (struct): halfway cases to even, subnormals, beyond the range an infinity."""
    t, kind = t
    got, want = F.round_float(x, t.element_type), _np_round(x, kind)
    assert np.float64(got).tobytes() == np.float64(want).tobytes()
