"""The simulated clock: the chip time of every launch this process made, added up.

Benchmarks read it before and after running a kernel call (``Event.record()`` in :class:`SimulatedDevice`,
the benchmarker of :func:`simulated_benchmarker`), so ``triton.testing.do_bench`` and ``@triton.autotune``
measure the time the kernel takes on the simulated chip, not how long the simulator took to compute it.
"""
from __future__ import annotations

import threading
from typing import List, Optional, Sequence, Tuple

_lock = threading.Lock()
_elapsed_s = 0.0
_launches = 0


class _Measurement:
    """A measurement in progress (:func:`measure`): the chip seconds and the launches of its call."""

    def __init__(self):
        self.seconds = 0.0
        self.launches = 0


# the measurements in progress, innermost last: a launch counts in the innermost only, so a call that
# autotunes (Triton's autotuner measures each config inside it) measures the launch it makes with the config
# chosen, as Triton's do_bench, whose warm-up call does the tuning, measures the calls after it
_measuring: List[_Measurement] = []


def advance(seconds: float) -> None:
    """A launch finished on the simulator, taking ``seconds`` of chip time."""
    global _elapsed_s, _launches
    with _lock:
        _elapsed_s += seconds
        _launches += 1
        if _measuring:
            _measuring[-1].seconds += seconds
            _measuring[-1].launches += 1


def now_s() -> float:
    """Simulated seconds of all launches so far."""
    return _elapsed_s


def launches() -> int:
    return _launches


class Event:
    """A point on the simulated clock (as ``torch.cuda.Event`` marks a point in a stream)."""

    def __init__(self, enable_timing: bool = True, **_kwargs):
        self.t: Optional[float] = None

    def record(self, stream=None) -> None:
        self.t = now_s()

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds of simulated time between this event and ``end``."""
        if self.t is None or end.t is None:
            raise RuntimeError("elapsed_time() of an event that was not recorded")
        return (end.t - self.t) * 1e3


class SimulatedDevice:
    """The device interface ``triton.testing`` asks the driver for: events on the simulated clock.  Launches
    run to completion before they return, so there is nothing to wait for."""

    Event = Event

    @staticmethod
    def synchronize(device=None) -> None:
        pass

    @staticmethod
    def current_device() -> int:
        return 0

    @staticmethod
    def device_count() -> int:
        return 1

    @staticmethod
    def set_device(device) -> None:
        pass

    @staticmethod
    def is_available() -> bool:
        return True

    @staticmethod
    def current_stream(device=None) -> int:
        return 0

    @staticmethod
    def default_stream(device=None) -> int:
        return 0

    @staticmethod
    def empty_cache() -> None:
        pass


def _summary(times: List[float], quantiles: Optional[Sequence[float]], return_mode: str):
    import statistics
    if quantiles is not None:
        s = sorted(times)
        return [s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))] for q in quantiles]
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "median":
        return statistics.median(times)
    return statistics.mean(times)


def measure(call) -> Tuple[float, int]:
    """Run ``call`` once: the simulated milliseconds of the launches it made, and how many it made (the
    simulator is deterministic, so once measures what repetitions would).  The milliseconds are the launches'
    own times added up, not a difference of the clock's readings, so a launch measures the same whatever ran
    before it.  Launches made inside a measurement nested in this one (the autotuner's, measuring its
    configs) count in that one only."""
    m = _Measurement()
    _measuring.append(m)
    try:
        call()
    finally:
        _measuring.pop(next(i for i in range(len(_measuring) - 1, -1, -1) if _measuring[i] is m))
    return m.seconds * 1e3, m.launches


_benchmark = threading.local()


def autotuning() -> bool:
    """Whether Triton's autotuner is measuring a config (:func:`simulated_benchmarker` is running)."""
    return getattr(_benchmark, "depth", 0) > 0


def simulated_benchmarker(kernel_call, *, quantiles=None, return_mode: str = "mean", **_ignored):
    """Run ``kernel_call`` once and return the simulated milliseconds of the launches it made (the simulator
    is deterministic: every repetition would take the same time).  With ``TRITON_PRINT_AUTOTUNING=1`` it
    prints the time, so the autotuner's log shows what each config takes on the chip."""
    _benchmark.depth = getattr(_benchmark, "depth", 0) + 1
    try:
        ms, n = measure(kernel_call)
    finally:
        _benchmark.depth -= 1
    if _print_autotuning() and not _capturing():
        print(f"  simulated time on mtiasim: {ms * 1e3:.3f} us over {n} launch(es)")
    return _summary([ms], quantiles, return_mode)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """``triton.testing.do_bench`` on the simulated clock (installed by the driver in Triton's place): the
    simulated milliseconds of the launches one call of ``fn`` makes.  Triton's own repeats a call for ``rep``
    milliseconds of measured time, tens of thousands of calls for a kernel taking microseconds on the chip, each
    going through the launcher in Python; the simulator is deterministic, so one call measures what they would.
    A call that launched nothing on the chip (a torch operation the host computed, as a benchmark's baseline)
    is timed on the host's clock instead: a call that took ``rep`` milliseconds or more is its own measurement
    (tutorial 02's ``naive_softmax`` and 03's fp16 ``torch.matmul`` take seconds on the host at their largest
    sizes, where Triton's ``do_bench`` would call them eight times); a quicker one was the warm-up, and the
    calls ``rep`` milliseconds allow follow, four at most."""
    import time
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None
    h0 = time.perf_counter()
    ms, n = measure(fn)
    if n or _capturing():      # launches captured to run in parallel (tuning.py): one call is all it takes
        return _summary([ms], quantiles, return_mode)
    first_ms = (time.perf_counter() - h0) * 1e3
    if first_ms >= rep:
        return _summary([first_ms], quantiles, return_mode)
    times = []
    for _ in range(max(1, min(4, int(rep / max(first_ms, 1e-6))))):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        h0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - h0) * 1e3)
    return _summary(times, quantiles, return_mode)


def _capturing() -> bool:
    from mtiacc.triton_backend import tuning
    return tuning.capturing()


def _print_autotuning() -> bool:
    try:
        from triton import knobs
        return bool(knobs.autotuning.print)
    except Exception:
        return False
