"""fp32 GEMMs on the matrix engine: bf16 parts against one bf16 product (``make bench-fp32-gemm``).

The engine multiplies bf16 / fp16 / int8 only: an fp32 ``tl.dot`` at ``input_precision="bf16x6"`` (torch's
"highest") splits each operand block into three bf16 parts on the vector unit and takes six passes, at
``"bf16x3"`` ("high") two parts and three passes (``mtiacc/codegen/matrix/dot.py``, ``split_loop``).  This compiles
BERT-base's feed-forward GEMM as torch's default mode runs ``nn.Linear(768, 3072)`` on a batch of 128
(``benchmarks/kernels/linear_fp32.py``: Inductor's template, 128 x 3072 x 768, the bias added) with the same tile
for each case, runs it on mtiasim and prints, for bf16 operands and for fp32 ones at each precision: the simulated
cycles, the instructions executed, the simulator's host CPU seconds, and the largest error against a float64
reference relative to ``|A| @ |B|`` (the normwise error ``precision.py``'s bounds are about).

``--table``: the table of docs/language.md (one program, a 64 x 64 x K product of fp32 standard-normal operands,
each ``input_precision``).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mtiacc.driver import Options, compile_kernel  # noqa: E402
from mtiasim.runner import run  # noqa: E402

KERNEL = HERE / "kernels" / "linear_fp32.py"
DOTS = HERE.parent / "tests" / "codegen" / "matrix" / "dot_kernels.py"
CASES = [("bf16", "ieee"), ("fp32", "bf16x3"), ("fp32", "bf16x6")]
DOT_TYPES = {"bf16": "tl.bfloat16", "fp32": "tl.float32"}


def _bf16(x: np.ndarray) -> np.ndarray:
    u = x.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _log2(e: float) -> str:
    return f"2^{math.log2(e):.1f}" if e > 0 else "0"


def gemm(m: int, n: int, k: int, blocks, max_steps: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    bm, bn, bk = blocks
    print(f"{m} x {k} @ {k} x {n} (+ bias), blocks {bm} x {bn} x {bk}, {math.ceil(m / bm) * math.ceil(n / bn)} programs")
    print(f"{'operands':<9} {'precision':<10} {'cycles':>11} {'instructions':>13} {'host s':>8} {'error':>9}")
    for dtype, prec in CASES:
        if dtype == "bf16":
            aa, ww = _bf16(a), _bf16(w)
            av = (aa.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            wv = (ww.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        else:
            aa, ww, av, wv = a, w, a.astype(np.float64), w.astype(np.float64)
        defines = {"M": str(m), "N": str(n), "K": str(k), "BLOCK_M": str(bm), "BLOCK_N": str(bn),
                   "BLOCK_K": str(bk), "GROUP_M": "8", "INPUT_PRECISION": f'"{prec}"', "DOT_TYPE": DOT_TYPES[dtype]}
        opts = Options(kernel="linear_kernel", signature=f"*fp32,*{dtype},*{dtype},*fp32", defines=defines)
        binary = compile_kernel(str(KERNEL), opts).binary
        grid = (math.ceil(m / bm) * math.ceil(n / bn),)
        t0 = time.process_time()
        res = run(binary, {"bias_ptr": bias, "a_ptr": aa, "w_ptr": ww, "c_ptr": np.zeros((m, n), np.float32)},
                  grid=grid, max_steps=max_steps)
        host = time.process_time() - t0
        ref = av @ wv.T + bias
        scale = np.abs(av) @ np.abs(wv).T + np.abs(bias)
        err = float((np.abs(res.outputs["c_ptr"].reshape(m, n) - ref) / scale).max())
        s = res.stats
        print(f"{dtype:<9} {prec:<10} {s.cycles:>11,} {s.instructions:>13,} {host:>8.1f} {_log2(err):>9}", flush=True)


def table() -> None:
    print(f"{'input_precision':<16} {'error K=64':>10} {'error K=256':>11} {'cycles K=64':>11} {'cycles K=256':>12}")
    for prec in ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"):
        errs, cycles = [], []
        for k in (64, 256):
            rng = np.random.default_rng(0)
            a = rng.standard_normal((64, k)).astype(np.float32)
            b = rng.standard_normal((k, 64)).astype(np.float32)
            opts = Options(kernel="dot_masked", signature="*fp32,*fp32,*fp32,i32,i32,i32",
                           defines={"BM": "64", "BN": "64", "BK": str(k), "PREC": f'"{prec}"'})
            res = run(compile_kernel(str(DOTS), opts).binary,
                      {"A": a, "B": b, "C": np.zeros((64, 64), np.float32), "M": np.array(64, np.int32),
                       "N": np.array(64, np.int32), "K": np.array(k, np.int32)}, grid=(1,))
            av, bv = a.astype(np.float64), b.astype(np.float64)
            errs.append(float((np.abs(res.outputs["C"] - av @ bv) / (np.abs(av) @ np.abs(bv))).max()))
            cycles.append(res.stats.cycles)
        print(f"{prec:<16} {errs[0]:>10.1e} {errs[1]:>11.1e} {cycles[0]:>11,} {cycles[1]:>12,}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="docs/language.md's table of input_precision instead")
    ap.add_argument("--shape", default="128,3072,768", help="M,N,K (default: BERT-base's feed-forward GEMM)")
    ap.add_argument("--blocks", default="32,32,64", help="BLOCK_M,BLOCK_N,BLOCK_K (default: torch's default "
                    "mode's tile for the fp32 GEMM)")
    ap.add_argument("--max-steps", type=int, default=100_000_000, help="the simulator's step limit")
    args = ap.parse_args(argv)
    if args.table:
        table()
        return 0
    m, n, k = (int(x) for x in args.shape.split(","))
    gemm(m, n, k, tuple(int(x) for x in args.blocks.split(",")), args.max_steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
