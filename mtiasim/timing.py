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

Each rule is written once, over a *view* of the state of the programs it times: ``ts.at(g)`` is the
:class:`UniformTiming` itself (scalars, the whole wave) or a :class:`GroupTiming` (the arrays at group ``g``).
Both offer the same names -- ``cyc vfree sefree``, ``regs`` (the ready cycles of the ``x f v`` files), ``acc``,
``max`` (``max`` or ``np.maximum``) -- and a rule that meets values differing between programs switches to the
arrays with ``narrow`` or ``split``.
"""
from __future__ import annotations

import math

import numpy as np

from mtiacc.diagnostics import UserError

from .dpe import DpeTiming
from .dpe.engine import params as dpe_params
from .faults import group_slots
from .se.timing import bind_se
from .semantics.common import reg_deps

_SINGLE_REG_FAMILIES = ("vred", "vfred", "vmv_scalar", "vcmp", "vfcmp", "vmask")
# per-program accumulators: stall kinds (dependence, structural, DMA wait, DPE wait, atomic wait), vector-unit busy
# cycles, FLOPs, minimum vector cycles for those FLOPs at the peak rate, local-memory bytes touched by loads and
# stores, SE busy cycles and elements
ACC = ("dep", "struct", "dma", "dpe", "amo", "vbusy", "flops", "vflops", "vmin", "lm", "sebusy", "seelems")
_FLOP_OPS = {"add", "sub", "rsub", "mul", "div", "rdiv", "min", "max"}
_SCALAR_MEM = {"load": {"b": 1, "bu": 1, "h": 2, "hu": 2, "w": 4, "wu": 4, "d": 8},
               "store": {"b": 1, "h": 2, "w": 4, "d": 8}, "fload": {"w": 4}, "fstore": {"w": 4}}
_FLOAT_FAMILIES = ("vfalu", "vfma", "vfcmp", "vfunary", "vfred")
FILES = {"x": 0, "f": 1, "v": 2}     # a view's ``regs`` index


def flops_per_element(d) -> int:
    fam, op = d.spec.sem_family, d.spec.sem_op
    if fam in ("vfma", "fma"):
        return 2
    if fam in ("vfalu", "fpu"):
        return 1 if op in _FLOP_OPS else 0
    if fam in ("vfred", "vfunary", "fsqrt"):
        return 1
    return 0


# --------------------------------------------------------------------------------------------------------------
# The two views of the timing state
# --------------------------------------------------------------------------------------------------------------
class UniformTiming:
    """The timing state of a wave while all its programs agree (scalars), its view, and the switch to arrays."""

    def __init__(self, m):
        self.m = m
        self.x = [0.0] * 32
        self.f = [0.0] * 32
        self.v = [0.0] * 32
        self.regs = (self.x, self.f, self.v)
        self.acc = dict.fromkeys(ACC, 0.0)
        self.max = max
        self.files = (m.xr, m.fr, m.vr)         # the per-program ready cycles of the x f v files ([32, P] each)
        self.engine = DpeTiming(m.cfg, m.P)     # the matrix engines' timing (always per-PE arrays)
        self.group = GroupTiming(m)
        self.reset()

    def reset(self):
        self.on = True
        self.cyc = 0.0
        self.vfree = 0.0
        self.sefree = 0.0
        self.vmem = 0.0
        self.semem = 0.0
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
        m.vmem[:] = self.vmem
        m.semem[:] = self.semem
        m.xr[:] = np.array(self.x)[:, None]
        m.fr[:] = np.array(self.f)[:, None]
        m.vr[:] = np.array(self.v)[:, None]
        for k in ACC:
            m.acc[k][:] = self.acc[k]
        m.dma.materialize()
        self.on = False

    # -- the view -------------------------------------------------------------------------------------------
    def at(self, g):
        """The view of group ``g``'s timing: these scalars while the wave is uniform (``g`` is then every
        program), else the arrays at ``g``."""
        if self.on:
            if g.__class__ is slice:
                return self
            self.materialize()
        view = self.group
        view.focus(g)
        return view

    def split(self, g):
        """The arrays' view of group ``g``, leaving the scalars."""
        self.materialize()
        view = self.group
        view.focus(g)
        return view

    def narrow(self, a, g):
        """``(view, value)`` for ``a``, a value per program of ``g``: a scalar while every program has the
        same, else the arrays' view and ``a``."""
        v = float(a[0])
        if (a == v).all():
            return self, v
        return self.split(g), a

    @staticmethod
    def part(a):
        """The group's part of a per-program quantity (while uniform, one scalar for all)."""
        return a

    def vmax(self, r, n):
        """When vector registers ``r .. r + n - 1`` are all ready."""
        return max(self.v[r:r + n])

    def vset(self, r, n, t):
        """Vector registers ``r .. r + n - 1`` (those that exist) are ready at ``t``."""
        v = self.v
        v[r:r + n] = [t] * len(v[r:r + n])

    def outstanding(self, dma, t):
        """The issue time of a DMA transfer wanted at ``t`` (a full queue delays it)."""
        return dma.outstanding_uniform(t)


class _Rows:
    """Ready cycles of one register file at the view's group: ``rows[r]`` is ``a[r, g]``."""
    __slots__ = ("a", "view")

    def __init__(self, a, view):
        self.a, self.view = a, view

    def __getitem__(self, r):
        return self.a[r, self.view.g]

    def __setitem__(self, r, value):
        self.a[r, self.view.g] = value


class _Acc:
    """The accumulators at the view's group, for ``acc[k] += x`` only: ``acc[k]`` is ``m.acc[k][g]``, which for a
    slice ``g`` is a view the addition has already written through (for an index array, a copy to write back)."""
    __slots__ = ("acc", "view")

    def __init__(self, acc, view):
        self.acc, self.view = acc, view

    def __getitem__(self, k):
        return self.acc[k][self.view.g]

    def __setitem__(self, k, value):
        g = self.view.g
        if g.__class__ is not slice:
            self.acc[k][g] = value


class GroupTiming:
    """The view of group ``g`` (a slice or an index array) of the per-program arrays; names as
    :class:`UniformTiming`'s.  A slice is every program of the wave: ``regs`` and ``acc`` are then the arrays
    themselves (``regs[f][r]`` a row, ``acc[k] += x`` in place), without the indexing wrappers."""

    def __init__(self, m):
        self.m = m
        self.g = slice(None)
        self._cyc, self._vfree, self._sefree = m.cyc, m.vfree, m.sefree
        self._vmem, self._semem = m.vmem, m.semem
        self._whole = ((m.xr, m.fr, m.vr), m.acc)
        self._part = ((_Rows(m.xr, self), _Rows(m.fr, self), _Rows(m.vr, self)), _Acc(m.acc, self))
        self.regs, self.acc = self._whole
        self.max = np.maximum

    def focus(self, g):
        """View group ``g`` from now on."""
        self.g = g
        self.regs, self.acc = self._whole if g.__class__ is slice else self._part

    @property
    def cyc(self):
        return self._cyc[self.g]

    @cyc.setter
    def cyc(self, value):
        self._cyc[self.g] = value

    @property
    def vfree(self):
        return self._vfree[self.g]

    @vfree.setter
    def vfree(self, value):
        self._vfree[self.g] = value

    @property
    def sefree(self):
        return self._sefree[self.g]

    @sefree.setter
    def sefree(self, value):
        self._sefree[self.g] = value

    @property
    def vmem(self):
        return self._vmem[self.g]

    @vmem.setter
    def vmem(self, value):
        self._vmem[self.g] = value

    @property
    def semem(self):
        return self._semem[self.g]

    @semem.setter
    def semem(self, value):
        self._semem[self.g] = value

    def split(self, g):
        return self

    def narrow(self, a, g):
        return self, a

    def part(self, a):
        return a[self.g]

    def vmax(self, r, n):
        return self.m.vr[r:r + n, self.g].max(axis=0)

    def vset(self, r, n, t):
        self.m.vr[r:r + n, self.g] = t

    def outstanding(self, dma, t):
        slots = group_slots(self.g, self.m.P)
        return dma.outstanding(slots, np.broadcast_to(t, (len(slots),)))


# --------------------------------------------------------------------------------------------------------------
# The rules
# --------------------------------------------------------------------------------------------------------------
class TimingModel:
    # the scalar and vector rules are also written inline for a whole wave (on the uniform state's scalars, or on
    # the arrays of every program), for speed; False runs the general rule only, over ``at(g)``'s view
    # (tests/sim/test_timing_inline.py compares the two on the examples, cycle for cycle)
    INLINE = True

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
        srcs, dsts, xs, xd = _deps(d)
        if fam in ("amo", "fence"):
            return None      # timed by the executor itself (semantics/atomic.py, sync/atomics.py)
        if fam == "dma":
            return self._bind_dma(d, m, issue, xs)
        if fam == "dma_wait":
            return self._bind_wait(m, issue, int(d.imm), d.spec.sem_op == "waitin")
        if fam == "dpe":
            return self._bind_dpe(d, m, issue, xs)
        if fam == "dpe_wait":
            return self._bind_dpe_wait(m, issue, int(d.imm))
        if fam in ("se", "se_alu") or d.spec.unit == "se":
            return bind_se(d, m, issue, lat, srcs, dsts, xs)
        if self.is_vector_class(cls):
            return self._bind_vector(d, m, issue, lat, srcs, dsts, xs, xd)
        return self._bind_scalar(d, m, issue, lat, xs, xd)     # (no scalar class names a vector register)

    # ---------------------------------------------------------------------------------------------------------
    def _bind_scalar(self, d, m, issue, lat, xs, xd):
        """The core alone: issue when the sources are ready, the destination ``lat`` later."""
        at = m.ts.at
        lm = _SCALAR_MEM.get(d.spec.sem_family, {}).get(d.spec.sem_op, 0)
        # (a gap kept from the model's first form: the fused multiply-adds, three sources, count no FLOPs)
        fl = flops_per_element(d) if len(xs) <= 2 else 0
        key, amount = ("lm", lm) if lm else ("flops", fl) if fl else (None, 0)
        ts = m.ts
        inline = self.INLINE

        def tm(g):
            if inline and g.__class__ is slice:
                if ts.on:       # the wave uniform: the rule below on the scalars, inline
                    regs = ts.regs
                    c = t = ts.cyc
                    for f, r in xs:
                        v = regs[f][r]
                        if v > t:
                            t = v
                    for f, r in xd:
                        regs[f][r] = t + lat
                    acc = ts.acc
                    acc["dep"] += t - c
                    if key is not None:
                        acc[key] += amount
                    ts.cyc = t + issue
                    return
                # every program, their counters differing: the rule below on the arrays, inline
                regs, cyc, acc = ts.files, ts.m.cyc, ts.m.acc
                t = cyc
                for f, r in xs:
                    t = np.maximum(t, regs[f][r])
                for f, r in xd:
                    regs[f][r] = t + lat
                if xs:      # (without sources the program issues when the core is free: no dependence stall)
                    dep = acc["dep"]
                    np.add(dep, t - cyc, out=dep)
                if key is not None:
                    counted = acc[key]
                    np.add(counted, amount, out=counted)
                cyc[:] = t + issue
                return
            s = at(g)
            regs, mx, acc = s.regs, s.max, s.acc
            c = t = s.cyc
            for f, r in xs:
                t = mx(t, regs[f][r])
            for f, r in xd:
                regs[f][r] = t + lat
            acc["dep"] += t - c
            if key is not None:
                acc[key] += amount
            s.cyc = t + issue
        return tm

    # ---------------------------------------------------------------------------------------------------------
    def _bind_vector(self, d, m, issue, lat, srcs, dsts, xs, xd):
        """The core and the vector unit: issue when the sources are ready and the unit free, occupy it
        ``occupancy`` cycles, the destination ``lat`` after the last of them begins."""
        at = m.ts.at
        fam = d.spec.sem_family
        single = fam in _SINGLE_REG_FAMILIES
        vs = [(r, not (r == 0 and fam != "vmerge") and not single) for f, r in srcs if f == "v"]
        vd = [(r, not single) for f, r in dsts if f == "v"]
        dp, vlen = self.datapath_bits, self.vlen
        # float arithmetic at SEW=64 runs at a fraction of the datapath's width (fp64_slowdown, from the YAML)
        dp64 = dp // max(self.cfg.fp64_slowdown, 1) if fam in _FLOAT_FAMILIES else dp
        fl = flops_per_element(d)
        mem = bool(d.spec.effects & {"load", "store"})    # the vector loads and stores (ISA table)
        two_dp = 2.0 * dp
        ts = m.ts
        inline = self.INLINE

        def tm(g):
            vl, sew = m.vl_u, m.sew_u
            if inline and ts.on and g.__class__ is slice and vl is not None and sew is not None:
                # the wave uniform: the rule below on the scalars, inline
                uregs, uacc, uv = ts.regs, ts.acc, ts.v
                bits = vl * sew
                occ = max(-(-bits // (dp64 if sew == 64 else dp)), 1)
                span = max(1, -(-bits // vlen))
                c = t = ts.cyc
                for f, r in xs:
                    x = uregs[f][r]
                    if x > t:
                        t = x
                for r, grp in vs:
                    x = max(uv[r:r + span]) if grp and span > 1 else uv[r]
                    if x > t:
                        t = x
                uacc["dep"] += t - c
                t0 = t
                x = ts.vfree
                if x > t:
                    t = x
                if mem:
                    x = ts.semem
                    if x > t:
                        t = x
                    ts.vmem = t + occ
                uacc["struct"] += t - t0
                ts.vfree = t + occ
                uacc["vbusy"] += occ
                done = t + occ - 1 + lat
                if fl:
                    uacc["flops"] += vl * fl
                    uacc["vflops"] += vl * fl
                    uacc["vmin"] += vl * fl * sew / two_dp
                if mem:
                    uacc["lm"] += vl * sew // 8
                for f, r in xd:
                    uregs[f][r] = done
                for r, grp in vd:
                    n = span if grp else 1
                    uv[r:r + n] = [done] * len(uv[r:r + n])
                ts.cyc = t + issue
                return
            if inline and not ts.on and g.__class__ is slice and vl is not None and sew is not None:
                # every program, their counters differing, on the same vl and SEW: the rule below on the arrays
                regs, acc, cyc = ts.files, m.acc, m.cyc
                bits = vl * sew
                occ = max(-(-bits // (dp64 if sew == 64 else dp)), 1)
                span = max(1, -(-bits // vlen))
                t = cyc
                for f, r in xs:
                    t = np.maximum(t, regs[f][r])
                vr = regs[2]
                for r, grp in vs:
                    t = np.maximum(t, vr[r:r + span].max(axis=0) if grp and span > 1 else vr[r])
                acc["dep"] += t - cyc
                t0 = t
                t = np.maximum(t, m.vfree)
                if mem:
                    t = np.maximum(t, m.semem)
                    m.vmem[:] = t + occ
                acc["struct"] += t - t0
                m.vfree[:] = t + occ
                acc["vbusy"] += occ
                done = t + occ - 1 + lat
                if fl:
                    acc["flops"] += vl * fl
                    acc["vflops"] += vl * fl
                    acc["vmin"] += vl * fl * sew / two_dp
                if mem:
                    acc["lm"] += vl * sew // 8
                for f, r in xd:
                    regs[f][r] = done
                for r, grp in vd:
                    vr[r:r + (span if grp else 1)] = done
                cyc[:] = t + issue
                return
            s = at(g)
            if vl is not None and sew is not None:
                bits = vl * sew
                occ = max(-(-bits // (dp64 if sew == 64 else dp)), 1)
            else:                    # the programs' vl or SEW differ
                s = s.split(g)
                vl, sew = m.vl[g], m.sew[g]
                nva = vl * sew
                bits = int(nva.max())
                occ = np.maximum(-(-nva // np.where(sew == 64, dp64, dp)), 1)
            span = max(1, -(-bits // vlen))
            regs, mx, acc = s.regs, s.max, s.acc
            c = t = s.cyc
            for f, r in xs:
                t = mx(t, regs[f][r])
            vr = regs[2]
            for r, grp in vs:
                t = mx(t, s.vmax(r, span) if grp and span > 1 else vr[r])
            acc["dep"] += t - c
            t0 = t
            t = mx(t, s.vfree)
            if mem:      # after the SE's loads and stores issued before (mtiasim/se/timing.py)
                t = mx(t, s.semem)
                s.vmem = t + occ
            acc["struct"] += t - t0
            s.vfree = t + occ
            acc["vbusy"] += occ
            done = t + occ - 1 + lat
            if fl:
                acc["flops"] += vl * fl
                acc["vflops"] += vl * fl
                acc["vmin"] += vl * fl * sew / two_dp
            if mem:
                acc["lm"] += vl * sew // 8
            for f, r in xd:
                regs[f][r] = done
            for r, grp in vd:
                s.vset(r, span if grp else 1, done)
            s.cyc = t + issue
        return tm

    # ---------------------------------------------------------------------------------------------------------
    def _bind_dma(self, d, m, issue, xs):
        at, dma, eng = m.ts.at, m.dma, m.ts.engine
        held = _dma_hold(d, m, eng)

        def tm(g):
            s = at(g)
            regs, mx, acc = s.regs, s.max, s.acc
            c = t = s.cyc
            for f, r in xs:
                t = mx(t, regs[f][r])
            t2 = s.outstanding(dma, t)
            acc["dep"] += t - c
            acc["struct"] += t2 - t
            s.cyc = t2 + issue
            if eng.used:     # held while an engine command uses the same local bytes
                s, h = s.narrow(held(g), g)
                t2 = s.max(t2, h)
            t2 = s.max(t2, s.semem)    # and until the SE's loads and stores issued before have finished
            m.dma_issue_t = t2
        return tm

    def _bind_wait(self, m, issue, keep, inbound=False):
        """``mtia.dma.wait keep``: until every transfer but the ``keep`` issued last has completed
        (``mtia.dma.wait.in keep``, ``inbound``: every transfer into local memory)."""
        at, dma = m.ts.at, m.dma
        done_but = dma.done_but_in if inbound else dma.done_but

        def tm(g):
            s = at(g)
            c = s.cyc
            t = s.max(c, s.part(done_but(keep)))
            s.acc["dma"] += t - c
            s.cyc = t + issue
        return tm

    # ---------------------------------------------------------------------------------------------------------
    def _bind_dpe(self, d, m, issue, xs):
        at, eng = m.ts.at, m.ts.engine
        op = d.spec.sem_op

        def tm(g):
            s = at(g)
            regs, mx = s.regs, s.max
            c = t = s.cyc
            for f, r in xs:
                t = mx(t, regs[f][r])
            t2 = eng.command(g, op, t, mx(s.vfree, s.semem), dpe_params(op, d, m, g, eng))
            s.acc["dep"] += t - c
            s, t2 = s.narrow(t2, g)      # the queue may hold the programs for different times
            s.acc["struct"] += t2 - t
            s.cyc = t2 + issue
        return tm

    def _bind_dpe_wait(self, m, issue, keep=0):
        """``mtia.dpe.wait keep``: until every engine command but the ``keep`` issued last has completed."""
        at, eng = m.ts.at, m.ts.engine

        def tm(g):
            s = at(g)
            c = s.cyc
            s, done = s.narrow(eng.done_but(g, keep) if keep else eng.done[g], g)
            t = s.max(c, done)
            s.acc["dpe"] += t - c
            s.cyc = t + issue
        return tm


_DEPS: dict = {}


def _deps(d):
    """``(sources, destinations, x/f sources, x/f destinations)`` of decoded instruction ``d``, as tuples
    (:func:`reg_deps`; the last two as ``(file index, register)``): worked out once per instruction word and
    shared by every machine that binds it."""
    key = (d.spec, d.word)
    got = _DEPS.get(key)
    if got is None:
        srcs, dsts = reg_deps(d)
        got = (tuple(srcs), tuple(dsts), tuple((FILES[f], r) for f, r in srcs if f != "v"),
               tuple((FILES[f], r) for f, r in dsts if f != "v"))
        if len(_DEPS) >= 1 << 16:
            _DEPS.clear()
        _DEPS[key] = got
    return got


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
