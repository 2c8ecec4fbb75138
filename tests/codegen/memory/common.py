"""Helpers for tests/codegen/memory: compile a kernel of kernels.py once per configuration, run it."""
from pathlib import Path

import numpy as np

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("kernels.py"))
_cache = {}

# signature name -> numpy dtype in the simulator's buffers (bf16 travels as its uint16 bits)
NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "fp16": np.float16, "bf16": np.uint16, "fp32": np.float32}


def build(kernel: str, signature: str, opt_level: int = 2, **defines) -> bytes:
    key = (kernel, signature, opt_level, tuple(sorted(defines.items())))
    if key not in _cache:
        opts = Options(kernel=kernel, signature=signature, opt_level=opt_level,
                       defines={k: str(v) for k, v in defines.items()})
        _cache[key] = compile_kernel(KERNELS, opts).binary
    return _cache[key]


def simulate(binary: bytes, inputs, grid):
    return run(binary, inputs, grid=grid).outputs


def random_values(dtype: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = NP[dtype]
    if dtype == "i1":
        return rng.integers(0, 2, n).astype(np.bool_)
    if dtype == "bf16":  # finite bf16 bit patterns
        return (rng.standard_normal(n).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if np.issubdtype(t, np.floating):
        return (rng.standard_normal(n) * 100).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
