"""User-facing diagnostics shared by every layer (and by mtiasim).

A user error is raised as :class:`UserError` (or a subclass) carrying an optional
:class:`SourceLocation`.  The command-line tools catch it at the top, print
``file:line:col: error: message`` followed by the source line and a caret, and exit
non-zero; no Python traceback ever reaches the user.
"""
from __future__ import annotations

import dataclasses
import enum
import sys
import tokenize
from typing import Iterable, Optional


@dataclasses.dataclass(frozen=True)
class SourceLocation:
    """A position in a user's file: 1-based line, 1-based column (in characters)."""

    file: str
    line: int
    col: int = 1
    end_col: Optional[int] = None  # exclusive; for a caret run under a span

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class ExitCode(enum.IntEnum):
    """What the tools' exit status says (README, "Exit codes"); 1 is never ours, so a Python that died
    outside the tools' handlers is not mistaken for one of these."""

    OK = 0
    USAGE = 2           # the command line is wrong: an unknown flag, a flag's value that does not parse
    BAD_INPUT = 3       # an input is wrong: the kernel does not compile, a file is not what it should be,
                        # the inputs do not fit the kernel's parameters, an output cannot be written
    KERNEL_FAULT = 4    # the kernel failed while it ran: out of bounds, device assert, deadlock, a limit
    INTERNAL = 70       # a bug in the tools (EX_SOFTWARE)
    INTERRUPTED = 130   # Ctrl-C
    CLOSED_PIPE = 141   # standard output was closed early (``... | head``): 128 + SIGPIPE, as a shell tool's


class UserError(Exception):
    """An error caused by the user's input (kernel, flag, data file, binary)."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(self, message: str, loc: Optional[SourceLocation] = None,
                 notes: Iterable[str] = (), source_line: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.notes = list(notes)
        # The text of loc.line when the file itself is not readable (e.g. a binary's embedded source).
        self.source_line = source_line

    def render(self) -> str:
        return format_diagnostic("error", self.message, self.loc, self.notes, self.source_line)


class CompileError(UserError):
    """An error in the kernel being compiled."""


class UsageError(UserError):
    """A command-line flag whose value does not parse."""

    exit_code = ExitCode.USAGE


class KernelFault(UserError):
    """The kernel failed while it ran on the simulator (a fault, an assert, a deadlock, a limit reached)."""

    exit_code = ExitCode.KERNEL_FAULT


def surfaced(err: UserError) -> UserError:
    """``err`` made ready to reach a Python caller (``mtiacc.load(...)[grid](...)``): its text is the whole
    diagnostic as the command line prints it (``file:line:col: error: ...``, the source line, the caret, the notes)
    and it has no traceback through the toolchain's frames.  Raise it with ``raise surfaced(e) from None`` from the
    public entry point, so that the traceback shows the caller's line and that one frame.  ``message``, ``loc`` and
    ``notes`` keep their values."""
    if err.args and err.args[0] == err.message:
        err.args = (err.render(),)
    return err.with_traceback(None)


def tool_version(tool: str) -> str:
    """``--version``'s text: the tool and the installed package's version."""
    try:
        from importlib.metadata import version
        v = version("mtiacc")
    except Exception:  # noqa: BLE001 - running from a source tree that is not installed
        v = "unknown (not installed)"
    return f"{tool} {v}"


def _read_line(loc: SourceLocation) -> Optional[str]:
    try:
        # tokenize.open reads as Python does: a byte-order mark is skipped, a coding line is honoured.
        with tokenize.open(loc.file) as f:
            for i, text in enumerate(f, start=1):
                if i == loc.line:
                    return text.rstrip("\n")
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    return None


def format_diagnostic(severity: str, message: str, loc: Optional[SourceLocation] = None,
                      notes: Iterable[str] = (), source_line: Optional[str] = None) -> str:
    """``file:line:col: error: message``, then the source line and a caret run under the span."""
    if loc is None:
        out = [f"{severity}: {message}"]
    else:
        out = [f"{loc}: {severity}: {message}"]
        text = source_line if source_line is not None else _read_line(loc)
        if text is not None:
            out.append(text)
            start = max(loc.col - 1, 0)
            width = 1
            if loc.end_col is not None and loc.end_col > loc.col:
                width = loc.end_col - loc.col
            prefix = "".join("\t" if ch == "\t" else " " for ch in text[:start])
            out.append(prefix + "^" + "~" * (width - 1))
    out.extend(f"note: {n}" for n in notes)
    return "\n".join(out)


def closed_pipe_exit() -> int:
    """What a tool does when the reader of its standard output went away (``mtiasim run ... | head -1``): stop
    quietly, as ``cat`` does.  Standard output is pointed at ``/dev/null`` so that the interpreter's last flush of
    the unwritten text does not fail again; returns :attr:`ExitCode.CLOSED_PIPE`."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass    # standard output is not a file descriptor (a test's capture): nothing is left to flush into it
    return ExitCode.CLOSED_PIPE


_warned: set = set()


def warn(message: str, loc: Optional[SourceLocation] = None, notes: Iterable[str] = ()) -> None:
    """A compiler warning: ``file:line:col: warning: message``, the source line and a caret, on standard error
    (the command line and Python alike), once per place and message in a process."""
    key = (loc, message)
    if key in _warned:
        return
    _warned.add(key)
    print(format_diagnostic("warning", message, loc, notes), file=sys.stderr)


def report(err: UserError, stream=None) -> None:
    print(err.render(), file=stream or sys.stderr)
