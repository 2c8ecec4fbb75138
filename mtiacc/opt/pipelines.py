"""The named pipelines behind ``-O0`` .. ``-O3``: the one place that says what each level runs."""
from __future__ import annotations

from mtiacc.diagnostics import UserError

PIPELINES = {
    0: "",
    1: "canonicalize,dce",
    2: "canonicalize,cse,canonicalize,dce",
    3: "canonicalize,cse,canonicalize,dce",
}


def pipeline_for_level(level: int) -> str:
    """The pipeline string of optimization level ``level`` (0 to 3)."""
    if level not in PIPELINES:
        raise UserError(f"unknown optimization level -O{level} (expected -O0 to -O3)")
    return PIPELINES[level]
