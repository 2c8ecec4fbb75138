"""Simulator speed (``make bench-sim``): the vector add at N = 2^20 (BLOCK_SIZE = 1024) and every other example.

For each kernel: wall time of ``mtiasim run`` (the command, process start and npz I/O included) and of
``mtiasim.runner.run`` in-process, PE-instructions simulated per second, simulated cycles per wall second; and,
when a Python with ``triton`` is available (``TRITON_PYTHON``, default ``/tmp/tvenv/bin/python``), the wall time of
Triton's own interpreter (``TRITON_INTERPRET=1``) launching the same kernel on the same inputs, side by side.

Inputs for examples other than the vector add are generic: every pointer parameter an fp32 array of N elements,
integer scalars N, BLOCK_SIZE = 1024, other constexprs from ``VARIANTS`` below (else their defaults, else 0);
the grid is cdiv(N, BLOCK_SIZE).  A kernel these do not fit is reported as skipped, with the reason.

``--workloads [NAME,...]``: instead, the simulator's host CPU seconds on the long paths' kinds of work, each
kernel compiled first (not timed) and simulated once: ``gemm`` the 2048^3 bf16 GEMM with its operands in DRAM
(``benchmarks/bench_gemm.py``'s first row), ``fp32`` BERT-base's fp32 feed-forward Linear (128 x 3072 x 768, bf16x6:
``make bench-fp32-gemm``'s last row), ``conv`` ResNet's 3 x 3 fp32 convolution at 56 x 56 through
``torch.compile`` (``benchmarks/bench_conv.py r3x3s1``), ``softmax`` and ``layer_norm`` the examples as
``benchmarks/bench_passes.py`` runs them (20 launches each).  Each row prints the simulated cycles, the
instructions and a digest of the outputs beside the seconds, so two checkouts compare on both.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mtiacc.driver import Options, compile_kernel  # noqa: E402
from mtiasim.loader import load_program  # noqa: E402
from mtiasim.runner import run  # noqa: E402

VARIANTS = {"gelu_silu.py": [{"ACTIVATION": "0"}, {"ACTIVATION": "1"}]}

TRITON_SCRIPT = r"""
import importlib.util, json, os, sys, time
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np, torch, triton
spec = json.loads(sys.argv[1])
mod_spec = importlib.util.spec_from_file_location("k", spec["path"])
mod = importlib.util.module_from_spec(mod_spec); mod_spec.loader.exec_module(mod)
kern = getattr(mod, spec["kernel"])
data = np.load(spec["npz"])
args = []
for p in spec["params"]:
    v = data[p["name"]]
    args.append(torch.from_numpy(v.copy()) if p["type"].startswith("*") else v.item())
consts = {k: int(v) for k, v in spec["constexprs"].items()}
grid = tuple(spec["grid"])
best = None
for _ in range(spec["repeat"] + 1):
    t = time.perf_counter(); kern[grid](*args, **consts); w = time.perf_counter() - t
    best = w if best is None or w < best else best
out = {p["name"]: a.numpy() for p, a in zip(spec["params"], args) if p["type"].startswith("*")}
np.savez(spec["out"], **out)
print(json.dumps({"wall": best}))
"""


def examples():
    for path in sorted((ROOT / "examples").glob("*.py")):
        if "@triton.jit" in path.read_text(encoding="utf-8"):
            yield path


def inputs_for(program, n: int):
    rng = np.random.default_rng(0)
    data = {}
    for p in program.meta["params"]:
        ty = str(p["type"])
        if ty == "*fp32":
            data[p["name"]] = rng.standard_normal(n).astype(np.float32)
        elif ty.startswith("*"):
            raise ValueError(f"pointer parameter {p['name']} of type {ty}")
        elif ty in ("i32", "i64"):
            data[p["name"]] = np.array(n, np.int32 if ty == "i32" else np.int64)
        else:
            raise ValueError(f"scalar parameter {p['name']} of type {ty}")
    return data


def bench(path: Path, defines, n, block, repeat, triton_python):
    label = path.name + "".join(f" {k}={v}" for k, v in defines.items() if k != "BLOCK_SIZE")
    defs = {"BLOCK_SIZE": str(block), **defines}
    try:
        comp = compile_kernel(str(path), Options(defines=defs, grid="cdiv(N, BLOCK_SIZE)"))
        program = load_program(comp.binary)
        data = inputs_for(program, n)
    except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
        return {"kernel": label, "skipped": str(e).splitlines()[0]}
    return measure(f"{label} N={n} BLOCK_SIZE={block}", path, comp.binary, program, data, repeat, triton_python)


def bench_example(path: Path, repeat, triton_python):
    """An example with its own inputs and launch grid (the table of benchmarks/bench_passes.py)."""
    from benchmarks.bench_passes import EXAMPLES, build
    spec = EXAMPLES[path.name]
    binary = build(path.name, level=2)
    program = load_program(binary)
    data = spec["inputs"](spec["n"])
    label = f"{path.name} n={spec['n']}" + "".join(f" {k}={v}" for k, v in spec["defines"].items())
    return measure(label, path, binary, program, data, repeat, triton_python)


def measure(label, path: Path, binary: bytes, program, data, repeat, triton_python):
    from mtiasim.runner import resolve_grid
    scalars = {k: v.item() for k, v in data.items() if np.ndim(v) == 0}
    grid = [g for g in resolve_grid(program, None, scalars)]
    row = {"kernel": label}
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "k.bin").write_bytes(binary)
        np.savez(d / "in.npz", **data)
        walls = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = run(program, data)
            walls.append(time.perf_counter() - t0)
        cli = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "mtiasim.cli", "run", str(d / "k.bin"), "--inputs",
                                   str(d / "in.npz"), "-o", str(d / "out.npz")], capture_output=True, text=True,
                                  cwd=ROOT)
            cli.append(time.perf_counter() - t0)
            if proc.returncode:
                return {"kernel": label, "skipped": "mtiasim run failed: " + proc.stderr.strip()[:200]}
        s = res.stats
        wall = min(walls)
        row.update(run_s=wall, cli_s=min(cli), instructions=s.instructions, cycles=s.cycles,
                   ips=s.instructions / wall, cps=s.cycles / wall, sim_us=s.time_us)
        if triton_python:
            spec = {"path": str(path), "kernel": program.meta.get("kernel"), "npz": str(d / "in.npz"),
                    "params": program.meta["params"], "grid": grid, "repeat": repeat,
                    "out": str(d / "tri.npz"),
                    "constexprs": {k: v for k, v in program.meta.get("constexprs", {}).items()}}
            proc = subprocess.run([triton_python, "-c", TRITON_SCRIPT, json.dumps(spec)], capture_output=True,
                                  text=True)
            if proc.returncode == 0:
                row["triton_s"] = json.loads(proc.stdout.strip().splitlines()[-1])["wall"]
                tri = np.load(d / "tri.npz")
                row["same_outputs"] = all(np.allclose(tri[k], res.outputs[k], rtol=1e-5, atol=1e-6, equal_nan=True)
                                          for k in tri.files)
            else:
                row["triton_error"] = (proc.stderr.strip().splitlines() or ["?"])[-1][:200]
    return row


def _workload(name):
    """``(binary, inputs, run() keyword arguments, launches)`` of a ``--workloads`` row."""
    import math
    bench = ROOT / "benchmarks"
    sys.path.insert(0, str(bench))
    if name == "gemm":
        import bench_gemm as bg
        M = N = K = 2048
        blocks, layout = (256, 128, 64), "A B"
        binary, consts = bg.compile_case(M, N, K, "bf16", blocks, 8, layout)
        a, b, _fa, _fb, c, _abt, _ct = bg._operands(np.random.default_rng(0), M, N, K, "bf16")
        inputs = {"a_ptr": a, "b_ptr": b, "c_ptr": c, **{n: np.array(v, np.int32) for n, v in
                                                          zip(bg.NAMES, bg.strides(M, N, K, layout)) if n not in consts}}
        grid = (M // blocks[0] * (N // blocks[1]),)
        return binary, inputs, {"grid": grid, "place": dict.fromkeys(("a_ptr", "b_ptr", "c_ptr"), "dram")}, 1
    if name == "fp32":
        import bench_fp32_gemm as bf
        m, n, k, (bm, bn, bk) = 128, 3072, 768, (32, 32, 64)
        rng = np.random.default_rng(0)
        a = rng.standard_normal((m, k)).astype(np.float32)
        w = rng.standard_normal((n, k)).astype(np.float32)
        bias = rng.standard_normal(n).astype(np.float32)
        defines = {"M": str(m), "N": str(n), "K": str(k), "BLOCK_M": str(bm), "BLOCK_N": str(bn), "BLOCK_K": str(bk),
                   "GROUP_M": "8", "INPUT_PRECISION": '"bf16x6"', "DOT_TYPE": "tl.float32"}
        opts = Options(kernel="linear_kernel", signature="*fp32,*fp32,*fp32,*fp32", defines=defines)
        binary = compile_kernel(str(bf.KERNEL), opts).binary
        inputs = {"bias_ptr": bias, "a_ptr": a, "w_ptr": w, "c_ptr": np.zeros((m, n), np.float32)}
        return binary, inputs, {"grid": (math.ceil(m / bm) * math.ceil(n / bn),), "max_steps": 100_000_000}, 1
    if name == "conv":
        import torch
        import bench_conv
        import mtiacc.torch_backend  # noqa: F401  (registers the backend)
        import mtiasim.runner as runner
        launches, real = [], runner.run

        def record(binary, inputs, *args, **kwargs):
            launches.append((binary, {k: np.array(v, copy=True) for k, v in inputs.items()}, kwargs))
            return real(binary, inputs, *args, **kwargs)
        fn, xs, ws = bench_conv.CASES["r3x3s1"]
        g = torch.Generator().manual_seed(0)
        x, w = torch.randn(xs, generator=g), torch.randn(ws, generator=g)
        runner.run = record
        try:
            torch.compile(fn, backend="mtia")(x, w)
        finally:
            runner.run = real
            torch._dynamo.reset()
        binary, inputs, kwargs = launches[-1]
        return binary, inputs, kwargs, 1
    from benchmarks.bench_passes import EXAMPLES, build
    spec = EXAMPLES[name + ".py"]
    return build(name + ".py", level=2), spec["inputs"](spec["n"]), {}, 20


def workloads(names) -> None:
    import hashlib
    print(f"{'workload':<11} {'cycles':>9} {'instructions':>13} {'outputs':>17} {'launches':>8} {'host CPU s':>10}")
    for name in names:
        binary, inputs, kwargs, launches = _workload(name)
        host = 0.0
        for _ in range(launches):
            data = {k: np.array(v, copy=True) for k, v in inputs.items()}
            t0 = time.process_time()
            res = run(binary, data, **kwargs)
            host += time.process_time() - t0
        h = hashlib.sha256()
        for k in sorted(res.outputs):
            h.update(k.encode())
            h.update(np.ascontiguousarray(res.outputs[k]).tobytes())
        s = res.stats
        print(f"{name:<11} {s.cycles:>9,} {s.instructions:>13,} {h.hexdigest()[:16]:>17} {launches:>8} {host:>10.2f}",
              flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=2 ** 20)
    ap.add_argument("--block", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workloads", nargs="?", const="gemm,fp32,conv,softmax,layer_norm", default=None,
                    metavar="NAME,...", help="the host seconds of the long paths' kinds of work instead (gemm, fp32, "
                    "conv, softmax, layer_norm)")
    args = ap.parse_args(argv)
    if args.workloads:
        workloads(args.workloads.split(","))
        return
    tp = os.environ.get("TRITON_PYTHON", "/tmp/tvenv/bin/python")
    if not (os.path.exists(tp) and subprocess.run([tp, "-c", "import triton, torch"], capture_output=True).returncode
            == 0):
        print(f"(no Triton interpreter: {tp} cannot import triton and torch; set TRITON_PYTHON)")
        tp = None
    rows = []
    from benchmarks.bench_passes import EXAMPLES
    for path in examples():
        if path.name == "vector_add.py" or path.name not in EXAMPLES:
            for defines in VARIANTS.get(path.name, [{}]):
                rows.append(bench(path, defines, args.n, args.block, args.repeat, tp))
        else:
            rows.append(bench_example(path, args.repeat, tp))
    hdr = (f"{'kernel':<44} {'mtiasim run (s)':>15} {'run() (s)':>10} {'PE-instr/s':>12} {'sim cycles/s':>13} "
           f"{'triton interp (s)':>17} {'speedup':>8}")
    print(hdr)
    for r in rows:
        if "skipped" in r:
            print(f"{r['kernel']:<44} skipped: {r['skipped']}")
            continue
        tri = r.get("triton_s")
        ratio = f"{tri / r['run_s']:.1f}x" if tri else "-"
        print(f"{r['kernel']:<44} {r['cli_s']:>15.3f} {r['run_s']:>10.3f} {r['ips']:>12,.0f} {r['cps']:>13,.0f} "
              f"{(f'{tri:.3f}' if tri else '-'):>17} {ratio:>8}"
              + ("" if r.get("same_outputs", True) else "  (outputs differ from Triton's!)")
              + (f"  (triton: {r['triton_error']})" if r.get("triton_error") else ""))
    print("speedup = Triton interpreter launch wall time / mtiasim.runner.run wall time (both in-process, best of "
          f"{args.repeat}); 'mtiasim run' adds process start and npz I/O")


if __name__ == "__main__":
    main()
