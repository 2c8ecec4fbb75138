"""``make bench-passes``: the optimizer's effect on the simulated machine, pass by pass -> docs/passes.md.

For each example kernel (``EXAMPLES`` below: constexprs, signature, grid and seeded inputs), compile at
-O0..-O3 and at -O3 with each pass of the -O3 pipeline disabled in turn, run on mtiasim, and tabulate
instructions retired and simulated cycles.  ``python benchmarks/bench_passes.py [--out FILE] [--quick]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mtiacc.driver import Options, compile_kernel  # noqa: E402
from mtiacc.opt import PASSES, REQUIRED_PREFIX, REQUIRED_TAIL, parse_pipeline, pipeline_for_level  # noqa: E402


def vector_add_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return {"A_ptr": rng.standard_normal(n).astype(np.float32), "B_ptr": rng.standard_normal(n).astype(np.float32),
            "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}


def unary_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return {"X": (3 * rng.standard_normal(n)).astype(np.float32), "Y": np.zeros(n, np.float32),
            "N": np.array(n, np.int32)}


def row_sum_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    m = 8
    return {"X": rng.standard_normal(m * n).astype(np.float32), "Y": np.zeros(m, np.float32),
            "M": np.array(m, np.int32), "N": np.array(n, np.int32)}


def matmul_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    k = 16
    return {"A": rng.standard_normal(n * k).astype(np.float32), "B": rng.standard_normal(k * n).astype(np.float32),
            "C": np.zeros(n * n, np.float32), "M": np.array(n, np.int32), "N": np.array(n, np.int32),
            "K": np.array(k, np.int32)}


def rows_inputs(out_dtype):
    def inputs(n: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(8 * n).astype(np.float32)
        return {"X": x, "OUT" if out_dtype == np.int32 else "Y": np.zeros(8 if out_dtype == np.int32 else 8 * n, out_dtype),
                "N": np.array(n, np.int32), "stride": np.array(n, np.int32)}
    return inputs


def transpose_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    m, k = n, n // 2 + 5
    return {"X": rng.standard_normal(m * k).astype(np.float32), "Y": np.zeros(m * k, np.float32),
            "M": np.array(m, np.int32), "N": np.array(k, np.int32), "stride_xm": np.array(k, np.int32),
            "stride_xn": np.array(1, np.int32), "stride_ym": np.array(m, np.int32), "stride_yn": np.array(1, np.int32)}


def loop_scale_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return {"X": rng.standard_normal(n).astype(np.float32), "Y": np.zeros(n, np.float32),
            "N": np.array(n, np.int32), "scale": np.array(0.75, np.float32), "ITERS": np.array(3, np.int32)}


def softmax_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return {"output_ptr": np.zeros(8 * n, np.float32), "input_ptr": rng.standard_normal(8 * n).astype(np.float32),
            "input_row_stride": np.array(n, np.int32), "output_row_stride": np.array(n, np.int32),
            "n_cols": np.array(n, np.int32)}


def norm_inputs(layer_norm: bool):
    def inputs(n: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        d = {"X": rng.standard_normal(8 * n).astype(np.float32), "Y": np.zeros(8 * n, np.float32),
             "W": rng.uniform(0.5, 1.5, n).astype(np.float32)}
        if layer_norm:
            d.update(B=rng.standard_normal(n).astype(np.float32), Mean=np.zeros(8, np.float32),
                     Rstd=np.zeros(8, np.float32))
        d.update(stride=np.array(n, np.int32), N=np.array(n, np.int32), eps=np.array(1e-5, np.float32))
        return d
    return inputs


def embedding_bag_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    bags = np.array([5, 0, 9, 3])
    return {"table": rng.standard_normal(64 * n).astype(np.float32),
            "idx": rng.integers(0, 64, int(bags.sum())).astype(np.int32),
            "offsets": np.concatenate([[0], np.cumsum(bags)]).astype(np.int32), "out": np.zeros(4 * n, np.float32),
            "D": np.array(n, np.int32), "stride": np.array(n, np.int32)}


def silu_tiles_inputs(n: int, seed: int = 0):
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    return {"x_ptr": x, "y_ptr": np.zeros_like(x), "n": np.array(n, np.int32)}


# file -> how to build and feed it: (defines, signature, grid, inputs(n), n for the doc, n for tests)
EXAMPLES = {
    "vector_add.py": dict(defines={"BLOCK_SIZE": "1024"}, signature="*fp32,*fp32,*fp32,i32",
                          grid="cdiv(N, BLOCK_SIZE)", inputs=vector_add_inputs, n=2 ** 20, test_n=5000),
    "gelu_silu.py": dict(defines={"ACTIVATION": "0", "BLOCK_SIZE": "1024"}, signature="*fp32,*fp32,i32",
                         grid="cdiv(N, BLOCK_SIZE)", inputs=unary_inputs, n=2 ** 16, test_n=3000),
    "row_sum.py": dict(defines={"BLOCK": "64"}, signature="*fp32,*fp32,i32,i32", grid="M",
                       inputs=row_sum_inputs, n=4096, test_n=300),
    "loop_scale.py": dict(defines={"STEPS": "4", "BLOCK": "1024"}, signature="*fp32,*fp32,i32,fp32,i32",
                          grid="cdiv(N, BLOCK)", inputs=loop_scale_inputs, n=2 ** 16, test_n=3000),
    "matmul_nodot.py": dict(defines={"BLOCK_M": "8", "BLOCK_N": "8", "BLOCK_K": "16"},
                            signature="*fp32,*fp32,*fp32,i32,i32,i32", grid="cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
                            inputs=matmul_inputs, n=64, test_n=20),
    "row_argmax.py": dict(defines={"BLOCK_N": "1024"}, signature="*fp32,*i32,i32,i32", grid="8",
                          inputs=rows_inputs(np.int32), n=1000, test_n=300),
    "row_cumsum.py": dict(defines={"BLOCK_N": "256"}, signature="*fp32,*fp32,i32,i32", grid="8",
                          inputs=rows_inputs(np.float32), n=250, test_n=100),
    "transpose.py": dict(defines={"BLOCK_M": "16", "BLOCK_N": "16"}, signature="*fp32,*fp32,i32,i32,i32,i32,i32,i32",
                         grid="cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", inputs=transpose_inputs, n=128, test_n=40),
    "softmax.py": dict(defines={"BLOCK_SIZE": "1024"}, signature="*fp32,*fp32,i32,i32,i32", grid="8",
                       inputs=softmax_inputs, n=1000, test_n=300),
    "rms_norm.py": dict(defines={"BLOCK_SIZE": "256"}, signature="*fp32,*fp32,*fp32,i32,i32,fp32", grid="8",
                        inputs=norm_inputs(False), n=1000, test_n=300),
    "layer_norm.py": dict(kernel="layer_norm_fwd", defines={"BLOCK_SIZE": "256"},
                          signature="*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32", grid="8",
                          inputs=norm_inputs(True), n=1000, test_n=300),
    "embedding_bag.py": dict(defines={"BAG": "8", "BLOCK_D": "128"}, signature="*fp32,*i32,*i32,*fp32,i32,i32",
                             grid="4", inputs=embedding_bag_inputs, n=128, test_n=100),
    "mtia_double_buffer.py": dict(kernel="silu_double_buffer", defines={"TILES": "4", "BLOCK": "256"},
                                  signature="*fp32,*fp32,i32", grid="4", inputs=silu_tiles_inputs, n=4 * 4 * 256,
                                  test_n=4 * 4 * 256),
}

EXAMPLES = {k: v for k, v in EXAMPLES.items() if (ROOT / "examples" / k).exists()}


def build(example: str, level: int = 3, disabled=(), passes=None) -> bytes:
    spec = EXAMPLES[example]
    opts = Options(kernel=spec.get("kernel"), defines=dict(spec["defines"]), signature=spec["signature"],
                   grid=spec["grid"], opt_level=level, disabled_passes=tuple(disabled), passes=passes)
    return compile_kernel(str(ROOT / "examples" / example), opts).binary


def simulate(binary: bytes, data):
    from mtiasim.runner import run
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.bin")
        with open(path, "wb") as f:
            f.write(binary)
        return run(path, data, grid=None)


WHY = {
    "access-plan": ('not an optimization: it records on every `tt.load` / `tt.store` how it moves between DRAM and '
                    'local memory (the `access` attribute, tests/filecheck/access_*.py), which codegen reads; the '
                    'driver runs it after every pipeline, at every level, and `--disable-pass` cannot remove it'),
    "axis-info": ('an analysis: the pass changes no IR (`axis-info{print=true}` prints the facts, '
                  'tests/filecheck/axis_info.py); the access plan (mtiacc/ir/analysis/access_plan.py) reads the same '
                  'analysis (mtiacc/ir/analysis/axis_info.py) whatever the pipeline, to keep a load or store whose mask '
                  'is uniform over the block (e.g. a splat of `pid < M`) one guarded DMA transfer instead of the '
                  'element-by-element path (tests/codegen/test_uniform_mask.py), so disabling the pass cannot show an '
                  'effect'),
}


PIPELINE_LOADS_NOTE = """## pipeline-loads: DMA under compute (measured by hand, not by this script)

Simulated time before (the merge base, 48d59e7) and after `pipeline-loads` (-O3; `benchmarks/kernels/softmax_looped.py`
is softmax in three loops over BLOCK columns). Loops over tiles fetch the next tiles while they compute; kernels
without loops (vector add, the one-block softmax) are unchanged but for the masked load's tail fill, which no
longer waits for its transfer.

| kernel | before (cycles) | after (cycles) | change |
|---|---:|---:|---:|
| vector_add N=1024 BLOCK=256 (docstring) | 1936 | 1936 | +0.0% |
| softmax 6x300 BLOCK=1024 (docstring) | 8838 | 8648 | -2.1% |
| layer_norm fwd 6x300 BLOCK=256 (docstring) | 6392 | 6392 | +0.0% |
| layer_norm fwd 64x4096 BLOCK=256 | 76043 | 58312 | -23.3% |
| layer_norm fwd 64x4096 BLOCK=1024 | 68143 | 56470 | -17.1% |
| softmax looped 6x300 BLOCK=64 | 9903 | 8310 | -16.1% |
| softmax looped 64x4096 BLOCK=256 | 94540 | 73631 | -22.1% |
| softmax looped 64x4096 BLOCK=1024 | 85732 | 72795 | -15.1% |
| mtia_double_buffer.py `silu_plain` TILES=8 BLOCK=1024, 64 programs (docstring) | 81932 | 69023 | -15.8% |

`make bench-roofline` (`benchmarks/bench_roofline.py --compare --looped`): simulated time against the time the bytes
a kernel cannot avoid take at the DRAM bandwidth (205 GB/s), without and with `pipeline-loads`:

| kernel | without (us) | with (us) | roofline (us) | of roofline, without / with |
|---|---:|---:|---:|---:|
| vector add 2^20 (BLOCK 1024) | 73.4 | 73.4 | 61.4 | 83.7% / 83.7% |
| softmax 4096x4096 (one block a row) | 1962.8 | 1962.8 | 655.4 | 33.4% / 33.4% |
| layer norm fwd 4096x4096 (BLOCK 1024) | 3164.6 | 2614.1 | 655.7 | 20.7% / 25.1% |
| softmax looped 4096x4096 (BLOCK 1024) | 3985.6 | 3388.0 | 655.4 | 16.4% / 19.3% |

The plain loop of mtia_double_buffer.py is now faster than its hand-written double buffering
(`silu_double_buffer`: 71168 cycles), which waits for each copy with `mtia.wait` before it computes.

Short loops gain little: at two tiles a loop (bench_passes' test sizes) the first tile's transfer is still
waited for whole, and the remainder adds a copy of the carried blocks; rms_norm at N = 300 is 3910 cycles
without the pass and 4090 with it (+4.6%), layer_norm +2.8%.
"""


# Measured by hand at sizes too large for this script (the commands are in the text); kept in the output.
NOTES = """\
## `persistent-programs`: the next program's tiles under this one's compute

`persistent-programs` (-O3; mtiacc/opt/loops/persistent_programs.py; it copies the body three times, as `pipeline-loads` does, so -O2 leaves it out) runs the programs of a launch
slot as one loop, `for program = slot .. total step 64 {persistent = 64}`, and the binary's metadata says
`persistent: 64`: mtiasim starts one program per PE and each loops over its share, so `pipeline-loads` fetches
the next program's tiles while this one computes. `--emit=ir` shows the loop (tests/filecheck/persistent_programs.py).

`make bench-roofline ARGS=--compare` (4096 x 4096 and 2^20, inputs in DRAM; "without" is
`--disable-pass=persistent-programs`; measured at c462bad, before the scalar code's power-of-two divisions became
shifts: vector add then measures 67.5 us, 91.0%, and layer norm 2443.8 us, 26.8%):

| kernel | without (us) | with (us) | roofline (us) | of roofline, without / with |
|---|---:|---:|---:|---:|
| vector add 2^20 (BLOCK 1024, 16 programs a PE) | 73.4 | 69.6 | 61.4 | 83.7% / 88.3% |
| softmax 4096x4096 (tutorial 02, one row a program) | 1962.8 | 1633.4 | 655.4 | 33.4% / 40.1% |
| softmax 4096x4096, `--fast-math` (exp on the SE) | 1045.6 | 716.3 | 655.4 | 62.7% / 91.5% |
| layer norm fwd 4096x4096 (BLOCK 1024) | 2483.3 | 2483.3 | 655.7 | 26.4% / 26.4% |

Softmax's default build stays bound by its vector time (exp's 1-ULP library polynomial): the DMA now hides
under it. With exp on the SE the row's compute is shorter than its transfer, and the run reaches 91.5% of the
DRAM roofline. Layer norm's loads are in its column loops, not in the program body, so it is left alone: what
bounds it is W and B, read again by every program. With one program per PE there is nothing to fetch ahead,
and the loop costs its scalar set-up: at most 1% (tests/opt/test_roofline_bench.py).

## `reuse-loads`: layer norm reads its row once

`reuse-loads` (-O2, -O3; mtiacc/opt/memory/reuse_loads.py) keeps a block that two loops of a program load
again, tile for tile, in local memory: the first loop copies each tile it loads into a slot of a buffer
(`mtia.local_alloc`, `mtia.slot_store`), the later loops read the slot (`mtia.slot_load`) instead of moving it
from DRAM again. A run-time trip count (`range(0, N, BLOCK)`) gets a buffer of the pass's budget (128 KiB by
default, `reuse-loads{budget=BYTES}`) and a check before the first loop that the row fits; a store between the
loops through the same pointer argument forbids the reuse, one through another argument gets a run-time check
that it does not touch the row. Both paths are compiled: a row that does not fit, or an overlapping store,
loads from DRAM as written. If the kept buffers leave too little local memory for the rest of the kernel, the
compile drops them. `--emit=ir` shows the decision (tests/filecheck/reuse_loads*.py).

`examples/layer_norm.py` `layer_norm_fwd` at -O3, with and without `--disable-pass=reuse-loads`
(`mtiasim run --stats`; "of roofline" is the time to move the bytes the kernel cannot avoid, X and W, B read
once and Y written once, 134.3 MB at 204.8 GB/s = 656 us, over the simulated time):

| input | BLOCK_SIZE | DRAM bytes without / with | cycles without / with | of roofline without / with |
|---|---:|---:|---:|---:|
| 6 x 300 (`examples/inputs.py layer_norm`) | 256 | 43,248 / 28,848 | 6,392 / 6,280 (-1.8%) | - |
| 4096 x 4096 | 256 | 402,685,952 / 268,468,224 | 4,781,702 / 3,923,398 (-17.9%) | 18.5% / 22.6% |
| 4096 x 4096 | 1024 | 402,685,952 / 268,468,224 | 4,276,102 / 3,560,134 (-16.7%) | 20.7% / 24.9% |
| 4096 x 4096 | 4096 | 402,685,952 / 268,468,224 | 4,416,390 / 3,737,286 (-15.4%) | 20.0% / 23.7% |

`layer_norm_bwd_dx` (4096 x 4096, BLOCK_SIZE 1024; its two loops read X, DY and W, all three kept, sharing
the budget): DRAM bytes 469,794,816 -> 268,468,224, cycles 5,229,702 -> 4,194,438 (-19.8%), the same bits.

In the forward pass X is read once instead of three times (a third of the DRAM bytes go). What remains above the roofline: every
program reads W and B again (half the 268 MB; programs share no local memory), and the DMA of a tile is not
overlapped with the work on the previous one (the run is bound by DMA waits). A kept tile costs two vector copies
in local memory (into the slot, out of it), which the DRAM time saved pays for at these sizes; on a small grid
that is not DRAM-bound the copies can cost more than they save (`rms_norm.py` at N = 300 on 8 programs:
3,940 -> 4,130 cycles, DRAM bytes 24,000 -> 18,000).
"""


def measure(example: str, n: int):
    spec = EXAMPLES[example]
    data = spec["inputs"](n)
    rows = []
    for level in range(4):
        r = simulate(build(example, level), data)
        rows.append((f"-O{level}", r.stats.instructions, r.stats.cycles))
    seen = []
    for p in parse_pipeline(pipeline_for_level(3)):
        if p.name in seen:
            continue
        seen.append(p.name)
        r = simulate(build(example, 3, disabled=[p.name]), data)
        rows.append((f"-O3 --disable-pass={p.name}", r.stats.instructions, r.stats.cycles))
    return rows


def render(results) -> str:
    out = ["# The optimizer's effect, pass by pass", "",
           "Generated by `make bench-passes` (`benchmarks/bench_passes.py`): each example kernel compiled at",
           "-O0..-O3 and at -O3 with each pass disabled in turn, run on mtiasim with seeded inputs;",
           "instructions retired (all programs) and simulated cycles (the whole grid).", "",
           "Pipelines (`mtiacc --dump-pipeline -O<n>`):", ""]
    for level in range(4):
        out.append(f"- `-O{level}`: `{pipeline_for_level(level, codegen=True)}`")
    out += ["", f"Every compile runs {', '.join(f'`{n}`' for n in REQUIRED_PREFIX)} first and "
            f"{', '.join(f'`{n}`' for n in REQUIRED_TAIL)} last before instruction selection: code generation needs",
            "them (mtiacc/opt/pipelines.py), so they cannot be disabled and have no row below.", ""]
    for example, n, rows in results:
        base = dict((name, (i, c)) for name, i, c in rows)["-O3"]
        out += [f"## {example} (N = {n})", "", "| build | instructions | cycles | cycles vs -O3 |", "|---|---:|---:|---:|"]
        for name, i, c in rows:
            out.append(f"| `{name}` | {i} | {c} | {100 * (c - base[1]) / base[1]:+.1f}% |")
        out.append("")
    out += PIPELINE_LOADS_NOTE.splitlines() + [""]
    out += [NOTES, "## Passes without an effect on these examples, and why they exist", "",
            "Every other pass changes the cycles or instructions of at least one example above "
            "(loop_scale.py has the loops for sccp, licm and loop-unroll).", ""]
    for name in sorted(PASSES):
        if name.startswith("test-"):
            continue
        if name in WHY:
            out.append(f"- `{name}`: {WHY[name]}.")
    out.append("")
    return "\n".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "passes.md"))
    ap.add_argument("--quick", action="store_true", help="small inputs (for a smoke test)")
    args = ap.parse_args(argv)
    results = []
    for example, spec in EXAMPLES.items():
        n = spec["test_n"] if args.quick else spec["n"]
        results.append((example, n, measure(example, n)))
    text = render(results)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
