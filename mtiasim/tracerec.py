"""What ``--trace`` records while a wave runs: vector-unit busy spans and ``mtia.dma.wait`` stalls, per PE.

Recording costs nothing when tracing is off: :func:`enable_trace` wraps only the executors of vector instructions
and of ``mtia.dma.wait``, and only on the machines of a traced run (as :meth:`Machine.enable_profile` does).  A
wrapper reads what the timing model did from its counters, so both timing paths record without touching them:

- vector instruction: its occupancy is the growth of the ``vbusy`` counter, and it ends when the unit is next
  free (``vfree``), so it occupied ``[vfree - occ, vfree)``;
- ``mtia.dma.wait``: it stalled from the core's cycle before it (``cyc``) for the growth of the ``dma`` counter
  (``mtia.dpe.wait`` likewise, with the ``dpe`` counter, into a second recorder, ``m.engine_recorder``);
- SE instruction (``mtia.se.*``): as a vector instruction, with the ``sebusy`` counter and ``sefree``, into a third
  recorder, ``m.se_recorder``;
- matrix engine: the engine's timing model (:mod:`mtiasim.dpe`) records its busy spans (mm streaming and
  accumulator transfers) into ``m.engine_recorder`` itself, always per PE (its state is per-PE arrays).

While the wave's programs agree (the timing model's scalars) a span is recorded once for every PE; after the
switch to arrays, per program.  Vector spans that follow each other with a gap of at most :data:`MERGE_GAP`
cycles merge into one span (the trace stays small), which keeps its busy cycles in ``busy``.
"""
from __future__ import annotations

from typing import List

import numpy as np

from .faults import group_slots

MERGE_GAP = 4.0     # cycles: vector spans closer than this become one


class WaveRecorder:
    """The spans of one wave; times are cycles from the wave's start."""

    def __init__(self, P: int):
        self.P = P
        self.reset()

    def reset(self):
        P = self.P
        self.uniform = True
        self.u_open = None                      # (start, end, busy) of the open vector span, all PEs
        self.u_closed: List[tuple] = []         # closed vector spans of every PE
        self.open_s = np.full(P, np.nan)
        self.open_e = np.full(P, np.nan)
        self.open_b = np.zeros(P)
        self.closed: List[tuple] = []           # (slots, starts, ends, busy) arrays
        self.u_waits: List[tuple] = []          # (start, stall) of every PE
        self.waits: List[tuple] = []            # (slots, starts, stalls) arrays
        self.l_uniform = True
        self.u_line = None                      # (line, start) of the open source-line span, all PEs
        self.u_lines: List[tuple] = []          # closed (line, start, end) of every PE
        self.line = np.full(P, -1, np.int64)    # per PE: the open span's line (-1: none), its start
        self.line_s = np.zeros(P)
        self.lines: List[tuple] = []            # (slots, lines, starts, ends) arrays

    # vector unit --------------------------------------------------------------------------------------------
    def vector_uniform(self, s: float, e: float, busy: float):
        o = self.u_open
        if o is not None and s <= o[1] + MERGE_GAP:
            self.u_open = (o[0], max(o[1], e), o[2] + busy)
            return
        if o is not None:
            self.u_closed.append(o)
        self.u_open = (s, e, busy)

    def _to_arrays(self):
        if self.uniform:
            self.uniform = False
            if self.u_open is not None:
                self.open_s[:], self.open_e[:], self.open_b[:] = self.u_open
                self.u_open = None

    def vector(self, g, s, e, busy):
        self._to_arrays()
        idx = group_slots(g, self.P)
        s = np.broadcast_to(np.asarray(s, float), idx.shape)
        e = np.broadcast_to(np.asarray(e, float), idx.shape)
        busy = np.broadcast_to(np.asarray(busy, float), idx.shape)
        os_, oe, ob = self.open_s[idx], self.open_e[idx], self.open_b[idx]
        has = ~np.isnan(oe)
        merge = has & (s <= oe + MERGE_GAP)
        close = has & ~merge
        if close.any():
            self.closed.append((idx[close], os_[close], oe[close], ob[close]))
        self.open_s[idx] = np.where(merge, os_, s)
        self.open_e[idx] = np.where(merge, np.maximum(oe, e), e)
        self.open_b[idx] = np.where(merge, ob + busy, busy)

    # dma wait -----------------------------------------------------------------------------------------------
    def wait_uniform(self, s: float, stall: float):
        if stall > 0:
            self.u_waits.append((s, stall))

    def wait(self, g, s, stall):
        idx = group_slots(g, self.P)
        s = np.broadcast_to(np.asarray(s, float), idx.shape)
        stall = np.broadcast_to(np.asarray(stall, float), idx.shape)
        k = stall > 0
        if k.any():
            self.waits.append((idx[k], s[k], stall[k]))

    # source lines -------------------------------------------------------------------------------------------
    def line_uniform(self, line: int, t: float):
        o = self.u_line
        if o is not None:
            self.u_lines.append((o[0], o[1], t))
        self.u_line = (line, t)

    def line_change(self, g, line: int, t):
        if self.l_uniform:
            self.l_uniform = False
            if self.u_line is not None:
                self.line[:], self.line_s[:] = self.u_line
                self.u_line = None
        idx = group_slots(g, self.P)
        t = np.broadcast_to(np.asarray(t, float), idx.shape)
        cur = self.line[idx]
        ch = cur != line
        if not ch.any():
            return
        idx, t, cur = idx[ch], t[ch], cur[ch]
        o = cur >= 0
        if o.any():
            self.lines.append((idx[o], cur[o], self.line_s[idx[o]], t[o]))
        self.line[idx] = line
        self.line_s[idx] = t

    def close_lines(self, end):
        """At the wave's end: the open line spans end at each program's last issue ``end`` ([P])."""
        if self.u_line is not None:
            line, s = self.u_line
            self.u_line = None
            self.lines.append((np.arange(self.P), np.full(self.P, line), np.full(self.P, s), np.asarray(end, float)))
        o = self.line >= 0
        if o.any():
            idx = np.flatnonzero(o)
            self.lines.append((idx, self.line[idx], self.line_s[idx], np.asarray(end, float)[idx]))
            self.line[idx] = -1

    def line_spans(self):
        """``(slot, line, start, end)`` rows of the whole wave (after :meth:`close_lines`)."""
        out = [(p, ln, s, e) for ln, s, e in self.u_lines for p in range(self.P)]
        for idx, ln, s, e in self.lines:
            out.extend(zip(idx.tolist(), ln.tolist(), s.tolist(), e.tolist()))
        return [r for r in out if r[3] > r[2]]

    # results ------------------------------------------------------------------------------------------------
    def vector_spans(self):
        """``(slot, start, end, busy)`` rows of the whole wave (open spans closed)."""
        out = [(p, s, e, b) for s, e, b in self.u_closed for p in range(self.P)]
        if self.u_open is not None:
            s, e, b = self.u_open
            out.extend((p, s, e, b) for p in range(self.P))
        for idx, s, e, b in self.closed:
            out.extend(zip(idx.tolist(), s.tolist(), e.tolist(), b.tolist()))
        has = ~np.isnan(self.open_e)
        for p in np.flatnonzero(has).tolist():
            out.append((p, float(self.open_s[p]), float(self.open_e[p]), float(self.open_b[p])))
        return out

    def wait_spans(self):
        """``(slot, start, stall)`` rows of the whole wave."""
        out = [(p, s, d) for s, d in self.u_waits for p in range(self.P)]
        for idx, s, d in self.waits:
            out.extend(zip(idx.tolist(), s.tolist(), d.tolist()))
        return out


def enable_trace(m) -> WaveRecorder:
    """Wrap machine ``m``'s vector, ``mtia.dma.wait`` and ``mtia.dpe.wait`` executors so that they record into a
    recorder; the matrix engine records into ``m.engine_recorder``."""
    rec = WaveRecorder(m.P)
    erec = m.engine_recorder = m.ts.engine.rec = WaveRecorder(m.P)
    srec = m.se_recorder = WaveRecorder(m.P)
    ts, acc, cyc = m.ts, m.acc, m.cyc
    tacc = ts.acc

    def wrap_unit(ex, rec, key, free):
        """Record the span of an instruction occupying a unit: the vector unit (``vbusy``, ``vfree``) or the SE
        (``sebusy``, ``sefree``)."""
        ub = acc[key]
        ufree = getattr(m, free)

        def vex(g):
            if ts.on and g.__class__ is slice:
                b0 = tacc[key]
                r = ex(g)
                if ts.on:
                    occ = tacc[key] - b0
                    e = getattr(ts, free)
                    rec.vector_uniform(e - occ, e, occ)
                else:
                    occ = ub - b0
                    rec.vector(g, ufree - occ, ufree.copy(), occ)
                return r
            ts.materialize()
            b0 = np.array(ub[g])
            r = ex(g)
            occ = ub[g] - b0
            e = np.array(ufree[g])
            rec.vector(g, e - occ, e, occ)
            return r
        return vex

    def wrap_wait(ex, rec, key):
        dw = acc[key]

        def wex(g):
            if ts.on and g.__class__ is slice:
                c0, d0 = ts.cyc, tacc[key]
                r = ex(g)
                if ts.on:
                    rec.wait_uniform(c0, tacc[key] - d0)
                else:
                    rec.wait(g, c0, dw - d0)
                return r
            ts.materialize()
            c0, d0 = np.array(cyc[g]), np.array(dw[g])
            r = ex(g)
            rec.wait(g, c0, dw[g] - d0)
            return r
        return wex

    def wrap_line(ex, line):
        def lex(g):
            if rec.l_uniform and g.__class__ is slice and ts.on:
                o = rec.u_line
                if o is None or o[0] != line:
                    rec.line_uniform(line, ts.cyc)
                return ex(g)
            ts.materialize()
            rec.line_change(g, line, cyc[g])
            return ex(g)
        return lex

    execs = list(m.execs)
    for k, d in enumerate(m.program.decoded):
        if d is None:
            continue
        if d.spec.sem_family == "dma_wait":
            execs[k] = wrap_wait(execs[k], rec, "dma")
        elif d.spec.sem_family == "dpe_wait":
            execs[k] = wrap_wait(execs[k], erec, "dpe")
        elif d.spec.sem_family in ("se", "se_alu") or d.spec.unit == "se":
            execs[k] = wrap_unit(execs[k], srec, "sebusy", "sefree")
        elif m.timing is not None and m.timing.is_vector_class(d.spec.timing):
            execs[k] = wrap_unit(execs[k], rec, "vbusy", "vfree")
    prog = m.program
    lines = []
    for k in range(len(execs)):
        loc, _ = prog.location(prog.text_base + 4 * k)
        lines.append(loc.line if loc is not None else 0)
    m.execs = [wrap_line(ex, ln) for ex, ln in zip(execs, lines)]
    m.recorder = rec
    return rec
