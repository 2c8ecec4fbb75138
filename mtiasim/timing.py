"""The timing model: an in-order core per program, per-class issue cost and result latency from the YAML.

An instruction issues at max(the program's current cycle, the ready cycle of its source registers), occupies the
core for ``issue`` cycles (vector classes: plus ``ceil(vl * SEW / datapath_bits) - 1``), and its destination is
ready ``latency`` cycles after the last occupancy cycle begins.

Lockstep: the counters are ``[P]`` numpy arrays (``m.cyc``; ready cycles ``m.xr m.fr m.vr`` ``[32, P]``).  While
every program of the wave has run exactly the same instructions with the same vl and DMA sizes, their counters
are equal, and the model keeps them as Python scalars instead (:class:`UniformTiming`), which is several times
cheaper per instruction; the first divergence (a group that is not the whole wave, differing vl or DMA sizes)
broadcasts them into the arrays.

DMA (first contention model): every PE gets an equal share of DRAM bandwidth (``bw / clock / programs in the
wave`` bytes per cycle).  A transfer starts ``setup_cycles`` after issue, or when the PE's previous transfer ends
(one DMA engine per PE), and takes ``bytes / share`` cycles; at most ``max_outstanding`` transfers may be in
flight (issue stalls for a free slot).  ``mtia.dma.wait`` stalls until all of the program's transfers are done.
"""
from __future__ import annotations

import math

import numpy as np

from mtiacc.diagnostics import UserError

from .semantics.common import reg_deps

_SINGLE_REG_FAMILIES = ("vred", "vfred", "vmv_scalar", "vcmp", "vfcmp", "vmask")


class UniformTiming:
    """The timing state of a wave while all its programs agree (scalars), and the switch to arrays."""

    def __init__(self, m):
        self.m = m
        self.reset()

    def reset(self):
        self.on = True
        self.cyc = 0.0
        self.x = [0.0] * 32
        self.f = [0.0] * 32
        self.v = [0.0] * 32
        self.q = [0.0] * self.m.dma_q.shape[1]

    def materialize(self):
        """Broadcast the scalars into the per-program arrays; from now on the arrays are the state."""
        if not self.on:
            return
        m = self.m
        m.cyc[:] = self.cyc
        m.xr[:] = np.array(self.x)[:, None]
        m.fr[:] = np.array(self.f)[:, None]
        m.vr[:] = np.array(self.v)[:, None]
        m.dma_q[:] = np.array(self.q)[None, :]
        self.on = False


class TimingModel:
    def __init__(self, cfg):
        self.cfg = cfg
        self.classes = dict(cfg.timing)
        self.datapath_bits = cfg.datapath_bits
        self.vlen = cfg.vlen_bits
        self.setup = float(cfg.dma_setup_cycles)

    def cost(self, cls: str, name: str = "?"):
        try:
            return self.classes[cls]
        except KeyError:
            raise UserError(f"timing class '{cls}' (of instruction '{name}') is not in the 'timing:' section of "
                            f"the machine description {self.cfg.path}") from None

    @staticmethod
    def is_vector_class(cls: str) -> bool:
        return cls.startswith("V") and cls != "VSet"

    def bind(self, d, m):
        """A function ``tm(g)`` that accounts the instruction's timing for group ``g`` (before it executes)."""
        cls = d.spec.timing
        issue, lat = self.cost(cls, d.spec.name)
        fam = d.spec.sem_family
        srcs, dsts = reg_deps(d)
        ts = m.ts
        cyc, xr, fr, vr = m.cyc, m.xr, m.fr, m.vr
        arrays = {"x": xr, "f": fr}
        # (array, scalar-list name, register)
        xs = [(arrays[f], f, r) for f, r in srcs if f != "v"]
        xd = [(arrays[f], f, r) for f, r in dsts if f != "v"]
        single = fam in _SINGLE_REG_FAMILIES
        vs = [(r, not (r == 0 and fam != "vmerge") and not single) for f, r in srcs if f == "v"]
        vd = [(r, not single) for f, r in dsts if f == "v"]
        if fam == "dma":
            return self._bind_dma(d, m, issue, xs)
        if fam == "dma_wait":
            def tm(g):
                if ts.on and g.__class__ is slice:
                    ts.cyc = max(ts.cyc, max(ts.q)) + issue
                    return
                ts.materialize()
                cyc[g] = np.maximum(cyc[g], m.dma_q[g].max(axis=1)) + issue
            return tm
        vector = self.is_vector_class(cls)
        dp, vlen = self.datapath_bits, self.vlen

        if not vector and not vs and not vd and len(xs) <= 2 and len(xd) <= 1:
            # the common scalar case, specialised
            (a1, f1, r1), (a2, f2, r2) = (xs + [(xr, "x", 0), (xr, "x", 0)])[:2]
            ad, fd, rdd = xd[0] if xd else (None, None, None)

            def tm(g):
                if ts.on and g.__class__ is slice:
                    l1 = ts.x if f1 == "x" else ts.f
                    l2 = ts.x if f2 == "x" else ts.f
                    t = max(ts.cyc, l1[r1], l2[r2])
                    if ad is not None:
                        (ts.x if fd == "x" else ts.f)[rdd] = t + lat
                    ts.cyc = t + issue
                    return
                ts.materialize()
                t = np.maximum(np.maximum(cyc[g], a1[r1, g]), a2[r2, g])
                if ad is not None:
                    ad[rdd, g] = t + lat
                cyc[g] = t + issue
            return tm

        def tm(g):
            vl, sew = m.vl_u, m.sew_u
            if vl is not None and sew is not None:
                nv = vl * sew
                occ = max(-(-nv // dp) - 1, 0) if vector else 0
            else:
                ts.materialize()
                nva = m.vl[g] * m.sew[g]
                nv = int(nva.max())
                occ = np.maximum(-(-nva // dp) - 1, 0) if vector else 0
            span = max(1, -(-nv // vlen))
            if ts.on and g.__class__ is slice:
                t = ts.cyc
                for _a, f, r in xs:
                    t = max(t, (ts.x if f == "x" else ts.f)[r])
                for r, grp in vs:
                    t = max(t, max(ts.v[r:r + span]) if grp and span > 1 else ts.v[r])
                done = t + lat + occ
                for _a, f, r in xd:
                    (ts.x if f == "x" else ts.f)[r] = done
                for r, grp in vd:
                    ts.v[r:r + (span if grp else 1)] = [done] * len(ts.v[r:r + (span if grp else 1)])
                ts.cyc = t + issue + occ
                return
            ts.materialize()
            t = cyc[g]
            for a, _f, r in xs:
                t = np.maximum(t, a[r, g])
            for r, grp in vs:
                if grp and span > 1:
                    t = np.maximum(t, vr[r:r + span, g].max(axis=0))
                else:
                    t = np.maximum(t, vr[r, g])
            done = t + (lat + occ)
            for a, _f, r in xd:
                a[r, g] = done
            for r, grp in vd:
                vr[r:r + (span if grp else 1), g] = done
            cyc[g] = t + (issue + occ)
        return tm

    def _bind_dma(self, d, m, issue, xs):
        cyc, ts = m.cyc, m.ts
        setup = self.setup
        X, r2 = m.X, d.rs2

        def tm(g):
            nbytes = X[r2, g]
            if ts.on and g.__class__ is slice:
                n0 = int(nbytes[0])
                if (nbytes == n0).all():
                    t = ts.cyc
                    for _a, f, r in xs:
                        t = max(t, (ts.x if f == "x" else ts.f)[r])
                    q = ts.q
                    j = q.index(min(q))
                    t = max(t, q[j])                       # wait for a free outstanding slot
                    start = max(t + setup, max(q))         # one DMA engine per PE: transfers queue
                    q[j] = start + max(n0, 0) / m.dma_bytes_per_cycle
                    ts.cyc = t + issue
                    return
            ts.materialize()
            t = cyc[g]
            for a, _f, r in xs:
                t = np.maximum(t, a[r, g])
            q = m.dma_q[g]
            rows = np.arange(q.shape[0])
            j = q.argmin(axis=1)
            t = np.maximum(t, q[rows, j])
            start = np.maximum(t + setup, q.max(axis=1))
            done = start + np.maximum(nbytes, 0) / m.dma_bytes_per_cycle
            q[rows, j] = done
            m.dma_q[g] = q
            cyc[g] = t + issue
        return tm


def finish_cycles(m) -> np.ndarray:
    """Each program's end: its last issue or its last DMA completion, whichever is later."""
    m.ts.materialize()
    return np.maximum(m.cyc, m.dma_q.max(axis=1))


def ceil_cycles(x: float) -> int:
    return int(math.ceil(x - 1e-9))
