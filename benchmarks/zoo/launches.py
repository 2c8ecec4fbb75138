"""A zoo model's simulator launches, recorded once and run again: the simulator's host time without the model's
compile, and a check that a change to the simulator leaves every launch's results as they were.

    python -m benchmarks.zoo.launches record MODEL [--dir build/zoo-launches]
    python -m benchmarks.zoo.launches replay MODEL [--dir build/zoo-launches] [--only 0,3]

``record`` runs the tiny model's inference (:func:`benchmarks.zoo.run.run_model`) and keeps each launch (the
binary, its inputs and its run options) with a digest of what it produced: the outputs' bytes, every figure of its
:class:`~mtiasim.stats.Stats` but the host time, and the per-instruction counts.  ``replay`` runs each launch again
and prints its host CPU seconds (``time.process_time``) and whether its digest is unchanged; the exit status is 1
when one is not.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
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


@contextlib.contextmanager
def recording(folder: Path):
    """Every ``mtiasim.runner.run`` inside the block is kept in ``folder`` (``0000.pkl``, ``0001.pkl``, ...)."""
    import mtiasim.runner as runner
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.pkl"):
        old.unlink()
    real = runner.run
    count = [0]

    def run(binary, inputs, *args, **kwargs):
        call = pickle.dumps((binary, {k: np.array(v, copy=True) for k, v in inputs.items()}, args, kwargs))
        t = time.process_time()
        result = real(binary, inputs, *args, **kwargs)
        cpu = time.process_time() - t
        with open(folder / f"{count[0]:04d}.pkl", "wb") as f:
            pickle.dump({"call": call, "digest": digest(result), "cycles": result.stats.cycles, "cpu": cpu}, f)
        count[0] += 1
        return result

    runner.run = run
    try:
        yield count
    finally:
        runner.run = real


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
    args = ap.parse_args(argv)
    folder = Path(args.dir) / args.model
    if args.action == "record":
        from .run import families, run_model
        if args.model not in families():
            print(f"zoo: error: unknown model {args.model} (python -m benchmarks.zoo --list names them)",
                  file=sys.stderr)
            return 2
        t = time.process_time()
        with recording(folder) as count:
            row = run_model(args.model, "tiny")
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
