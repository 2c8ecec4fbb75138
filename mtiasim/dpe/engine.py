"""The timing of the PEs' matrix engines (docs/matrix-engine.md, numbers from the YAML's ``dpe:``).

Per PE, an in-order engine behind a command queue:

- **Queue.** A command issues when fewer than ``queue_depth`` earlier commands are still waiting to start (else
  the core stalls: a *structural* stall).  It reaches the engine when it issues, and starts no earlier than the
  vector unit's free time at its issue (it may read what the vector unit wrote) and no earlier than the command
  before it started (in order).
- **mm.** Streams ``R`` rows at ``macs_per_cycle / 1024`` rows per cycle (one at fp16 / bf16, two at int8):
  ``ceil(R * 1024 / macs_per_cycle)`` cycles of the streaming pipeline, whatever ``K`` and ``n``; it needs its
  array's weight tile loaded, and switching from the other array costs ``switch_cycles`` of the pipeline.  Its
  results reach the accumulators ``latency_cycles`` after its last row.
- **ldw.** Fills the array that is not holding the newest tile (the two alternate), ``weight_load_cycles`` on the
  weight-load path, once that array has finished streaming: it overlaps the other array's streaming.
- **zero / acc.ld / acc.st.** Use the accumulator port once earlier ``mm`` results have landed: ``R`` rows of
  128 bytes (zero) or ``4 n`` bytes (acc.ld, acc.st) at ``acc_bytes_per_cycle``; ``mm`` waits for the port.
- **cfg** takes a queue slot and no engine time.
- **mlutrans** (``mtia.mlu.trans.e<W>``, the memory layout unit beside the engine): transposes ``B`` bytes in
  ``ceil(B / mlu_bytes_per_cycle)`` cycles of the MLU, done ``mlu_latency_cycles`` after its last cycle; the
  commands after it start once it is done (they may read what it wrote).  Its busy cycles are counted apart
  (``mlu_busy``).
- **Completion.** ``mtia.dpe.wait`` stalls the core until every command has completed (``done``);
  ``mtia.dpe.wait N`` until every command but the ``N`` issued last has (commands start in order but may finish
  out of order: the latest finish among the earlier ones, kept per command in a ring of ``TRACKED``).

The state is per PE in ``[P]`` arrays, always (a command costs a few dozen numpy operations on them, small beside
the functional ``mm``); the core's timing stays in :class:`~mtiasim.timing.UniformTiming`'s scalars while the
times it sees (issue after a full queue, ``done`` at a wait) agree across the wave.

**Local-memory hazards with DMA** (the command processor's check): each PE keeps the byte ranges that its recent
engine commands read (ldw, mm, acc.ld) or write (acc.st), with the time they finish, in a ring of ``HAZARDS``
entries (an entry overwritten before it finished folds its time into a floor that then holds for every range:
conservative).  A DMA into local memory does not start before the overlapping reads and writes finished; a DMA
out of local memory does not start before the overlapping ``acc.st`` finished.
"""
from __future__ import annotations

import numpy as np

from ..faults import group_slots
from ..semantics.dpe import (ACC_STRIDE, ESIZE, N, OUT_ESIZE, OUT_TYPE, TYPE, W_STRIDE, W_TRANS, X_STRIDE,
                             mlu_shape)

HAZARDS = 32
TRACKED = 256     # commands whose completion mtia.dpe.wait N can name (the YAML's dpe: assumption)
_NEG = -np.inf
ACC_OPS = ("zero", "accld", "accst")


class DpeTiming:
    def __init__(self, cfg, P: int):
        d = cfg.dpe
        self.P = P
        self.idx = np.arange(P)
        self.depth = int(d.queue_depth)
        self.wlc = float(d.weight_load_cycles)
        self.switch = float(d.switch_cycles)
        self.lat = float(d.latency_cycles)
        self.acc_bpc = float(d.acc_bytes_per_cycle)
        self.mlu_bpc = float(d.mlu_bytes_per_cycle)
        self.mlu_lat = float(d.mlu_latency_cycles)
        self.rate = np.array([d.macs(t) for t in ("fp16", "bf16", "int8", "uint8")])   # MACs per cycle by type
        self.rows_per_cycle = self.rate / 1024.0
        self.rec = None           # a tracerec.WaveRecorder of engine busy spans when tracing
        z = lambda: np.zeros(P)   # noqa: E731
        self.q = np.full((self.depth, P), _NEG)      # start times of the last queue_depth commands (a ring)
        self.cnt = np.zeros(P, np.int64)
        self.prev, self.sfree, self.wlfree, self.mmdone, self.accfree, self.done = z(), z(), z(), z(), z(), z()
        self.ready = np.zeros((2, P))               # per array: its tile is loaded
        self.send = np.zeros((2, P))                # per array: its last row streamed
        self.active = np.ones(P, np.int64)          # the array holding the newest tile (the first ldw fills 0)
        self.last = np.full(P, -1, np.int64)        # the array the last mm streamed through
        self.busy, self.macs, self.mmin, self.lm = z(), z(), z(), z()     # lm: local-memory bytes moved
        self.mlufree, self.mlu_busy = z(), z()
        self.hlo = np.zeros((HAZARDS, P), np.int64)
        self.hhi = np.zeros((HAZARDS, P), np.int64)
        self.hend = np.full((HAZARDS, P), _NEG)
        self.hw = np.zeros((HAZARDS, P), bool)
        self.hcnt = np.zeros(P, np.int64)
        self.dring = np.zeros((TRACKED, P))   # done after each of the last TRACKED commands (written before read)
        self.floor_r, self.floor_w = z(), z()
        self.reset()

    def reset(self):
        self.used = False
        self.q[:] = _NEG
        self.cnt[:] = 0
        for a in (self.prev, self.sfree, self.wlfree, self.mmdone, self.accfree, self.done, self.ready, self.send,
                  self.busy, self.macs, self.mmin, self.lm, self.floor_r, self.floor_w, self.mlufree,
                  self.mlu_busy):
            a[:] = 0.0
        self.active[:] = 1
        self.last[:] = -1
        self.hlo[:] = 0
        self.hhi[:] = 0
        self.hend[:] = _NEG
        self.hw[:] = False
        self.hcnt[:] = 0
        if self.rec is not None:
            self.rec.reset()

    # ---------------------------------------------------------------------------------------------------------
    def command(self, g, op: str, t, vf, p):
        """Account engine command ``op`` of group ``g`` wanted at core cycle ``t`` (the vector unit free at
        ``vf``) with parameters ``p`` (:func:`params`); returns its issue times ``[G]`` (after a full queue)."""
        self.used = True
        idx = group_slots(g, self.P)
        ix = g if g.__class__ is slice else idx       # 1-D state: a view for the whole wave
        qi = self.cnt[ix] % self.depth
        t2 = np.maximum(t, self.q[qi, idx])
        base = np.maximum(np.maximum(t2, vf), self.prev[ix])
        if op == "cfg":
            start = fin = base
        elif op == "ldw":
            a = 1 - self.active[ix]
            start = np.maximum(np.maximum(base, self.wlfree[ix]), self.send[a, idx])
            fin = end = start + self.wlc
            self.wlfree[ix] = end
            self.ready[a, idx] = end
            self.active[ix] = a
        elif op == "mm":
            a = self.active[ix]
            last = self.last[ix]
            pf = self.sfree[ix] + self.switch * ((last >= 0) & (last != a))
            start = np.maximum(np.maximum(base, pf), np.maximum(self.ready[a, idx], self.accfree[ix]))
            occ = p["occ"]
            end = start + occ
            self.sfree[ix] = end
            self.send[a, idx] = end
            self.last[ix] = a
            fin = end + self.lat
            self.mmdone[ix] = np.maximum(self.mmdone[ix], fin)
            self.busy[ix] += occ
            self.macs[ix] += p["macs"]
            self.mmin[ix] += p["mmin"]
            if self.rec is not None:
                self.rec.vector(g, start, end, occ)
        elif op == "mlutrans":
            start = np.maximum(base, self.mlufree[ix])
            occ = p["occ"]
            end = start + occ
            self.mlufree[ix] = end
            fin = end + np.where(occ > 0, self.mlu_lat, 0.0)
            self.mlu_busy[ix] += occ
        else:
            start = np.maximum(base, np.maximum(self.mmdone[ix], self.accfree[ix]))
            fin = end = start + p["occ"]
            self.accfree[ix] = end
            if self.rec is not None:
                self.rec.vector(g, start, end, p["occ"])
        self.done[ix] = np.maximum(self.done[ix], fin)
        self.dring[self.cnt[ix] % TRACKED, idx] = self.done[ix]
        self.prev[ix] = fin if op == "mlutrans" else start   # what follows a transpose may read its result
        self.q[qi, idx] = start
        self.cnt[ix] += 1
        if "bytes" in p:
            self.lm[ix] += p["bytes"]
        if "lo" in p:
            self._remember(ix, idx, p["lo"], p["hi"], end, op == "accst")
        if "wlo" in p:
            self._remember(ix, idx, p["wlo"], p["whi"], fin, True)
        return t2

    def done_but(self, g, n: int):
        """``[G]``: when every command of group ``g`` but the ``n`` issued last has completed (``-inf``: none)."""
        idx = group_slots(g, self.P)
        i = self.cnt[idx] - 1 - n
        return np.where(i >= 0, self.dring[i % TRACKED, idx], _NEG)

    def _remember(self, ix, idx, lo, hi, end, write: bool):
        h = self.hcnt[ix]
        h0 = int(h[0])
        k, cols = (h0 % HAZARDS, ix) if (h == h0).all() else (h % HAZARDS, idx)   # one ring row: views
        old, was_w = self.hend[k, cols], self.hw[k, cols]
        self.floor_w[ix] = np.where(was_w, np.maximum(self.floor_w[ix], old), self.floor_w[ix])
        self.floor_r[ix] = np.where(was_w, self.floor_r[ix], np.maximum(self.floor_r[ix], old))
        self.hlo[k, cols] = lo
        self.hhi[k, cols] = hi
        self.hend[k, cols] = np.where(hi > lo, end, _NEG)
        self.hw[k, cols] = write
        self.hcnt[ix] += 1

    def hazard(self, g, lo, hi, inbound: bool):
        """``[G]``: the time before which a DMA touching local bytes ``[lo, hi)`` must not start (``-inf``: none)."""
        idx = group_slots(g, self.P)
        ov = (self.hlo[:, idx] < hi) & (self.hhi[:, idx] > lo)
        floor = self.floor_w[idx]
        if inbound:
            floor = np.maximum(floor, self.floor_r[idx])
        else:
            ov &= self.hw[:, idx]
        h = np.maximum(np.where(ov, self.hend[:, idx], _NEG).max(axis=0), floor)
        return np.where(hi > lo, h, _NEG)


def _span(a, s, rows, length):
    """The byte range ``[lo, hi)`` covered by ``rows`` rows of ``length`` bytes from ``a`` at stride ``s``."""
    rows = np.maximum(rows, 0)
    last = a + np.maximum(rows - 1, 0) * s
    lo = np.minimum(a, last)
    hi = np.maximum(a, last) + length
    empty = (rows == 0) | (length <= 0)
    return np.where(empty, 0, lo), np.where(empty, 0, hi)


def local_spans(op: str, d, m, g) -> list:
    """The local memory command ``op`` of group ``g`` touches, as ``[(address, stride, rows, row bytes)]`` (each
    ``[G]``): the range it reads first (``ldw``, ``mm``, ``acc.ld``, the MLU's source), then the range it writes
    (the MLU's destination); ``acc.st``'s one range is written.  ``cfg`` and ``zero`` touch none."""
    X = m.X
    if op == "mlutrans":
        R, C, es = mlu_shape(X, d, g)
        return [(X[d.rs1, g], C * es, R, C * es), (X[d.rd, g], R * es, C, R * es)]
    if op in ("cfg", "zero"):
        return []
    c = m.dpe.cfg[:, g]
    n = c[N]
    if op == "ldw":
        es = np.take(ESIZE, np.clip(c[TYPE], 0, 3))
        K = np.clip(X[d.rs2, g], 0, 32)
        tr = c[W_TRANS] != 0
        return [(X[d.rs1, g], c[W_STRIDE], np.where(tr, n, K), np.where(tr, K, n) * es)]
    R = np.maximum(X[d.rs2, g], 0)
    if op == "mm":
        es = np.take(ESIZE, np.clip(c[TYPE], 0, 3))
        return [(X[d.rs1, g], c[X_STRIDE], R, m.dpe.wk[g] * es)]
    a = X[d.rs1, g] if op == "accld" else X[d.rd, g]
    oes = 4 if op == "accld" else np.take(OUT_ESIZE, np.clip(c[OUT_TYPE], 0, 2))
    return [(a, c[ACC_STRIDE], R, oes * n)]


def params(op: str, d, m, g, eng: DpeTiming) -> dict:
    """The command's engine parameters for group ``g``, from its registers and the engine state before it runs:
    ``occ`` (engine cycles), ``macs`` and ``mmin`` (MACs / the type's MACs per cycle) for mm, the local
    byte range ``lo``, ``hi`` it reads or writes and the ``bytes`` it moves (:func:`local_spans`)."""
    if op == "cfg":
        return {}
    spans = local_spans(op, d, m, g)
    X, c = m.X, m.dpe.cfg[:, g]
    if op == "mlutrans":
        R, C, es = mlu_shape(X, d, g)
        nbytes = np.maximum(R, 0) * np.maximum(C, 0) * es
        lo, hi = _span(*spans[0])
        wlo, whi = _span(*spans[1])
        return {"occ": np.ceil(nbytes / eng.mlu_bpc), "lo": lo, "hi": hi, "wlo": wlo, "whi": whi,
                "bytes": 2 * nbytes}
    es = np.take(ESIZE, np.clip(c[TYPE], 0, 3))
    n = c[N]
    if op == "ldw":
        K = np.clip(X[d.rs2, g], 0, 32)
        lo, hi = _span(*spans[0])
        return {"lo": lo, "hi": hi, "bytes": K * n * es}
    R = np.maximum(X[d.rs2, g], 0)
    if op == "mm":
        t = np.clip(c[TYPE], 0, 3)
        K = m.dpe.wk[g]
        occ = np.ceil(R / eng.rows_per_cycle[t])
        macs = (R * K * n).astype(np.float64)
        lo, hi = _span(*spans[0])
        return {"occ": occ, "macs": macs, "mmin": macs / eng.rate[t], "lo": lo, "hi": hi, "bytes": R * K * es}
    if op == "zero":
        return {"occ": np.ceil(R * 128 / eng.acc_bpc)}
    occ = np.ceil(R * 4 * n / eng.acc_bpc)     # the accumulator port moves fp32 rows, whatever acc.st writes
    oes = 4 if op == "accld" else np.take(OUT_ESIZE, np.clip(c[OUT_TYPE], 0, 2))
    lo, hi = _span(*spans[0])
    return {"occ": occ, "lo": lo, "hi": hi, "bytes": R * oes * n}
