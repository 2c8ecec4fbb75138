"""Recorded kernel launches as a sweep's workload: every launch of a model, run again on other machines.

A *recorded launch* is one ``mtiasim.runner.run`` call kept whole (``benchmarks/zoo/launches.py record``): the
binary, the inputs and the run's options, pickled, and, for a kernel mtiacc compiled, what the binary was
compiled from (``(unit, options)`` of :meth:`mtiacc.runtime.Kernel.compile_job`, and the text of the files
that compile reads).  :func:`run_workload` runs a list of them on each of a list of :class:`MachinePoint`
(machine overrides, and whether the buffers live in SRAM), one job per launch and point, on a sweep's executor:

1. a launch is compiled again for a point whose machine the compiler sees differently from the recording's
   (:func:`compiler_view`: the local-memory size, the vector length, the PEs, the timing table, the SRAM's size;
   not the DRAM or SRAM bandwidth), once per distinct (source, options, compiler's view of the machine); a
   launch without its compile (a kernel another compiler built) runs its recorded binary everywhere;
2. each simulation is looked up in the sweep's content-addressed cache (:func:`.results.sim_key`: the binary,
   the recorded call, the machine's values, the placement, the simulator's sources); the jobs the cache does
   not answer run on the executor, each distinct one once (two launches of the same binary on the same bytes
   are one job), and their results go to the cache, so running the same workload again simulates nothing;
3. launches of a kernel whose cycles are shown not to depend on its buffers' values
   (:mod:`.independence`) are one job per machine when they share the binary and the buffers' names, types and
   sizes, the scalars, the grid and the options (``merge``).

Compiled binaries are cached by content as well (:mod:`mtiacc.runtime.cache`: the sources' text, the options,
the machine's values and the compiler's sources), so a second run compiles nothing either.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from mtiacc.diagnostics import UserError

from . import results
from .executors import Lost, LocalExecutor, make_executor
from .jobs import ok_row

SRAM_KEY = "sram"


@dataclasses.dataclass(frozen=True)
class MachinePoint:
    """A machine to run the workload on: ``set`` overrides mtia2i's keys (``(("memory.dram.bw_bytes_per_s",
    409.6e9),)``); ``sram`` places every buffer of every launch in the on-chip SRAM (``mtiasim run --place``)."""

    set: Tuple[Tuple[str, object], ...] = ()
    sram: bool = False


@dataclasses.dataclass
class Recording:
    """One recorded launch, as :func:`load_recording` reads it."""

    path: str
    call: bytes                       # pickled (binary, inputs, args, kwargs) of mtiasim.runner.run
    binary: bytes
    kwargs: dict
    compile: Optional[bytes]          # pickled (unit, options), or None: the recorded binary is all there is
    sources: Dict[str, str]           # path -> text of the files the compile reads
    layout: str = ""                  # a digest of the call but for the buffers' values (their names, types, shapes)


@dataclasses.dataclass
class Stats:
    launches: int = 0
    jobs: int = 0            # launches x points
    compiled: int = 0        # compiles run (not answered by the binary cache)
    compile_cached: int = 0
    cached: int = 0          # simulations the cache answered
    merged: int = 0          # jobs that were the same simulation as another job of this run (same bytes)
    merged_by_layout: int = 0   # jobs that took the simulation of another launch of the same binary on buffers
                                # of the same sizes: a kernel whose cycles do not depend on values (.independence)
    independent: int = 0     # launches whose kernel's cycles are shown not to depend on its buffers' values
    simulated: int = 0
    failed: int = 0


def load_recording(path) -> Recording:
    with open(path, "rb") as f:
        rec = pickle.load(f)
    binary, inputs, args, kwargs = pickle.loads(rec["call"])
    layout = _digest(binary, repr(args), repr(sorted(kwargs.items())),
                     repr([(k, np.asarray(v).dtype.str, np.shape(v)) for k, v in inputs.items()]))
    return Recording(path=str(path), call=rec["call"], binary=binary, kwargs=kwargs, compile=rec.get("compile"),
                     sources=rec.get("sources") or {}, layout=layout)


def compile_recorded(compile_request: bytes, sources: Dict[str, str], overrides: Tuple[str, ...]) -> dict:
    """Compile a recorded launch's kernel for a machine with ``overrides``: ``{"binary"}`` or ``{"error"}``."""
    from mtiacc.driver import compile_kernel
    unit, options = unit_here(compile_request, sources)
    options = dataclasses.replace(options, overrides=tuple(options.overrides) + tuple(overrides))
    try:
        return {"binary": compile_kernel(unit, options).binary}
    except UserError as e:
        return {"error": e.render()}


def unit_here(compile_request: bytes, sources: Dict[str, str]):
    """A recorded compile request ``(unit, options)``, its files where this machine has them: a source file no
    longer at its recorded path (another machine, a cleaned cache) is written from the recording's text into a
    temporary folder."""
    unit, options = pickle.loads(compile_request)
    moved = {}
    for path, text in sources.items():
        try:
            same = Path(path).read_text(encoding="utf-8") == text
        except OSError:
            same = False
        if not same:    # one folder per text: a later run (or another job) writes nothing again
            folder = Path(tempfile.gettempdir()) / "mtiacc-recorded" / _digest(path, text)[:24]
            here = folder / Path(path).name
            try:
                if here.read_text(encoding="utf-8") != text:
                    raise OSError
            except OSError:
                folder.mkdir(parents=True, exist_ok=True)
                tmp = folder / f".{here.name}.{os.getpid()}"
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, here)
            moved[path] = str(here)
    if moved:
        unit = _relocated(unit, moved)
    return unit, options


def _is_source(v) -> bool:
    """A kernel handed over in memory (``mtiacc.frontend.source.KernelSource``: its path, text and captures)."""
    return dataclasses.is_dataclass(v) and hasattr(v, "captured") and hasattr(v, "path")


def _relocated(unit, moved: Dict[str, str]):
    if isinstance(unit, str):
        return moved.get(unit, unit)
    if _is_source(unit):
        captured = {k: _relocated(v, moved) if _is_source(v) else v for k, v in unit.captured.items()}
        return dataclasses.replace(unit, path=moved.get(unit.path, unit.path), captured=captured)
    return unit


def simulate_recorded(call, binary: Optional[bytes], overrides: Tuple[str, ...], sram: bool) -> dict:
    """Run a recorded call (its pickled bytes, or the recording's file) with ``binary`` instead of the recorded
    one (None: the recorded one) on the machine with ``overrides``: ``{"status": "ok", "cycles", "time_s",
    "roofline_fraction"}`` or ``{"status": "error", "error"}``."""
    from mtiasim.runner import run
    if isinstance(call, str):
        with open(call, "rb") as f:
            call = pickle.load(f)["call"]
    recorded, inputs, args, kwargs = pickle.loads(call)
    kwargs = dict(kwargs)
    kwargs["overrides"] = tuple(overrides)
    if sram:
        kwargs["place"] = dict(kwargs.get("place") or {}, **{name: "sram" for name in inputs})
    try:
        result = run(binary if binary is not None else recorded, inputs, *args, **kwargs)
    except UserError as e:
        return {"status": "error", "error": e.render()}
    return ok_row(result.stats)


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def compiler_view(machine):
    """What of ``machine`` the compiler reads: its :class:`~mtiacc.target.Target` (the local-memory size, the
    vector length, the PEs, the timing table, the SFU's functions) and the SRAM's size (the memory planner's);
    two machines that agree on it get the same code."""
    from mtiacc.target import target_of
    return target_of(machine), machine["memory.sram.bytes"]


def _compile_key(rec: Recording, view) -> str:
    """The binary cache's key of a recorded kernel compiled for the compiler's view ``view`` of a machine
    (:func:`compiler_view`): the sources' text, the compile request and that view, with the compiler's sources."""
    from mtiacc.runtime import cache
    sources = json.dumps(sorted(rec.sources.items()))
    return cache.key(sources, "recorded", "", {}, {"request": _digest(rec.compile),
                                                  "machine": repr(view)})


def recorded_dependence(compile_request: bytes, sources=None, overrides: Tuple[str, ...] = ()) -> Optional[str]:
    """:func:`.independence.value_dependence` of a recorded launch's kernel (its pickled ``(unit, options)`` and
    the text of its files, as a :class:`Recording` has them) compiled for the machine with ``overrides``: the IR
    as the frontend builds it, then as the passes leave it.  A kernel that does not compile here is reported as
    possibly value-dependent, with the reason."""
    from mtiacc.driver import compile_kernel, run_frontend

    from .independence import value_dependence
    unit, options = unit_here(compile_request, sources or {})
    options = dataclasses.replace(options, overrides=tuple(options.overrides) + tuple(overrides))
    try:
        why = value_dependence(run_frontend(unit, options).module)
        if why is None:
            why = value_dependence(compile_kernel(unit, options, stop_after="ir").frontend.module)
            why = why and f"after the passes, {why}"
    except (UserError, OSError) as e:
        return f"it does not compile here ({str(e).splitlines()[0]})"
    return why


def _verdict_path(key: str) -> Path:
    from mtiacc.runtime.cache import cache_dir
    return cache_dir() / "sweep" / "independence" / key[:2] / f"{key}.json"


def _dependences(recordings, views, overrides, compiler_of) -> Dict[Tuple[int, int], Optional[str]]:
    """:func:`recorded_dependence` of each launch on each machine (one analysis per compile request and compiler's
    view of the machine, cached by content as the binaries are; the ones not cached run on local workers); a
    launch without its compile is taken to depend on values."""
    out: Dict[Tuple[int, int], Optional[str]] = {}
    todo: Dict[str, List[Tuple[int, int]]] = {}
    for i, rec in enumerate(recordings):
        for j, view in enumerate(views):
            if rec.compile is None:
                out[i, j] = "its launch was recorded without what it was compiled from"
                continue
            key = _digest("dependence", _compile_key(rec, view))
            try:
                out[i, j] = json.loads(_verdict_path(key).read_text(encoding="utf-8"))["dependence"]
            except (OSError, ValueError, KeyError, TypeError):
                todo.setdefault(key, []).append((i, j))
    if todo:
        keys = list(todo)
        work = [(recordings[todo[k][0][0]].compile, recordings[todo[k][0][0]].sources, overrides[todo[k][0][1]])
                for k in keys]
        for n, why in compiler_of().run(recorded_dependence, work):
            if isinstance(why, Lost):
                why = f"its analysis was lost ({why.reason})"
            else:
                path = _verdict_path(keys[n])
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_suffix(f".{os.getpid()}.tmp")
                    tmp.write_text(json.dumps({"dependence": why}), encoding="utf-8")
                    os.replace(tmp, path)
                except OSError:
                    pass
            for ij in todo[keys[n]]:
                out[ij] = why
    return out


def run_workload(recordings: Sequence[Recording], points: Sequence[MachinePoint], executor: str = "local",
                 jobs: Optional[int] = None, address: Optional[str] = None,
                 progress: Optional[Callable[[int, int], None]] = None,
                 merge: bool = True) -> Tuple[List[List[dict]], Stats]:
    """``out[i][j]``: launch ``i`` on point ``j`` (``{"status", "cycles", "time_s", "roofline_fraction", "error",
    "binary"}``, ``binary`` the digest of the binary that ran), with what ran and what the caches answered.

    With ``merge``, launches of one binary on buffers of the same names, types and sizes, with the same scalars,
    grid and options, are one simulation on each machine when their kernel's cycles are shown not to depend on
    the buffers' values (:func:`.independence.recorded_dependence`); the others are one simulation only when their
    bytes are the same too."""
    from mtiacc.machine import load
    from mtiacc.runtime import cache
    stats = Stats(launches=len(recordings), jobs=len(recordings) * len(points))
    report = progress or (lambda _d, _t: None)
    for rec in recordings:
        if rec.kwargs.get("config_path") or rec.kwargs.get("config") or rec.kwargs.get("overrides"):
            raise UserError(f"{rec.path}: recorded on a machine other than mtia2i (the points override mtia2i)")
    machines = []
    for pt in points:
        try:
            machines.append(load(overrides=tuple(f"{k}={v}" for k, v in pt.set)))
        except UserError as e:
            raise UserError(f"machine point {dict(pt.set)}: {e.message}") from None
    base_view = compiler_view(load())
    views = [compiler_view(m) for m in machines]
    out: List[List[Optional[dict]]] = [[None] * len(points) for _ in recordings]

    # 1. the binary of each launch on each point: recorded, cached, or compiled (once per distinct setting)
    binary_of: Dict[Tuple[int, int], bytes] = {}
    compiles: Dict[str, Tuple[int, int]] = {}       # cache key -> (launch, point) that compiles it
    waiting: Dict[str, List[Tuple[int, int]]] = {}
    for i, rec in enumerate(recordings):
        for j, view in enumerate(views):
            if rec.compile is None or view == base_view:
                binary_of[i, j] = rec.binary
                continue
            key = _compile_key(rec, view)
            hit = cache.load(key)
            if hit is not None:
                stats.compile_cached += 1
                binary_of[i, j] = hit
                continue
            compiles.setdefault(key, (i, j))
            waiting.setdefault(key, []).append((i, j))
    ex = make_executor(executor, jobs, address)
    done = [0]
    helpers: List[LocalExecutor] = []

    def local() -> LocalExecutor:
        """Local workers for compiles and analyses: the executor's own when it is local."""
        if isinstance(ex, LocalExecutor):
            return ex
        if not helpers:
            helpers.append(LocalExecutor(jobs))
        return helpers[0]

    def finish(i: int, j: int, result: dict, binary: Optional[bytes]) -> None:
        r = results.row({}, result)
        r.pop("point")
        r["binary"] = results.digest(binary) if binary is not None else None
        out[i][j] = r
        stats.failed += r["status"] != "ok"
        done[0] += 1
        report(done[0], stats.jobs)

    try:
        keys = list(compiles)
        if keys:
            compiler = local()
            work = []
            for k in keys:
                i, j = compiles[k]
                work.append((recordings[i].compile, recordings[i].sources,
                             tuple(f"{a}={b}" for a, b in points[j].set)))
            for n, outcome in compiler.run(compile_recorded, work):
                k = keys[n]
                if isinstance(outcome, Lost):
                    outcome = {"error": outcome.reason}
                stats.compiled += 1
                if "binary" in outcome:
                    cache.store(k, outcome["binary"])
                for i, j in waiting[k]:
                    if "binary" in outcome:
                        binary_of[i, j] = outcome["binary"]
                    else:
                        finish(i, j, {"status": "error", "error": outcome["error"]}, None)

        # 2. simulate what the cache does not know, each distinct simulation once: jobs grouped by their cache key,
        # or, for a kernel whose cycles do not depend on values, by the binary, the buffers' layout and the machine;
        # a group is answered by its first job's simulation (cached under that job's key)
        call_digest = [_digest(rec.call) for rec in recordings]
        independent: Dict[Tuple[int, int], bool] = {}
        if merge:
            whys = _dependences(recordings, views, [tuple(f"{a}={b}" for a, b in pt.set) for pt in points],
                                local)
            independent = {ij: why is None for ij, why in whys.items()}
            stats.independent = sum(all(independent[i, j] for j in range(len(points)))
                                    for i in range(len(recordings)))
        groups: Dict[str, List[Tuple[int, int, str]]] = {}
        for (i, j), binary in sorted(binary_of.items()):
            key = results.sim_key(binary, call_digest[i], machines[j].digest,
                                  {"recorded_call": True, SRAM_KEY: points[j].sram})
            group = key
            if independent.get((i, j)):
                group = _digest("layout", recordings[i].layout, results.digest(binary), machines[j].digest,
                                points[j].sram)
            groups.setdefault(group, []).append((i, j, key))
        sims: Dict[str, List[Tuple[int, int]]] = {}
        for members in groups.values():
            key = members[0][2]
            hit = results.cached(key)
            if hit is not None:
                stats.cached += len(members)
                for i, j, _k in members:
                    finish(i, j, hit, binary_of[i, j])
                continue
            stats.merged += sum(k == key for _i, _j, k in members[1:])
            stats.merged_by_layout += sum(k != key for _i, _j, k in members[1:])
            sims[key] = [(i, j) for i, j, _k in members]
        keys = list(sims)
        work = []
        for k in keys:
            i, j = sims[k][0]
            rec, binary = recordings[i], binary_of[sims[k][0]]
            call = rec.path if ex.shares_files else rec.call
            work.append((call, None if binary == rec.binary else binary,
                         tuple(f"{a}={b}" for a, b in points[j].set), points[j].sram))
        for n, outcome in ex.run(simulate_recorded, work):
            k = keys[n]
            if isinstance(outcome, Lost):
                outcome = {"status": "error", "error": outcome.reason}
            else:
                results.store(k, outcome)
            stats.simulated += 1
            for i, j in sims[k]:
                finish(i, j, outcome, binary_of[i, j])
    finally:
        for h in helpers:
            h.close()
        ex.close()
    return out, stats
