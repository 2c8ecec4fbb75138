"""The SE's timing: a unit of its own beside the vector unit, fed from the vector registers.

``mtia.se.<function>.v`` and the ALU operations ``mtia.se.f<op>.vv`` / ``.vf`` issue when their sources (the
vector register groups, ``v0`` when masked, the f register of a ``.vf``) are ready and the SE is free (waiting
for the SE is a *structural* stall); it occupies the SE ``ceil(vl / elements_per_cycle)`` cycles (at least one;
``se.elements_per_cycle`` of the YAML, whatever the SEW), the core goes on after ``issue`` cycles (timing class
``SE``, ``SEALU`` for the ALU operations), and ``vd``'s group is ready ``latency`` cycles after the last occupancy cycle
begins.  The vector unit is not involved: vector instructions and SE functions overlap, ordered only by their
registers.  Counters: ``sebusy`` (occupancy cycles) and ``seelems`` (elements computed) per program.

The rule is written once over a view of the timing state (:mod:`mtiasim.timing`: scalars while the wave is
uniform, else the arrays of the group).
"""
from __future__ import annotations

import numpy as np


def bind_se(d, m, issue: float, lat: float, srcs, dsts):
    """``tm(g)``: the timing of SE instruction ``d`` for group ``g`` (before it executes)."""
    at = m.ts.at
    vs = [r for f, r in srcs if f == "v"]
    fs = [r for f, r in srcs if f == "f"]      # a .vf operation's scalar
    vd = [r for f, r in dsts if f == "v"]
    rate = float(m.cfg.se.elements_per_cycle)
    vlen = m.cfg.vlen_bits

    def tm(g):
        s = at(g)
        vl, sew = m.vl_u, m.sew_u
        if vl is not None and sew is not None:
            occ = max(-(-vl // rate), 1.0)
            bits = vl * sew
        else:                    # the programs' vl or SEW differ
            s = s.split(g)
            vl = m.vl[g]
            occ = np.maximum(np.ceil(vl / rate), 1.0)
            bits = int((vl * m.sew[g]).max())
        span = max(1, -(-bits // vlen))
        mx, acc = s.max, s.acc
        c = t = s.cyc
        for r in fs:
            t = mx(t, s.regs[1][r])
        for r in vs:
            t = mx(t, s.vmax(r, span) if r else s.regs[2][0])
        acc["dep"] += t - c
        t0 = t
        t = mx(t, s.sefree)
        acc["struct"] += t - t0
        s.sefree = t + occ
        acc["sebusy"] += occ
        acc["seelems"] += vl
        done = t + occ - 1 + lat
        for r in vd:
            s.vset(r, span, done)
        s.cyc = t + issue
    return tm
