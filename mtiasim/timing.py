"""The timing model: an in-order core per program, per-class issue cost and result latency from the YAML.

An instruction issues at max(the program's current cycle, the ready cycle of its source registers), occupies the
core for ``issue`` cycles (vector classes: plus ``ceil(vl * SEW / datapath_bits) - 1``), and its destination is
ready ``latency`` cycles after the last occupancy cycle begins.  All counters are ``[P]`` numpy arrays so timing
runs in lockstep with the functional simulation.

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
        cyc, xr, fr, vr = m.cyc, m.xr, m.fr, m.vr
        files = {"x": xr, "f": fr}
        xs = [(files[f], r) for f, r in srcs if f != "v"]
        xd = [(files[f], r) for f, r in dsts if f != "v"]
        single = fam in ("vred", "vfred", "vmv_scalar", "vcmp", "vfcmp", "vmask")
        vs = [(r, not (r == 0 and fam != "vmerge") and not single) for f, r in srcs if f == "v"]
        vd = [(r, not single) for f, r in dsts if f == "v"]
        if fam == "dma":
            return self._bind_dma(d, m, issue, xs)
        if fam == "dma_wait":
            def tm(g):
                cyc[g] = np.maximum(cyc[g], m.dma_q[g].max(axis=1)) + issue
            return tm
        vector = self.is_vector_class(cls)
        dp, vlen = self.datapath_bits, self.vlen

        if not vector and not vs and not vd:
            if len(xs) == 0 and len(xd) == 0:
                def tm(g):
                    cyc[g] += issue
            elif len(xs) <= 2 and len(xd) <= 1:
                (a1, r1), (a2, r2) = (xs + [(xr, 0), (xr, 0)])[:2]
                (ad, rdd) = xd[0] if xd else (None, None)

                def tm(g):
                    t = np.maximum(np.maximum(cyc[g], a1[r1, g]), a2[r2, g])
                    if ad is not None:
                        ad[rdd, g] = t + lat
                    cyc[g] = t + issue
            else:
                def tm(g):
                    t = cyc[g]
                    for a, r in xs:
                        t = np.maximum(t, a[r, g])
                    done = t + lat
                    for a, r in xd:
                        a[r, g] = done
                    cyc[g] = t + issue
            return tm

        def tm(g):
            vl, sew = m.vl_u, m.sew_u
            if vl is not None and sew is not None:
                nv = vl * sew
                occ = max(-(-nv // dp) - 1, 0) if vector else 0
            else:
                nva = m.vl[g] * m.sew[g]
                nv = int(nva.max())
                occ = np.maximum(-(-nva // dp) - 1, 0) if vector else 0
            span = max(1, -(-nv // vlen))
            t = cyc[g]
            for a, r in xs:
                t = np.maximum(t, a[r, g])
            for r, grp in vs:
                if grp and span > 1:
                    t = np.maximum(t, vr[r:r + span, g].max(axis=0))
                else:
                    t = np.maximum(t, vr[r, g])
            done = t + (lat + occ)
            for a, r in xd:
                a[r, g] = done
            for r, grp in vd:
                vr[r:r + (span if grp else 1), g] = done
            cyc[g] = t + (issue + occ)
        return tm

    def _bind_dma(self, d, m, issue, xs):
        cyc = m.cyc
        setup = self.setup
        X, r2 = m.X, d.rs2

        def tm(g):
            t = cyc[g]
            for a, r in xs:
                t = np.maximum(t, a[r, g])
            q = m.dma_q[g]
            rows = np.arange(q.shape[0])
            j = q.argmin(axis=1)
            t = np.maximum(t, q[rows, j])                    # wait for a free outstanding slot
            start = np.maximum(t + setup, q.max(axis=1))     # one DMA engine per PE: transfers queue
            done = start + np.maximum(X[r2, g], 0) / m.dma_bytes_per_cycle
            q[rows, j] = done
            m.dma_q[g] = q
            cyc[g] = t + issue
        return tm


def finish_cycles(m) -> np.ndarray:
    """Each program's end: its last issue or its last DMA completion, whichever is later."""
    return np.maximum(m.cyc, m.dma_q.max(axis=1))


def ceil_cycles(x: float) -> int:
    return int(math.ceil(x - 1e-9))
