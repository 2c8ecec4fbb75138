"""The IR the random builtins build, as golden FileCheck files of this folder (ir_*.py), run by the project's
FileCheck runner (tests/filecheck/test_filecheck.py)."""
from pathlib import Path

import pytest

from tests.filecheck.test_filecheck import run_lines, run_one

CASES = sorted(Path(__file__).resolve().parent.glob("ir_*.py"))


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_ir(path: Path):
    lines = run_lines(path)
    assert lines
    for line in lines:
        run_one(line, path)
