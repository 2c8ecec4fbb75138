"""Random-kernel differential testing of mtiacc and mtiasim against numpy.

    python -m tests.fuzz.gen --count 200 --jobs 2 --seed 0 --out fuzz-out
    python -m tests.fuzz.gen --replay fuzz-out/mismatch-17
    python -m tests.fuzz.gen --count 50 --sanitize       # also under mtiasim's sanitizer: any finding fails

Each kernel is compiled at -O0 and -O3, run on the simulator and compared with the numpy reference computed
from the same program model.  Every failure (mismatch, compile error, fault, sanitizer finding, internal error,
timeout) is minimized (each try limited to 3 times the failing check's time, a timeout to 20 s) and written to
``OUT/<kind>-<seed>/`` as ``kernel.py``, ``inputs.npz``, ``expected.npz`` and ``model.pkl``, with the commands
that reproduce it in ``OUT/README.md``.  Times are the worker's CPU seconds, not the wall clock's: on a loaded
machine a kernel waits for a core, and the wait must not make a verdict.
"""
from __future__ import annotations

import argparse
import multiprocessing
import pickle
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from . import emit
from .evaluate import Indeterminate, evaluate
from .generate import generate
from .minimize import minimize, try_timeout
from .runner import KINDS, check, make_inputs

OPTS = {}


def commands(k, v, d: Path) -> str:
    defs = " ".join(f"-D {n}={x}" for n, x in emit.constexprs(k).items())
    lvl = v.level if v.level is not None else 3
    san = " --sanitize" if v.kind == "sanitizer" else ""
    return (f"mtiacc {d}/kernel.py --kernel {k.name} -O{lvl} --signature '{emit.signature(k)}' {defs} -o {d}/kernel.bin && "
            f"mtiasim run {d}/kernel.bin --inputs {d}/inputs.npz --grid {k.grid} -o {d}/out.npz{san}; "
            f"python -m tests.fuzz.gen --replay {d}{san}")


def write_repro(k, v, out: Path) -> Path:
    d = out / f"{v.kind}-{k.seed}"
    d.mkdir(parents=True, exist_ok=True)
    (d / "kernel.py").write_text(f"# {v.kind} at -O{v.level}: {v.detail}\n" + emit.source(k))
    inputs = make_inputs(k)
    np.savez(d / "inputs.npz", **inputs)
    try:
        exp = evaluate(k, inputs)
        np.savez(d / "expected.npz", **{f"{n}": w for n, (w, _, _) in exp.items()},
                 **{f"{n}.bound": e for n, (_, e, _) in exp.items()},
                 **{f"{n}.unknown": u for n, (_, _, u) in exp.items()})
    except Indeterminate:
        pass
    (d / "model.pkl").write_bytes(pickle.dumps(k))
    line = f"- `{d.name}`: {v.kind} at -O{v.level}: {v.detail}\n  `{commands(k, v, d)}`\n"
    with open(out / "README.md", "a") as f:
        f.write(line)
    return d


def one(seed: int):
    """Worker: generate, check and (on failure) minimize kernel ``seed``; returns (seed, kind, detail, repro)."""
    o = OPTS
    with tempfile.TemporaryDirectory(prefix="mtiafuzz-") as tmp:
        k = generate(seed, o["size"])
        t0 = time.process_time()        # CPU seconds, as the checks' time limits count (runner.time_limit)
        v = check(k, tmp, timeout=o["timeout"], sanitize=o["sanitize"])
        took = time.process_time() - t0
        repro = ""
        if v.failed and o["out"]:
            if o["minimize"]:
                limit = try_timeout(v.kind, took, o["timeout"])
                k = minimize(k, lambda c: v.same_failure(check(c, tmp, timeout=limit, sanitize=o["sanitize"])),
                             budget_s=o["minimize_budget"])
                v2 = check(k, tmp, timeout=limit, sanitize=o["sanitize"])
                v = v2 if v.same_failure(v2) else v
            repro = str(write_repro(k, v, Path(o["out"])))
        return seed, v.kind, v.level, v.detail, repro


def _init(opts):
    OPTS.update(opts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.gen", description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--jobs", type=int, default=max(1, multiprocessing.cpu_count()))
    p.add_argument("--seed", type=int, default=0, help="the first kernel's seed (kernels are seed .. seed+count-1)")
    p.add_argument("--out", default="fuzz-out", help="where minimized reproducers go")
    p.add_argument("--size", type=int, default=3,
                   help="statements at the top level of a kernel (3 runs about twice the kernels a minute of 5)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="CPU seconds per compile and run (not wall-clock: the verdict does not depend on the load)")
    p.add_argument("--no-minimize", action="store_true")
    p.add_argument("--minimize-budget", type=float, default=150.0, help="seconds per failure")
    p.add_argument("--sanitize", action="store_true",
                   help="run under mtiasim's sanitizer: a finding (these kernels are UB-free) is a failure")
    p.add_argument("--progress", type=int, default=0, metavar="N", help="print a count every N kernels")
    p.add_argument("--replay", metavar="DIR", help="re-check the reproducer in DIR and print its verdict")
    a = p.parse_args(argv)
    if a.replay:
        k = pickle.loads((Path(a.replay) / "model.pkl").read_bytes())
        with tempfile.TemporaryDirectory(prefix="mtiafuzz-") as tmp:
            v = check(k, tmp, sanitize=a.sanitize)
        print(f"{v.kind}" + (f" at -O{v.level}: {v.detail}" if v.failed else ""))
        return 1 if v.failed else 0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    opts = dict(size=a.size, timeout=a.timeout, out=str(out), minimize=not a.no_minimize,
                minimize_budget=a.minimize_budget, sanitize=a.sanitize)
    counts = Counter()
    t0 = time.monotonic()
    seeds = range(a.seed, a.seed + a.count)
    with multiprocessing.get_context("fork").Pool(a.jobs, _init, (opts,), maxtasksperchild=20) as pool:
        for seed, kind, lvl, detail, repro in pool.imap_unordered(one, seeds):
            counts[kind] += 1
            if kind not in ("pass", "skip"):
                print(f"seed {seed}: {kind} at -O{lvl}: {detail}\n  -> {repro}", flush=True)
            done = sum(counts.values())
            if a.progress and done % a.progress == 0:
                print(f"  {done} of {a.count} kernels, {done - counts['pass'] - counts['skip']} failed "
                      f"({time.monotonic() - t0:.0f} s)", flush=True)
    total = sum(counts.values())
    failed = sum(n for kd, n in counts.items() if kd not in ("pass", "skip"))
    print(f"\n{'kernels':>14} {total}   ({time.monotonic() - t0:.0f} s, {a.jobs} jobs)")
    for kd in KINDS:
        print(f"{kd:>14} {counts.get(kd, 0)}")
    print(f"{'failed':>14} {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
