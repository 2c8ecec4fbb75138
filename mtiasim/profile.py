"""``mtiasim profile``: where the cycles go, per kernel source line (annotated source) and per instruction.

Each instruction is charged the core cycles it took in every program that ran it: its stalls (waiting for its
operands, for a busy unit or queue, for DMA completion) plus its issue cycles.  These add up to the cores' busy
time; what is left of the PE-cycles of the waves is shown apart: the tail after a program's last issue (the vector
unit or DMA still finishing) and the wave synchronization (PEs idle until the wave's slowest program ends).
Source lines come from the binary's line table (``.mtia.lines``) and the source text embedded in its metadata.

The cycles an ``mtia.dma.wait`` stalls are charged to the instruction that issued the transfer it waited for (the
one whose completion ended the wait: the ``mtia.dma.in`` of a ``tl.load``, the ``mtia.dma.out`` of a
``tl.store``), so that a source line's share says which load or store the program waits on; the wait itself keeps
its issue cycles.  :func:`instrument` wraps a machine's executors to count all this.
"""
from __future__ import annotations

import dataclasses
from bisect import bisect_left
from typing import Dict, List, Optional, Tuple

import numpy as np


class _Issuers:
    """Which instruction issued each DMA transfer of the wave, by issue number: one list while the DMA state is
    uniform (every PE alike), one per PE after.  A window of the latest transfers is kept (the DMA model keeps
    its completions for as long: ``dma.Issued``); an older one is not known (its wait keeps its cycles)."""

    KEEP = 4096

    def __init__(self, m):
        self.m = m
        self.owner = None                  # the DMA model's issue record this belongs to (a new one each wave)
        self.uniform: List[int] = []
        self.u_base = 0
        self.per_pe: Optional[List[List[int]]] = None
        self.bases: List[int] = []

    def _sync(self):
        dma = self.m.dma
        if dma.u_issued is not self.owner:          # a new wave
            self.owner, self.uniform, self.u_base, self.per_pe = dma.u_issued, [], 0, None
        if not dma.uniform and self.per_pe is None:
            self.per_pe = [list(self.uniform) for _ in range(dma.P)]
            self.bases = [self.u_base] * dma.P

    def issued(self, k: int, slots) -> None:
        """Instruction ``k`` has just run in ``slots``: it issued every transfer not recorded yet."""
        self._sync()
        dma = self.m.dma
        if self.per_pe is None:
            self.uniform.extend([k] * (dma.u_issued.count - self.u_base - len(self.uniform)))
            if len(self.uniform) > 2 * self.KEEP:
                del self.uniform[:self.KEEP]
                self.u_base += self.KEEP
            return
        for p in slots:
            src = self.per_pe[p]
            src.extend([k] * (dma.issued[p].count - self.bases[p] - len(src)))
            if len(src) > 2 * self.KEEP:
                del src[:self.KEEP]
                self.bases[p] += self.KEEP

    def waited_for(self, keep: int, slot: Optional[int], inbound: bool = False) -> Optional[int]:
        """The instruction that issued the transfer whose completion ended ``mtia.dma.wait keep`` (``slot``: on
        that PE; None: the uniform state; ``inbound``: ``mtia.dma.wait.in keep``)."""
        self._sync()
        dma = self.m.dma
        if slot is None or self.per_pe is None:
            iss, src, base = dma.u_issued, self.uniform, self.u_base
            count = iss.count
            if inbound:
                iss = dma.u_issued_in
        else:
            iss, src, base = dma.issued[slot], self.per_pe[slot], self.bases[slot]
            count = iss.count
            if inbound:
                iss = dma.issued_in[slot]
        i = bisect_left(iss.seqs, count - keep) - 1
        if i < 0:
            return None
        j = bisect_left(iss.upto, iss.upto[i], 0, i + 1)     # the first to reach the latest completion
        seq = iss.seqs[j] - base
        return src[seq] if 0 <= seq < len(src) else None


def instrument(m) -> Tuple[np.ndarray, np.ndarray]:
    """Wrap machine ``m``'s executors to count, per instruction, the core cycles it takes in every program (its
    stalls and issue), a DMA wait's stall charged to the transfer's issuer.  Returns the (live) counts and the
    cycles so moved (``+`` at the issuers, ``-`` at the waits: the counts minus these charge each instruction the
    cycles the programs spent at it, as the trace's source-line spans do)."""
    prof = np.zeros(len(m.plain_execs))
    moved = np.zeros(len(m.plain_execs))

    def bill(k, by, c):
        if by is None:
            prof[k] += c
        else:
            prof[by] += c
            moved[by] += c
            moved[k] -= c

    ts, cyc, P = m.ts, m.cyc, m.P
    issuers = _Issuers(m)

    def plain(k, ex):
        def pex(g):
            if ts.on and g.__class__ is slice:
                c0 = ts.cyc
                r = ex(g)
                if ts.on:
                    prof[k] += (ts.cyc - c0) * P
                    return r
                prof[k] += float((cyc - c0).sum())
                return r
            ts.materialize()
            c0 = cyc[g].sum()
            r = ex(g)
            prof[k] += float(cyc[g].sum() - c0)
            return r
        return pex

    def issue(k, ex):
        pex = plain(k, ex)

        def dex(g):
            r = pex(g)
            issuers.issued(k, range(P) if g.__class__ is slice else np.asarray(g).tolist())
            return r
        return dex

    def wait(k, ex, keep, inbound):
        def wex(g):
            if ts.on and g.__class__ is slice:
                c0, s0 = ts.cyc, ts.acc["dma"]
                r = ex(g)
                if ts.on:
                    stall = ts.acc["dma"] - s0
                    prof[k] += (ts.cyc - c0 - stall) * P
                    if stall:
                        bill(k, issuers.waited_for(keep, None, inbound), stall * P)
                    return r
                prof[k] += float((cyc - c0).sum())
                return r
            ts.materialize()
            slots = np.arange(P)[g] if g.__class__ is slice else np.asarray(g)
            c0, s0 = cyc[slots].copy(), m.acc["dma"][slots].copy()
            r = ex(g)
            stall = m.acc["dma"][slots] - s0
            prof[k] += float((cyc[slots] - c0 - stall).sum())
            for p, st in zip(slots.tolist(), stall.tolist()):
                if st:
                    bill(k, issuers.waited_for(keep, p, inbound), st)
            return r
        return wex

    execs = []
    for k, (ex, d) in enumerate(zip(m.plain_execs, m.program.decoded)):
        fam = d.spec.sem_family if d is not None else None
        if fam == "dma" and m.timing is not None:
            execs.append(issue(k, ex))
        elif fam == "dma_wait" and m.timing is not None:
            execs.append(wait(k, ex, int(d.imm), d.spec.sem_op == "waitin"))
        else:
            execs.append(plain(k, ex))
    m.execs = execs
    return prof, moved


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
