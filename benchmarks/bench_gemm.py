"""GEMMs on the matrix engine against the chip's peak, their roofline and a hand-written kernel (``make bench-gemm``).

Each case compiles ``benchmarks/kernels/matmul.py`` (Triton's tutorial-03 GEMM shape) with its block sizes,
runs it on mtiasim with the operands in DRAM or in the on-chip SRAM, checks the result against numpy and
prints, side by side:

- ``% DPE peak``: the time the chip's matrix engines need for the FLOPs at their peak (``2 M N K / 177e12`` s
  for fp16 / bf16, twice the rate for int8) over the simulated time;
- ``% roofline``: the run's roofline bound (the slowest resource alone, job launch included) over the simulated
  time;
- ``vs hand``: the hand-written assembly GEMM's simulated cycles (``benchmarks/handwritten/``, row-major A and B)
  over the compiled kernel's (>= 1.0: the compiled kernel is at least as fast).

The layout column says how the operands are stored, as a torch tensor arrives: ``A`` row-major ``[M, K]``,
``At`` the transpose of a row-major ``[K, M]`` (``stride_am`` 1), ``B`` row-major ``[K, N]``, ``Bt`` the
transpose of a row-major ``[N, K]`` (``stride_bk`` 1, as ``nn.Linear`` multiplies by its weight).  A stride equal
to 1 is compiled as the constant 1, as Triton specializes an integer argument equal to 1; the others are run-time
arguments.  The decode rows (``M`` of 1 to 16, the weights in DRAM) are bound by DRAM: their ``% roofline`` is the
figure to read.

- ``goal`` and ``met``: issue 28's goal for the row (2048^3: 90% of the DPE peak; 4096 x 4096 x 512 in SRAM: 85% of
  the DPE peak; the decode rows: 85% of their roofline, the DRAM's) and whether the row reaches it (``-``: no goal).
- ``engine bound``: the largest fraction of the DPE peak the row can reach on this machine whatever the compiler
  does, from the matrix engine alone (:func:`engine_bound`): the launch, then on the PE with the most tiles their
  products and the accumulator port's work, which take turns (an ``mm`` does not start while the port is busy):
  every output element's accumulator is cleared and written back, 8 bytes through the port
  (``dpe.acc_bytes_per_cycle``), so at K = 512 an int8 GEMM spends a quarter of its product time there (at most 80%
  of the peak before the launch), a bf16 one an eighth.  Neither the operands' transfers nor the output's store
  count: a goal above the bound needs another machine, not another compiler.

``--set KEY=VALUE`` (repeatable) runs the rows on the machine changed as ``mtiasim run --set`` changes it, e.g.
``--set memory.sram.bw_bytes_per_s=10.8e12`` (four times the SRAM bandwidth: what the rows lose to the SRAM).

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

LAYOUTS = ("A B", "A Bt", "At B", "At Bt")
BLOCKS = {"bf16": (256, 128, 64), "fp16": (256, 128, 64), "int8": (256, 128, 64)}

# (M, N, K, dtype, placement, block sizes (M, N, K), group size, layout)
CASES = [
    (2048, 2048, 2048, "bf16", "dram", (256, 128, 64), 8, "A B"),
    *[(2048, 2048, 2048, t, "sram", BLOCKS[t], 8, lay) for t in ("bf16", "fp16", "int8") for lay in LAYOUTS],
    *[(4096, 4096, 512, t, "sram", BLOCKS[t], 8, lay) for t in ("bf16", "fp16", "int8") for lay in LAYOUTS],
    (4096, 4096, 512, "fp16", "dram", (256, 128, 64), 8, "A B"),
    *[(512, 512, 512, t, "sram", (64, 64, 128 if t == "int8" else 64), 8, lay)
      for t in ("bf16", "fp16", "int8") for lay in LAYOUTS],
    # decode: a few rows of activations times weights in DRAM (nn.Linear: A x Bt), one program per 64 columns
    *[(m, 4096, 4096, t, "dram", (16, 64, 512), 1, lay) for m in (1, 16) for t in ("bf16", "int8")
      for lay in ("A B", "A Bt")],
]
QUICK = [c for c in CASES if c[0] == 512 and c[3] != "fp16"] + [(1, 4096, 4096, "bf16", "dram", (16, 64, 512), 1, "A Bt")]


def goal(case):
    """(the figure, its goal as a fraction) of issue 28 for ``case``, or None."""
    M, N, K, _dtype, place, *_ = case
    if (M, N, K) == (2048, 2048, 2048) and place == "sram":
        return "peak", 0.90
    if (M, N, K) == (4096, 4096, 512) and place == "sram":
        return "peak", 0.85
    if M <= 16 and N == K == 4096 and place == "dram":
        return "roofline", 0.85
    return None


def engine_bound(case, cfg) -> float:
    """The fraction of the DPE peak ``case`` reaches at most on machine ``cfg`` (the module docstring's ``engine
    bound``): the peak's time over the launch plus, on the PE with the most tiles, each tile's engine time: its
    ``mm`` commands (``BM`` rows, streamed ``macs / 1024`` a cycle, per column group of 32 and K tile of 32) and its
    accumulators' clearing (``zero``: 128-byte rows) and write-back (``acc.st``: the port moves fp32 rows, whatever
    it writes), ``BM`` rows per column group each, at the port's ``acc_bytes_per_cycle``."""
    M, N, K, dtype, _place, (BM, BN, _BK), *_ = case
    macs = cfg.dpe.macs("int8" if dtype == "int8" else "bf16")
    groups, ktiles = -(-BN // 32), -(-K // 32)
    products = BM / (macs / 1024) * groups * ktiles
    port = 2 * BM * groups * 128 / cfg.dpe.acc_bytes_per_cycle
    tiles = -(-M // BM) * -(-N // BN)
    busiest = -(-tiles // cfg.n_pes)
    peak = M * N * K / (macs * cfg.n_pes)
    return peak / (cfg.job_launch_cycles + busiest * (products + port))


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


NAMES = ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"]


def strides(M, N, K, layout):
    """The kernel's scalar arguments for operands stored as ``layout`` says."""
    at, bt = layout.split()[0] == "At", layout.split()[1] == "Bt"
    return [M, N, K, *((1, M) if at else (K, 1)), *((1, K) if bt else (N, 1)), N, 1]


def compile_case(M, N, K, dtype, blocks, group, layout="A B"):
    """The binary, and the scalar parameters compiled as constants (the strides equal to 1, as Triton
    specializes them)."""
    consts = [n for n, v in zip(NAMES, strides(M, N, K, layout)) if n.startswith("stride") and v == 1]
    ab = {"int8": "i8"}.get(dtype, dtype)
    ct = {"int8": "i32"}.get(dtype, dtype)
    sig = f"*{ab},*{ab},*{ct}," + ",".join(["i32"] * (len(NAMES) - len(consts)))
    bm, bn, bk = blocks
    defines = {"BLOCK_SIZE_M": str(bm), "BLOCK_SIZE_N": str(bn), "BLOCK_SIZE_K": str(bk),
               "GROUP_SIZE_M": str(group), "ACTIVATION": '""', "INTEGER": str(int(dtype == "int8")),
               **{n: "1" for n in consts}}
    opts = Options(kernel="matmul_kernel", signature=sig, defines=defines)   # the default flags
    return compile_kernel(str(KERNEL), opts).binary, consts


def measure(case, cfg, rng, overrides=()):
    M, N, K, dtype, place, blocks, group, layout = case
    binary, consts = compile_case(M, N, K, dtype, blocks, group, layout)
    a, b, fa, fb, c, _abt, ctype = _operands(rng, M, N, K, dtype)
    a_stored = np.ascontiguousarray(a.T) if layout.startswith("At") else a
    b_stored = np.ascontiguousarray(b.T) if layout.endswith("Bt") else b
    inputs = {"a_ptr": a_stored, "b_ptr": b_stored, "c_ptr": c,
              **{n: np.array(v, np.int32) for n, v in zip(NAMES, strides(M, N, K, layout)) if n not in consts}}
    grid = ((M + blocks[0] - 1) // blocks[0] * ((N + blocks[1] - 1) // blocks[1]),)
    place_all = {"a_ptr": place, "b_ptr": place, "c_ptr": place}
    t0 = time.perf_counter()
    res = run(binary, inputs, grid=grid, place=place_all, overrides=overrides)
    wall = time.perf_counter() - t0
    ref = fa @ fb
    got = _as_float(res.outputs["c_ptr"].reshape(M, N), ctype)
    err = float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30))
    if dtype == "int8":   # float64 products of int8 sum exactly (|sum| <= K * 2^14 < 2^53): ref is exact
        assert K < 2 ** 39
        ok = np.array_equal(res.outputs["c_ptr"].reshape(M, N), ref.astype(np.int32))
    else:
        ok = err < (1e-2 if ctype == "bf16" else 2e-3)
    s = res.stats
    macs_per_cycle = cfg.dpe.macs("int8" if dtype == "int8" else "bf16")
    dpe_peak_s = M * N * K / (macs_per_cycle * cfg.n_pes * cfg.clock_hz)
    return {"case": f"{M}x{N}x{K} {dtype} {place}", "layout": layout, "blocks": "x".join(map(str, blocks)), "cycles": s.cycles,
            "time_us": s.time_s * 1e6, "peak": dpe_peak_s / s.time_s, "bound": engine_bound(case, cfg),
            "roofline": s.roofline()[2],
            "bound_by": s.roofline()[0], "ok": ok, "err": err, "wall": wall}


_HAND = {}


def handwritten_cycles(case, cfg, rng):
    """The hand-written kernel's cycles for the case's shape, type, placement and blocks (row-major operands: the
    same figure beside every layout of a shape)."""
    try:
        from handwritten.gemm import run_gemm  # benchmarks/handwritten/gemm.py
    except ImportError:
        return None
    M, N, K, dtype, place, blocks, _group, _layout = case
    key = (M, N, K, dtype, place, blocks)
    if key not in _HAND:
        _HAND[key] = run_gemm(M, N, K, dtype, place, blocks, cfg=cfg, rng=rng)
    return _HAND[key]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the small cases")
    ap.add_argument("--match", default="", help="only the cases whose 'case layout' text contains this")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="change one key of the machine for every run (as mtiasim run --set)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    cfg = load_config(None, args.overrides)
    rng = np.random.default_rng(0)
    print(f"machine: {cfg.name}{' with ' + ', '.join(args.overrides) if args.overrides else ''} "
          f"(the SRAM cases do not use the LLC)")
    print(f"{'case':<26} {'layout':<6} {'blocks':<12} {'cycles':>11} {'us':>9} {'% DPE peak':>10} {'% roofline':>10} "
          f"{'bound':>8} {'hand cycles':>11} {'vs hand':>7} {'goal':>14} {'met':>4} {'engine bound':>12} "
          f"{'check':>12} {'wall s':>7}")
    failed = 0
    for case in (QUICK if args.quick else CASES):
        if args.match not in f"{case[0]}x{case[1]}x{case[2]} {case[3]} {case[4]} {case[7]}":
            continue
        r = measure(case, cfg, rng, args.overrides)
        hand = handwritten_cycles(case, cfg, rng) if not args.overrides else None   # (on the machine as it is)
        vs = f"{hand / r['cycles']:.3f}" if hand else "-"
        check = "exact" if r["ok"] and case[3] == "int8" else (f"ok {r['err']:.1e}" if r["ok"] else "WRONG")
        failed += not r["ok"]
        g = goal(case)
        want = f"{100 * g[1]:.0f}% {'peak' if g[0] == 'peak' else 'roofline'}" if g else "-"
        met = ("yes" if r[g[0]] >= g[1] else "no") if g else "-"
        print(f"{r['case']:<26} {r['layout']:<6} {r['blocks']:<12} {r['cycles']:>11,} {r['time_us']:>9.2f} {100 * r['peak']:>9.1f}% "
              f"{100 * r['roofline']:>9.1f}% {r['bound_by']:>8} {hand or '-':>11} {vs:>7} {want:>14} {met:>4} "
              f"{100 * r['bound']:>11.1f}% {check:>12} {r['wall']:>7.1f}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
