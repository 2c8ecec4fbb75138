"""What the local-memory ladder costs on kernels whose blocks do not fit a PE's local memory.

Each kernel is compiled for mtia2i (384 KiB of local memory: the ladder's steps, printed as remarks) and for the same
machine with more local memory (``--set pe.local_memory_bytes=1572864``, 4x; 16x for the 512x512x512 GEMM, whose
blocks take 5 MiB: no step needed), and both run on the simulator with the same inputs: the cycles apart are the
steps' measured cost.

    python benchmarks/lmem_ladder.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parent.parent
BIG = ("pe.local_memory_bytes=1572864",)    # mtia2i with 4x the local memory (--set, for the compiler and the simulator)
HUGE = ("pe.local_memory_bytes=6291456",)   # 16x


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns (uint16), rounded to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(u: np.ndarray) -> np.ndarray:
    return (u.astype(np.uint32) << 16).view(np.float32)


def _cases():
    rng = np.random.default_rng(2026)
    K = 256
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((256, K), (K, 256)))
    yield ("GEMM: 256x256 fp32 accumulator, K tiles of 32, K=256", ROOT / "tests/codegen/matrix/big_blocks.py",
           Options(kernel="acc256", signature="*fp32,*fp32,*fp32,i32", defines={"BLOCK": "256", "BK": "32"}),
           {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(256 * 256, np.float32), "K": np.array(K, np.int32)},
           (1,), "C", a.astype(np.float64) @ b.astype(np.float64), BIG)
    a, b = to_bf16(rng.standard_normal((256, 512))), to_bf16(rng.standard_normal((512, 256)))
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    yield ("GEMM: K loop of a 256x256 fp32 accumulator, 256x128 bf16 tiles, K=512 (band-accumulators)",
           ROOT / "tests/codegen/matrix/dot_kernels.py",
           Options(kernel="matmul_plain", signature="*bf16,*bf16,*fp32,i32,i32,i32",
                   defines={"BLOCK_M": "256", "BLOCK_N": "256", "BLOCK_K": "128", "STAGES": "2"}),
           {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(256 * 256, np.float32), "M": i32(256),
            "N": i32(256), "K": i32(512)}, (1, 1), "c_ptr",
           from_bf16(a).astype(np.float64) @ from_bf16(b).astype(np.float64), BIG)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((512, 512), (512, 512)))
    yield ("GEMM: one 512x512x512 fp32 tl.dot (split-dots)", ROOT / "tests/opt/split_dots_kernels.py",
           Options(kernel="gemm", signature="*fp32,*fp32,*fp32", defines={"BM": "512", "BN": "512", "BK": "512"}),
           {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(512 * 512, np.float32)},
           (1,), "C", a.astype(np.float64) @ b.astype(np.float64), HUGE)
    rows, n = 4, 60000
    x = rng.standard_normal((rows, n)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    yield ("softmax: BLOCK_SIZE 65536 fp32 (256 KiB rows), 4 rows of 60000", ROOT / "examples/softmax.py",
           Options(signature="*fp32,*fp32,i32,i32,i32", defines={"BLOCK_SIZE": "65536"}, opt_level=3),
           {"output_ptr": np.zeros(rows * n, np.float32), "input_ptr": x.ravel(), "input_row_stride": i32(n),
            "output_row_stride": i32(n), "n_cols": i32(n)}, (rows,), "output_ptr",
           (e / e.sum(axis=1, keepdims=True)).ravel(), BIG)
    rows, n = 2, 131072
    x = rng.standard_normal((rows, n)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    yield ("softmax: BLOCK_SIZE 131072 fp32 (512 KiB rows, stream-blocks), 2 rows of 131072", ROOT / "examples/softmax.py",
           Options(signature="*fp32,*fp32,i32,i32,i32", defines={"BLOCK_SIZE": "131072"}, opt_level=3),
           {"output_ptr": np.zeros(rows * n, np.float32), "input_ptr": x.ravel(), "input_row_stride": i32(n),
            "output_row_stride": i32(n), "n_cols": i32(n)}, (rows,), "output_ptr",
           (e / e.sum(axis=1, keepdims=True)).ravel(), BIG)


def main() -> int:
    for name, path, opts, inputs, grid, out, want, big in _cases():
        print(name)
        cycles = {}
        more = f"{int(big[0].split('=')[1]) // 393216}x local memory"
        for label, overrides in (("mtia2i", ()), (more, big)):
            o = Options(**{**opts.__dict__, "overrides": overrides})
            comp = compile_kernel(str(path), o)
            res = run(comp.binary, {k: v.copy() for k, v in inputs.items()}, grid=grid, overrides=overrides)
            got = res.outputs[out].reshape(np.shape(want))
            err = float(np.max(np.abs(got - want)))
            cycles[label] = res.stats.cycles
            print(f"  {label:16s} {res.stats.cycles:>10.0f} cycles  max |error| {err:.2e}  "
                  f"lmem high water {comp.meta['lmem_bytes']} bytes")
            for r in comp.remarks:
                print(f"    remark: {r.message} (estimated cost: {r.cost})")
        a, b = cycles["mtia2i"], cycles[more]
        print(f"  the ladder's cost: {a - b:+.0f} cycles ({100 * (a - b) / b:+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
