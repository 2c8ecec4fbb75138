"""Helpers for the differential tests of tl.dot: compile a kernel of dot_kernels.py, make seeded inputs, and the
error bound of the engine's arithmetic (docs/matrix-engine.md: products of 16-bit floats are exact in fp32; each
`mm` rounds its up to 32-term sum once to fp32 and adds it to the fp32 accumulator, a second rounding)."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from mtiacc.driver import Options, compile_kernel

KERNELS = Path(__file__).resolve().parent / "dot_kernels.py"
U32 = 2.0 ** -24      # unit roundoff of fp32
U16 = 2.0 ** -11      # of fp16
UBF = 2.0 ** -9       # of bf16


@functools.lru_cache(maxsize=None)
def build(kernel: str, signature: str, disabled=(), **defines) -> bytes:
    opts = Options(kernel=kernel, signature=signature, defines={k: str(v) for k, v in defines.items()},
                   disabled_passes=tuple(disabled))
    return compile_kernel(str(KERNELS), opts).binary


def asm(kernel: str, signature: str, opt_level: int = 2, **defines) -> str:
    opts = Options(kernel=kernel, signature=signature, defines={k: str(v) for k, v in defines.items()},
                   opt_level=opt_level)
    return compile_kernel(str(KERNELS), opts, stop_after="asm").asm_text


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns (uint16), rounding to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(u: np.ndarray) -> np.ndarray:
    return (u.astype(np.uint32) << 16).view(np.float32)


def operand(rng, shape, kind: str):
    """(the array the kernel gets, its values as float64 / int64)."""
    if kind == "bf16":
        u = to_bf16(rng.standard_normal(shape))
        return u, from_bf16(u).astype(np.float64)
    if kind == "f16":
        x = rng.standard_normal(shape).astype(np.float16)
        return x, x.astype(np.float64)
    if kind in ("f32", "f64"):
        x = rng.standard_normal(shape).astype(np.float32 if kind == "f32" else np.float64)
        return x, x.astype(np.float64)
    if kind == "i8":
        x = rng.integers(-128, 128, shape, dtype=np.int64).astype(np.int8)
        return x, x.astype(np.int64)
    if kind == "u8":
        x = rng.integers(0, 256, shape, dtype=np.int64).astype(np.uint8)
        return x, x.astype(np.int64)
    raise ValueError(kind)


def bound(a: np.ndarray, b: np.ndarray, kind: str, precision: str = "tf32") -> np.ndarray:
    """Per-output error bound of a @ b (float64 values of the operands) as this machine computes it."""
    s = np.abs(a) @ np.abs(b)           # sum of |a_mk * b_kn|
    k = a.shape[-1]
    tiles = -(-k // 32)
    if kind == "f32" and precision == "ieee":
        return 1.01 * k * U32 * s + 1e-30          # k fused multiply-adds, each rounded once
    engine = (tiles + 1) * U32 * s
    if kind == "f32" and precision == "bf16x6":   # x = hi + mid + lo + r, |r| <= 2^-24 |x|; 3 products dropped
        return 8 * 2.0 ** -24 * s + 6 * engine + 1e-30
    if kind == "f32":   # tf32x3: x = hi + lo + r, |r| <= 2^-16 |x|, and the lo * lo term is dropped
        return 4 * 2.0 ** -16 * s + 3 * engine + 1e-30
    return engine + 1e-30
