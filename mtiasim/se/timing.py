"""The SE's timing: a unit of its own beside the vector unit, fed from the vector registers.

``mtia.se.<function>.v`` and the ALU operations ``mtia.se.f<op>.vv`` / ``.vf`` (and ``mtia.se.fncvt.f.f.w``, whose
source group is twice its destination's) issue when their sources (the vector register groups, ``v0`` when masked, the f register of a ``.vf``) are ready and the SE is free (waiting
for the SE is a *structural* stall); it occupies the SE ``ceil(vl / elements_per_cycle)`` cycles (at least one;
``se.elements_per_cycle`` of the YAML, whatever the SEW), the core goes on after ``issue`` cycles (timing class
``SE``, ``SEALU`` for the ALU operations), and ``vd``'s group is ready ``latency`` cycles after the last occupancy cycle
begins.  The vector unit is not involved: vector instructions and SE functions overlap, ordered only by their
registers.  Counters: ``sebusy`` (occupancy cycles) and ``seelems`` (elements computed) per program.

The SE's own loads and stores (``mtia.se.vle<E>.v`` / ``vse<E>.v``, timing class ``SEMem``) occupy it the same
``ceil(vl / elements_per_cycle)`` cycles, after their address register is ready, and move ``vl * E / 8`` bytes of
local memory (counted with the vector unit's in ``lm``, not in ``seelems``).  Local memory keeps program order
between the two units: an SE load or store starts once the vector unit's loads and stores issued before it have
finished (``vmem``), and a vector load or store, an engine command or a DMA transfer once the SE's have
(``semem``: :mod:`mtiasim.timing`), so a reader never sees an older value than the functional model gives it.

The rule is written once over a view of the timing state (:mod:`mtiasim.timing`: scalars while the wave is
uniform, else the arrays of the group).
"""
from __future__ import annotations

import numpy as np


def bind_se(d, m, issue: float, lat: float, srcs, dsts, xs=()):
    """``tm(g)``: the timing of SE instruction ``d`` for group ``g`` (before it executes); ``xs`` its x and f
    register sources as ``(file, register)`` (an SE load's or store's address)."""
    at = m.ts.at
    mem = d.spec.timing == "SEMem"
    eew = int(d.spec.sem_op) if mem else 0
    xa = [(f, r) for f, r in xs if f == 0]
    vs = [r for f, r in srcs if f == "v"]
    fs = [r for f, r in srcs if f == "f"]      # a .vf operation's scalar
    vd = [r for f, r in dsts if f == "v"]
    rate = float(m.cfg.se.elements_per_cycle)
    vlen = m.cfg.vlen_bits
    wide = 2 if d.spec.sem_family == "se_cvt" else 1     # a narrowing conversion reads a group of 2 * SEW

    def tm(g):
        s = at(g)
        vl, sew = m.vl_u, m.sew_u
        if vl is not None and sew is not None:
            occ = max(-(-vl // rate), 1.0)
            bits = vl * (eew or sew)
        else:                    # the programs' vl or SEW differ
            s = s.split(g)
            vl = m.vl[g]
            occ = np.maximum(np.ceil(vl / rate), 1.0)
            bits = int((vl * (eew or m.sew[g])).max())
        span = max(1, -(-bits // vlen))
        sspan = max(1, -(-bits * wide // vlen))
        mx, acc = s.max, s.acc
        c = t = s.cyc
        for r in fs:
            t = mx(t, s.regs[1][r])
        for f, r in xa:
            t = mx(t, s.regs[0][r])
        for r in vs:
            t = mx(t, s.vmax(r, sspan) if r else s.regs[2][0])
        acc["dep"] += t - c
        t0 = t
        t = mx(t, s.sefree)
        if mem:
            t = mx(t, s.vmem)
            s.semem = t + occ
            acc["lm"] += vl * eew // 8
        else:
            acc["seelems"] += vl
        acc["struct"] += t - t0
        s.sefree = t + occ
        acc["sebusy"] += occ
        done = t + occ - 1 + lat
        for r in vd:
            s.vset(r, span, done)
        s.cyc = t + issue
    return tm
