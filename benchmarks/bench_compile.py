"""Compile time, this checkout against another revision, side by side.

Compiles every example (and, with --corpus, every corpus kernel) at -O0 and -O3 in one process, as
``benchmarks/behaviour.py`` does, and takes the CPU time of each compile.  With ``--vs REV`` the same is
done with the compiler of git revision REV (checked out in a temporary worktree), the two alternating
round by round so that machine load falls on both; each compile keeps its fastest round.

With ``--tutorials DIR`` it also times whole processes: ``python -m mtiacc.cli`` compiling Triton's tutorial
kernels (01 vector add, 02 fused softmax, 05 layer norm, 03 matmul, 08 grouped GEMM, 09 persistent matmul, read
from DIR) at the default level and at each of
``--levels``, start-up and imports included, the CPU time (user + sys) of the child, fastest of the rounds.
Python's bytecode cache is allowed (``PYTHONDONTWRITEBYTECODE`` is cleared), as in an installed compiler.

    python benchmarks/bench_compile.py --vs fad7d53 --corpus ../shared/corpus --rounds 3
    make bench-compile BASE=fad7d53 CORPUS=../shared/corpus
    make bench-compile TUTORIALS=../shared/triton-tests/tutorials
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def measure(corpus: str, levels) -> dict:
    """{"name -O<level>": CPU seconds} for one round in this process (whichever mtiacc it imports)."""
    sys.path.insert(0, str(HERE))
    import behaviour  # noqa: E402  (the same kernels and inputs as the behaviour record)
    from mtiacc.diagnostics import UserError
    from mtiacc.driver import Options, compile_kernel
    cases = [(n, str(behaviour.EXAMPLES / f), k, s, d) for n, f, k, s, d, _, _ in behaviour._examples()]
    if corpus:
        cases += [(n, p, k, s, d) for n, p, k, s, d, _, _ in behaviour._corpus(Path(corpus))]
    out = {}
    for name, path, kernel, sig, defines in cases:
        for level in levels:
            opts = Options(kernel=kernel, signature=sig, opt_level=level,
                           defines={k: str(v) for k, v in defines.items()})
            t0 = time.process_time()
            try:
                compile_kernel(path, opts)
            except UserError:
                continue  # not compilable (e.g. tl.dot): no time
            out[f"{name} -O{level}"] = time.process_time() - t0
    return out


def run_round(tree: Path, corpus: str, levels) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", "--levels", ",".join(map(str, levels))]
    if corpus:
        cmd += ["--corpus", str(Path(corpus).resolve())]
    p = subprocess.run(cmd, env=env, cwd=str(tree), capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


# (file, kernel, signature, constexprs): the tutorials' kernels at their benchmarks' sizes and, for an autotuned
# kernel, the config benchmarks/roofline_tutorials.py compiles (a "--config" entry)
_GEMM = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32"
TUTORIALS = [("01-vector-add.py", "add_kernel", "*fp32,*fp32,*fp32,i32", {"BLOCK_SIZE": 1024}),
             ("02-fused-softmax.py", "softmax_kernel", "*fp32,*fp32,i32,i32,i32,i32",
              {"BLOCK_SIZE": 4096, "num_stages": 4}),
             ("05-layer-norm.py", "_layer_norm_fwd_fused", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
              {"BLOCK_SIZE": 4096}),
             ("03-matrix-multiplication.py", "matmul_kernel", _GEMM, {"ACTIVATION": '""', "--config": 6}),
             ("08-grouped-gemm.py", "grouped_matmul_kernel", "*i64,*i64,*i64,*i32,*i32,i32", {"--config": 0}),
             ("09-persistent-matmul.py", "matmul_kernel_persistent", _GEMM, {"NUM_SMS": 64, "--config": 0})]


def whole_process(tree: Path, folder: Path, levels) -> dict:
    """{"file level": CPU seconds of one ``python -m mtiacc.cli`` process} (level None: no -O flag)."""
    import resource
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = {}
    with tempfile.TemporaryDirectory(prefix="mtiacc-bin-") as tmp:
        for f, kernel, sig, consts in TUTORIALS:
            for level in levels:
                cmd = [sys.executable, "-m", "mtiacc.cli", str(folder / f), "-n", kernel, "-s", sig,
                       "-o", str(Path(tmp) / "k.bin")]
                cmd += [f"{k}={v}" if k.startswith("--") else f"-D{k}={v}" for k, v in consts.items()]
                cmd += [] if level is None else [f"-O{level}"]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(cmd, env=env, cwd=str(tree), check=True, capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                name = f"{f} " + ("default" if level is None else f"-O{level}")
                out[name] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out


def keep_min(best: dict, new: dict) -> None:
    for k, v in new.items():
        best[k] = min(best.get(k, v), v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vs", help="a git revision to compare with")
    ap.add_argument("--corpus", help="a folder of corpus kernels")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--levels", default="0,3")
    ap.add_argument("--tutorials", help="Triton's tutorials folder: also whole-process CLI compiles of 01, 02, 03, "
                    "05, 08, 09")
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    levels = [int(x) for x in a.levels.split(",")]
    if a.measure:
        print(json.dumps(measure(a.corpus, levels)))
        return 0
    ours, theirs, procs, procs_base = {}, {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="mtiacc-base-") as tmp:
        base = Path(tmp) / "tree"
        if a.vs:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), a.vs],
                           check=True, capture_output=True)
        try:
            for r in range(a.rounds):
                keep_min(ours, run_round(ROOT, a.corpus, levels))
                if a.vs:
                    keep_min(theirs, run_round(base, a.corpus, levels))
                if a.tutorials:
                    folder = Path(a.tutorials).resolve()
                    keep_min(procs, whole_process(ROOT, folder, [None] + levels))
                    if a.vs:
                        keep_min(procs_base, whole_process(base, folder, [None] + levels))
                print(f"round {r + 1} of {a.rounds} done", file=sys.stderr)
        finally:
            if a.vs:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                               capture_output=True)
    print(f"{'level':8s} {'kernels':>8s} {'this (s)':>10s}" + (f" {a.vs + ' (s)':>14s} {'ratio':>7s}" if a.vs else ""))
    for level in levels:
        keys = [k for k in ours if k.endswith(f" -O{level}") and (not a.vs or k in theirs)]
        t_ours = sum(ours[k] for k in keys)
        line = f"-O{level:<6d} {len(keys):8d} {t_ours:10.2f}"
        if a.vs:
            t_theirs = sum(theirs[k] for k in keys)
            line += f" {t_theirs:14.2f} {t_ours / t_theirs:7.3f}"
        print(line)
    if a.vs:
        common = [k for k in ours if k in theirs]
        worst = sorted(common, key=lambda k: ours[k] / theirs[k], reverse=True)[:5]
        print("largest ratios: " + ", ".join(f"{k} {ours[k] / theirs[k]:.2f}" for k in worst))
    if procs:
        print(f"\n{'whole process: python -m mtiacc.cli (CPU s)':<46} {'this':>7s}" + (f" {a.vs:>9s}" if a.vs else ""))
        for k, v in procs.items():
            print(f"{k:<46} {v:7.2f}" + (f" {procs_base[k]:9.2f}" if a.vs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
