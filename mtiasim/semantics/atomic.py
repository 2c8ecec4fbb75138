"""Atomics (``amo<op>.<w>``, ``mtia.amofadd.<w>``) and ``fence``: function and time together.

An atomic is the one instruction whose effect depends on the other programs' timing, so its executor does its own
timing (:mod:`mtiasim.sync.atomics`): it orders the group's atomics by when they reach their memory's atomic
unit, performs them in that order, and sets each program's core cycle and the result register's ready cycle.
Before it runs, the scheduler may hold the group back until every other program has caught up in simulated time
(:mod:`mtiasim.sync.progress`): atomics are performed in the order of simulated time across the whole wave.
"""
from __future__ import annotations

import numpy as np

from ..faults import group_slots
from ..sync.atomics import LOCAL, SIZES, locate, perform

_WHAT = {"cas": "atomic compare-and-swap", "swap": "atomic exchange", "fadd": "atomic add"}


def _fixed(d, name: str) -> int:
    return dict(d.spec.fixed).get(name, 0)


def ordering(d):
    """(aq, rl) of an A-extension row or of an ``mtia.amofadd`` (funct7 bits 1 and 0)."""
    if d.spec.name.startswith("mtia."):
        f7 = _fixed(d, "funct7")
        return (f7 >> 1) & 1, f7 & 1
    return _fixed(d, "aq"), _fixed(d, "rl")


def amo(d, m, pc):
    op, _dot, w = d.spec.sem_op.partition(".")
    size = SIZES[w]
    aq, rl = ordering(d)
    rd, rs1, rs2 = d.rd, d.rs1, d.rs2
    X, XU = m.X, m.XU
    what = _WHAT.get(op, f"atomic {op}")
    srcs = [rs1, rs2] + ([rd] if op == "cas" else [])
    issue_cost = m.timing.cost("Atomic", d.spec.name)[0]
    units = m.atomics
    sched = m.sched
    k = (pc - m.text_base) >> 2
    bits = 8 * size
    sign = 1 << (bits - 1)

    def ex(g):
        if sched.must_wait(g):
            return sched.stay(g, pc, k)
        m.ts.materialize()
        sl = group_slots(g, m.P)
        slots = sl.tolist()
        addrs = XU[rs1, sl].tolist()
        vals = XU[rs2, sl].tolist()
        exps = XU[rd, sl].tolist() if op == "cas" else [0] * len(slots)
        cyc = m.cyc
        t = cyc[sl]
        for r in srcs:
            t = np.maximum(t, m.xr[r, sl])
        if rl:
            t = np.maximum(t, np.maximum(m.dma.last_completion()[sl], units.last[sl]))
        issue = t.tolist()
        places = []
        keys = []
        shared = {}        # address -> its place in DRAM / SRAM (the same for every program)
        for p, a in zip(slots, addrs):
            place = shared.get(a)
            if place is None:
                place = locate(m, p, a, size, what)
                if place[2] != LOCAL:
                    shared[a] = place
            places.append(place)
            keys.append((place[2], a))
        order, done = units.serve(slots, issue, keys)
        olds = [0] * len(slots)
        wrote = False
        now = {}           # (memory, offset) -> [value, changed]: each location read once, written back once
        for i in order:
            data, off, level = places[i]
            cell = now.get((id(data), off))
            if cell is None:
                cell = now[(id(data), off)] = [int.from_bytes(data[off:off + size].tobytes(), "little"), False, i]
            old = cell[0]
            new = perform(op, w, old, vals[i], exps[i])
            if new != old:
                cell[0], cell[1] = new, True
                wrote = wrote or level != LOCAL
            olds[i] = old - (1 << bits) if old & sign else old
        for value, changed, i in now.values():
            if changed:
                data, off, _level = places[i]
                data[off:off + size] = np.frombuffer(value.to_bytes(size, "little"), np.uint8)
        if wrote:
            m.dram_epoch += 1
        m.dram_reads[sl] += 1
        done = np.array(done)
        if rd:
            X[rd, sl] = olds
            m.xr[rd, sl] = done
        units.last[sl] = np.maximum(units.last[sl], done)
        end = t + issue_cost
        if aq:
            m.acc["amo"][sl] += np.maximum(done - end, 0.0)
            end = np.maximum(end, done)
        m.acc["dep"][sl] += t - cyc[sl]
        cyc[sl] = end
        return None
    return ex


def fence(d, m, pc):
    issue_cost = m.timing.cost("Fence", d.spec.name)[0]
    sched = m.sched
    k = (pc - m.text_base) >> 2

    def ex(g):
        if sched.must_wait(g):
            return sched.stay(g, pc, k)
        m.ts.materialize()
        slots = group_slots(g, m.P)
        c = m.cyc[slots]
        t = np.maximum(np.maximum(c, m.dma.last_completion()[slots]), m.atomics.last[slots])
        m.acc["amo"][slots] += t - c
        m.cyc[slots] = t + issue_cost
        return None
    return ex


FAMILIES = {"amo": amo, "fence": fence}
OPS = {"amo": None, "fence": None}
