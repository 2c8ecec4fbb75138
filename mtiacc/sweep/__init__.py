"""``mtiacc sweep SPEC.yaml -o OUT.jsonl``: many compiles and simulations of one kernel, run in parallel.

The pipeline, in order:

1. read the spec (:mod:`.spec`) and list its points, the cartesian product of its axes;
2. with ``--resume``, drop the points that already have a row (:class:`.results.Journal`);
3. compile once per distinct compile setting (source, constexprs, options, the machine as the compiler sees it),
   in local processes;
4. simulate every point whose result the cache does not hold, on the executor (:mod:`.executors`: local
   processes or Ray tasks), appending each row to the journal as it finishes;
5. write ``OUT.jsonl`` whole, one row per point in the spec's order.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from typing import Callable, Dict, List, Optional

from mtiacc.diagnostics import UserError
from mtiacc.files import check_writable
from mtiacc.target import target_of

from . import results
from .executors import Lost, LocalExecutor, make_executor
from .jobs import CompileJob, SimJob, compile_job, simulate_job
from .spec import Point, Spec, load_spec, points


@dataclasses.dataclass
class Summary:
    points: int = 0
    ok: int = 0
    errors: int = 0
    resumed: int = 0      # rows kept from an earlier run (--resume)
    cached: int = 0       # simulations answered by the cache
    compiled: int = 0     # distinct compiles
    simulated: int = 0    # simulations run
    seconds: float = 0.0

    def line(self, out: str) -> str:
        parts = [f"{self.points} points: {self.ok} ok, {self.errors} failed"]
        extra = [f"{n} {what}" for n, what in ((self.resumed, "kept from the last run"),
                                                (self.cached, "from the cache"),
                                                (self.simulated, "simulated")) if n]
        return (f"sweep: {parts[0]}" + (f" ({', '.join(extra)})" if extra else "")
                + f" in {self.seconds:.1f} s; wrote {out}")


def _machine(overrides: Dict[str, object], spec: Spec):
    from mtiacc.machine import load
    try:
        return load(overrides=dict(overrides))
    except UserError as e:
        raise UserError(f"{spec.path}: set: {e.message}") from None


def _digest_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_sweep(spec_path: str, out: str, executor: str = "local", jobs: Optional[int] = None,
              address: Optional[str] = None, resume: bool = False,
              progress: Optional[Callable[[int, int], None]] = None) -> Summary:
    """Run the sweep of ``spec_path`` and write its rows to ``out``; ``progress(done, total)`` is called as
    points finish."""
    start = time.monotonic()
    check_writable(out)      # before hours of simulation whose rows could not be written
    spec = load_spec(spec_path)
    pts = points(spec)
    folder = os.path.dirname(os.path.abspath(spec.path))
    journal = results.Journal(out)
    done = journal.done(out) if resume else {}
    if not resume:
        journal.finish()           # a journal left by an earlier sweep belongs to that sweep
    summary = Summary(points=len(pts))
    rows: Dict[int, dict] = {}
    for p in pts:
        if p.ident() in done:
            rows[p.index] = done[p.ident()]
            summary.resumed += 1
    todo = [p for p in pts if p.index not in rows]
    report = progress or (lambda _d, _t: None)
    report(len(rows), len(pts))

    # the machine of every point, checked before anything runs
    machines = {p.index: _machine(p.set, spec) for p in todo}

    def finish(p: Point, result: dict) -> None:
        rows[p.index] = r = results.row(p.as_json(), result)
        journal.append(r)
        report(len(rows), len(pts))

    # 3. compile once per distinct setting
    source = _digest_file(spec.kernel)
    settings: Dict[str, CompileJob] = {}
    setting_of: Dict[int, str] = {}
    for p in todo:
        job = CompileJob(source_path=spec.kernel, kernel_name=spec.kernel_name, signature=spec.signature,
                         defines=tuple((k, str(v)) for k, v in p.defines.items()),
                         options=tuple(sorted(spec.options.items())), grid=spec.grid,
                         machine=tuple(p.set.items()))
        key = repr((source, job.kernel_name, job.signature, job.defines, job.options, job.grid,
                    target_of(machines[p.index])))
        settings.setdefault(key, job)
        setting_of[p.index] = key
    keys = list(settings)
    binaries: Dict[str, dict] = {}
    ex = make_executor(executor, jobs, address)
    try:
        if keys:
            # one pool of local workers: the sweep's own when it runs locally (its workers simulate next)
            compiler = ex if isinstance(ex, LocalExecutor) else LocalExecutor(jobs)
            try:
                for i, outcome in compiler.run(compile_job, [(settings[k],) for k in keys]):
                    binaries[keys[i]] = outcome if isinstance(outcome, dict) else {"error": outcome.reason}
            finally:
                if compiler is not ex:
                    compiler.close()
        summary.compiled = len(keys)

        # 4. simulate what the cache does not know
        inputs_digest = {}
        inputs_data = {}
        sims: List[tuple] = []
        sim_points: List[tuple] = []
        for p in todo:
            compiled = binaries[setting_of[p.index]]
            if "error" in compiled:
                finish(p, {"status": "error", "error": compiled["error"]})
                continue
            path = os.path.join(folder, p.inputs)
            if path not in inputs_digest:
                inputs_digest[path] = _digest_file(path)
            job = SimJob(machine=tuple(p.set.items()), args=tuple((k, str(v)) for k, v in p.args.items()),
                         place=tuple(sorted(spec.place.items())), max_cycles=spec.max_cycles)
            key = results.sim_key(compiled["binary"], inputs_digest[path], machines[p.index].digest,
                                  {"args": job.args, "place": job.place, "max_cycles": job.max_cycles})
            hit = results.cached(key)
            if hit is not None:
                summary.cached += 1
                finish(p, hit)
                continue
            if ex.shares_files:
                inputs = path
            else:
                if path not in inputs_data:
                    with open(path, "rb") as f:
                        inputs_data[path] = f.read()
                inputs = inputs_data[path]
            sims.append((job, compiled["binary"], inputs))
            sim_points.append((p, key))
        for i, outcome in ex.run(simulate_job, sims):
            p, key = sim_points[i]
            if isinstance(outcome, Lost):
                outcome = {"status": "error", "error": outcome.reason}
            else:
                results.store(key, outcome)
            summary.simulated += 1
            finish(p, outcome)
    finally:
        ex.close()
        journal.close()

    # 5. the output, whole, in the spec's order
    ordered = [rows[p.index] for p in pts]
    results.write_rows(out, ordered)
    journal.finish()
    summary.ok = sum(r["status"] == "ok" for r in ordered)
    summary.errors = len(ordered) - summary.ok
    summary.seconds = time.monotonic() - start
    return summary
