"""``make bench-roofline``: how far kernels are from the DRAM roofline, side by side.

For each kernel: the simulated time (mtiasim, the whole grid, launch included), the roofline time of the bytes
it cannot avoid (each input read once, each output written once, at the DRAM bandwidth of the machine YAML)
and their ratio (roofline / simulated: 100% is the roofline).  Where the kernel's semantics fix a count of vector
operations (dropout's Philox rounds: ``philox_ops``), a second ratio beside it takes the roofline as the larger of
the bytes' time and those operations' time at the vector unit's peak, the SE's ALUs sharing the floating-point
adds and multiplies (``ops_seconds``; "bytes+ops"); the bytes-only one stays.  Softmax runs twice: tutorial 02's kernel
(``tl.exp``: approximate, as on Triton's GPU backends, so on the SIMD engine's table, 2 ULP) and the same kernel
with ``libdevice.exp`` as Triton users also write it (CUDA's 2 ULP for ``expf``: the same table; the kernel written
under build/bench/).
Beside softmax and layer norm, their hand-written assembly versions (benchmarks/handwritten/: the expert
baselines the compiled kernels are measured against).  RMSNorm, GELU and bias + residual + dropout are written as TorchInductor
generates them (benchmarks/kernels/
inductor_*.py); RMSNorm and GELU also run with ``--fast-math`` (every function the SIMD engine has on it; GELU's erf
is there by default: its 2 ULP is the library's guarantee).
``--tutorials DIR`` (``make bench-roofline TUTORIALS=DIR``) adds Triton's tutorial kernels as their files have them
(01 vector add, 02 fused softmax, 05 layer norm, 03 matmul, 08 grouped GEMM, 09 persistent matmul), read from DIR,
at their benchmarks' sizes and their host code's launch parameters, through the CLI at its default flags, through
``mtiacc.load`` and through Triton running the tutorial's host code on the ``cpu`` backend, side by side; the GEMMs'
roofline is the larger of their bytes' time and their FLOPs' time at the DPE peak (benchmarks/roofline_tutorials.py).
``--compare`` adds the same kernels compiled without ``persistent-programs`` (no prefetch across the programs
of a PE) and without ``pipeline-loads`` too (the loops' DMA not overlapping their compute).
A run faster than its roofline stops the benchmark: the bound or the simulator is wrong (rand4x's row read 100.3% of
its bytes' roofline while the LLC served the half of a line another program's read had paid for, before a miss
filled whole lines).

    python benchmarks/bench_roofline.py [--quick] [--compare] [--opt 3] [--tutorials ../shared/triton-tests/tutorials]
"""
import argparse
import math
import sys
import time
from pathlib import Path
from typing import Dict

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from mtiacc.driver import Options, compile_kernel  # noqa: E402
from mtiacc.machine.simulator import load_config  # noqa: E402
from mtiasim.runner import run  # noqa: E402
from roofline_tutorials import print_tutorial_rows, tutorial_rows  # noqa: E402

F32, I32 = np.float32, np.int32


def vector_add(n: int):
    rng = np.random.default_rng(0)
    data = {"A_ptr": rng.standard_normal(n).astype(F32), "B_ptr": rng.standard_normal(n).astype(F32),
            "C_ptr": np.zeros(n, F32), "N": np.array(n, I32)}
    spec = dict(path="examples/vector_add.py", kernel=None, signature=None, defines={"BLOCK_SIZE": 1024},
                grid=((n + 1023) // 1024,))
    return spec, data, 3 * 4 * n, lambda out: np.testing.assert_array_equal(out["C_ptr"], data["A_ptr"] + data["B_ptr"])


def _softmax_check(x, y, m, n):
    z = np.exp(x.reshape(m, n).astype(np.float64) - x.reshape(m, n).max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.reshape(m, n), z / z.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)


def _precise_softmax() -> str:
    """Tutorial 02's kernel (examples/softmax.py) with ``libdevice.exp`` for ``tl.exp``, written under build/."""
    src = (ROOT / "examples/softmax.py").read_text()
    assert src.count("tl.exp(") == 1
    src = src.replace("import triton.language as tl\n", "import triton.language as tl\n"
                      "from triton.language.extra import libdevice\n").replace("tl.exp(", "libdevice.exp(")
    path = ROOT / "build" / "bench" / "softmax_precise.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(src)
    return str(path)


def softmax(m: int, n: int, precise: bool = False):
    x = np.random.default_rng(1).standard_normal(m * n).astype(F32)
    data = {"output_ptr": np.zeros(m * n, F32), "input_ptr": x, "input_row_stride": np.array(n, I32),
            "output_row_stride": np.array(n, I32), "n_cols": np.array(n, I32)}
    spec = dict(path=_precise_softmax() if precise else "examples/softmax.py", kernel="softmax_kernel", signature="*fp32,*fp32,i32,i32,i32",
                defines={"BLOCK_SIZE": 1 << (n - 1).bit_length()}, grid=(m,))
    return spec, data, 2 * 4 * m * n, lambda out: _softmax_check(x, out["output_ptr"], m, n)


def softmax_looped(m: int, n: int, block: int = 1024):
    x = np.random.default_rng(1).standard_normal(m * n).astype(F32)
    data = {"Y": np.zeros(m * n, F32), "X": x, "stride": np.array(n, I32), "N": np.array(n, I32)}
    spec = dict(path="benchmarks/kernels/softmax_looped.py", kernel="softmax_looped", signature="*fp32,*fp32,i32,i32",
                defines={"BLOCK": block}, grid=(m,))
    return spec, data, 2 * 4 * m * n, lambda out: _softmax_check(x, out["Y"], m, n)


def layer_norm(m: int, n: int, block: int = 1024):
    sys.path.insert(0, str(ROOT / "examples"))
    import layer_norm as ln
    rng = np.random.default_rng(2)
    x = rng.standard_normal((m, n)).astype(F32)
    w, b = rng.uniform(0.5, 1.5, n).astype(F32), rng.standard_normal(n).astype(F32)
    data = {"X": x.ravel(), "Y": np.zeros(m * n, F32), "W": w, "B": b, "Mean": np.zeros(m, F32),
            "Rstd": np.zeros(m, F32), "stride": np.array(n, I32), "N": np.array(n, I32), "eps": np.array(1e-5, F32)}
    spec = dict(path="examples/layer_norm.py", kernel="layer_norm_fwd",
                signature="*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32", defines={"BLOCK_SIZE": block}, grid=(m,))
    # X read once, Y written once, W and B read once, Mean and Rstd written once
    unavoidable = 4 * (2 * m * n + 2 * n + 2 * m)

    def check(out):
        y, mean, rstd = ln.reference(x, w, b, 1e-5)
        np.testing.assert_allclose(out["Y"].reshape(m, n), y, rtol=1e-4, atol=1e-4)
    return spec, data, unavoidable, check


def rms_norm(m: int, n: int, block: int = 1024):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((m, n)).astype(F32)
    w = rng.uniform(0.5, 1.5, n).astype(F32)
    data = {"in_ptr0": x.ravel(), "in_ptr1": w, "out_ptr1": np.zeros(m * n, F32)}
    spec = dict(path="benchmarks/kernels/inductor_rms_norm.py", kernel="triton_red_fused_add_mean_mul_pow_rsqrt_0",
                signature="*fp32,*fp32,*fp32", defines={"xnumel": m, "r0_numel": n, "XBLOCK": 1, "R0_BLOCK": block},
                grid=(m,))
    # X read once, the weight read once, Y written once

    def check(out):
        x64 = x.astype(np.float64)
        y = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6) * w
        np.testing.assert_allclose(out["out_ptr1"].reshape(m, n), y, rtol=1e-4, atol=1e-5)
    return spec, data, 4 * (2 * m * n + n), check


def gelu(n: int, block: int = 1024):
    x = np.random.default_rng(4).standard_normal(n).astype(F32) * 3
    data = {"in_ptr0": x, "out_ptr0": np.zeros(n, F32)}
    spec = dict(path="benchmarks/kernels/inductor_gelu.py", kernel="triton_poi_fused_gelu_0", signature="*fp32,*fp32",
                defines={"xnumel": n, "XBLOCK": block}, grid=((n + block - 1) // block,))

    def check(out):
        # erf through Python's math, so on a seeded sample of at most 2^16 elements
        idx = np.sort(np.random.default_rng(5).choice(n, min(n, 1 << 16), replace=False))
        x64 = x[idx].astype(np.float64)
        y = 0.5 * x64 * (1 + np.vectorize(math.erf)(x64 / math.sqrt(2)))
        np.testing.assert_allclose(out["out_ptr0"][idx], y, rtol=1e-5, atol=1e-6)
    return spec, data, 2 * 4 * n, check


# ------------------------------------------------------------------------------------------ the operations bound
# Where a kernel's semantics fix a count of vector operations, its roofline is the larger of the bytes' time and
# the time those operations take at the vector unit's peak (mtiacc/machine/mtia2i.yaml: datapath_bits / 32
# 32-bit lanes a cycle a PE, one operation a lane a cycle, every PE busy).  The count is a lower bound, kept
# conservative: only the operations no correct compiler for the ISA can leave out are counted (one vector
# instruction a binary operation with a per-element operand), and none of the loads and stores between local
# memory and the vector registers.

def philox_ops(words) -> Dict[str, int]:
    """The vector operations of Philox-4x32-10 that feed output words ``words`` (of 0..3), by kind, for a call
    whose counter is ``(offset, 0, 0, 0)`` (a 32-bit offset: tl.rand's and tl.rand4x's) and whose key is scalar.

    A round is ``c0, c1, c2, c3 = hi(B*c2) ^ c1 ^ k0, lo(B*c2), hi(A*c0) ^ c3 ^ k1, lo(A*c0)``.  A value is a
    per-element vector, a scalar (the key words, a product or xor of scalars) or zero; an operation costs one
    vector instruction when an operand is a vector (``hi`` and ``lo`` of a vector: a high multiply and a
    multiply; ``a ^ b ^ k``: two xors when ``a`` and ``b`` are vectors, one when either is zero or a scalar
    folded into the key).  Operations whose results no requested word reads are not counted.  Word 0: 16 high
    multiplies, 14 multiplies, 30 xors (60); all four words: 18, 18, 34 (70)."""
    ops = []          # (kind, inputs) of each vector operation, by index
    ZERO, SCALAR = "0", "s"

    def vector_op(kind, *args):
        ops.append((kind, [a for a in args if isinstance(a, int)]))
        return len(ops) - 1

    def product(kind, x):       # hi(M * x) or lo(M * x)
        return vector_op(kind, x) if isinstance(x, int) else (ZERO if x == ZERO else SCALAR)

    def xor_key(a, b):          # a ^ b ^ key
        vecs = [x for x in (a, b) if isinstance(x, int)]
        if not vecs:
            return SCALAR
        r = vecs[0] if len(vecs) == 1 else vector_op("xor", *vecs)
        return vector_op("xor", r)      # the key (and a scalar operand) xored in: one more instruction

    c = (-1, ZERO, ZERO, ZERO)          # -1: the offset, a vector
    for _ in range(10):
        c0, c1, c2, c3 = c
        c = (xor_key(product("high multiply", c2), c1), product("multiply", c2),
             xor_key(product("high multiply", c0), c3), product("multiply", c0))
    needed, todo = set(), [c[w] for w in words]
    while todo:
        v = todo.pop()
        if isinstance(v, int) and v >= 0 and v not in needed:
            needed.add(v)
            todo.extend(ops[v][1])
    counts: Dict[str, int] = {}
    for i in needed:
        counts[ops[i][0]] = counts.get(ops[i][0], 0) + 1
    return counts


def vector_ops_per_s(cfg) -> float:
    """32-bit vector operations a second over the chip, at the vector unit's peak."""
    return cfg.datapath_bits / 32 * cfg.n_pes * cfg.clock_hz


def se_ops_per_s(cfg) -> float:
    """Floating-point element operations a second over the chip on the SIMD engine's ALUs (``se:`` in the YAML),
    which a compiler may give a float add or multiply beside the vector unit."""
    return cfg.se.elements_per_cycle * cfg.n_pes * cfg.clock_hz


def ops_seconds(ops, cfg) -> float:
    """The operations bound of ``ops = (vector_only, either)``: integer work (Philox, conversions, compares) only
    the vector unit does; floating-point adds and multiplies the vector unit or the SE's ALUs may take, so the two
    units share them at best."""
    vector_only, either = ops
    v = vector_ops_per_s(cfg)
    return max(vector_only / v, (vector_only + either) / (v + se_ops_per_s(cfg)))


def bias_residual_dropout(m: int, n: int, p: float = 0.1, seed: int = 1234, block: int = 1024, rand4x=False):
    """``rand4x``: the kernel drawing through ``triton_helpers.rand4x`` (Inductor's form for a 1-D CUDA kernel)."""
    from tests.language.random import reference as ref   # the numpy model of Triton's Philox and tl.rand
    rng = np.random.default_rng(6)
    x, res = rng.standard_normal(m * n).astype(F32), rng.standard_normal(m * n).astype(F32)
    bias = rng.standard_normal(n).astype(F32)
    data = {"in_ptr0": np.array([seed], np.int64), "in_ptr1": x, "in_ptr2": bias, "in_ptr3": res,
            "out_ptr0": np.zeros(m * n, F32), "load_seed_offset": np.array(0, I32)}
    spec = dict(path="benchmarks/kernels/inductor_bias_residual_dropout.py",
                kernel="triton_poi_fused_add_native_dropout_" + ("rand4x_0" if rand4x else "0"),
                signature="*i64,*fp32,*fp32,*fp32,*fp32,i32",
                defines={"ks0": n, "xnumel": m * n, "XBLOCK": block}, grid=((m * n + block - 1) // block,))
    # X and the residual read once, the bias once, the seed once, the output written once.  Operations a element:
    # the Philox words it uses (tl.rand: word 0 of its own call; rand4x: a quarter of a call's four words), one
    # turning the word into the keep decision (the uniform conversion and the compare, at least one instruction),
    # all on the vector unit; then the bias add, and one fused multiply-add for the scale and the residual with
    # the keep decision as its mask (fewer than the kernel's exact rounding needs: a lower bound), which the SE's
    # ALUs may share with the vector unit
    philox = sum(philox_ops((0, 1, 2, 3)).values()) / 4 if rand4x else sum(philox_ops((0,)).values())
    spec["ops"] = (m * n * (philox + 1), m * n * 2)

    def check(out):
        # the kept/dropped pattern is the Philox stream bit for bit: tl.rand takes the first word of each flat
        # index's call, rand4x the four words of the call for index // 4 in turn
        if rand4x:
            words = ref.randint4x(seed, np.arange(m * n // 4, dtype=np.uint32))
            u = ref.uint_to_uniform_float(np.stack(words, axis=1).ravel())
        else:
            u = ref.uint_to_uniform_float(ref.randint4x(seed, np.arange(m * n, dtype=np.uint32))[0])
        keep = u > F32(p)
        assert abs(1 - keep.mean() - p) < 0.01, keep.mean()
        y = keep.astype(F32) * (x + np.tile(bias, m)) * F32(1.1111111111111112) + res
        np.testing.assert_allclose(out["out_ptr0"], y, rtol=1e-6, atol=1e-6)
    return spec, data, 4 * (3 * m * n + n) + 8, check


def measure(name, case, level, disabled=(), fast_math=False):
    spec, data, unavoidable, check = case
    opts = Options(kernel=spec["kernel"], signature=spec["signature"], opt_level=level, disabled_passes=tuple(disabled),
                   defines={k: str(v) for k, v in spec["defines"].items()}, fast_math=fast_math)
    binary = compile_kernel(str(ROOT / spec["path"]), opts).binary
    t0 = time.perf_counter()
    res = run(binary, data, grid=spec["grid"], max_cycles=1e9)   # dropout at 4096^2 runs past the default
    wall = time.perf_counter() - t0
    check(res.outputs)
    build = f"-O{level}" + (" --fast-math" if fast_math else "") + (f" --disable-pass={','.join(disabled)}"
                                                                    if disabled else "")
    return _row(name, build, res.stats.cycles, unavoidable, spec.get("ops"), wall)


def _row(name, build, cycles, unavoidable, ops, wall):
    """A table row: the bytes-only roofline and, for a kernel with an operations count, max(bytes, ops)."""
    cfg = load_config()
    roof_s, sim_s = unavoidable / cfg.dram_bw_bytes_per_s, cycles / cfg.clock_hz
    ops_s = ops_seconds(ops, cfg) if ops else 0.0
    both_s = max(roof_s, ops_s)
    if both_s > sim_s:
        raise AssertionError(f"{name} ({build}): {100 * both_s / sim_s:.1f}% of its roofline (above 100%: the roofline "
                             "or the simulated time is wrong)")
    return dict(name=name, build=build, sim_us=sim_s * 1e6, roof_us=roof_s * 1e6, ratio=roof_s / sim_s,
                ops_us=ops_s * 1e6 if ops else None, ratio_ops=both_s / sim_s, cycles=cycles,
                mbytes=unavoidable / 1e6, wall=wall)


def _hand_row(name, build, run, unavoidable):
    t0 = time.perf_counter()
    cycles, _ = run()
    return _row(name, build, cycles, unavoidable, None, time.perf_counter() - t0)


def hand_softmax(name, m: int, n: int):
    """The row of the hand-written assembly softmax (benchmarks/handwritten/softmax.py) on softmax()'s input."""
    from handwritten.softmax import run_softmax
    x = np.random.default_rng(1).standard_normal(m * n).astype(F32).reshape(m, n)
    return _hand_row(name, "hand-written assembly (SE exp, reciprocal multiply)", lambda: run_softmax(x),
                     2 * 4 * m * n)


def hand_layer_norm(name, m: int, n: int):
    """The row of the hand-written assembly layer norm (benchmarks/handwritten/layer_norm.py) on layer_norm()'s
    input."""
    from handwritten.layer_norm import run_layer_norm
    rng = np.random.default_rng(2)
    x = rng.standard_normal((m, n)).astype(F32)
    w, b = rng.uniform(0.5, 1.5, n).astype(F32), rng.standard_normal(n).astype(F32)
    return _hand_row(name, "hand-written assembly (W, B kept in local memory)", lambda: run_layer_norm(x, w, b),
                     4 * (2 * m * n + 2 * n + 2 * m))


def bench(m, n, vn, level=3, compare=False, looped=False, gn=None):
    """The rows of the table: one per kernel and build (GELU of ``gn`` elements, ``vn`` unless given)."""
    gn = gn or vn
    sm, rms, ge, ln = softmax(m, n), rms_norm(m, n), gelu(gn), layer_norm(m, n)
    cases = [(f"vector add 2^{vn.bit_length() - 1}", vector_add(vn), False), (f"softmax {m}x{n}", sm, False),
             (f"  same, libdevice.exp {m}x{n}", softmax(m, n, precise=True), False), (f"layer norm fwd {m}x{n}", ln, False),
             (f"rmsnorm (Inductor) {m}x{n}", rms, False), (f"rmsnorm (Inductor) {m}x{n}", rms, True),
             (f"gelu (Inductor) 2^{gn.bit_length() - 1}", ge, False),
             (f"gelu (Inductor) 2^{gn.bit_length() - 1}", ge, True),
             (f"bias+res+dropout (Inductor) {m}x{n}", bias_residual_dropout(m, n), False),
             (f"  same, rand4x {m}x{n}", bias_residual_dropout(m, n, rand4x=True), False)]
    if looped:
        cases.append((f"softmax looped {m}x{n}", softmax_looped(m, n), False))
    rows = []
    for name, case, fast in cases:
        # compare: every kernel, or the kernels whose names start with one of the given prefixes
        cmp = compare if isinstance(compare, bool) else name.startswith(tuple(compare))
        builds = [()] + ([("persistent-programs",), ("persistent-programs", "pipeline-loads")] if cmp else [])
        for disabled in builds:
            rows.append(measure(name, case, level, disabled, fast))
        if case is sm:   # the expert baselines beside the compiled kernels
            rows.append(hand_softmax(name, m, n))
        if case is ln:
            rows.append(hand_layer_norm(name, m, n))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--compare", action="store_true", help="also without pipeline-loads")
    ap.add_argument("--looped", action="store_true", help="also the looped softmax (benchmarks/kernels)")
    ap.add_argument("--opt", type=int, default=None, help="optimization level (default: the compiler's)")
    ap.add_argument("--tutorials", help="Triton's tutorials folder: also its kernels as written (01, 02, 03, 05, 08, "
                    "09), through the CLI, mtiacc.load and Triton (benchmarks/roofline_tutorials.py)")
    ap.add_argument("--only", nargs="+", metavar="PREFIX", help="only the tutorial rows whose names start so (e.g. 03 09)")
    ap.add_argument("--tutorials-only", action="store_true", help="only the tutorials' rows")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="change a machine key for the tutorial rows' runs, every path (as mtiasim run --set; "
                    "e.g. memory.sram.llc_bytes=0)")
    args = ap.parse_args(argv)
    m, n, vn, gn = (64, 1024, 1 << 16, 1 << 16) if args.quick else (4096, 4096, 1 << 20, 1 << 24)
    level = Options().opt_level if args.opt is None else args.opt
    tutorials = tutorial_rows(Path(args.tutorials).resolve(), args.quick, args.opt, args.only, args.overrides) \
        if args.tutorials else []
    rows = [] if args.tutorials_only else bench(m, n, vn, level, args.compare, args.looped, gn)
    cfg = load_config()
    if args.overrides:
        print(f"tutorial rows with --set {' --set '.join(args.overrides)}")
    print(f"DRAM bandwidth {cfg.dram_bw_bytes_per_s / 1e9:.0f} GB/s, clock {cfg.clock_hz / 1e9:.2f} GHz "
          "(mtiacc/machine/mtia2i.yaml)")
    if rows:
        print_rows(rows, cfg)
    if tutorials:
        print_tutorial_rows(tutorials)


def print_rows(rows, cfg):
    print(f"vector unit {vector_ops_per_s(cfg) / 1e9:.0f} G 32-bit operations/s ({cfg.datapath_bits}-bit datapath, "
          f"{cfg.n_pes} PEs), SE ALUs {se_ops_per_s(cfg) / 1e9:.0f} G element operations/s (floating-point adds and "
          "multiplies only)")
    print("'of roofline': bytes only; 'bytes+ops': max(bytes, ops) for kernels with an operations count (the same "
          "elsewhere)")
    print(f"{'kernel':<38} {'build':<64} {'MB moved':>9} {'simulated us':>13} {'roofline us':>12} {'ops us':>8} "
          f"{'of roofline':>12} {'bytes+ops':>10}")
    for r in rows:
        ops = f"{r['ops_us']:>8.1f}" if r["ops_us"] is not None else f"{'-':>8}"
        print(f"{r['name']:<38} {r['build']:<64} {r['mbytes']:>9.2f} {r['sim_us']:>13.1f} {r['roof_us']:>12.1f} "
              f"{ops} {100 * r['ratio']:>11.1f}% {100 * r['ratio_ops']:>9.1f}%")


if __name__ == "__main__":
    main()
