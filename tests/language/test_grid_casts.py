"""Differential grid: `x.to(dtype)` for every pair of element types, and bitcasts, against numpy.

Each pair compiles one small kernel (cached) and converts a batch of seeded inputs (edge values first) over
several programs with a ragged tail.  Float -> int inputs stay inside the destination's range (outside it the
conversion is undefined in Triton).
"""
import numpy as np
import pytest

from tests.language.dtypes import ALL, DTYPES, as_f32, bf16_to_f32, f32_to_bf16, inputs, is_float, width
from tests.language.harness import launch

KERNEL = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, CONVERT, mask=m)
'''
N, BLOCK = 300, 128


def reference(x: np.ndarray, s: str, d: str) -> np.ndarray:
    st = DTYPES[d][1]
    if d == "int1":
        return (as_f32(x, s) != 0) if is_float(s) else (x != 0)
    if is_float(s):
        v = as_f32(x, s)
        if d == "bfloat16":
            return f32_to_bf16(v.astype(np.float32))
        return v.astype(st) if is_float(d) else np.trunc(v).astype(st)
    if d == "bfloat16":
        return f32_to_bf16(x.astype(np.float32))
    return x.astype(st)


def source_values(s: str, d: str, rng) -> np.ndarray:
    if is_float(s) and not is_float(d) and d != "int1":
        hi = min(100, 2 ** (width(d) - (0 if d.startswith("u") else 1)) - 1)
        lo = 0 if d.startswith("u") else -hi
        return inputs(s, N, rng, lo, hi)
    return inputs(s, N, rng)


def check(got: np.ndarray, want: np.ndarray, d: str) -> None:
    if is_float(d):
        w = want.view(np.uint16 if d != "float32" else np.uint32)
        g = got.view(w.dtype)
        nan = np.isnan(bf16_to_f32(want) if d == "bfloat16" else want)
        g, w = np.where(nan, 0, g), np.where(nan, 0, w)
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_array_equal(got, want)


PAIRS = [(s, d) for s in ALL for d in ALL if s != d]


@pytest.mark.parametrize("s,d", PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_cast(s, d):
    rng = np.random.default_rng(width(s) * 131 + width(d) + len(s) * 7 + len(d))
    x = source_values(s, d, rng)
    sig = f"*{DTYPES[s][0]},*{DTYPES[d][0]},i32"
    out = launch(KERNEL.replace("CONVERT", f"x.to(tl.{d})"), sig,
                 {"X": x, "Y": np.zeros(N, DTYPES[d][1]), "N": np.array(N, np.int32)},
                 grid=(-(-N // BLOCK),), defines=(("BLOCK", str(BLOCK)),))
    check(out.outputs["Y"], reference(x, s, d), d)


BITCASTS = [("int32", "float32"), ("float32", "uint32"), ("int16", "float16"), ("float16", "int16"),
            ("uint16", "bfloat16"), ("bfloat16", "int16"), ("int64", "uint64"), ("uint8", "int8")]


@pytest.mark.parametrize("s,d", BITCASTS, ids=[f"{s}->{d}" for s, d in BITCASTS])
def test_bitcast(s, d):
    rng = np.random.default_rng(7)
    x = inputs(s, N, rng)
    sig = f"*{DTYPES[s][0]},*{DTYPES[d][0]},i32"
    out = launch(KERNEL.replace("CONVERT", f"x.to(tl.{d}, bitcast=True)"), sig,
                 {"X": x, "Y": np.zeros(N, DTYPES[d][1]), "N": np.array(N, np.int32)},
                 grid=(-(-N // BLOCK),), defines=(("BLOCK", str(BLOCK)),))
    np.testing.assert_array_equal(out.outputs["Y"].view(np.uint8), x.view(np.uint8))


def test_tl_cast_matches_to():
    rng = np.random.default_rng(3)
    x = inputs("float32", N, rng, -100, 100)
    out = launch(KERNEL.replace("CONVERT", "tl.cast(x, tl.int16)"), "*fp32,*i16,i32",
                 {"X": x, "Y": np.zeros(N, np.int16), "N": np.array(N, np.int32)},
                 grid=(-(-N // BLOCK),), defines=(("BLOCK", str(BLOCK)),))
    np.testing.assert_array_equal(out.outputs["Y"], np.trunc(x).astype(np.int16))


@pytest.mark.parametrize("convert", ["x.cast(tl.int16)", "x.cast(Y.dtype.element_ty)",
                                     "x.to(tl.int32, bitcast=True).cast(tl.float32, bitcast=True).cast(tl.int16)"])
def test_the_cast_method_matches_to(convert):
    """``tensor.cast`` is ``tensor.to`` (Triton's test_core.py test_cast uses both)."""
    rng = np.random.default_rng(4)
    x = inputs("float32", N, rng, -100, 100)
    out = launch(KERNEL.replace("CONVERT", convert), "*fp32,*i16,i32",
                 {"X": x, "Y": np.zeros(N, np.int16), "N": np.array(N, np.int32)},
                 grid=(-(-N // BLOCK),), defines=(("BLOCK", str(BLOCK)),))
    np.testing.assert_array_equal(out.outputs["Y"], np.trunc(x).astype(np.int16))
