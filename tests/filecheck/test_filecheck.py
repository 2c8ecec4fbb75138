"""Golden tests in the lit + FileCheck style: each file here is a test.

A file holds ``RUN:`` lines and ``CHECK:`` lines.  A RUN line is a command whose output is piped
into FileCheck, with ``%s`` standing for the file itself::

    # RUN: mtiacc-ir %s -O1 -D BLOCK=64 | filecheck %s
    # RUN: not mtiacc-ir %s 2>&1 | filecheck %s --check-prefix=ERR
    # RUN: mtiacc %s --emit=ir -O1 | filecheck %s

Tools: ``mtiacc`` is the real command line (run in-process through ``mtiacc.cli.main``);
``mtiacc-ir`` is the frontend plus the optimizer (``-O<n>``, ``--passes=P``, ``-D``,
``--kernel``, ``--signature``) printing the IR; ``mtiacc-opt`` reads IR text (the generic form)
and runs ``--passes=P``.  The tool's stdout and stderr both go to FileCheck.  ``not`` expects the
tool to fail.  FileCheck is the ``filecheck`` package's command (``filecheck.main.main``), run in-process like the
tools: the same arguments, the tool's output as its standard input, its exit status and messages.
"""
from __future__ import annotations

import contextlib
import io
import shlex
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

from mtiacc.diagnostics import UserError

HERE = Path(__file__).resolve().parent
CASES = sorted(p for p in HERE.iterdir()
               if p.suffix in (".py", ".mlir") and not p.name.startswith(("test_", "_", "conftest")))


def run_lines(path: Path) -> List[str]:
    lines, pending = [], ""
    for text in path.read_text(encoding="utf-8").splitlines():
        _, found, rest = text.partition("RUN:")
        if not found:
            continue
        rest = rest.strip()
        if rest.endswith("\\"):  # a continued RUN line
            pending += rest[:-1] + " "
            continue
        lines.append(pending + rest)
        pending = ""
    return lines


def _mtiacc_ir(args: List[str]) -> Tuple[int, str]:
    from mtiacc.frontend import compile_file
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.opt import pipeline_for_level, run_pipeline
    path, level, passes, kernel, signature, defines = None, 0, None, None, None, {}
    it = iter(args)
    for a in it:
        if a.startswith("-O"):
            level = int(a[2:])
        elif a.startswith("--passes="):
            passes = a.split("=", 1)[1]
        elif a == "-D":
            name, _, value = next(it).partition("=")
            defines[name] = value
        elif a.startswith("-D"):
            name, _, value = a[2:].partition("=")
            defines[name] = value
        elif a.startswith("--kernel="):
            kernel = a.split("=", 1)[1]
        elif a.startswith("--signature="):
            signature = a.split("=", 1)[1]
        elif a.startswith("-"):
            raise ValueError(f"mtiacc-ir: unknown option {a}")
        else:
            path = a
    try:
        result = compile_file(path, kernel=kernel, defines=defines, signature=signature)
        run_pipeline(result.module, passes if passes is not None else pipeline_for_level(level))
        return 0, print_ir(result.module)
    except UserError as e:
        return 1, e.render() + "\n"


def _mtiacc_opt(args: List[str]) -> Tuple[int, str]:
    from mtiacc.ir.text.parser import parse_ir
    from mtiacc.ir.text.printer import print_ir
    from mtiacc.opt import run_pipeline
    path = next(a for a in args if not a.startswith("-"))
    passes = next((a.split("=", 1)[1] for a in args if a.startswith("--passes=")), "")
    try:
        with open(path, encoding="utf-8") as f:
            module = parse_ir(f.read(), path, locate=True)
        run_pipeline(module, passes)
        return 0, print_ir(module)
    except UserError as e:
        return 1, e.render() + "\n"


def _mtiacc_cli(args: List[str]) -> Tuple[int, str]:
    from mtiacc.cli import main
    out = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, out.getvalue()


TOOLS = {"mtiacc-ir": _mtiacc_ir, "mtiacc-opt": _mtiacc_opt, "mtiacc": _mtiacc_cli}


def _filecheck(args: List[str], text: str) -> Tuple[int, str]:
    """``filecheck ARGS`` with ``text`` on its standard input: its exit status and what it printed."""
    from filecheck.main import main
    out, stdin = io.StringIO(), sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            main(["filecheck", *args])
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdin = stdin
    return code, out.getvalue()


def run_one(line: str, path: Path) -> None:
    command, bar, check = line.partition("|")
    assert bar, f"RUN line without '| filecheck': {line}"
    words = [w.replace("%s", str(path)) for w in shlex.split(command) if w != "2>&1"]
    expect_failure = words[0] == "not"
    if expect_failure:
        words = words[1:]
    tool = TOOLS.get(words[0])
    assert tool is not None, f"unknown tool '{words[0]}' in RUN line (known: {', '.join(TOOLS)})"
    code, output = tool(words[1:])
    if expect_failure:
        assert code != 0, f"expected `{command.strip()}` to fail; it succeeded with:\n{output}"
    else:
        assert code == 0, f"`{command.strip()}` failed:\n{output}"
    fc = [w.replace("%s", str(path)) for w in shlex.split(check)]
    assert fc and fc[0] == "filecheck", f"the RUN line must pipe into filecheck: {line}"
    code, message = _filecheck(fc[1:], output)
    assert code == 0, f"FileCheck failed for `{line}`:\n{message}\n--- output was:\n{output}"


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_filecheck(path: Path):
    lines = run_lines(path)
    assert lines, f"{path.name} has no RUN line"
    for line in lines:
        run_one(line, path)


def test_runner_fails_on_mismatch(tmp_path: Path):
    """The runner is honest: a CHECK line that does not match fails the test."""
    case = tmp_path / "k.py"
    case.write_text(HERE.joinpath("vector_add.py").read_text().replace(
        '"arith.addf"(%a, %b)', '"arith.mulf"(%a, %b)'))
    with pytest.raises(AssertionError, match="FileCheck failed"):
        run_one(run_lines(case)[0], case)


def test_runner_checks_exit_status(tmp_path: Path):
    case = tmp_path / "k.py"
    case.write_text(HERE.joinpath("vector_add.py").read_text())
    with pytest.raises(AssertionError, match="expected .* to fail"):
        run_one("not mtiacc-ir %s -D BLOCK_SIZE=4 | filecheck %s --check-prefix=O1", case)
