"""``mtiasim profile``: where the cycles go, per kernel source line (annotated source) and per instruction.

Each instruction is charged the core cycles it took in every program that ran it: its stalls (waiting for its
operands, for a busy unit or queue, for DMA completion) plus its issue cycles.  These add up to the cores' busy
time; what is left of the PE-cycles of the waves is shown apart: the tail after a program's last issue (the vector
unit or DMA still finishing) and the wave synchronization (PEs idle until the wave's slowest program ends).
Source lines come from the binary's line table (``.mtia.lines``) and the source text embedded in its metadata.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

import numpy as np


@dataclasses.dataclass
class Attribution:
    file: str
    lines: Dict[int, float]                 # source line -> core PE-cycles
    line_text: Dict[int, str]
    instructions: List[Tuple[int, str, int, float, Optional[int]]]   # (pc, text, executions, cycles, line)
    core: float                             # sum over instructions
    tail: float
    sync: float
    pe_cycles: float
    launch_cycles: int
    engine: float = 0.0                     # matrix-engine busy PE-cycles (beside the core)
    engine_macs: float = 0.0


def attribute(result) -> Attribution:
    prog, stats, prof = result.program, result.stats, result.profile
    lines: Dict[int, float] = {}
    rows = []
    counts = result.counts
    for k, c in enumerate(prof):
        if counts[k] == 0 and c == 0:
            continue
        pc = prog.text_base + 4 * k
        loc, _ = prog.location(pc)
        line = loc.line if loc is not None else None
        lines[line if line is not None else 0] = lines.get(line if line is not None else 0, 0.0) + float(c)
        rows.append((pc, prog.disassemble(k), int(counts[k]), float(c), line))
    st = stats.stalls()
    core = float(prof.sum())
    busy = float(stats.pe_finish.sum())
    return Attribution(file=str(prog.meta.get("source_file") or prog.name), lines=lines,
                       line_text=dict(prog._source), instructions=rows, core=core, tail=max(busy - core, 0.0),
                       sync=st["synchronization"], pe_cycles=stats.pe_cycles, launch_cycles=stats.launch_cycles,
                       engine=stats.dpe()["busy_cycles"], engine_macs=stats.dpe_macs)


def render_profile(a: Attribution, top: int = 20) -> str:
    total = max(a.pe_cycles, 1.0)
    out = [f"profile of {a.file}: {a.pe_cycles:,.0f} PE-cycles in the waves "
           f"(+ {a.launch_cycles:,} cycles of job launch)", "",
           f"{'PE-cycles':>14} {'%':>6}  line  source"]
    shown = set()
    for ln in sorted(set(a.line_text) | {k for k in a.lines if k}):
        c = a.lines.get(ln, 0.0)
        text = a.line_text.get(ln, "")
        mark = f"{c:>14,.0f} {100 * c / total:>5.1f}%" if c else f"{'':>14} {'':>6}"
        out.append(f"{mark}  {ln:>4}  {text}")
        shown.add(ln)
    if a.lines.get(0):
        out.append(f"{a.lines[0]:>14,.0f} {100 * a.lines[0] / total:>5.1f}%     -  (no source line)")
    out.append(f"{a.tail:>14,.0f} {100 * a.tail / total:>5.1f}%     -  (after the last issue: vector unit / DMA "
               f"finishing)")
    out.append(f"{a.sync:>14,.0f} {100 * a.sync / total:>5.1f}%     -  (idle: waiting for the wave's slowest "
               f"program)")
    if a.engine:
        out.append(f"{a.engine:>14,.0f} {100 * a.engine / total:>5.1f}%     -  (matrix engine busy, beside the core: "
                   f"{a.engine_macs:,.0f} MACs; its waits are charged to mtia.dpe.wait)")
    out += ["", f"top {top} instructions:", f"{'PE-cycles':>14} {'%':>6} {'executed':>10}  {'pc':>10}  line  "
            f"instruction"]
    for pc, text, n, c, ln in sorted(a.instructions, key=lambda r: -r[3])[:top]:
        out.append(f"{c:>14,.0f} {100 * c / total:>5.1f}% {n:>10,}  {pc:>#10x}  {ln if ln else '-':>4}  {text}")
    return "\n".join(out)
