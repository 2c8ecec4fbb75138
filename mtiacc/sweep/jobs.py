"""The two kinds of job a sweep runs, as plain functions of plain data, so that any executor (a local process,
a Ray task on another node) can run them: compile a kernel for a machine, and simulate a binary on inputs.

A job never raises for what the user wrote: a kernel that does not compile or a run that faults is a result
with the error's text (``file:line:col: error: ...`` as the command line prints it).  Anything else is a bug
and raises, so the executor can tell a failed job from a lost worker.
"""
from __future__ import annotations

import dataclasses
import io
from typing import Dict, Optional, Tuple

from mtiacc.diagnostics import UserError


@dataclasses.dataclass(frozen=True)
class CompileJob:
    source_path: str
    kernel_name: Optional[str]
    signature: Optional[str]
    defines: Tuple[Tuple[str, str], ...]
    options: Tuple[Tuple[str, object], ...]
    grid: Optional[str]
    machine: Tuple[Tuple[str, object], ...]     # the machine overrides (dotted keys) the code is compiled for


@dataclasses.dataclass(frozen=True)
class SimJob:
    machine: Tuple[Tuple[str, object], ...]
    args: Tuple[Tuple[str, str], ...]
    place: Tuple[Tuple[str, str], ...]
    max_cycles: Optional[int]


def compile_job(job: CompileJob) -> Dict[str, object]:
    """``{"binary": bytes}`` or ``{"error": text}``."""
    from mtiacc.driver import Options, compile_kernel
    opts = Options(kernel=job.kernel_name, defines=dict(job.defines), signature=job.signature, grid=job.grid,
                   overrides=tuple(f"{k}={v}" for k, v in job.machine), **dict(job.options))
    try:
        return {"binary": compile_kernel(job.source_path, opts).binary}
    except UserError as e:
        return {"error": e.render()}


def simulate_job(job: SimJob, binary: bytes, inputs) -> Dict[str, object]:
    """Run ``binary`` on ``inputs`` (a path, or the .npz file's bytes for a node that does not share the files):
    ``{"status": "ok", "cycles", "time_s", "roofline_fraction"}`` or ``{"status": "error", "error": text}``."""
    from mtiacc.machine import load
    from mtiacc.machine.simulator import config_of
    from mtiasim.loader import MAX_INPUT_BYTES, load_inputs, read_npz
    from mtiasim.runner import run
    from mtiasim.sync.progress import DEFAULT_MAX_CYCLES
    try:
        machine = config_of(load(overrides=dict(job.machine)))
        arrays = (read_npz(io.BytesIO(inputs), "the sweep's inputs", MAX_INPUT_BYTES)
                  if isinstance(inputs, bytes) else load_inputs(inputs))
        result = run(binary, arrays, args={k: str(v) for k, v in job.args}, config=machine,
                     place=dict(job.place), max_cycles=job.max_cycles or DEFAULT_MAX_CYCLES)
    except UserError as e:
        return {"status": "error", "error": e.render()}
    return ok_row(result.stats)


def ok_row(stats) -> Dict[str, object]:
    """A simulation's row of a sweep: ``{"status": "ok", "cycles", "time_s", "roofline_fraction"}``."""
    _bound, _roof, fraction = stats.roofline()
    return {"status": "ok", "cycles": int(stats.cycles), "time_s": float(stats.time_s),
            "roofline_fraction": float(fraction)}
