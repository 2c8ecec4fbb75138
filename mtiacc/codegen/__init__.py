"""Code generation: IR -> MTIA assembly text.

The steps, in order (each in its own module):

1. `isel`: instruction selection over virtual registers; blocks to local memory; DMA for loads
   and stores; strip-mined vector loops (`vloop`) for elementwise block ops.
2. `insert_waits`: the counts of the DMA waits, from what isel tagged its transfers and waits with.
3. `regalloc`: liveness, linear scan with spilling.
4. frame: the spill area is carved from the stack (`sp` starts at the top of local memory).
5. `emit`: GNU `as` text with `.loc` lines.
"""
from __future__ import annotations

import dataclasses
from typing import Dict

from mtiacc.codegen.machine.emit import emit_function
from mtiacc.codegen.machine.insert_waits import insert_waits
from mtiacc.codegen.mathlib import se_ops
from mtiacc.codegen.select.isel import select_instructions
from mtiacc.codegen.machine.mir import LabelDef, Mem, MInstr, format_instr
from mtiacc.codegen.machine.peephole import peephole_function
from mtiacc.codegen.machine.schedule import schedule_function
from mtiacc.codegen.machine.regalloc import adjust_sp, allocate
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.target import Target


# The machine passes, by their pipeline names (declared with their options in mtiacc.opt.machine).
MACHINE_PASSES = {
    "machine-peephole": lambda fn, target: peephole_function(fn),
    "machine-schedule": schedule_function,
}


def format_machine(fn) -> str:
    """Machine code as text, one instruction a line (what ``--print-ir-*`` shows for machine passes)."""
    lines = [f"{fn.name}:"]
    for it in fn.items:
        lines.append(f"{it.label.name}:" if isinstance(it, LabelDef) else "\t" + format_instr(it))
    return "\n".join(lines) + "\n"


@dataclasses.dataclass
class AsmResult:
    text: str
    lmem_bytes: int   # local memory the kernel uses: arguments and blocks (the stack aside)
    frame_bytes: int
    strings: list = dataclasses.field(default_factory=list)  # meta["strings"]: debug print/assert entries


def _insert_frame(fn, target: Target) -> None:
    size = fn.frame_bytes
    if size == 0:
        return
    if size > target.stack_bytes:
        raise CompileError(f"register spills need {size} bytes of stack; the target reserves "
                           f"{target.stack_bytes}")
    loc = fn.items[0].loc if fn.items else None
    items = adjust_sp(-size, loc, "spill area")   # beyond addi's immediate: several steps
    for it in fn.items:
        if isinstance(it, MInstr) and it.op == "ret":
            items.extend(adjust_sp(size, it.loc))
        items.append(it)
    fn.items = items


def generate(module: O.ModuleOp, target: Target, source_file: str,
             source_lines: Dict[int, str], machine_hook=None, fast_math: bool = False) -> AsmResult:
    """Code for ``module``, which the pipeline's required passes have prepared (one function; fp8 values as
    bytes: ``mtiacc.opt.pipelines``).  ``machine_hook(fn)`` runs the pipeline's machine passes
    (``MACHINE_PASSES``) after allocation.  ``fast_math``: every math function the SIMD engine has runs on it,
    at its table's accuracy (else only those where it meets the vector library's; ``mathlib/se.py``)."""
    funcs = module.funcs
    if len(funcs) != 1:
        raise CompileError(f"codegen expects one kernel function, found {len(funcs)}")
    lw = select_instructions(funcs[0], target, se_ops(target, fast_math))
    fn = lw.fn
    insert_waits(fn)
    allocate(fn)
    if machine_hook is not None:
        machine_hook(fn)
    _insert_frame(fn, target)
    return AsmResult(emit_function(fn, source_file, source_lines), lw.lmem.high_water, fn.frame_bytes,
                     lw.debug.strings)


__all__ = ["generate", "AsmResult", "Mem", "MACHINE_PASSES", "format_machine"]
