"""Every element type, one table the entries' dtype tests share (tests/cli, tests/runtime, tests/triton and
tests/torch ``test_dtypes*.py``): seeded inputs of each type as numpy holds its elements (bf16 as ``uint16``
bits, the fp8 formats as ``uint8`` bytes, as mtiasim takes them), and what the kernels of
``tests/kernels/dtype_ops.py`` compute from them, by numpy alone: the fp8 formats and bf16 decoded from their
bits here, independent of torch's and of mtiacc's conversions.

``ops`` loads X and Y, stores Z = X + Y (wrapping for integers, ``^`` for bools as Triton's i1 add), M = X < Y
and W = where(M, X, Y).  ``ops_wide`` (the fp8 formats, which Triton's backends cannot add or compare: mtiacc
refuses it as they do) compares and adds in fp32 and selects the fp8 bytes."""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Tuple

import numpy as np

N = 256      # elements per buffer: every byte of an fp8 format

# fp8 formats: (exponent bits, mantissa bits, bias, special values: "fn" NaN at S.1111.111, "ieee" inf and
# NaN at exponent all ones, "fnuz" one NaN at 0x80, "none" every byte finite)
FP8 = {"fp8e4nv": (4, 3, 7, "fn"), "fp8e5": (5, 2, 15, "ieee"), "fp8e4b8": (4, 3, 8, "fnuz"),
       "fp8e5b16": (5, 2, 16, "fnuz"), "fp8e4b15": (4, 3, 15, "none")}


@dataclasses.dataclass(frozen=True)
class DType:
    ty: str                  # the Triton type as a signature spells it
    storage: type            # numpy dtype of its elements as mtiasim takes them
    torch: Optional[str]     # torch.<name>, None where torch has no such type

    @property
    def fp8(self) -> bool:
        return self.ty in FP8

    @property
    def kernel(self) -> str:
        return "ops_wide" if self.fp8 else "ops"

    @property
    def z_storage(self) -> type:
        return np.float32 if self.fp8 else self.storage

    @property
    def z_ty(self) -> str:
        return "fp32" if self.fp8 else self.ty


DTYPES = [DType("i1", np.bool_, "bool"), DType("i8", np.int8, "int8"), DType("i16", np.int16, "int16"),
          DType("i32", np.int32, "int32"), DType("i64", np.int64, "int64"), DType("u8", np.uint8, "uint8"),
          DType("u16", np.uint16, "uint16"), DType("u32", np.uint32, "uint32"),
          DType("u64", np.uint64, "uint64"), DType("fp16", np.float16, "float16"),
          DType("bf16", np.uint16, "bfloat16"), DType("fp32", np.float32, "float32"),
          DType("fp64", np.float64, "float64"), DType("fp8e4nv", np.uint8, "float8_e4m3fn"),
          DType("fp8e5", np.uint8, "float8_e5m2"), DType("fp8e4b8", np.uint8, "float8_e4m3fnuz"),
          DType("fp8e5b16", np.uint8, "float8_e5m2fnuz"), DType("fp8e4b15", np.uint8, None)]
BY_TYPE = {d.ty: d for d in DTYPES}


def fp8_values(ty: str, b: np.ndarray) -> np.ndarray:
    """The values (float64, NaN for the NaN bytes) of fp8 bytes ``b`` of format ``ty``."""
    e_bits, m_bits, bias, special = FP8[ty]
    b = np.asarray(b, np.uint8).astype(np.int64)
    sign = np.where(b >> 7, -1.0, 1.0)
    e = (b >> m_bits) & ((1 << e_bits) - 1)
    f = b & ((1 << m_bits) - 1)
    top = (1 << e_bits) - 1
    mag = np.where(e == 0, f * 2.0 ** (1 - bias - m_bits), (1 + f / (1 << m_bits)) * 2.0 ** (e - bias))
    v = sign * mag
    if special == "fn":
        v = np.where((e == top) & (f == (1 << m_bits) - 1), np.nan, v)
    elif special == "ieee":
        v = np.where(e == top, np.where(f == 0, sign * np.inf, np.nan), v)
    elif special == "fnuz":
        v = np.where(b == 0x80, np.nan, v)
    return v


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_bf16(v: np.ndarray) -> np.ndarray:
    """float32 values rounded to nearest-even bf16, as bits (NaN kept quiet)."""
    u = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(v), ((u >> 16) | 0x40).astype(np.uint16), r)


def values(d: DType, a: np.ndarray) -> np.ndarray:
    """What the elements ``a`` (storage) are as numbers the kernel compares."""
    if d.fp8:
        return fp8_values(d.ty, a)
    if d.ty == "bf16":
        return bf16_values(a)
    return a


def inputs(d: DType, seed: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """Seeded X and Y of ``d``: every bit pattern is fair (full-range integers, floats with signed zeros,
    infinities, NaNs and subnormals; every fp8 byte in X), and a few pairs equal."""
    rng = np.random.default_rng([seed, DTYPES.index(d)])
    st = np.dtype(d.storage)
    if d.fp8:
        x = np.arange(N, dtype=np.uint8)
        y = rng.permutation(x)
    elif d.ty == "i1":
        x, y = rng.integers(0, 2, N).astype(bool), rng.integers(0, 2, N).astype(bool)
    elif st.kind in "iu" and d.ty != "bf16":
        x, y = (rng.integers(0, 256, N * st.itemsize, dtype=np.uint8).view(st) for _ in range(2))
    else:
        f = np.float16 if d.ty == "fp16" else np.float64 if d.ty == "fp64" else np.float32

        def floats():
            v = (rng.standard_normal(N) * 10.0 ** rng.integers(-3, 4, N)).astype(f)
            special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(f).tiny / 4, np.finfo(f).max,
                                -np.finfo(f).max], f)
            v[rng.integers(0, N, 24)] = special[rng.integers(0, special.size, 24)]
            return to_bf16(v.astype(np.float32)) if d.ty == "bf16" else v

        x, y = floats(), floats()
    same = rng.integers(0, N, 16)
    y[same] = x[same]
    return x, y


def expected(d: DType, x: np.ndarray, y: np.ndarray) -> Dict[str, np.ndarray]:
    """Z, M and W of ``ops`` (``ops_wide`` for fp8) on ``x`` and ``y``, as numpy computes them."""
    vx, vy = values(d, x), values(d, y)
    with np.errstate(all="ignore"):
        if d.fp8:
            z = vx.astype(np.float32) + vy.astype(np.float32)
        elif d.ty == "i1":
            z = x ^ y
        elif d.ty == "bf16":
            z = to_bf16(vx + vy)
        else:
            z = x + y
        m = vx < vy
    return {"Z": z.astype(d.z_storage), "M": m, "W": np.where(m, x, y)}


def _nan(d_ty: str, a: np.ndarray) -> np.ndarray:
    if d_ty in FP8:
        return np.isnan(fp8_values(d_ty, a))
    if d_ty == "bf16":
        return np.isnan(bf16_values(a))
    return np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)


def mismatches(d: DType, got: Dict[str, np.ndarray], want: Dict[str, np.ndarray]) -> Dict[str, list]:
    """Where ``got`` differs from ``want`` bit for bit: ``{name: [(index, got, want), ...]}`` (at most 4 each).
    Where the reference is a NaN, any NaN is right (which NaN an operation returns is the hardware's: numpy
    keeps an operand's payload, RISC-V gives its canonical NaN)."""
    out = {}
    for name, w in want.items():
        g = np.asarray(got[name])
        ty = d.z_ty if name == "Z" else "i1" if name == "M" else d.ty
        assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, g.shape, w.dtype, w.shape)
        gb, wb = g.view(np.uint8).reshape(g.size, -1), w.view(np.uint8).reshape(w.size, -1)
        bad = (gb != wb).any(axis=1) & ~(_nan(ty, w) & _nan(ty, g))
        if bad.any():
            out[name] = [(int(i), g[i], w[i]) for i in np.flatnonzero(bad)[:4]]
    return out


# scalar parameters of each type (fp8 has none: Triton's signatures take no fp8 scalar): a value, as a Python
# number, near the type's edge
SCALARS = {"i1": True, "i8": -100, "i16": -30000, "i32": -2000000000, "i64": -9000000000000000000, "u8": 250,
           "u16": 65000, "u32": 4000000000, "u64": 18000000000000000000, "fp16": 1.5, "bf16": -2.75,
           "fp32": 3.0e38, "fp64": -1.0e300}


def expected_scalar(d: DType, x: np.ndarray, s) -> Dict[str, np.ndarray]:
    """Z and M of ``add_scalar`` on ``x`` and the scalar ``s``."""
    vx = values(d, x)
    with np.errstate(all="ignore"):
        if d.ty == "i1":
            z = x ^ bool(s)
        elif d.ty == "bf16":
            z = to_bf16(vx + np.float32(s))
        else:
            z = x + np.array(s).astype(d.storage)
        m = vx < (np.float32(s) if d.ty == "bf16" else np.array(s).astype(d.storage))
    return {"Z": z.astype(d.storage), "M": m}
