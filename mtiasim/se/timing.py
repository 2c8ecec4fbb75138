"""The SE's timing: a unit of its own beside the vector unit, fed from the vector registers.

``mtia.se.<function>.v`` issues when its sources (``vs2``'s register group, ``v0`` when masked) are ready and the
SE is free (waiting for the SE is a *structural* stall); it occupies the SE ``ceil(vl / elements_per_cycle)``
cycles (at least one; ``se.elements_per_cycle`` of the YAML, whatever the SEW), the core goes on after ``issue``
cycles (timing class ``SE``), and ``vd``'s group is ready ``latency`` cycles after the last occupancy cycle
begins.  The vector unit is not involved: vector instructions and SE functions overlap, ordered only by their
registers.  Counters: ``sebusy`` (occupancy cycles) and ``seelems`` (elements computed) per program.
"""
from __future__ import annotations

import numpy as np


def bind_se(d, m, issue: float, lat: float, srcs, dsts):
    """``tm(g)``: the timing of SE instruction ``d`` for group ``g`` (before it executes)."""
    ts, cyc, vr, acc = m.ts, m.cyc, m.vr, m.acc
    tacc = ts.acc
    tv = ts.v
    vs = [r for f, r in srcs if f == "v"]
    vd = [r for f, r in dsts if f == "v"]
    rate = float(m.cfg.se.elements_per_cycle)
    vlen = m.cfg.vlen_bits

    def tm(g):
        vl, sew = m.vl_u, m.sew_u
        if vl is not None and sew is not None and ts.on and g.__class__ is slice:
            occ = max(-(-vl // rate), 1.0)
            span = max(1, -(-(vl * sew) // vlen))
            c = ts.cyc
            t = c
            for r in vs:
                w = max(tv[r:r + span]) if r else tv[0]
                if w > t:
                    t = w
            tacc["dep"] += t - c
            t0 = t
            if ts.sefree > t:
                t = ts.sefree
            tacc["struct"] += t - t0
            ts.sefree = t + occ
            tacc["sebusy"] += occ
            tacc["seelems"] += vl
            done = t + occ - 1 + lat
            for r in vd:
                tv[r:r + span] = [done] * len(tv[r:r + span])
            ts.cyc = t + issue
            return
        ts.materialize()
        vla = m.vl[g]
        occ = np.maximum(np.ceil(vla / rate), 1.0)
        span = max(1, -(-int((vla * m.sew[g]).max()) // vlen))
        c = cyc[g]
        t = c
        for r in vs:
            t = np.maximum(t, vr[r:r + span, g].max(axis=0) if r else vr[0, g])
        acc["dep"][g] += t - c
        t0 = t
        t = np.maximum(t, m.sefree[g])
        acc["struct"][g] += t - t0
        m.sefree[g] = t + occ
        acc["sebusy"][g] += occ
        acc["seelems"][g] += vla
        done = t + occ - 1 + lat
        for r in vd:
            vr[r:r + span, g] = done
        cyc[g] = t + issue
    return tm
