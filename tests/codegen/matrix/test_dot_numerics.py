"""tl.dot against numpy (seeded inputs), within the error bound of the engine's arithmetic (numerics.py)."""
import numpy as np
import pytest

from mtiasim.runner import run
from tests.codegen.matrix.numerics import U16, bound, build, from_bf16, operand, to_bf16

TYPES = {"bf16": "*bf16", "f16": "*fp16", "f32": "*fp32"}


def check(got, want, tol):
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= tol), f"max error {err.max()} (bound there {tol.flat[np.argmax(err - tol)]})"


@pytest.mark.parametrize("kind", ["bf16", "f16"])
@pytest.mark.parametrize("shape", [(16, 16, 16), (32, 32, 32), (64, 64, 64), (128, 64, 128), (20, 45, 70),
                                   (128, 100, 33)])
def test_float_dot_with_ragged_edges(kind, shape):
    m, n, k = shape
    bm, bn, bk = (1 << (max(x, 16) - 1).bit_length() for x in shape)
    rng = np.random.default_rng(m * 10007 + n * 101 + k)
    a, av = operand(rng, (m, k), kind)
    b, bv = operand(rng, (k, n), kind)
    binary = build("dot_masked", f"{TYPES[kind]},{TYPES[kind]},*fp32,i32,i32,i32", BM=bm, BN=bn, BK=bk,
                   PREC='"ieee"' if kind == "f32" else '"tf32"')
    out = run(binary, {"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": np.array(m, np.int32),
                       "N": np.array(n, np.int32), "K": np.array(k, np.int32)}, grid=(1,)).outputs["C"]
    check(out, av @ bv, bound(av, bv, kind))


@pytest.mark.parametrize("precision", ["ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"])
@pytest.mark.parametrize("shape", [(16, 16, 16), (64, 32, 48), (32, 64, 128)])
def test_f32_dot(precision, shape):
    m, n, k = shape
    bm, bn, bk = (1 << (max(x, 16) - 1).bit_length() for x in shape)
    rng = np.random.default_rng(k * 31 + n)
    a, av = operand(rng, (m, k), "f32")
    b, bv = operand(rng, (k, n), "f32")
    binary = build("dot_masked", "*fp32,*fp32,*fp32,i32,i32,i32", BM=bm, BN=bn, BK=bk, PREC=f'"{precision}"')
    out = run(binary, {"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": np.array(m, np.int32),
                       "N": np.array(n, np.int32), "K": np.array(k, np.int32)}, grid=(1,)).outputs["C"]
    check(out, av @ bv, bound(av, bv, "f32", precision) + U32F * np.abs(av @ bv))


U32F = 2.0 ** -24   # the final value's own rounding to fp32


def _f32_dot(a, b, precision):
    m, k = a.shape
    n = b.shape[1]
    binary = build("dot_masked", "*fp32,*fp32,*fp32,i32,i32,i32", BM=m, BN=n, BK=k, PREC=f'"{precision}"')
    return run(binary, {"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": np.array(m, np.int32),
                        "N": np.array(n, np.int32), "K": np.array(k, np.int32)}, grid=(1,)).outputs["C"]


def _split_cases(rng, shape):
    """f32 values whose low 16 bits are the rounding's edge cases (a tie, just below and above it, all ones: the
    carry into the exponent, zero), of both signs, over a wide range of exponents."""
    bits = (rng.standard_normal(shape) * 2.0 ** rng.integers(-60, 60, shape)).astype(np.float32)
    u = bits.view(np.uint32) & np.uint32(0xFFFF0000)
    low = rng.choice(np.array([0x8000, 0x7FFF, 0x8001, 0xFFFF, 0x0000, 0x0001], np.uint32), shape)
    keep = rng.random(shape) < 0.5         # half keep their random low bits
    return np.where(keep, bits.view(np.uint32), u | low).view(np.float32)


def test_bf16x6_split_is_exact():
    """x = hi + mid + lo exactly: x @ I gives x bit for bit (each pass adds one part of x, the rest are products of
    zeros), whatever x's low bits; bf16x3's two parts keep 16 significant bits or more."""
    rng = np.random.default_rng(7)
    a = _split_cases(rng, (32, 32))
    eye = np.eye(32, dtype=np.float32)
    got = _f32_dot(a, eye, "bf16x6")
    assert np.array_equal(got.view(np.uint32), a.view(np.uint32))
    got3 = _f32_dot(a, eye, "bf16x3").astype(np.float64)
    assert np.all(np.abs(got3 - a) <= 2.0 ** -16 * np.abs(a))
    assert not np.array_equal(got3, a)      # the second part is rounded: bf16x3 is not bf16x6


@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_split_dot_of_positive_operands(precision):
    """Operands of one sign: nothing cancels in the sum (a split that rounds its parts one way would make every
    product's error the same sign), and the result stays within the bound."""
    rng = np.random.default_rng(11)
    a = rng.random((32, 256)).astype(np.float32)
    b = rng.random((256, 32)).astype(np.float32)
    av, bv = a.astype(np.float64), b.astype(np.float64)
    check(_f32_dot(a, b, precision), av @ bv, bound(av, bv, "f32", precision) + U32F * np.abs(av @ bv))


@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_split_dot_keeps_nans(precision):
    """A NaN in a row of ``a`` (any payload: 0x7FFFFFFF and 0xFFFFFFFF wrap around when 0x8000 is added to their
    bits, so their first part is a zero) makes that row of the result NaN, and only that row."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((32, 32)).astype(np.float32)
    b = rng.standard_normal((32, 32)).astype(np.float32)
    a.view(np.uint32)[3, 5] = 0x7FFFFFFF
    a.view(np.uint32)[9, 0] = 0xFFFFFFFF
    a.view(np.uint32)[20, 31] = 0x7FC00000
    got = _f32_dot(a, b, precision)
    nan_rows = np.isnan(got).any(axis=1)
    assert list(np.flatnonzero(nan_rows)) == [3, 9, 20] and np.isnan(got[[3, 9, 20]]).all()


@pytest.mark.parametrize("n", [128, 160])   # an output row in one register group (128 fp32), or strip-mined
def test_ieee_f32_dot_wide_rows(n):
    m, k = 8, 24
    rng = np.random.default_rng(n)
    a, av = operand(rng, (m, k), "f32")
    b, bv = operand(rng, (k, n), "f32")
    binary = build("dot_masked", "*fp32,*fp32,*fp32,i32,i32,i32", BM=16, BN=256 if n > 128 else 128, BK=32,
                   PREC='"ieee"')
    out = run(binary, {"A": a, "B": b, "C": np.zeros((m, n), np.float32), "M": np.array(m, np.int32),
                       "N": np.array(n, np.int32), "K": np.array(k, np.int32)}, grid=(1,)).outputs["C"]
    check(out, av @ bv, bound(av, bv, "f32", "ieee") + U32F * np.abs(av @ bv))


@pytest.mark.parametrize("kind,acc", [("i8", "*i32")])   # tl.dot refuses u8 operands (as Triton does)
@pytest.mark.parametrize("shape", [(16, 16, 16), (64, 32, 128), (32, 64, 64)])
def test_integer_dot_is_exact(kind, acc, shape):
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    a, av = operand(rng, (m, k), kind)
    b, bv = operand(rng, (k, n), kind)
    np_acc = np.int32 if acc == "*i32" else np.uint32
    binary = build("dot_int", f"*{kind},*{kind},{acc}", BM=m, BN=n, BK=k)
    out = run(binary, {"A": a, "B": b, "C": np.zeros((m, n), np_acc)}, grid=(1,)).outputs["C"]
    np.testing.assert_array_equal(out.astype(np.int64), av @ bv)


def test_dot_with_acc():
    rng = np.random.default_rng(5)
    a, av = operand(rng, (64, 32), "bf16")
    b, bv = operand(rng, (32, 96 - 32), "bf16")
    c0 = rng.standard_normal((64, 64)).astype(np.float32)
    binary = build("dot_acc", "*bf16,*bf16,*fp32,*fp32", BM=64, BN=64, BK=32)
    out = run(binary, {"A": a, "B": b, "C0": c0, "C": np.zeros((64, 64), np.float32)}, grid=(1,)).outputs["C"]
    want = av @ bv + c0
    check(out, want, bound(av, bv, "bf16") + 2 * 2.0 ** -24 * (np.abs(av) @ np.abs(bv) + np.abs(c0)))


def test_dot_f16_out():
    rng = np.random.default_rng(6)
    a, av = operand(rng, (32, 64), "f16")
    b, bv = operand(rng, (64, 32), "f16")
    binary = build("dot_f16_out", "*fp16,*fp16,*fp16", BM=32, BN=32, BK=64)
    out = run(binary, {"A": a, "B": b, "C": np.zeros((32, 32), np.float16)}, grid=(1,)).outputs["C"]
    want = av @ bv
    check(out, want, bound(av, bv, "f16") * (1 + U16) + U16 * np.abs(want) + 2.0 ** -24)


@pytest.mark.parametrize("dott", [0, 1])
def test_transposed_b(dott):
    rng = np.random.default_rng(7 + dott)
    a, av = operand(rng, (32, 64), "bf16")
    bt, btv = operand(rng, (48 + 16, 64), "bf16")
    binary = build("dot_trans", "*bf16,*bf16,*fp32", BM=32, BN=64, BK=64, DOTT=dott)
    out = run(binary, {"A": a, "BT": bt, "C": np.zeros((32, 64), np.float32)}, grid=(1,)).outputs["C"]
    check(out, av @ btv.T, bound(av, btv.T, "bf16"))


def test_batched():
    rng = np.random.default_rng(8)
    a, av = operand(rng, (4, 16, 32), "f16")
    b, bv = operand(rng, (4, 32, 64), "f16")
    binary = build("dot_batched", "*fp16,*fp16,*fp32", BB=4, BM=16, BN=64, BK=32)
    out = run(binary, {"A": a, "B": b, "C": np.zeros((4, 16, 64), np.float32)}, grid=(1,)).outputs["C"]
    check(out, av @ bv, bound(av, bv, "f16"))


def test_chain():
    rng = np.random.default_rng(9)
    a, av = operand(rng, (32, 32), "f16")
    b, bv = operand(rng, (32, 64), "f16")
    e, ev = operand(rng, (64, 64), "f16")
    binary = build("dot_chain", "*fp16,*fp16,*fp16,*fp32", BM=32, BN=64, BK=32)
    out = run(binary, {"A": a, "B": b, "E": e, "C": np.zeros((32, 64), np.float32)}, grid=(1,)).outputs["C"]
    ab = av @ bv
    ab16 = ab.astype(np.float16).astype(np.float64)   # the first result, rounded to f16
    err_ab = bound(av, bv, "f16") * (1 + U16) + U16 * np.abs(ab)
    tol = np.abs(err_ab) @ np.abs(ev) * 1.01 + bound(ab16, ev, "f16")
    check(out, ab16 @ ev, tol + err_ab.max() * 0)


def _e5m2(x: np.ndarray):
    """fp8 e5m2 bytes (the top byte of fp16, rounded to nearest even) and their values."""
    h = x.astype(np.float16).view(np.uint16).astype(np.uint32)
    u = ((h + 0x7F + ((h >> 8) & 1)) >> 8).astype(np.uint8)
    return u, (u.astype(np.uint16) << 8).view(np.float16).astype(np.float64)


def test_fp8_dot_in_a_loop():
    rng = np.random.default_rng(10)
    a, av = _e5m2(rng.standard_normal((2 * 32, 32)))
    b, bv = _e5m2(rng.standard_normal((2 * 32, 32)))
    binary = build("dot_fp8", "*fp8e5,*fp8e5,*fp32", BM=32, BN=32, BK=32)
    out = run(binary, {"A": a, "B": b, "C": np.zeros((32, 32), np.float32)}, grid=(1,)).outputs["C"]
    a2, b2 = av.reshape(2, 32, 32), bv.reshape(2, 32, 32)
    want = a2[0] @ b2[0] + a2[1] @ b2[1]
    full_a, full_b = np.concatenate([a2[0], a2[1]], axis=1), np.concatenate([b2[0], b2[1]], axis=0)
    check(out, want, bound(full_a, full_b, "f16"))
