"""The per-PE timing model: an in-order scalar core, a vector unit, the command processor's DMA queue.

- **Scalar core.** An instruction issues at max(the core's next free cycle, the ready cycle of its source
  registers) (the wait is a *dependence* stall), occupies the core ``issue`` cycles, and its destination is ready
  ``latency`` cycles after it issues (per timing class, from the YAML).
- **Vector unit.** A vector instruction (timing classes ``V*`` but ``VSet``) also needs the vector unit, which it
  occupies ``ceil(vl * SEW / datapath_bits)`` cycles (at least one): it issues when its sources are ready and the
  unit is free (waiting for the unit is a *structural* stall); the core goes on after ``issue`` cycles; the
  destination group is ready ``latency`` cycles after the last occupancy cycle begins.
- **Command processor.** A custom instruction costs ``issue`` cycles of the core (class ``Custom`` / ``DMA``).
  ``mtia.dma.in/out`` enters the PE's DMA queue (at most ``max_outstanding`` in flight: issue waits for a slot, a
  *structural* stall) and is timed by :mod:`mtiasim.dma`; ``mtia.dma.wait`` stalls until every transfer of the
  program has completed (a *DMA wait* stall).  A transfer is handed to the DMA engine at its issue, or later
  while an earlier matrix-engine command still reads (or, for a DMA out, writes) the same local bytes.
- **Matrix engine.** An engine command (class ``DPE``) costs ``issue`` cycles of the core and enters the PE's
  engine queue, timed by :mod:`mtiasim.dpe` (a full queue is a *structural* stall); ``mtia.dpe.wait`` stalls
  until the engine has completed every command (a *DPE wait* stall).

Lockstep: the counters are ``[P]`` numpy arrays (``m.cyc``; ready cycles ``m.xr m.fr m.vr`` ``[32, P]``; the
vector unit's free cycle ``m.vfree``; stall and work counters ``m.acc``).  While every program of the wave has run
exactly the same instructions with the same vl and DMA sizes, their counters are equal and the model keeps them as
Python scalars (:class:`UniformTiming`), several times cheaper per instruction; the first divergence broadcasts
them into the arrays.
"""
from __future__ import annotations

import math

import numpy as np

from mtiacc.diagnostics import UserError

from .dpe import DpeTiming
from .dpe.engine import params as dpe_params
from .se.timing import bind_se
from .semantics.common import reg_deps

_SINGLE_REG_FAMILIES = ("vred", "vfred", "vmv_scalar", "vcmp", "vfcmp", "vmask")
# per-program accumulators: stall kinds (dependence, structural, DMA wait, DPE wait, atomic wait), vector-unit busy cycles, FLOPs, minimum vector cycles for those FLOPs at
# the peak rate, local-memory bytes touched by loads and stores
ACC = ("dep", "struct", "dma", "dpe", "amo", "vbusy", "flops", "vflops", "vmin", "lm", "sebusy", "seelems")
_FLOP_OPS = {"add", "sub", "rsub", "mul", "div", "rdiv", "min", "max"}
_SCALAR_MEM = {"load": {"b": 1, "bu": 1, "h": 2, "hu": 2, "w": 4, "wu": 4, "d": 8},
               "store": {"b": 1, "h": 2, "w": 4, "d": 8}, "fload": {"w": 4}, "fstore": {"w": 4}}
_FLOAT_FAMILIES = ("vfalu", "vfma", "vfcmp", "vfunary", "vfred")


def flops_per_element(d) -> int:
    fam, op = d.spec.sem_family, d.spec.sem_op
    if fam in ("vfma", "fma"):
        return 2
    if fam in ("vfalu", "fpu"):
        return 1 if op in _FLOP_OPS else 0
    if fam in ("vfred", "vfunary", "fsqrt"):
        return 1
    return 0


class UniformTiming:
    """The timing state of a wave while all its programs agree (scalars), and the switch to arrays."""

    def __init__(self, m):
        self.m = m
        self.x = [0.0] * 32
        self.f = [0.0] * 32
        self.v = [0.0] * 32
        self.acc = dict.fromkeys(ACC, 0.0)
        self.engine = DpeTiming(m.cfg, m.P)     # the matrix engines' timing (always per-PE arrays)
        self.reset()

    def reset(self):
        self.on = True
        self.cyc = 0.0
        self.vfree = 0.0
        self.sefree = 0.0
        self.x[:] = [0.0] * 32
        self.f[:] = [0.0] * 32
        self.v[:] = [0.0] * 32
        for k in ACC:
            self.acc[k] = 0.0
        self.engine.reset()

    def materialize(self):
        """Broadcast the scalars into the per-program arrays; from now on the arrays are the state."""
        if not self.on:
            return
        m = self.m
        m.cyc[:] = self.cyc
        m.vfree[:] = self.vfree
        m.sefree[:] = self.sefree
        m.xr[:] = np.array(self.x)[:, None]
        m.fr[:] = np.array(self.f)[:, None]
        m.vr[:] = np.array(self.v)[:, None]
        for k in ACC:
            m.acc[k][:] = self.acc[k]
        m.dma.materialize()
        self.on = False


class TimingModel:
    def __init__(self, cfg):
        self.cfg = cfg
        self.classes = dict(cfg.timing)
        self.datapath_bits = cfg.datapath_bits
        self.vlen = cfg.vlen_bits

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
        arrays = {"x": m.xr, "f": m.fr}
        xs = [(arrays[f], f, r) for f, r in srcs if f != "v"]
        xd = [(arrays[f], f, r) for f, r in dsts if f != "v"]
        if fam in ("amo", "fence"):
            return None      # timed by the executor itself (semantics/atomic.py, sync/atomics.py)
        if fam == "dma":
            return self._bind_dma(d, m, issue, xs)
        if fam == "dma_wait":
            return self._bind_wait(m, issue, int(d.imm))
        if fam == "dpe":
            return self._bind_dpe(d, m, issue, xs)
        if fam == "dpe_wait":
            return self._bind_dpe_wait(m, issue)
        if fam == "se":
            return bind_se(d, m, issue, lat, srcs, dsts)
        if self.is_vector_class(cls):
            return self._bind_vector(d, m, issue, lat, srcs, dsts, xs, xd)
        if not any(f == "v" for f, _ in srcs + dsts) and len(xs) <= 2 and len(xd) <= 1:
            return self._bind_scalar(d, m, issue, lat, xs, xd)
        return self._bind_vector(d, m, issue, lat, srcs, dsts, xs, xd, vector=False)

    # ---------------------------------------------------------------------------------------------------------
    def _bind_scalar(self, d, m, issue, lat, xs, xd):
        ts, cyc, acc = m.ts, m.cyc, m.acc
        tacc = ts.acc
        dep = acc["dep"]
        (a1, f1, r1), (a2, f2, r2) = (xs + [(m.xr, "x", 0), (m.xr, "x", 0)])[:2]
        l1 = ts.x if f1 == "x" else ts.f
        l2 = ts.x if f2 == "x" else ts.f
        ad, fd, rdd = xd[0] if xd else (None, None, None)
        ld = (ts.x if fd == "x" else ts.f) if ad is not None else None
        lm = _SCALAR_MEM.get(d.spec.sem_family, {}).get(d.spec.sem_op, 0)
        fl = flops_per_element(d)
        if not lm and not fl:
            def tm(g):
                if ts.on and g.__class__ is slice:
                    c = ts.cyc
                    t = max(c, l1[r1], l2[r2])
                    if ld is not None:
                        ld[rdd] = t + lat
                    if t > c:
                        tacc["dep"] += t - c
                    ts.cyc = t + issue
                    return
                ts.materialize()
                c = cyc[g]
                t = np.maximum(np.maximum(c, a1[r1, g]), a2[r2, g])
                if ad is not None:
                    ad[rdd, g] = t + lat
                dep[g] += t - c
                cyc[g] = t + issue
            return tm
        key, amount = ("lm", lm) if lm else ("flops", fl)

        def tm(g):
            if ts.on and g.__class__ is slice:
                c = ts.cyc
                t = max(c, l1[r1], l2[r2])
                if ld is not None:
                    ld[rdd] = t + lat
                tacc["dep"] += t - c
                tacc[key] += amount
                ts.cyc = t + issue
                return
            ts.materialize()
            c = cyc[g]
            t = np.maximum(np.maximum(c, a1[r1, g]), a2[r2, g])
            if ad is not None:
                ad[rdd, g] = t + lat
            dep[g] += t - c
            acc[key][g] += amount
            cyc[g] = t + issue
        return tm

    # ---------------------------------------------------------------------------------------------------------
    def _bind_vector(self, d, m, issue, lat, srcs, dsts, xs, xd, vector=True):
        fam = d.spec.sem_family
        ts, cyc, vr, vfree, acc = m.ts, m.cyc, m.vr, m.vfree, m.acc
        tacc = ts.acc
        single = fam in _SINGLE_REG_FAMILIES
        vs = [(r, not (r == 0 and fam != "vmerge") and not single) for f, r in srcs if f == "v"]
        vd = [(r, not single) for f, r in dsts if f == "v"]
        xsl = [(a, ts.x if f == "x" else ts.f, r) for a, f, r in xs]
        xdl = [(a, ts.x if f == "x" else ts.f, r) for a, f, r in xd]
        tv = ts.v
        dp, vlen = self.datapath_bits, self.vlen
        # float arithmetic at SEW=64 runs at a fraction of the datapath's width (fp64_slowdown, from the YAML)
        dp64 = dp // max(self.cfg.fp64_slowdown, 1) if fam in _FLOAT_FAMILIES else dp
        fl = flops_per_element(d) if vector else 0
        mem = vector and bool(d.spec.effects & {"load", "store"})    # the vector loads and stores (ISA table)
        two_dp = 2.0 * dp

        def tm(g):
            vl, sew = m.vl_u, m.sew_u
            if vl is not None and sew is not None:
                nv = vl * sew
                occ = max(-(-nv // (dp64 if sew == 64 else dp)), 1) if vector else 0
                elems = vl
            else:
                ts.materialize()
                vla = m.vl[g]
                nva = vla * m.sew[g]
                nv = int(nva.max())
                occ = np.maximum(-(-nva // np.where(m.sew[g] == 64, dp64, dp)), 1) if vector else 0
                elems = vla
                sew = m.sew[g]
            span = max(1, -(-nv // vlen))
            if ts.on and g.__class__ is slice:
                c = ts.cyc
                t = c
                for _a, lst, r in xsl:
                    if lst[r] > t:
                        t = lst[r]
                for r, grp in vs:
                    w = max(tv[r:r + span]) if grp and span > 1 else tv[r]
                    if w > t:
                        t = w
                tacc["dep"] += t - c
                if vector:
                    t0 = t
                    if ts.vfree > t:
                        t = ts.vfree
                    tacc["struct"] += t - t0
                    ts.vfree = t + occ
                    tacc["vbusy"] += occ
                    done = t + occ - 1 + lat
                    if fl:
                        tacc["flops"] += elems * fl
                        tacc["vflops"] += elems * fl
                        tacc["vmin"] += elems * fl * sew / two_dp
                    if mem:
                        tacc["lm"] += elems * sew // 8
                else:
                    done = t + lat
                for _a, lst, r in xdl:
                    lst[r] = done
                for r, grp in vd:
                    n = span if grp else 1
                    tv[r:r + n] = [done] * len(tv[r:r + n])
                ts.cyc = t + issue
                return
            ts.materialize()
            c = cyc[g]
            t = c
            for a, _l, r in xsl:
                t = np.maximum(t, a[r, g])
            for r, grp in vs:
                if grp and span > 1:
                    t = np.maximum(t, vr[r:r + span, g].max(axis=0))
                else:
                    t = np.maximum(t, vr[r, g])
            acc["dep"][g] += t - c
            if vector:
                t0 = t
                t = np.maximum(t, vfree[g])
                acc["struct"][g] += t - t0
                vfree[g] = t + occ
                acc["vbusy"][g] += occ
                done = t + occ - 1 + lat
                if fl:
                    acc["flops"][g] += elems * fl
                    acc["vflops"][g] += elems * fl
                    acc["vmin"][g] += elems * fl * sew / two_dp
                if mem:
                    acc["lm"][g] += elems * sew // 8
            else:
                done = t + lat
            for a, _l, r in xdl:
                a[r, g] = done
            for r, grp in vd:
                vr[r:r + (span if grp else 1), g] = done
            cyc[g] = t + issue
        return tm

    # ---------------------------------------------------------------------------------------------------------
    def _bind_dma(self, d, m, issue, xs):
        ts, cyc, acc, dma = m.ts, m.cyc, m.acc, m.dma
        tacc = ts.acc
        xsl = [(a, ts.x if f == "x" else ts.f, r) for a, f, r in xs]
        eng = ts.engine
        held = _dma_hold(d, m, eng)

        def tm(g):
            if ts.on and g.__class__ is slice:
                c = ts.cyc
                t = c
                for _a, lst, r in xsl:
                    if lst[r] > t:
                        t = lst[r]
                t2 = dma.outstanding_uniform(t)
                tacc["dep"] += t - c
                tacc["struct"] += t2 - t
                ts.cyc = t2 + issue
                if not eng.used:
                    m.dma_issue_t = t2
                    return
                h = held(g)
                h0 = float(h[0])
                if (h == h0).all():
                    m.dma_issue_t = max(t2, h0)
                    return
                ts.materialize()        # the programs' transfers are held until different times
                m.dma_issue_t = np.maximum(t2, h)
                return
            ts.materialize()
            c = cyc[g]
            t = c
            for a, _l, r in xsl:
                t = np.maximum(t, a[r, g])
            from .faults import group_slots
            t2 = dma.outstanding(group_slots(g, m.P), np.broadcast_to(t, (len(group_slots(g, m.P)),)))
            acc["dep"][g] += t - c
            acc["struct"][g] += t2 - t
            m.dma_issue_t = np.maximum(t2, held(g)) if eng.used else t2
            cyc[g] = t2 + issue
        return tm

    def _bind_wait(self, m, issue, keep):
        """``mtia.dma.wait keep``: until every transfer but the ``keep`` issued last has completed."""
        ts, cyc, acc, dma = m.ts, m.cyc, m.acc, m.dma
        tacc = ts.acc

        def tm(g):
            if ts.on and g.__class__ is slice:
                c = ts.cyc
                t = max(c, dma.done_but(keep))
                tacc["dma"] += t - c
                ts.cyc = t + issue
                return
            ts.materialize()
            last = dma.done_but(keep)
            c = cyc[g]
            t = np.maximum(c, last[g])
            acc["dma"][g] += t - c
            cyc[g] = t + issue
        return tm


    # ---------------------------------------------------------------------------------------------------------
    def _bind_dpe(self, d, m, issue, xs):
        ts, cyc, acc, vfree = m.ts, m.cyc, m.acc, m.vfree
        tacc = ts.acc
        xsl = [(a, ts.x if f == "x" else ts.f, r) for a, f, r in xs]
        eng = ts.engine
        op = d.spec.sem_op

        def tm(g):
            if ts.on and g.__class__ is slice:
                c = ts.cyc
                t = c
                for _a, lst, r in xsl:
                    if lst[r] > t:
                        t = lst[r]
                t2 = eng.command(g, op, t, ts.vfree, dpe_params(op, d, m, g, eng))
                v = float(t2[0])
                tacc["dep"] += t - c
                if (t2 == v).all():
                    tacc["struct"] += v - t
                    ts.cyc = v + issue
                    return
                ts.materialize()        # the queue held the programs for different times
                acc["struct"][g] += t2 - t
                cyc[g] = t2 + issue
                return
            ts.materialize()
            c = cyc[g]
            t = c
            for a, _l, r in xsl:
                t = np.maximum(t, a[r, g])
            t2 = eng.command(g, op, t, vfree[g], dpe_params(op, d, m, g, eng))
            acc["dep"][g] += t - c
            acc["struct"][g] += t2 - t
            cyc[g] = t2 + issue
        return tm

    def _bind_dpe_wait(self, m, issue):
        ts, cyc, acc = m.ts, m.cyc, m.acc
        tacc = ts.acc
        eng = ts.engine

        def tm(g):
            if ts.on and g.__class__ is slice:
                c = ts.cyc
                done = eng.done
                v = float(done[0])
                if (done == v).all():
                    t = max(c, v)
                    tacc["dpe"] += t - c
                    ts.cyc = t + issue
                    return
            ts.materialize()
            c = cyc[g]
            t = np.maximum(c, eng.done[g])
            acc["dpe"][g] += t - c
            cyc[g] = t + issue
        return tm

def _dma_hold(d, m, eng):
    """``held(g)``: the time the command processor may hand group ``g``'s transfer to the DMA engine: its setup
    may begin early enough that it starts when the engine commands touching its local bytes have finished."""
    op = d.spec.sem_op
    inbound = op in ("in", "in2d")
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    setup = float(m.cfg.dma_setup_cycles)

    def held(g):
        la = X[rd, g] if inbound else X[r1, g]
        n = np.maximum(X[r2, g], 0)
        if op in ("in2d", "out2d") and getattr(m, "dma_cfg", None) is not None:
            rows, ls = np.maximum(m.dma_cfg[0, g], 0), m.dma_cfg[2, g]
            last = la + np.maximum(rows - 1, 0) * ls
            lo, hi = np.minimum(la, last), np.maximum(la, last) + n
            hi = np.where(rows > 0, hi, lo)
        else:
            lo, hi = la, la + n
        return eng.hazard(g, lo, hi, inbound) - setup
    return held


def finish_cycles(m) -> np.ndarray:
    """Each program's end: its last issue, vector-unit, SE, DMA or matrix-engine completion, whichever is later."""
    m.dma.resolve()
    m.ts.materialize()
    return np.maximum(np.maximum(np.maximum(np.maximum(m.cyc, m.vfree), m.sefree), m.dma.last), m.ts.engine.done)


def ceil_cycles(x: float) -> int:
    return int(math.ceil(x - 1e-9))
