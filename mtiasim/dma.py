"""The DMA system of one wave: per-PE engines, shared DRAM / SRAM bandwidth, completion times.

Model (numbers in the machine YAML):

- A PE has one DMA engine with ``channels`` channels (the machine YAML's ``memory.dma.channels``): with one, its
  transfers run one after another in issue order; with two, transfers into local memory (``in``, ``in2d``) run in
  issue order on one and transfers out of it on the other, the two at once, each capped by the port.  A transfer
  becomes ready ``setup_cycles`` after it issues and starts when it is ready and its channel is free; with two
  channels, an inbound transfer whose local bytes an earlier outbound one reads also waits until that one has
  moved its bytes (the command processor checks the dependency, as it does for the matrix engine's accesses).
- All transfers moving data at a memory level share its bandwidth: at every instant each of the ``n`` active
  transfers at level ``L`` moves ``min(pe_port, available_L / n)`` bytes per cycle (equal, hence max-min fair,
  shares; ``available_L`` is the level's bandwidth minus what earlier-scheduled transfers already use then).  The
  share changes only at events (a transfer starts or ends), so the schedule is computed exactly, interval by
  interval.  By construction no level ever moves more than its bandwidth in any interval.
- A transfer completes the level's latency after its last byte moves.  ``mtia.dma.wait N`` returns when every
  transfer the PE issued has completed but the ``N`` issued last (``N`` = 0: every transfer); ``mtia.dma.wait.in
  N`` when every transfer *into* local memory has but those among the ``N`` issued last (the transfers out of it
  may stay in flight).  A transfer of zero bytes moves nothing and completes at its issue, but counts as issued:
  each transfer carries its issue number (``seq``), and a PE keeps the running maximum of its completions in issue
  order (:class:`Issued`), of all its transfers and of its inbound ones.

Transfers are *recorded* at issue (with their ready time) and *scheduled* in batches: when a program waits, when a
command queue is full, and at the end of the wave.  A batch is every transfer recorded so far by any program of
the wave; once scheduled, a transfer's use of bandwidth is committed to the level's timeline, and later batches
get what is left.  (In lockstep all programs of a wave reach a wait together, so a batch holds every transfer that
can overlap it; only programs that diverge for a long time can issue, later in simulation order, a transfer that
is earlier in simulated time; it then gets the bandwidth that is left, never more than exists.)

While all programs of the wave agree (same transfers at the same times) the state is scalar: ``P`` identical
transfers share a level exactly as ``P`` times the bytes at ``P`` times the port rate.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Dict, List, Optional, Tuple

import numpy as np

LEVELS = ("dram", "sram")
_EPS = 1e-9
_INF = float("inf")


class Timeline:
    """Committed bandwidth use of one memory level: segments ``(t0, t1, bytes per cycle)``.

    ``segs`` keeps the segments as committed (the trace reads them); the queries read an index of them: the
    sorted endpoints ``ts``, how many segments end or start at each (``ends``), and the rate in use on
    ``[ts[i], ts[i + 1])`` (``used[i]``), so ``avail`` and ``next_break`` cost a binary search, not a scan of
    every segment of the wave.
    """

    def __init__(self, cap: float):
        self.cap = cap
        self.reset()

    def reset(self):
        self.segs: List[Tuple[float, float, float]] = []
        self.horizon = -_INF
        self.ts: List[float] = []
        self.used: List[float] = []
        self.ends: Dict[float, int] = {}

    def avail(self, t: float) -> float:
        if t >= self.horizon:
            return self.cap
        i = bisect_right(self.ts, t) - 1
        if i < 0:
            return self.cap
        return max(self.cap - self.used[i], 0.0)

    def next_break(self, t: float) -> float:
        if t >= self.horizon:
            return _INF
        i = bisect_right(self.ts, t)
        return self.ts[i] if i < len(self.ts) else _INF

    def _point(self, t: float) -> int:
        """The index of endpoint ``t`` in ``ts`` (inserted, carrying the rate in use there, when new)."""
        ts = self.ts
        i = bisect_left(ts, t)
        if i == len(ts) or ts[i] != t:
            ts.insert(i, t)
            self.used.insert(i, self.used[i - 1] if i > 0 else 0.0)
            self.ends[t] = 0
        self.ends[t] += 1
        return i

    def _drop_end(self, t: float):
        """A segment no longer ends at ``t`` (it was extended); forget ``t`` when nothing else ends there."""
        self.ends[t] -= 1
        if self.ends[t] == 0:
            del self.ends[t]
            i = bisect_left(self.ts, t)
            del self.ts[i], self.used[i]

    def add(self, t0: float, t1: float, rate: float):
        if t1 <= t0 or rate <= 0:
            return
        segs = self.segs
        merge = bool(segs) and segs[-1][1] == t0 and segs[-1][2] == rate
        if merge:
            segs[-1] = (segs[-1][0], t1, rate)
        else:
            segs.append((t0, t1, rate))
        i0 = self._point(t0)
        i1 = self._point(t1)
        used = self.used
        for i in range(i0, i1):
            used[i] += rate
        if merge:  # t0 is no longer the end of the extended segment, nor the start of a new one
            self._drop_end(t0)
            self._drop_end(t0)
        if t1 > self.horizon:
            self.horizon = t1

    def transfer(self, t: float, nbytes: float, max_rate: float) -> float:
        """Move ``nbytes`` from ``t`` at most ``max_rate`` bytes per cycle in what is left; commit; the end."""
        left = float(nbytes)
        while left > _EPS:
            a = min(max_rate, self.avail(t))
            nb = self.next_break(t)
            if a <= _EPS:
                t = nb
                continue
            end = t + left / a
            if end <= nb:
                self.add(t, end, a)
                return end
            self.add(t, nb, a)
            left -= a * (nb - t)
            t = nb
        return t


class Issued:
    """One PE's (or, while uniform, every PE's) transfers in issue order, for ``mtia.dma.wait N``: how many were
    issued (``count``, zero-byte ones too), and for the scheduled ones their issue numbers (``seqs``, increasing)
    and the running maximum of their completions (``upto``); the oldest are folded into ``retired``."""

    KEEP = 2048      # more than the largest count a wait can leave in flight (0..2047)

    __slots__ = ("count", "seqs", "upto", "retired")

    def __init__(self):
        self.count = 0
        self.seqs: List[int] = []
        self.upto: List[float] = []
        self.retired = 0.0

    def copy(self) -> "Issued":
        c = Issued()
        c.count, c.seqs, c.upto, c.retired = self.count, list(self.seqs), list(self.upto), self.retired
        return c

    def complete(self, seq: int, c: float):
        upto = self.upto
        self.seqs.append(seq)
        upto.append(max(upto[-1], c) if upto else max(self.retired, c))
        if len(upto) > 2 * self.KEEP:
            self.retired = upto[self.KEEP - 1]
            del self.seqs[:self.KEEP], upto[:self.KEEP]

    def complete_all(self, got):
        """:meth:`complete` for each ``(seq, completion, ...)`` of ``got``, in order."""
        seqs, upto, keep = self.seqs, self.upto, self.KEEP
        last = upto[-1] if upto else self.retired
        for e in got:
            c = e[1]
            if c > last:
                last = c
            seqs.append(e[0])
            upto.append(last)
            if len(upto) > 2 * keep:
                self.retired = upto[keep - 1]
                del seqs[:keep], upto[:keep]

    def done_but(self, n: int, count: Optional[int] = None) -> float:
        """When every transfer but the ``n`` issued last has completed (all scheduled); ``count``: how many were
        issued, when this keeps only some of them (the inbound ones, numbered among all)."""
        i = bisect_left(self.seqs, (self.count if count is None else count) - n) - 1
        return self.upto[i] if i >= 0 else self.retired


def _served(n: int, hit) -> Tuple[int, int]:
    """A DRAM read's ``(bytes at the SRAM level, bytes at DRAM)``: ``hit`` is what the LLC's ``read`` returned
    (:mod:`mtiasim.llc`: the hits and the DRAM bytes of the lines it fills), or the bytes that hit (the rest at
    DRAM)."""
    return hit if hit.__class__ is tuple else (hit, n - hit)


def _piece(ready: float, n: int, level: int, seq: int, hit, ch: int = 0):
    """A recorded transfer: ``(ready, bytes, level, issue number, DRAM bytes that follow, channel)``; a DRAM
    transfer whose ``hit`` bytes hit the LLC (:func:`_served`) moves them at the SRAM level, then its DRAM bytes
    (its line fills: more than its other bytes when it reads part of a line), on the same channel.  Channel 1
    (two channels): a transfer out of local memory."""
    if level != 0:
        return (ready, n, level, seq, 0, ch)
    hit, dram = _served(n, hit)
    if hit <= 0:
        return (ready, dram, 0, seq, 0, ch)
    if dram <= 0:
        return (ready, hit, 1, seq, 0, ch)
    return (ready, hit, 1, seq, dram, ch)


def _overlap(a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _held(outs, seq: int, span) -> float:
    """When the outbound transfers issued before ``seq`` that read bytes of ``span`` have moved them (-inf: none)."""
    lo, hi = span
    last = -_INF
    for s, a, b, end in outs:
        if s < seq and a < hi and lo < b and end > last:
            last = end
    return last


def _remember(outs, seq: int, span, end: float, keep: int = 32) -> None:
    """An outbound transfer has moved its bytes at ``end``: later inbound ones over them wait for it."""
    if span[1] > span[0]:
        outs.append((seq, span[0], span[1], end))
        if len(outs) > 2 * keep:
            del outs[:keep]


def _reads_first(q, head: int, piece) -> bool:
    """Whether an outbound transfer of the queue ``q`` not yet done (from ``head``) was issued before ``piece``
    and reads bytes it writes."""
    if not q:
        return False
    for other in q[head:]:
        if other[3] > piece[3]:
            return False
        if _overlap(other[7], piece[7]):
            return True
    return False


class DmaSystem:
    def __init__(self, cfg, P: int):
        self.P = P
        self.cfg = cfg
        self.setup = float(cfg.dma_setup_cycles)
        self.max_out = int(cfg.dma_max_outstanding)
        self.port = float(cfg.dma_pe_bytes_per_cycle)
        self.channels = int(getattr(cfg, "dma_channels", 1))
        self.caps = (cfg.dram_bytes_per_cycle, cfg.sram_bytes_per_cycle)
        self.lat = (cfg.ns_to_cycles(cfg.dram_latency_ns), cfg.ns_to_cycles(cfg.sram_latency_ns))
        self.lines = [Timeline(c) for c in self.caps]
        self.trace: Optional[list] = None
        self.on_done = None     # when set (a sanitized run), called with (PE or None while uniform, seq, completion)
        self.reset()

    def reset(self):
        P = self.P
        for tl in self.lines:
            tl.reset()
        self.uniform = True
        # uniform state (every PE the same)
        self.u_pend: List[tuple] = []      # pieces (:func:`_piece`), bytes per PE
        self.u_free = [0.0, 0.0]           # when each channel is free
        self.u_comps: List[float] = []                      # completions of the last max_out transfers
        self.u_last = 0.0
        self.u_busy = 0.0
        self.u_bytes = [0, 0]
        self.u_issued = Issued()
        self.u_issued_in = Issued()        # the inbound ones (for mtia.dma.wait.in)
        self.u_outs: List[Tuple[int, float, float, float]] = []   # two channels: recent outbound (seq, lo, hi, end)
        # per-PE state
        self.pend: List[List[tuple]] = [[] for _ in range(P)]
        self.free = np.zeros((2, P))
        self.comps: List[List[float]] = [[] for _ in range(P)]
        self.last = np.zeros(P)
        self.busy = np.zeros(P)
        self.bytes = np.zeros((2, P), np.int64)
        self.issued = [Issued() for _ in range(P)]
        self.issued_in = [Issued() for _ in range(P)]
        self.outs: List[list] = [[] for _ in range(P)]
        self.n_transfers = 0

    # ---------------------------------------------------------------------------------------------------------
    def materialize(self):
        if not self.uniform:
            return
        self.uniform = False
        P = self.P
        self.pend = [list(self.u_pend) for _ in range(P)]
        self.free[0, :], self.free[1, :] = self.u_free
        self.comps = [list(self.u_comps) for _ in range(P)]
        self.last[:] = self.u_last
        self.busy[:] = self.u_busy
        self.bytes[0] += self.u_bytes[0] // P
        self.bytes[1] += self.u_bytes[1] // P
        self.u_bytes = [0, 0]
        self.issued = [self.u_issued.copy() for _ in range(P)]
        self.issued_in = [self.u_issued_in.copy() for _ in range(P)]
        self.outs = [list(self.u_outs) for _ in range(P)]
        if self.trace is not None:
            self.trace = self._expand_trace()

    def _expand_trace(self):
        out = []
        for e in self.trace:
            if e[0] is None:
                out.extend((p,) + e[1:] for p in range(self.P))
            else:
                out.append(e)
        return out

    # ---------------------------------------------------------------------------------------------------------
    def outstanding_uniform(self, t: float) -> float:
        """The issue time of a transfer wanted at ``t`` (a full queue delays it); uniform state."""
        n = len(self.u_pend) + sum(1 for c in self.u_comps if c > t)
        if n < self.max_out:
            return t
        self.resolve()
        later = sorted(c for c in self.u_comps if c > t)
        if len(later) >= self.max_out:
            t = later[len(later) - self.max_out]
        return t

    def outstanding(self, slots, t: np.ndarray) -> np.ndarray:
        """Per-PE version of :meth:`outstanding_uniform` for PEs ``slots`` wanting to issue at ``t``."""
        out = np.array(t, dtype=float, copy=True).tolist()
        resolved = False
        pend, comps, max_out = self.pend, self.comps, self.max_out
        for i, p in enumerate(slots):
            ti = out[i]
            n = len(pend[p])
            for c in comps[p]:
                if c > ti:
                    n += 1
            if n < max_out:
                continue
            if not resolved:
                self.resolve()
                resolved = True
                pend, comps = self.pend, self.comps
            later = sorted(c for c in comps[p] if c > ti)
            if len(later) >= max_out:
                out[i] = later[len(later) - max_out]
        return np.array(out)

    def _channel(self, inbound: bool) -> int:
        return 0 if inbound or self.channels == 1 else 1

    def add_uniform(self, t_issue: float, nbytes: int, level: int, hit: int = 0, inbound: bool = True,
                    span: Tuple[int, int] = (0, 0)):
        """Every PE issues a transfer of ``nbytes`` at ``level`` at ``t_issue`` (into local memory, or out of it;
        ``span``: the local bytes it touches, ``[lo, hi)``); ``hit``: how a DRAM transfer is served by the LLC
        (:func:`_served`): the hits moved at the SRAM level first, then the DRAM bytes."""
        iss = self.u_issued
        iss.count += 1
        if nbytes <= 0:
            return
        self.u_pend.append(_piece(t_issue + self.setup, nbytes, level, iss.count - 1, hit, self._channel(inbound))
                           + (inbound, span))
        hit, dram = _served(nbytes, hit) if level == 0 else (0, nbytes)
        self.u_bytes[level] += dram * self.P
        self.u_bytes[1] += hit * self.P
        self.n_transfers += self.P

    def add(self, slots, t_issue, nbytes, levels, hits=None, inbound: bool = True, spans=None):
        setup = self.setup
        if hits is None:
            hits = [0] * len(slots)
        if spans is None:
            spans = [(0, 0)] * len(slots)
        ch = self._channel(inbound)
        for p, t, n, lv, h, span in zip(slots, t_issue, nbytes, levels, hits, spans):
            iss = self.issued[p]
            iss.count += 1
            if n <= 0:
                continue
            self.pend[p].append(_piece(t + setup, n, lv, iss.count - 1, h, ch) + (inbound, span))
            h, dram = _served(n, h) if lv == 0 else (0, n)
            self.bytes[lv, p] += dram
            self.bytes[1, p] += h
            self.n_transfers += 1

    # ---------------------------------------------------------------------------------------------------------
    def resolve(self):
        """Schedule every recorded transfer (see the module docstring)."""
        if self.uniform:
            if self.u_pend:
                self._resolve_uniform()
            return
        if any(self.pend):
            self._resolve_general()

    def _resolve_uniform(self):
        P = self.P
        free = self.u_free
        comps = self.u_comps
        iss, iss_in = self.u_issued, self.u_issued_in
        for ready, n, lv, seq, rest, ch, inbound, span in self.u_pend:
            start = max(ready, free[ch])
            if self.channels == 2 and inbound:
                start = max(start, _held(self.u_outs, seq, span))
            end = self.lines[lv].transfer(start, n * P, self.port * P)
            c = end + self.lat[lv]
            if rest:        # an LLC hit moved first; the misses follow at DRAM
                if self.trace is not None:
                    self.trace.append((None, start, end, n, lv))
                s1 = end
                end = self.lines[0].transfer(s1, rest * P, self.port * P)
                c = max(c, end + self.lat[0])
                n, lv, start_t = rest, 0, s1
            else:
                start_t = start
            comps.append(c)
            iss.complete(seq, c)
            if inbound:
                iss_in.complete(seq, c)
            if self.on_done is not None:
                self.on_done(None, seq, c)
            if c > self.u_last:
                self.u_last = c
            self.u_busy += end - start
            free[ch] = end
            if self.channels == 2 and not inbound:
                _remember(self.u_outs, seq, span, end)
            if self.trace is not None:
                self.trace.append((None, start_t, end, n, lv))
        del comps[:-self.max_out]
        self.u_pend = []

    def _resolve_general(self):
        """Schedule the recorded transfers of PEs that differ, event by event (a transfer starts or ends, a
        level's committed use changes).  A queue's ready time is kept until an event of its PE changes what it
        depends on (its head, its channel's free time, the PE's outbound transfers), so an event costs a look
        at each queue, not a recomputation of each."""
        P = self.P
        # each PE's pieces per channel, in issue order; a queue is (PE, channel), numbered in PE order
        keys: List[Tuple[int, int]] = []
        qs: List[list] = []
        index: Dict[Tuple[int, int], int] = {}
        for p, q in enumerate(self.pend):
            for piece in q:
                key = (p, piece[5])
                i = index.get(key)
                if i is None:
                    i = index[key] = len(keys)
                    keys.append(key)
                    qs.append([])
                qs[i].append(piece)
        nq = len(keys)
        of_pe: Dict[int, List[int]] = {}
        for i, (p, _ch) in enumerate(keys):
            of_pe.setdefault(p, []).append(i)
        heads = [0] * nq
        ready: List[Optional[float]] = [None] * nq   # a queue's head's ready time (None: to compute; inf: none)
        active = [False] * nq
        lines, lat, port = self.lines, self.lat, self.port
        rem = {}          # active queue -> [bytes left, level, start, DRAM bytes after, completion so far, piece start]
        counts = [0, 0]   # active transfers per level
        done_by: Dict[int, list] = {p: [] for p in of_pe}   # PE -> [(issue number, completion, inbound)] of this batch
        new_segs = [[], []]
        two = self.channels == 2
        outs, trace, on_done, comps = self.outs, self.trace, self.on_done, self.comps
        # the PEs' channel free times, last completions and busy cycles as floats while the batch runs
        free, last, busy = self.free.tolist(), self.last.tolist(), self.busy.tolist()
        t = min(max(q[0][0], free[key[1]][key[0]]) for key, q in zip(keys, qs))

        def head_ready(i):
            """When queue ``i``'s next transfer may start (inf: none left, or held behind an outbound one of its
            PE not yet started that reads its bytes)."""
            q, h = qs[i], heads[i]
            if h >= len(q):
                return _INF
            p, ch = keys[i]
            piece = q[h]
            r = max(piece[0], free[ch][p])
            if two and piece[6]:    # held behind an earlier outbound transfer reading its bytes
                j = index.get((p, 1))
                if j is not None and _reads_first(qs[j], heads[j], piece):
                    return _INF
                r = max(r, _held(outs[p], piece[3], piece[7]))
            return r

        while True:
            # start every transfer that is ready by now
            nxt_ready = _INF
            te = t + _EPS
            for i in range(nq):
                if active[i]:
                    continue
                r = ready[i]
                if r is None:
                    r = ready[i] = head_ready(i)
                if r <= te:
                    piece = qs[i][heads[i]]
                    rem[i] = [float(piece[1]), piece[2], t, piece[4], 0.0, t]
                    counts[piece[2]] += 1
                    active[i] = True
                elif r < nxt_ready:
                    nxt_ready = r
            if not rem:
                if nxt_ready == _INF:
                    break
                t = nxt_ready
                continue
            rates = [0.0, 0.0]
            nxt = nxt_ready
            for lv in (0, 1):
                if counts[lv]:
                    rates[lv] = min(port, lines[lv].avail(t) / counts[lv])
                    nb = lines[lv].next_break(t)
                    if nb < nxt:
                        nxt = nb
            r0, r1 = rates
            for v in rem.values():
                r = r1 if v[1] else r0
                if r > _EPS:
                    e = t + v[0] / r
                    if e < nxt:
                        nxt = e
            dt = nxt - t
            for lv in (0, 1):
                if counts[lv] and rates[lv] > 0:
                    new_segs[lv].append((t, nxt, rates[lv] * counts[lv]))
            done = []
            for i, v in rem.items():
                r = r1 if v[1] else r0
                v[0] -= r * dt
                if v[0] <= 1e-6 * max(1.0, r):
                    done.append(i)
            for i in done:
                p, ch = keys[i]
                v = rem[i]
                lv, start = v[1], v[2]
                c = max(nxt + lat[lv], v[4])
                piece = qs[i][heads[i]]
                if v[3]:    # an LLC hit moved; the misses follow at DRAM
                    if trace is not None:
                        trace.append((p, v[5], nxt, piece[1], lv))
                    rem[i] = [float(v[3]), 0, start, 0, c, nxt]
                    counts[lv] -= 1
                    counts[0] += 1
                    continue
                del rem[i]
                counts[lv] -= 1
                active[i] = False
                comps[p].append(c)
                done_by[p].append((piece[3], c, piece[6]))
                if on_done is not None:
                    on_done(p, piece[3], c)
                if c > last[p]:
                    last[p] = c
                busy[p] += nxt - start
                free[ch][p] = nxt
                if two and not piece[6]:
                    _remember(outs[p], piece[3], piece[7], nxt)
                if trace is not None:
                    trace.append((p, v[5], nxt, piece[4] or piece[1], lv))
                heads[i] += 1
                for j in of_pe[p]:      # what this PE's queues wait for has changed
                    ready[j] = None
            t = nxt
        for lv in (0, 1):
            for seg in new_segs[lv]:
                lines[lv].add(*seg)
        self.free[:] = free
        self.last[:] = last
        self.busy[:] = busy
        for p, got in done_by.items():    # in issue order (two channels complete out of it)
            if not got:
                continue
            del comps[p][:-self.max_out]
            got.sort()
            self.issued[p].complete_all(got)
            self.issued_in[p].complete_all([e for e in got if e[2]])
        self.pend = [[] for _ in range(P)]

    # ---------------------------------------------------------------------------------------------------------
    def last_completion(self):
        """Each PE's last completion (a scalar while uniform)."""
        self.resolve()
        return self.u_last if self.uniform else self.last

    def done_but(self, n: int):
        """When each PE's transfers but the ``n`` it issued last have completed (``mtia.dma.wait n``; a scalar
        while uniform)."""
        if n == 0:
            return self.last_completion()
        self.resolve()
        if self.uniform:
            return self.u_issued.done_but(n)
        return np.array([iss.done_but(n) for iss in self.issued])

    def done_but_in(self, n: int):
        """When each PE's transfers into local memory but those among the ``n`` it issued last have completed
        (``mtia.dma.wait.in n``; a scalar while uniform)."""
        self.resolve()
        if self.uniform:
            return self.u_issued_in.done_but(n, self.u_issued.count)
        return np.array([iin.done_but(n, iss.count) for iin, iss in zip(self.issued_in, self.issued)])

    def bytes_by_pe(self) -> np.ndarray:
        """``[2, P]`` bytes moved per level per PE in this wave."""
        out = self.bytes.copy()
        if self.uniform:
            out[0] += self.u_bytes[0] // self.P
            out[1] += self.u_bytes[1] // self.P
        return out

    def busy_by_pe(self) -> np.ndarray:
        return np.full(self.P, self.u_busy) if self.uniform else self.busy.copy()

    def trace_events(self):
        if self.trace is None:
            return []
        return self._expand_trace()
