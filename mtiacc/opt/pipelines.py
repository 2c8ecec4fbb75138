"""The named pipelines behind ``-O0`` .. ``-O3``: the one place that says what each level runs.

IR passes run on the IR after the frontend; ``machine-*`` passes run in codegen, on the machine code
after register allocation (``--disable-pass`` reaches both).
"""
from __future__ import annotations

from mtiacc.diagnostics import UserError

PIPELINES = {
    0: "",
    1: "canonicalize,dce,machine-peephole",
    2: "canonicalize,sccp,cse,licm,canonicalize,fuse-elementwise,dce,machine-peephole,machine-schedule",
    3: "canonicalize,sccp,loop-unroll,canonicalize,cse,licm,canonicalize,fuse-elementwise,dce,"
       "machine-peephole,machine-schedule",
}


def pipeline_for_level(level: int) -> str:
    """The pipeline string of optimization level ``level`` (0 to 3)."""
    if level not in PIPELINES:
        raise UserError(f"unknown optimization level -O{level} (expected -O0 to -O3)")
    return PIPELINES[level]
