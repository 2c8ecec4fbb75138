"""Many kernel launches compiled and simulated at once, on a sweep's executors: what autotuning runs.

An autotuner measures N candidates of one kernel (Triton's ``@triton.autotune`` configs, Inductor's
max-autotune choices); each is a compile and a simulation, independent of the others.  A :class:`LaunchJob` is
one of them as plain data (the kernel's compile request from :meth:`mtiacc.runtime.Kernel.prepare` with
``compile=False``, and the arguments' memory as it was), and :func:`run_launches` runs a list of them on an
executor and returns, in order, each one's binary and simulator result.

The executor is the environment's (:func:`executor_from_env`): ``MTIACC_EXECUTOR=local`` (the default) runs
``MTIACC_JOBS`` worker processes (default: the machine's cores; one core, or ``MTIACC_JOBS=1``, runs nothing in
parallel), ``MTIACC_EXECUTOR=ray`` runs the simulations as Ray tasks (``RAY_ADDRESS`` names the cluster) after
compiling on local workers, as a sweep does.  The executor is started once per process and kept for the next
tuning.
"""
from __future__ import annotations

import atexit
import dataclasses
import os
from typing import Dict, List, Optional, Tuple

from mtiacc.diagnostics import UsageError, UserError

from .executors import Lost, LocalExecutor, make_executor

EXECUTOR_ENV = "MTIACC_EXECUTOR"
JOBS_ENV = "MTIACC_JOBS"


@dataclasses.dataclass(frozen=True)
class LaunchJob:
    """One launch to compile (unless ``binary`` is given) and simulate."""

    unit: object                           # the kernel's file, or a mtiacc.runtime.KernelSource
    options: object                        # mtiacc.driver.Options (kernel, signature, constexprs, machine)
    binary: Optional[bytes]                # already compiled (the cache had it)
    inputs: Dict[str, object]              # parameter -> array, the memory as the launch found it
    grid: Tuple[int, ...]
    scalars: Dict[str, str]
    pointer_at: Dict[str, Tuple[str, int]]
    limits: Tuple[Tuple[str, int], ...] = ()  # the run's max_cycles / max_steps, else mtiasim run's defaults


def compile_launch(unit, options) -> Dict[str, object]:
    """``{"binary": bytes}``, or ``{"error": text}`` for a kernel that does not compile."""
    from mtiacc.driver import compile_kernel
    try:
        return {"binary": compile_kernel(unit, options).binary}
    except UserError as e:
        return {"error": e.render()}


def simulate_launch(binary: bytes, inputs, grid, scalars, pointer_at, config_path, overrides,
                    limits=()) -> Dict[str, object]:
    """``{"result": RunResult}`` (without its decoded program, which the caller has), or ``{"error": text}`` for a
    run that faults or passes ``limits`` (``(("max_cycles", n), ("max_steps", n))``, as ``mtiasim.runner.run``
    takes them)."""
    from mtiasim.runner import run
    try:
        result = run(binary, inputs, grid=grid, args=scalars, pointer_at=pointer_at, config_path=config_path,
                     overrides=overrides, **dict(limits))
    except UserError as e:
        return {"error": e.render()}
    result.program = None
    return {"result": result}


def launch_job(job: LaunchJob) -> Dict[str, object]:
    """Compile (unless the job has its binary) and simulate: ``{"binary", "result"}``, or ``{"binary", "error"}``
    / ``{"compile_error"}``."""
    binary = job.binary
    if binary is None:
        compiled = compile_launch(job.unit, job.options)
        if "error" in compiled:
            return {"compile_error": compiled["error"]}
        binary = compiled["binary"]
    out = simulate_launch(binary, job.inputs, job.grid, job.scalars, job.pointer_at, job.options.target,
                          job.options.overrides, job.limits)
    out["binary"] = binary
    return out


def _settings() -> Tuple[str, int]:
    name = os.environ.get(EXECUTOR_ENV, "").strip() or "local"
    if name not in ("local", "ray"):
        raise UsageError(f"{EXECUTOR_ENV}={name}: the executors are local and ray")
    text = os.environ.get(JOBS_ENV, "").strip()
    if text:
        try:
            jobs = int(text)
        except ValueError:
            raise UsageError(f"{JOBS_ENV}={text}: a number of jobs") from None
    else:
        jobs = _cores()
    return name, max(1, jobs)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_executors: Dict[tuple, object] = {}


def executor_from_env():
    """The executor autotuning runs its candidates on, or None to run them one after another here (one job:
    ``MTIACC_JOBS=1``, or a machine of one core, on the local executor)."""
    name, jobs = _settings()
    if name == "local" and jobs < 2:
        return None
    key = (name, jobs, os.environ.get("RAY_ADDRESS"))
    ex = _executors.get(key)
    if ex is None:
        ex = _executors[key] = make_executor(name, jobs)
        if len(_executors) == 1:
            atexit.register(close_executors)
    return ex


def close_executors() -> None:
    """Stop the executors :func:`executor_from_env` started (their worker processes, a Ray of their own)."""
    while _executors:
        _key, ex = _executors.popitem()
        ex.close()


def run_launches(jobs: List[LaunchJob], executor) -> List[Dict[str, object]]:
    """Each job's outcome, in order: ``{"binary", "result"}``, ``{"binary", "error"}`` (the run faulted),
    ``{"compile_error"}``, or ``{"lost": reason}`` (its worker died more often than the retries allow)."""
    out: List[Optional[Dict[str, object]]] = [None] * len(jobs)
    if isinstance(executor, LocalExecutor):
        for i, outcome in executor.run(launch_job, [(j,) for j in jobs]):
            out[i] = {"lost": outcome.reason} if isinstance(outcome, Lost) else outcome
        return out
    # Ray: compiles here, on local workers (the kernels' files are on this machine), simulations on the cluster
    binaries: Dict[int, bytes] = {i: j.binary for i, j in enumerate(jobs) if j.binary is not None}
    todo = [i for i in range(len(jobs)) if i not in binaries]
    if todo:
        local = _local_compiler()
        for k, outcome in local.run(compile_launch, [(jobs[i].unit, jobs[i].options) for i in todo]):
            i = todo[k]
            if isinstance(outcome, Lost):
                out[i] = {"lost": outcome.reason}
            elif "error" in outcome:
                out[i] = {"compile_error": outcome["error"]}
            else:
                binaries[i] = outcome["binary"]
    order = sorted(binaries)
    args = [(binaries[i], jobs[i].inputs, jobs[i].grid, jobs[i].scalars, jobs[i].pointer_at,
             jobs[i].options.target, jobs[i].options.overrides, jobs[i].limits) for i in order]
    for k, outcome in executor.run(simulate_launch, args):
        i = order[k]
        out[i] = ({"lost": outcome.reason} if isinstance(outcome, Lost)
                  else dict(outcome, binary=binaries[i]))
    return out


def _local_compiler() -> LocalExecutor:
    key = ("local-compiles", _settings()[1])
    ex = _executors.get(key)
    if ex is None:
        ex = _executors[key] = LocalExecutor(key[1])
    return ex
