"""What the sanitizer found: findings deduplicated by instruction, rendered as the simulator's other faults are.

A finding is keyed by its kind and its instruction (for a race, by both programs' instructions): the first
occurrence keeps its details, later ones only count.  :class:`SanitizerError` is a kernel fault (exit code 4)
whose text is every finding, ``file:line:col: error: ...`` with the kernel's source line, capped at ``LIMIT``; a run that stopped at a fault reports the findings gathered
until then, before the fault (often its cause: a division by zero that made an index run out of bounds).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, Tuple

from mtiacc.diagnostics import KernelFault, format_diagnostic

LIMIT = 20      # findings printed in full; the others are counted
PLURAL = {"division by zero": "divisions by zero", "uninitialized read": "uninitialized reads",
          "data race": "data races", "missing DMA wait": "missing DMA waits", "DMA race": "DMA races"}
_CALL = re.compile(r"[A-Za-z_][\w.]*(?=\()")     # the call a line table column points at: `tl.store(`


@dataclasses.dataclass
class Finding:
    kind: str                   # "division by zero", "uninitialized read", "data race", "missing DMA wait",
                                # "DMA race"
    message: str
    k: int                      # the instruction's index in .text
    notes: List[str]
    count: int = 1              # how many times (programs x executions) it happened at this instruction


class Findings:
    """The findings of one run, in the order they were first seen."""

    def __init__(self, program):
        self.program = program
        self.by_key: Dict[Tuple, Finding] = {}

    def __len__(self) -> int:
        return len(self.by_key)

    def seen(self, key: Tuple, times: int = 1) -> bool:
        """Count another occurrence of ``key``; whether it was already known (then no details are needed)."""
        f = self.by_key.get(key)
        if f is None:
            return False
        f.count += times
        return True

    def add(self, key: Tuple, kind: str, message: str, k: int, notes, times: int = 1) -> None:
        self.by_key[key] = Finding(kind, message, k, list(notes), times)

    def where(self, k: int) -> str:
        """``file:line:col`` and the source text of instruction ``k``, for a note."""
        loc, text = self.program.location(self.program.text_base + 4 * k)
        if loc is None:
            return f"pc 0x{self.program.text_base + 4 * k:x} ({self.program.disassemble(k)})"
        return f"{loc}" + (f": {text.strip()}" if text else "")

    def op(self, k: int) -> str:
        """Instruction ``k`` named with the kernel's operation that issued it, ``mtia.dma.out (tl.store)``: the
        call the line table's column points at (the instruction alone when the column is on no call)."""
        name = self.program.disassemble(k).split()[0]
        loc, text = self.program.location(self.program.text_base + 4 * k)
        call = _CALL.match(text[loc.col - 1:]) if loc is not None and text else None
        return f"{name} ({call.group(0)})" if call else name

    def render(self, f: Finding) -> str:
        prog = self.program
        pc = prog.text_base + 4 * f.k
        loc, text = prog.location(pc)
        notes = list(f.notes)
        notes.append(f"at pc 0x{pc:x}: {prog.disassemble(f.k)}")
        if f.count > 1:
            notes.append(f"this instruction did it {f.count} times in all (reported once)")
        return format_diagnostic("error", f"{f.kind}: {f.message}", loc, notes, text)

    def summary(self) -> str:
        n = len(self.by_key)
        kinds: Dict[str, int] = {}
        for f in self.by_key.values():
            kinds[f.kind] = kinds.get(f.kind, 0) + 1
        parts = ", ".join(f"{c} {k if c == 1 else PLURAL.get(k, k)}" for k, c in kinds.items())
        shown = f" ({LIMIT} shown)" if n > LIMIT else ""
        return f"sanitizer: {n} finding{'s' if n != 1 else ''}{shown}: {parts}"


class SanitizerError(KernelFault):
    """The sanitizer found errors: every finding, then a summary line.  ``result`` is the run's
    :class:`~mtiasim.runner.RunResult` (its outputs as the kernel left them) when the run finished; when it stopped
    at a fault (out of bounds, an assert, a limit), ``fault`` is that :class:`KernelFault`, ``result`` is None, and
    the text is the findings gathered until then, then the fault's own report."""

    def __init__(self, findings: Findings, result=None, fault: Optional[KernelFault] = None):
        summary = findings.summary()
        if fault is not None:
            summary += ", found before the run stopped at the fault above"
        super().__init__(summary)
        self.findings = list(findings.by_key.values())
        self.result = result
        self.fault = fault
        self._findings = findings

    def render(self) -> str:
        fs = self._findings
        parts = [fs.render(f) for f in self.findings[:LIMIT]]
        if len(self.findings) > LIMIT:
            parts.append(f"note: {len(self.findings) - LIMIT} more findings not shown")
        if self.fault is not None:
            parts.append(self.fault.render())
        parts.append("error: " + self.message)
        return "\n".join(parts)


def describe_address(dram, arrays: Dict[str, Tuple[int, tuple]], addr: int) -> str:
    """``DRAM 0x10000040 ('C_ptr'[3])``: the address, and the input array and element it falls in."""
    i = dram.index_of(addr)
    level = "DRAM"
    where: Optional[str] = None
    if i >= 0:
        b = dram.buffers[i]
        if b.addr <= addr < b.end:
            level = "SRAM" if b.level == 1 else "DRAM"
            itemsize, shape = arrays.get(b.name, (1, (b.size,)))
            idx = (addr - b.addr) // max(itemsize, 1)
            if shape and 0 <= idx < max(1, _prod(shape)):
                import numpy as np
                pos = np.unravel_index(idx, shape)
                where = f"'{b.name}'[{', '.join(str(int(v)) for v in pos)}]"
            else:
                where = f"'{b.name}' + {addr - b.addr} bytes"
    return f"{level} 0x{addr:x}" + (f" ({where})" if where else "")


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n
