"""GEMMs on the matrix engine against the chip's peak, their roofline and a hand-written kernel (``make bench-gemm``).

Each case compiles ``benchmarks/kernels/matmul.py`` (Triton's tutorial-03 GEMM shape) with its block sizes,
runs it on mtiasim with the operands in DRAM or in the on-chip SRAM, checks the result against numpy and
prints, side by side:

- ``% DPE peak``: the time the chip's matrix engines need for the FLOPs at their peak (``2 M N K / 177e12`` s
  for fp16 / bf16, twice the rate for int8) over the simulated time;
- ``% roofline``: the run's roofline bound (the slowest resource alone, job launch included) over the simulated
  time;
- ``vs hand``: the hand-written assembly GEMM's simulated cycles (``benchmarks/handwritten/``) over the compiled
  kernel's (>= 1.0: the compiled kernel is at least as fast).

``--quick`` runs the small cases only.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mtiacc.driver import Options, compile_kernel  # noqa: E402
from mtiacc.machine.simulator import load_config  # noqa: E402
from mtiasim.runner import run  # noqa: E402

KERNEL = HERE / "kernels" / "matmul.py"

# (M, N, K, dtype, placement, block sizes (M, N, K), group size)
CASES = [
    (2048, 2048, 2048, "bf16", "sram", (256, 128, 64), 8),
    (2048, 2048, 2048, "bf16", "dram", (256, 128, 64), 8),
    (512, 512, 512, "bf16", "sram", (64, 64, 64), 8),
    (512, 512, 512, "fp16", "sram", (64, 64, 64), 8),
    (512, 512, 512, "int8", "sram", (64, 64, 128), 8),
    (4096, 4096, 512, "fp16", "sram", (256, 128, 64), 8),
    (4096, 4096, 512, "fp16", "dram", (256, 128, 64), 8),
    (4096, 4096, 512, "int8", "sram", (256, 128, 128), 8),
]
QUICK = [c for c in CASES if c[0] * c[1] * c[2] <= 512 ** 3]


def _operands(rng, M, N, K, dtype):
    """(a, b as stored, a and b as float64, the output array, the signature's element type of c)."""
    if dtype == "int8":
        a = rng.integers(-128, 128, (M, K), dtype=np.int8)
        b = rng.integers(-128, 128, (K, N), dtype=np.int8)
        return a, b, a.astype(np.float64), b.astype(np.float64), np.zeros((M, N), np.int32), "i8", "i32"
    a32 = rng.standard_normal((M, K)).astype(np.float32)
    b32 = rng.standard_normal((K, N)).astype(np.float32)
    if dtype == "fp16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        return a, b, a.astype(np.float64), b.astype(np.float64), np.zeros((M, N), np.float16), "fp16", "fp16"
    a = (a32.view(np.uint32) >> 16).astype(np.uint16)     # bf16 bits (truncated)
    b = (b32.view(np.uint32) >> 16).astype(np.uint16)
    fa = (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    fb = (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a, b, fa, fb, np.zeros((M, N), np.uint16), "bf16", "bf16"


def _as_float(c, ctype):
    if ctype == "bf16":
        return (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return c.astype(np.float64)


def compile_case(M, N, K, dtype, blocks, group):
    ab = {"int8": "i8"}.get(dtype, dtype)
    ct = {"int8": "i32"}.get(dtype, dtype)
    sig = f"*{ab},*{ab},*{ct}," + ",".join(["i32"] * 9)
    bm, bn, bk = blocks
    defines = {"BLOCK_SIZE_M": str(bm), "BLOCK_SIZE_N": str(bn), "BLOCK_SIZE_K": str(bk),
               "GROUP_SIZE_M": str(group), "ACTIVATION": '""', "INTEGER": str(int(dtype == "int8"))}
    opts = Options(kernel="matmul_kernel", signature=sig, opt_level=3, defines=defines)
    return compile_kernel(str(KERNEL), opts).binary


def measure(case, cfg, rng):
    M, N, K, dtype, place, blocks, group = case
    binary = compile_case(M, N, K, dtype, blocks, group)
    a, b, fa, fb, c, _abt, ctype = _operands(rng, M, N, K, dtype)
    scalars = [M, N, K, K, 1, N, 1, N, 1]
    names = ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"]
    inputs = {"a_ptr": a, "b_ptr": b, "c_ptr": c, **{n: np.array(v, np.int32) for n, v in zip(names, scalars)}}
    grid = ((M + blocks[0] - 1) // blocks[0] * ((N + blocks[1] - 1) // blocks[1]),)
    place_all = {"a_ptr": place, "b_ptr": place, "c_ptr": place}
    t0 = time.perf_counter()
    res = run(binary, inputs, grid=grid, place=place_all)
    wall = time.perf_counter() - t0
    ref = fa @ fb
    got = _as_float(res.outputs["c_ptr"].reshape(M, N), ctype)
    err = float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30))
    if dtype == "int8":
        ok = np.array_equal(res.outputs["c_ptr"].reshape(M, N), (a.astype(np.int64) @ b.astype(np.int64))
                            .astype(np.int32))
    else:
        ok = err < (1e-2 if ctype == "bf16" else 2e-3)
    s = res.stats
    macs_per_cycle = cfg.dpe.macs("int8" if dtype == "int8" else "bf16")
    dpe_peak_s = M * N * K / (macs_per_cycle * cfg.n_pes * cfg.clock_hz)
    return {"case": f"{M}x{N}x{K} {dtype} {place}", "blocks": "x".join(map(str, blocks)), "cycles": s.cycles,
            "time_us": s.time_s * 1e6, "peak": dpe_peak_s / s.time_s, "roofline": s.roofline()[2],
            "bound": s.roofline()[0], "ok": ok, "err": err, "wall": wall}


def handwritten_cycles(case, cfg, rng):
    try:
        from handwritten.gemm import run_gemm  # benchmarks/handwritten/gemm.py
    except ImportError:
        return None
    M, N, K, dtype, place, blocks, _group = case
    return run_gemm(M, N, K, dtype, place, blocks, cfg=cfg, rng=rng)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the small cases")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    cfg = load_config(None)
    rng = np.random.default_rng(0)
    print(f"{'case':<26} {'blocks':<12} {'cycles':>11} {'us':>9} {'% DPE peak':>10} {'% roofline':>10} "
          f"{'bound':>8} {'hand cycles':>11} {'vs hand':>7} {'check':>12} {'wall s':>7}")
    failed = 0
    for case in (QUICK if args.quick else CASES):
        r = measure(case, cfg, rng)
        hand = handwritten_cycles(case, cfg, rng)
        vs = f"{hand / r['cycles']:.3f}" if hand else "-"
        check = "exact" if r["ok"] and case[3] == "int8" else (f"ok {r['err']:.1e}" if r["ok"] else "WRONG")
        failed += not r["ok"]
        print(f"{r['case']:<26} {r['blocks']:<12} {r['cycles']:>11,} {r['time_us']:>9.2f} {100 * r['peak']:>9.1f}% "
              f"{100 * r['roofline']:>9.1f}% {r['bound']:>8} {hand or '-':>11} {vs:>7} {check:>12} "
              f"{r['wall']:>7.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
