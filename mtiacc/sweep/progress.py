"""A sweep's progress on a terminal: a bar on standard error, nothing when standard error is not a terminal."""
from __future__ import annotations

import sys


class Progress:
    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self._bar = None
        self._task = None

    def __enter__(self) -> "Progress":
        if self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TimeRemainingColumn
            self._bar = Bar("sweep", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=Console(file=self.stream), transient=True)
            self._bar.__enter__()
        return self

    def update(self, done: int, total: int) -> None:
        if self._bar is None:
            return
        if self._task is None:
            self._task = self._bar.add_task("points", total=total)
        self._bar.update(self._task, completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None
