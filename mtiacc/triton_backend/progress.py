"""Progress on stderr while a compiled graph's kernels are compiled by mtiacc and simulated the first time.

``torch.compile(model, backend="mtia")`` announces each graph's kernels when the graph first runs
(:func:`graph`); the launcher reports each kernel compiled (:func:`compiled`) and simulated (:func:`simulated`).
On a terminal this is one progress bar per graph (rich's, on stderr, cleared when done); elsewhere plain lines::

    mtiacc: graph 0 (forward): kernel 1 of 3 compiled (triton_poi_fused_add_0)
    mtiacc: graph 0 (forward): kernel 1 of 3 simulated (triton_poi_fused_add_0, 1,234 cycles)

``MTIACC_QUIET=1`` silences it.  Kernels launched outside an announced graph (a plain Triton program, Inductor's
autotuning) say nothing.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Iterable, Iterator, Optional

QUIET_ENV = "MTIACC_QUIET"
_local = threading.local()


def quiet() -> bool:
    return os.environ.get(QUIET_ENV, "").strip().lower() not in ("", "0", "no", "false", "off")


class _Graph:
    """The progress of one graph's first run: which of its kernels are compiled and simulated."""

    def __init__(self, label: str, kernels: Iterable[str], stream):
        self.label = label
        self.kernels = list(dict.fromkeys(kernels))
        self.stream = stream
        self.compiled: dict = {}
        self.simulated: dict = {}
        self.bar = None
        if stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            self.bar = Progress(TextColumn("mtiacc: {task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=Console(file=stream), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(f"{label}: compiling and simulating", total=2 * len(self.kernels))

    def _event(self, table: dict, name: str, what: str, detail: str) -> None:
        if name not in self.kernels or name in table:
            return
        table[name] = True
        i, n = len(table), len(self.kernels)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=f"{self.label}: kernel {i} of {n} {what}")
        else:
            print(f"mtiacc: {self.label}: kernel {i} of {n} {what} ({detail})", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _current() -> Optional[_Graph]:
    return getattr(_local, "graph", None)


@contextlib.contextmanager
def graph(label: str, kernels: Iterable[str], stream=None) -> Iterator[None]:
    """Report the progress of ``kernels`` (their names) while the block runs (the graph's first run)."""
    kernels = list(kernels)
    if quiet() or not kernels or _current() is not None:
        yield
        return
    g = _local.graph = _Graph(label, kernels, stream or sys.stderr)
    try:
        yield
    finally:
        _local.graph = None
        g.close()


def compiled(name: str, cached: bool) -> None:
    g = _current()
    if g is not None:
        g._event(g.compiled, name, "compiled", f"{name}, from the cache" if cached else name)


def simulated(name: str, cycles: Optional[int]) -> None:
    g = _current()
    if g is not None:
        g._event(g.simulated, name, "simulated", name if cycles is None else f"{name}, {cycles:,} cycles")


def ran_on_host(name: str) -> None:
    """A kernel mtiacc could not compile, run on the host (the fallback) in its place."""
    g = _current()
    if g is not None:
        g._event(g.compiled, name, "compiled", f"{name}, falls back to the host")
        g._event(g.simulated, name, "run", f"{name}, on the host")
