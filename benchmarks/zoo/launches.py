"""A zoo model's simulator launches, recorded once and run again: the simulator's host time without the model's
compile, and a check that a change to the simulator leaves every launch's results as they were.

    python -m benchmarks.zoo.launches record MODEL [--dir build/zoo-launches] [--size tiny|real]
    python -m benchmarks.zoo.launches replay MODEL [--dir build/zoo-launches] [--only 0,3]

``record`` runs the model's inference (:func:`benchmarks.zoo.run.run_model`, tiny by default) and keeps each
launch (the binary, its inputs and its run options, and what the binary was compiled from) with a digest of what
it produced: the outputs' bytes, every figure of its :class:`~mtiasim.stats.Stats` but the host time, and the
per-instruction counts; ``index.json`` lists the launches with the number of the model's launches each stands for
in the zoo's report.  ``replay`` runs each launch again and prints its host CPU seconds (``time.process_time``)
and whether its digest is unchanged; the exit status is 1 when one is not.  ``benchmarks/dse.py --zoo`` runs the
recorded launches on other machines (docs/sweeps.md).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np


def digest(result) -> str:
    """What a run produced, as a hex digest: the outputs' bytes, the stats' figures (host time aside), the counts."""
    h = hashlib.sha256()
    for name in sorted(result.outputs):
        h.update(name.encode())
        h.update(np.ascontiguousarray(result.outputs[name]).tobytes())
    s = result.stats
    figures = []
    for field in sorted(vars(s)):
        if field == "wall_seconds":
            continue
        v = getattr(s, field)
        if isinstance(v, dict):
            v = {k: (x.tolist() if isinstance(x, np.ndarray) else x) for k, x in v.items()}
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        figures.append((field, repr(v)))
    h.update(repr(figures).encode())
    if result.counts is not None:
        h.update(np.asarray(result.counts).tobytes())
    return h.hexdigest()


def _sources(unit) -> dict:
    """The files a kernel's compile reads (its own, and those of the kernels it calls), by path: their text."""
    from mtiacc.frontend.source import KernelSource
    out, todo = {}, [unit]
    while todo:
        u = todo.pop()
        if isinstance(u, KernelSource):
            todo.extend(v for v in u.captured.values() if isinstance(v, KernelSource))
            path = u.path
        else:
            path = u
        if isinstance(path, str) and path not in out and Path(path).is_file():
            out[path] = Path(path).read_text(encoding="utf-8")
    return out


@contextlib.contextmanager
def recording(folder: Path):
    """Every ``mtiasim.runner.run`` inside the block is kept in ``folder`` (``0000.pkl``, ``0001.pkl``, ...).

    A launch of a kernel compiled by mtiacc also keeps what its binary was compiled from (``compile``: the
    pickled ``(unit, options)`` of :meth:`mtiacc.runtime.Kernel.compile_job`, and ``sources``: the text of the
    files that compile reads), so that it can be compiled again for another machine.  ``index.json`` (written
    when the block ends) gives each launch's ``weight``: how many of the model's launches the zoo's report counts
    it for (a launch the launcher replayed from memory counts again; an autotuning candidate's run, zero)."""
    import mtiasim.runner as runner
    from mtiacc.runtime.launcher import Prepared
    from mtiacc.triton_backend import records
    folder.mkdir(parents=True, exist_ok=True)
    for old in list(folder.glob("*.pkl")) + list(folder.glob("index.json")):
        old.unlink()
    real, real_execute, real_on_chip = runner.run, Prepared.execute, records.on_chip
    count = [0]
    preparing = []            # the launch whose execute() is running
    results = {}              # id(result) -> (launch number, result kept alive)
    entries = []

    def execute(self, *args, **kwargs):
        preparing.append(self)
        try:
            return real_execute(self, *args, **kwargs)
        finally:
            preparing.pop()

    def run(binary, inputs, *args, **kwargs):
        call = pickle.dumps((binary, {k: np.array(v, copy=True) for k, v in inputs.items()}, args, kwargs))
        compile_request, sources = None, {}
        prep = preparing[-1] if preparing else None
        if prep is not None and prep.compile_request is not None and prep.binary == binary:
            unit, options = prep.kernel.compile_job(*prep.compile_request)
            compile_request, sources = pickle.dumps((unit, options)), _sources(unit)
        t = time.process_time()
        result = real(binary, inputs, *args, **kwargs)
        cpu = time.process_time() - t
        n = count[0]
        with open(folder / f"{n:04d}.pkl", "wb") as f:
            pickle.dump({"call": call, "digest": digest(result), "cycles": result.stats.cycles, "cpu": cpu,
                         "compile": compile_request, "sources": sources}, f)
        results[id(result)] = (n, result)
        entries.append({"file": f"{n:04d}.pkl", "kernel": prep.kernel.name if prep is not None else None,
                        "cycles": int(result.stats.cycles), "time_s": float(result.stats.time_s), "weight": 0})
        count[0] += 1
        return result

    def on_chip(path, name, launch, nbytes=0):
        found = results.get(id(getattr(launch, "result", None)))
        if found is not None and not records.tuning_now():
            entries[found[0]]["weight"] += 1
        return real_on_chip(path, name, launch, nbytes)

    runner.run, Prepared.execute, records.on_chip = run, execute, on_chip
    try:
        yield count
    finally:
        runner.run, Prepared.execute, records.on_chip = real, real_execute, real_on_chip
        (folder / "index.json").write_text(json.dumps({"launches": entries}, indent=1))


def replay(folder: Path, only=None):
    """Run the launches kept in ``folder`` again: ``[(name, cpu seconds, cycles, same digest)]``."""
    from mtiasim.runner import run
    rows = []
    for path in sorted(folder.glob("*.pkl")):
        if only is not None and int(path.stem) not in only:
            continue
        with open(path, "rb") as f:
            rec = pickle.load(f)
        binary, inputs, args, kwargs = pickle.loads(rec["call"])
        t = time.process_time()
        result = run(binary, inputs, *args, **kwargs)
        cpu = time.process_time() - t
        rows.append((path.stem, cpu, result.stats.cycles, digest(result) == rec["digest"]))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("record", "replay"))
    ap.add_argument("model")
    ap.add_argument("--dir", default="build/zoo-launches", help="launches are kept in DIR/MODEL")
    ap.add_argument("--only", help="replay: comma-separated launch numbers")
    ap.add_argument("--size", choices=("tiny", "real"), default="tiny", help="record: the model's size")
    args = ap.parse_args(argv)
    folder = Path(args.dir) / args.model
    if args.action == "record":
        from .run import families, run_model
        if args.model not in families():
            print(f"zoo: error: unknown model {args.model} (python -m benchmarks.zoo --list names them)",
                  file=sys.stderr)
            return 2
        # every simulation in this process, where the recording sees it (autotuning's candidates one by one)
        os.environ["MTIACC_JOBS"] = "1"
        t = time.process_time()
        with recording(folder) as count:
            row = run_model(args.model, args.size)
        index = json.loads((folder / "index.json").read_text())
        index.update(model=args.model, size=args.size, status=row["status"], simulated_s=row.get("simulated_s"))
        (folder / "index.json").write_text(json.dumps(index, indent=1))
        print(f"{args.model}: {row['status']}, {count[0]} launches kept in {folder}, "
              f"{time.process_time() - t:.2f} s CPU", file=sys.stderr)
        return 0 if row["status"] == "ok" else 1
    only = {int(x) for x in args.only.split(",")} if args.only else None
    rows = replay(folder, only)
    if not rows:
        print(f"zoo: error: no launches in {folder} (record them first)", file=sys.stderr)
        return 2
    for name, cpu, cycles, same in rows:
        print(f"{name}  {cpu:8.2f} s  {cycles:>10} cycles  {'same' if same else 'CHANGED'}")
    changed = sum(not r[3] for r in rows)
    print(f"{args.model}: {len(rows)} launches, {sum(r[1] for r in rows):.2f} s CPU, {changed} changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
