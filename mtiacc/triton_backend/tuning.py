"""Autotuning's candidates compiled and simulated in parallel, with the same timings and choice as one by one.

An autotuner measures its candidates one after another: Triton's ``Autotuner`` runs each config's kernel call
under the benchmarker, Inductor's max-autotune benchmarks each choice, its ``CachingAutotuner`` each config.
Each measurement is a compile and a simulation, seconds to minutes each, and independent of the others.
:func:`prefetch` takes the candidates' calls and runs them in three steps:

1. **capture**: each call runs with launches captured, not run (:func:`capturing`): the launcher hands over
   what it would compile (the kernel's compile request) and the arguments' memory as the launch finds it, runs
   nothing on the simulator, writes nothing, and the simulated clock does not move.  The autotuner's hooks
   (``reset_to_zero``, ``restore_value``, a config's ``pre_hook``) run as they do for a measurement;
2. **run**: the captured launches are jobs on the executor (:mod:`mtiacc.sweep.launches`: local processes,
   ``MTIACC_JOBS`` of them, or Ray tasks with ``MTIACC_EXECUTOR=ray``): compiled (unless the cache has the
   binary) and simulated, in parallel.  Each binary is kept as a compile here would keep it;
3. **measure**: the autotuner then measures as it always does, one candidate after another, and each launch
   whose result is at hand (:func:`measured`) takes it instead of simulating again: what the kernel stored is
   written back and the clock advances by its simulated time.  A launch whose result is not at hand (a failed
   job, a launch the capture did not see) is simulated here as without this module.

A result is taken for a launch of the same binary, grid, scalars and buffer layout whose buffers hold what the
captured launch found, except buffers the captured launch wrote: a candidate is measured on its arguments as
they were when tuning began (after its hooks), not on what the candidates measured before it left in its
outputs, which is Triton's rule for tuned kernels (a kernel whose result depends on what its outputs held
declares ``reset_to_zero`` or ``restore_value``, since the autotuner runs it many times on a GPU).  Under that
rule the timings, the choice and the tensors are those of measuring one after another.

Nothing runs in parallel with ``MTIACC_JOBS=1`` or on a machine of one core (the local executor's default).
"""
from __future__ import annotations

import contextlib
import threading
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

_state = threading.local()


def _captures() -> Optional[list]:
    return getattr(_state, "captures", None)


def capturing() -> bool:
    """Whether launches are being captured rather than run (:func:`prefetch`'s first step)."""
    return _captures() is not None


@contextlib.contextmanager
def _capture():
    _state.captures = []
    try:
        yield _state.captures
    finally:
        _state.captures = None


class _Captured:
    """A launch seen while capturing: its kernel, the prepared launch (no binary), a copy of its memory."""

    def __init__(self, kernel, prepared):
        self.kernel = kernel
        self.prepared = prepared
        self.inputs = {name: np.array(a, copy=True) for name, a in prepared.inputs.items()}


def capture(kernel, args, grid, constants, types) -> None:
    """Called by the launcher instead of running a launch while capturing.  A launch that cannot be prepared
    (an argument the kernel cannot take) is not captured: measured, it reports its error as without capture."""
    try:
        prepared = kernel.prepare(*args, grid=grid, constants=constants, types=types, compile=False)
    except Exception:     # noqa: BLE001 - the measurement that follows raises it where the user sees it
        return
    _captures().append(_Captured(kernel, prepared))


def _key(cache_key: str, prepared) -> tuple:
    layout = tuple(sorted((name, str(a.dtype), a.shape) for name, a in prepared.inputs.items()))
    return (cache_key, tuple(prepared.grid), tuple(sorted(prepared.scalars.items())),
            tuple(sorted(prepared.pointer_at.items())), layout)


class _Result:
    def __init__(self, inputs: Dict[str, np.ndarray], result):
        self.inputs = inputs
        self.result = result
        # the buffers the launch wrote (its outputs differ from what it found): they may differ at measurement
        self.written = {name for name, a in inputs.items()
                        if name in result.outputs and not _same(result.outputs[name], a)}


def _same(a, b) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.nbytes == b.nbytes and bool(np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)))


_results: Dict[tuple, List[_Result]] = {}
# launches run in parallel by prefetch, and of them, those a measurement took (for tests and reports)
counts = {"ran": 0, "taken": 0}


def measured(prepared):
    """The launch of ``prepared`` from a result :func:`prefetch` has at hand for it (written back, as
    :meth:`mtiacc.runtime.launcher.Prepared.execute` would), or None to simulate it."""
    if not _results:
        return None
    key = _key(prepared.kernel.cache_key(*prepared.compile_request), prepared)
    found = _results.get(key)
    if not found:
        return None
    for i, r in enumerate(found):
        if all(name in r.written or _same(a, r.inputs[name]) for name, a in prepared.inputs.items()):
            del found[i]
            if not found:
                del _results[key]
            from mtiasim.loader import load_program
            r.result.program = load_program(prepared.binary)
            counts["taken"] += 1
            return prepared.finish(r.result)
    return None


def prefetch(calls: Sequence[Callable[[], object]], executor=None) -> int:
    """Capture the launches of ``calls`` (each a candidate's measurement), compile and simulate them in parallel
    on ``executor`` (default: the environment's), and keep their results for the measurements that follow
    (:func:`measured`).  Returns how many launches ran; 0 when nothing runs in parallel here (one job) or the
    calls launched nothing."""
    from mtiacc.sweep.launches import LaunchJob, executor_from_env, run_launches
    if capturing():
        return 0
    ex = executor if executor is not None else executor_from_env()
    if ex is None:
        return 0
    captured: List[_Captured] = []
    with _capture() as seen:
        for call in calls:
            try:
                call()
            except Exception:     # noqa: BLE001 - a candidate that fails fails again when it is measured
                pass
            captured.extend(seen)
            seen.clear()
    if len(captured) < 2:
        return 0
    from .limits import run_limits
    limits = tuple(sorted(run_limits().items()))  # a candidate runs as long as its launch would
    jobs, keys = [], []
    for c in captured:
        cache_key = c.kernel.cache_key(*c.prepared.compile_request)
        unit, options = c.kernel.compile_job(*c.prepared.compile_request)
        from mtiacc.runtime import cache
        jobs.append(LaunchJob(unit=unit, options=options, binary=cache.load(cache_key), inputs=c.inputs,
                              grid=tuple(c.prepared.grid), scalars=dict(c.prepared.scalars),
                              pointer_at=dict(c.prepared.pointer_at), limits=limits))
        keys.append(_key(cache_key, c.prepared))
    counts["ran"] += len(jobs)
    for c, job, key, outcome in zip(captured, jobs, keys, run_launches(jobs, ex)):
        if "binary" in outcome and job.binary is None:
            signature, defines, aliases = c.prepared.compile_request
            c.kernel.install_binary(signature, defines, outcome["binary"], aliases)
        if "result" in outcome:
            _results.setdefault(key, []).append(_Result(c.inputs, outcome["result"]))
    return len(jobs)


def forget() -> None:
    """Drop the results no measurement took (a tuning round is over)."""
    _results.clear()


@contextlib.contextmanager
def in_parallel(calls: Sequence[Callable[[], object]]):
    """``prefetch(calls)``, then the block (the measurements, one after another), then :func:`forget`."""
    try:
        prefetch(calls)
        yield
    finally:
        forget()


# --- Triton's Autotuner -----------------------------------------------------------------------------------

def install() -> None:
    """Triton's ``Autotuner`` measures its pruned configs in parallel (:func:`prefetch`) before measuring them one
    by one: ``prune_configs`` marks the round, its first ``_bench`` prefetches every config of it.

    Installed when the driver is created, which is when a launch first needs it: in a process's first tuning
    round, inside the first config's measurement, after the configs were pruned.  That round's next ``_bench``
    prunes again (the same configs: Triton's pruning is a function of the arguments) and prefetches the configs
    left."""
    from triton.runtime.autotuner import Autotuner
    if getattr(Autotuner._bench, "_mtiacc", False):
        return
    prune, bench = Autotuner.prune_configs, Autotuner._bench

    def prune_configs(self, kwargs):
        configs = prune(self, kwargs)
        self._mtiacc_round = list(configs)
        return configs

    def _bench(self, *args, config, **meta):
        if not capturing() and "_mtiacc_left" not in self.__dict__:
            round_ = self.__dict__.pop("_mtiacc_round", None)
            if round_ is None:
                round_ = list(prune(self, meta))
            at = next((i for i, c in enumerate(round_) if c is config), None)
            if at is not None and len(round_) - at > 1:
                self._mtiacc_left = len(round_) - at
                prefetch([_bound(bench, self, args, c, meta) for c in round_[at:]])
        try:
            return bench(self, *args, config=config, **meta)
        finally:
            left = self.__dict__.get("_mtiacc_left")
            if left is not None and not capturing():
                self._mtiacc_left = left - 1
                if left <= 1:
                    del self._mtiacc_left
                    forget()

    prune_configs._mtiacc = _bench._mtiacc = True
    Autotuner.prune_configs, Autotuner._bench = prune_configs, _bench


def _bound(bench, tuner, args, config, meta):
    """A config's measurement, to capture: quietly (``TRITON_PRINT_AUTOTUNING`` prints the measurement that
    follows)."""
    def call():
        from triton import knobs
        with knobs.autotuning.scope():
            knobs.autotuning.print = False
            return bench(tuner, *args, config=config, **meta)
    return call
