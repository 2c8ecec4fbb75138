"""Which programs of a wave run next, and the watchdog that stops a run that cannot finish.

The interpreter runs a *group* of programs that share a pc, one instruction at a time (:mod:`mtiasim.machine`).
Programs that never wait for each other are scheduled by pc alone (the lowest pc runs, so diverged programs
reconverge).  A program that uses atomics or fences (a *cooperating* program) may wait for another one, so its
wave is also scheduled by simulated time:

- **Atomics happen in time order.**  A group reaching an atomic or a fence waits until every other running
  program has caught up with it in simulated time (``must_wait``); then the atomic's effect is the one it would have
  on the chip, given what every other program did before that cycle.
- **No program runs ahead for long.**  A group taking a backward branch yields once it is ``WINDOW`` cycles
  ahead of the slowest other program, so a program spinning on a flag lets the one that will set it run.
  Scheduling picks the lowest pc among the programs within ``WINDOW`` of the slowest one (and the slowest one
  itself when it waits at an atomic).

Both rules only reorder the simulation; the result of a run is fully determined by its seed (which orders
programs reaching an atomic unit in the same cycle).

**The watchdog** samples every running program every ``CHECK_STEPS`` interpreter steps; in a cooperating wave at the
first backward branch after that (within another ``CHECK_STEPS``), so a spinning loop is seen at the same place
each time and found in a few samples, however long its body.  A program whose whole
state (pc, registers, local memory, DMA and matrix-engine registers) recurs while no program has written DRAM
or SRAM in between will repeat itself forever unless another program writes memory: it is *stuck*.  When every
running program of a wave is stuck, the run stops: a **deadlock** if some of them read memory while spinning
(they wait for a write that will never come), an **endless loop** otherwise.  A run whose simulated time exceeds
``--max-cycles`` (or longer than ``--timeout`` seconds of host time) stops with every program's place (a
livelock or a runaway loop).
"""
from __future__ import annotations

import hashlib
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..faults import SimFault

DEFAULT_MAX_CYCLES = 10_000_000   # simulated cycles (7.4 ms of the chip, seconds of host time) before a run is
#                                  taken for a runaway (a 2048^3 GEMM takes 144,000): mtiasim run --max-cycles
# The run's budget of interpreter steps (one instruction executed by a group of programs), counted across its waves,
# each wave also counting WAVE_STEPS for its setup: about what this host simulates in 10 s, so a runaway stops by
# then however it runs away (a loop in one program, a grid of cheap programs too large to simulate; a grid of 10^9
# programs would take 2.3 * 10^9): mtiasim run --max-steps
DEFAULT_MAX_STEPS = 2_500_000
WAVE_STEPS = 150
WINDOW = 2000.0          # cycles a program may run ahead of the slowest one before yielding at a backward branch
CHECK_STEPS = 2048       # interpreter steps between two watchdog samples
_INF = float("inf")


class Scheduler:
    """The scheduling state of one wave (see the module docstring)."""

    def __init__(self, m, sync_pcs: np.ndarray, max_cycles: float):
        self.m = m
        self.sync_pcs = sync_pcs                 # per instruction: an atomic or a fence
        self.coop = bool(sync_pcs.any())
        self.max_cycles = max_cycles
        self.offset = 0.0                        # cycles of the earlier waves
        self.later = (0, 0)                      # linear ids [a, b) of the programs of later waves
        self.deadline: Optional[float] = None     # host time (time.perf_counter) the run must end by (--timeout)
        self.reset()

    def reset(self) -> None:
        self.sync_limit = _INF                   # the running group's atomics may go while its latest time <= this
        self.horizon = _INF                      # it yields at a backward branch once its earliest time passes this
        self.next_check = CHECK_STEPS
        self.epoch = -1
        self.seen: Dict[int, Dict[Tuple[int, bytes], Optional[bytes]]] = {}

    # ------------------------------------------------------------------------------------------------------
    def times(self) -> np.ndarray:
        m = self.m
        return np.full(m.P, m.ts.cyc) if m.ts.on else m.cyc

    def must_wait(self, g) -> bool:
        """Whether group ``g`` at an atomic must let slower programs catch up first."""
        if g.__class__ is slice or self.sync_limit == _INF:
            return False
        return float(self.times()[g].max()) > self.sync_limit

    def stay(self, g, pc: int, k: int) -> np.ndarray:
        """What an executor returns to leave group ``g`` at ``pc`` (not executed: not counted)."""
        n = self.m.P if g.__class__ is slice else len(g)
        self.m.counts[k] -= n
        return np.full(n, pc, np.int64)

    def ahead(self, g) -> bool:
        """At a backward branch: whether group ``g`` is far enough ahead to yield."""
        if self.horizon == _INF or g.__class__ is slice:
            return False
        return float(self.times()[g].min()) > self.horizon

    def choose(self, pcs: np.ndarray, live: np.ndarray, base: int):
        """The next group of a cooperating wave: ``(pc, slots, barrier)``; sets ``sync_limit`` and ``horizon``."""
        t = self.times()
        tl = t[live]
        tmin = float(tl.min())
        k = (pcs - base) >> 2
        at_sync = live & self.sync_pcs[np.minimum(np.maximum(k, 0), len(self.sync_pcs) - 1)] & (pcs >= base)
        cand = live & ((~at_sync & (t <= tmin + WINDOW)) | (at_sync & (t <= tmin)))
        pc = int(pcs[cand].min())
        at = pcs == pc
        if at_sync[at].any():
            others = live & ~at
            tout = float(t[others].min()) if others.any() else _INF
            sel = at & (t <= tout)
        else:
            sel = at
        others = live & ~sel
        if others.any():
            tout = float(t[others].min())
            self.sync_limit, self.horizon = tout, tout + WINDOW
        else:
            self.sync_limit = self.horizon = _INF
        rest = cand & ~sel
        barrier = int(pcs[rest].min()) if rest.any() else None
        return pc, np.flatnonzero(sel), barrier

    # ------------------------------------------------------------------------------------------------------
    def check(self, steps: int, pcs: np.ndarray, halt: int) -> None:
        """The watchdog's sample (every ``CHECK_STEPS`` steps)."""
        self.next_check = steps + CHECK_STEPS
        m = self.m
        live = np.flatnonzero(pcs != halt)
        if not len(live):
            return
        if self.deadline is not None and time.perf_counter() > self.deadline:
            cycles = self.offset + float(self.times()[live].max())
            raise SimFault(f"the run took longer than its --timeout on the host without finishing, after {cycles:.0f} "
                           f"simulated cycles (a runaway loop, a livelock, or a kernel longer than expected)",
                           int(live[0]), self.places(live, pcs))
        now = float(self.times()[live].max()) + self.offset
        if now > self.max_cycles:
            raise SimFault(f"the run passed --max-cycles ({self.max_cycles:.0f} cycles) without finishing: a runaway "
                           f"loop or a livelock (raise --max-cycles if the kernel really runs this long)",
                           int(live[0]), self.places(live, pcs))
        if not self.coop:
            return
        if m.dram_epoch != self.epoch:
            self.epoch = m.dram_epoch
            self.seen.clear()
        stuck, waiting = 0, []
        for p in live.tolist():
            pc = int(pcs[p])
            key = (pc, self._registers(p))
            seen = self.seen.setdefault(p, {})
            if key not in seen:
                seen[key] = None
                continue
            full = self._memory(p)
            if seen[key] is None or seen[key][0] != full:
                seen[key] = (full, int(m.dram_reads[p]))
                continue
            stuck += 1
            if int(m.dram_reads[p]) != seen[key][1]:
                waiting.append(p)
        if stuck < len(live):
            return
        notes = self.places(live, pcs, waiting)
        a, b = self.later
        if b > a:
            notes.append(f"programs {a}..{b - 1} (linear ids) have not started: the next wave starts only when "
                         f"every program of this one has finished, so a program waiting for a later one can only "
                         f"deadlock")
        if waiting:
            raise SimFault(f"deadlock: the {len(live)} running program{'s' if len(live) > 1 else ''} of this wave "
                           f"cannot make progress: each one spins waiting for memory that no running program will "
                           f"write", int(waiting[0]), notes)
        raise SimFault("endless loop: every running program repeats the same state forever without reading memory",
                       int(live[0]), notes)

    def places(self, live, pcs, waiting=None) -> List[str]:
        """One note per place the programs ``live`` are at: which programs, doing what, at which source line."""
        m = self.m
        groups: Dict[Tuple[int, str], List[int]] = {}
        for p in [int(x) for x in live]:
            how = "" if waiting is None else (" wait" if p in waiting else " loop without reading memory")
            groups.setdefault((int(pcs[p]), how), []).append(p)
        out = []
        for (pc, how), ps in sorted(groups.items()):
            loc, text = m.program.location(pc)
            where = f"{loc}" if loc is not None else f"pc 0x{pc:x}"
            line = f": {text.strip()}" if text else ""
            ids = ", ".join(str(m.program_id(p)) for p in ps[:4]) + (f" and {len(ps) - 4} more" if len(ps) > 4 else "")
            who = f"program {ids}" if len(ps) == 1 else f"programs {ids}"
            if not how:
                how = " is" if len(ps) == 1 else " are"
            elif len(ps) == 1:
                how = how.replace(" wait", " waits").replace(" loop ", " loops ")
            out.append(f"{who}{how} at {where}{line}")
        return out

    def _registers(self, p: int) -> bytes:
        m = self.m
        h = hashlib.blake2b(m.X[:, p].tobytes(), digest_size=16)
        h.update(m.F[:, p].tobytes())
        h.update(m.V[p].tobytes())
        h.update(m.vl[p:p + 1].tobytes() + m.vtype[p:p + 1].tobytes())
        h.update(m.dma_cfg[:, p].tobytes())
        return h.digest()

    def _memory(self, p: int) -> bytes:
        m = self.m
        h = hashlib.blake2b(m.LM[p].tobytes(), digest_size=16)
        dpe = m.dpe
        for a in (dpe.cfg[:, p], dpe.acc[p], dpe.w[p], dpe.wk[p:p + 1], dpe.wtype[p:p + 1]):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.digest()
