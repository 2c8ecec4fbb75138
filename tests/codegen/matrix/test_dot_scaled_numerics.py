"""tl.dot_scaled against numpy (seeded inputs): each operand decoded exactly, times its e8m0 scale, rounded once
to the compute type (fp16 if either format is fp16, else bf16), then the product within the engine's bound."""
import functools
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.codegen.matrix.numerics import U32, from_bf16, to_bf16

KERNELS = Path(__file__).resolve().parent / "dot_scaled_kernels.py"


@functools.lru_cache(maxsize=None)
def build_scaled(signature: str, **defines) -> bytes:
    opts = Options(kernel="dot_scaled_2d", signature=signature, defines={k: str(v) for k, v in defines.items()})
    return compile_kernel(str(KERNELS), opts).binary


def decode_fp8(bits: np.ndarray, fmt: str) -> np.ndarray:
    """e4m3 (fn: no infinities, S.1111.111 is NaN) or e5m2 (IEEE-like) bytes -> exact float64 values."""
    e_bits, m_bits = (4, 3) if fmt == "e4m3" else (5, 2)
    bias = (1 << (e_bits - 1)) - 1
    b = bits.astype(np.int64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    e = (b >> m_bits) & ((1 << e_bits) - 1)
    m = b & ((1 << m_bits) - 1)
    mag = np.where(e == 0, m * 2.0 ** (1 - bias - m_bits), (1 + m / 2 ** m_bits) * 2.0 ** (e - bias))
    if fmt == "e4m3":
        mag = np.where((b & 0x7F) == 0x7F, np.nan, mag)
    else:
        mag = np.where(e == 31, np.where(m == 0, np.inf, np.nan), mag)
    return sign * mag


def decode_e2m1(packed: np.ndarray, axis: int) -> np.ndarray:
    """Bytes holding two fp4 values each (the low nibble first along ``axis``) -> float64 values."""
    table = np.array([0, .5, 1, 1.5, 2, 3, 4, 6])
    nib = np.stack([packed & 0xF, packed >> 4], axis=axis % packed.ndim + 1)
    shape = list(packed.shape)
    shape[axis] *= 2
    nib = nib.reshape(shape)
    return np.where(nib & 8, -1.0, 1.0) * table[nib & 7]


def values(data: np.ndarray, fmt: str, axis: int) -> np.ndarray:
    if fmt == "e2m1":
        return decode_e2m1(data, axis)
    if fmt in ("e4m3", "e5m2"):
        return decode_fp8(data, fmt)
    return (from_bf16(data) if fmt == "bf16" else data.view(np.float16)).astype(np.float64)


def scales(s: np.ndarray) -> np.ndarray:
    """e8m0 bytes as the f32 bits s << 23: 0 is 0, 255 NaN."""
    return np.where(s == 255, np.nan, (s.astype(np.uint32) << 23).view(np.float32).astype(np.float64))


def round_to(x: np.ndarray, ct: str) -> np.ndarray:
    x32 = x.astype(np.float32)   # exact: fp4/fp8/16-bit values times a power of two
    with np.errstate(over="ignore"):
        return (x32.astype(np.float16) if ct == "fp16" else from_bf16(to_bf16(x32))).astype(np.float64)


def make(rng, shape, fmt: str, ct: str) -> np.ndarray:
    """Seeded operand data: uniform bytes for fp4/fp8 (e4m3's NaN bytes and e5m2's non-finite ones replaced),
    normal samples for the 16-bit formats."""
    if fmt in ("bf16", "fp16"):
        x = rng.standard_normal(shape).astype(np.float32)
        return to_bf16(x) if fmt == "bf16" else x.astype(np.float16).view(np.uint16)
    x = rng.integers(0, 256, shape, dtype=np.int64).astype(np.uint8)
    if fmt == "e4m3":
        x = np.where((x & 0x7F) == 0x7F, x & 0xFE, x)
    if fmt == "e5m2":
        x = np.where((x & 0x7C) == 0x7C, x & 0xFB, x)
        if ct == "fp16":
            x = x & 0xBF    # |value| < 2, so that times a scale up to 2^4 it stays finite in fp16
    return x.astype(np.uint8)


def case(fa, fb, scale_a, scale_b, col_a=False, col_b=False, m=32, n=32, k=64, acc=False, nan_scale=False, seed=0,
         scale_range=None):
    rng = np.random.default_rng(seed)
    ct = "fp16" if "fp16" in (fa, fb) else "bf16"
    lo, hi = scale_range or ((124, 131) if ct == "fp16" else (90, 160))
    ka = k // 2 if fa == "e2m1" else k
    kb = k // 2 if fb == "e2m1" else k
    a = make(rng, (m, ka), fa, ct)
    b = make(rng, (kb, n), fb, ct)
    sa = rng.integers(lo, hi + 1, (m, k // 32)).astype(np.uint8)
    sb = rng.integers(lo, hi + 1, (n, k // 32)).astype(np.uint8)
    if ct == "bf16":
        sa[0, 0] = sb[1, 0] = 0     # a zero scale: 0, as the f32 bits 0 << 23
    if nan_scale:
        (sa if scale_a else sb)[3, -1] = 255
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    av = values(a, fa, -1)
    bv = values(b, fb, -2)
    if scale_a:
        av = av * np.repeat(scales(sa), 32, axis=1)
    if scale_b:
        bv = bv * np.repeat(scales(sb), 32, axis=1).T
    av, bv = round_to(av, ct), round_to(bv, ct)
    want = av @ bv + (c0 if acc else 0)
    # the kernel reads A and B through strides: a column-major operand is stored transposed
    a_mem = np.ascontiguousarray(a.T) if col_a else a
    b_mem = np.ascontiguousarray(b.T) if col_b else b
    sa0, sa1 = (1, m) if col_a else (ka, 1)
    sb0, sb1 = (1, kb) if col_b else (n, 1)
    wide = {"bf16": "u16", "fp16": "u16"}
    sig = (f"*{wide.get(fa, 'u8')},*u8,*{wide.get(fb, 'u8')},*u8,*fp32,*fp32,i32,i32,i32,i32")
    binary = build_scaled(sig, BM=m, BN=n, BK=k, FA=f'"{fa}"', FB=f'"{fb}"', SCALE_A=scale_a, SCALE_B=scale_b,
                          ACC=acc)
    args = {"A": a_mem, "SA": sa, "B": b_mem, "SB": sb, "C0": c0, "C": np.zeros((m, n), np.float32),
            "sa0": np.array(sa0, np.int32), "sa1": np.array(sa1, np.int32), "sb0": np.array(sb0, np.int32),
            "sb1": np.array(sb1, np.int32)}
    got = run(binary, args, grid=(1,)).outputs["C"].astype(np.float64)
    return got, want, av, bv


def check(got, want, av, bv):
    """NaN exactly where the reference has NaN; elsewhere within the engine's bound (docs/matrix-engine.md: products
    of 16-bit floats are exact in fp32, each 32-term tile sum and each accumulation rounds once)."""
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    k = av.shape[-1]
    with np.errstate(invalid="ignore"):   # an accumulator is rounded in at each tile too: count |result| as well
        s = np.nan_to_num(np.abs(av)) @ np.nan_to_num(np.abs(bv)) + np.abs(np.nan_to_num(want))
    tol = (-(-k // 32) + 2) * U32 * s + 1e-30
    err = np.abs(got - want)[~nan]
    assert np.all(err <= tol[~nan]), f"max error {err.max()}"


# the mxfp format on one side (scaled), a plain one on the other, as Triton's test_scaled_dot pairs them
PAIRS = [("e2m1", "e4m3"), ("e2m1", "bf16"), ("e2m1", "fp16"), ("e4m3", "e5m2"), ("e4m3", "fp16"), ("e5m2", "bf16"),
         ("e5m2", "fp16"), ("e4m3", "bf16")]


@pytest.mark.parametrize("mx, plain", PAIRS)
@pytest.mark.parametrize("rhs_scale", [False, True])
def test_format_pairs(mx, plain, rhs_scale):
    fa, fb = (plain, mx) if rhs_scale else (mx, plain)
    check(*case(fa, fb, not rhs_scale, rhs_scale, seed=len(PAIRS) * rhs_scale + PAIRS.index((mx, plain))))


@pytest.mark.parametrize("col_a, col_b", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("fa, fb", [("e2m1", "e4m3"), ("bf16", "e2m1")])
def test_column_major_operands(fa, fb, col_a, col_b):
    check(*case(fa, fb, fa != "bf16", fb != "bf16", col_a, col_b, m=64, n=32, k=128, seed=3 + col_a + 2 * col_b))


def test_both_scaled_with_an_accumulator():
    check(*case("e2m1", "e5m2", True, True, m=32, n=64, acc=True, seed=11))


def test_both_fp4_are_exact_in_bf16():
    """fp4 values times scales in [2^-37, 2^33] are exact in bf16, and their products in fp32: only the sums
    round."""
    check(*case("e2m1", "e2m1", True, True, seed=12))


@pytest.mark.parametrize("scale_a", [True, False])
def test_scale_255_is_nan(scale_a):
    got, want, av, bv = case("e4m3", "e2m1", scale_a, not scale_a, nan_scale=True, seed=13)
    assert np.isnan(want).any() and not np.isnan(want).all()
    check(got, want, av, bv)


def test_fp16_rounds_the_scaled_value_once():
    """Scales down to 2^-27 take e4m3 values into fp16's subnormals: the exact product is rounded once there."""
    got, want, av, bv = case("e4m3", "fp16", True, False, seed=14, scale_range=(100, 128))
    assert np.any((av != 0) & (np.abs(av) < 2.0 ** -14))
    check(got, want, av, bv)

