"""Element types of the differential grid: Triton names, signatures, numpy storage, seeded inputs, bf16 helpers."""
from __future__ import annotations

import numpy as np

# Triton dtype name -> (signature name, numpy storage dtype)
DTYPES = {
    "int1": ("i1", np.bool_), "int8": ("i8", np.int8), "int16": ("i16", np.int16), "int32": ("i32", np.int32),
    "int64": ("i64", np.int64), "uint8": ("u8", np.uint8), "uint16": ("u16", np.uint16),
    "uint32": ("u32", np.uint32), "uint64": ("u64", np.uint64), "float16": ("fp16", np.float16),
    "bfloat16": ("bf16", np.uint16), "float32": ("fp32", np.float32),
}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32"]
ALL = ["int1"] + INTS + FLOATS


def is_float(t: str) -> bool:
    return t in FLOATS


def width(t: str) -> int:
    return {"int1": 1, "float16": 16, "bfloat16": 16, "float32": 32}.get(t) or int(t.lstrip("uint"))


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round f32 to the nearest-even bf16 bit pattern (NaN -> 0x7fc0), as Triton does."""
    x = np.asarray(x, np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), r)


def as_f32(a: np.ndarray, t: str) -> np.ndarray:
    """Values of storage array ``a`` of type ``t`` as float64 (bf16 decoded)."""
    if t == "bfloat16":
        return bf16_to_f32(a).astype(np.float64)
    return a.astype(np.float64)


def from_real(x: np.ndarray, t: str) -> np.ndarray:
    """Float64 values rounded to type ``t`` (float types) in its storage dtype."""
    if t == "bfloat16":
        return f32_to_bf16(np.asarray(x, np.float64).astype(np.float32))
    return np.asarray(x).astype(DTYPES[t][1])


def inputs(t: str, n: int, rng, lo=None, hi=None, nonzero=False) -> np.ndarray:
    """Seeded random values of type ``t`` (storage dtype), optionally within [lo, hi] and nonzero."""
    st = DTYPES[t][1]
    if t == "int1":
        return rng.integers(0, 2, n).astype(np.bool_)
    if is_float(t):
        lo = -100.0 if lo is None else lo
        hi = 100.0 if hi is None else hi
        x = rng.uniform(lo, hi, n)
        x = np.where(rng.random(n) < 0.3, np.round(x), x)   # some integral values
        if nonzero:
            x = np.where(np.abs(x) < 0.5, 1.5, x)
        return from_real(x, t)
    info = np.iinfo(st)
    lo = info.min if lo is None else max(lo, info.min)
    hi = info.max if hi is None else min(hi, info.max)
    x = rng.integers(lo, hi, n, dtype=np.int64, endpoint=True) if hi <= np.iinfo(np.int64).max else \
        rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    x = np.asarray(x).astype(st)
    if nonzero:
        x = np.where(x == 0, st(1), x)
    edges = [v for v in (info.min, info.max, 0, 1, -1 if info.min < 0 else 2) if lo <= v <= hi]
    if not nonzero:
        x[:len(edges)] = [st(v) for v in edges]
    return x
