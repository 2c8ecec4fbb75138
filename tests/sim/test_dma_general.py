"""The DMA system's schedule of PEs that differ (``DmaSystem._resolve_general``) against a reference that
recomputes every queue's ready time at every event: the same completions, bandwidth segments, issue records and
trace, bit for bit, over random batches (two channels and one, LLC hits, outbound transfers holding inbound ones)."""
import random
from typing import Dict, Tuple

import pytest

from mtiacc.machine.simulator import load_config
from mtiasim.dma import DmaSystem, _overlap, _reads_first, _remember

INF = float("inf")
EPS = 1e-9


def _held(outs, seq, span):
    # the outbound hold as it was written before the scheduler's plain loop: the reference keeps that form
    return max((end for s, lo, hi, end in outs if s < seq and _overlap((lo, hi), span)), default=-INF)


def _reference_resolve(self):
    P = self.P
    # each PE's pieces per channel, in issue order; a queue is (PE, channel)
    queues: Dict[Tuple[int, int], list] = {}
    for p, q in enumerate(self.pend):
        for piece in q:
            queues.setdefault((p, piece[5]), []).append(piece)
    heads = dict.fromkeys(queues, 0)
    free = self.free
    lines, lat, port = self.lines, self.lat, self.port
    rem = {}          # active queue -> [bytes left, level, start, DRAM bytes after, completion so far, piece start]
    done_by: Dict[int, list] = {}   # PE -> [(issue number, completion, inbound)] of this batch
    new_segs = [[], []]
    two = self.channels == 2
    t = min(max(q[0][0], free[key[1], key[0]]) for key, q in queues.items())
    while True:
        # start every transfer that is ready by now
        nxt_ready = INF
        for key, q in queues.items():
            if key in rem or heads[key] >= len(q):
                continue
            piece = q[heads[key]]
            ready, n, lv, _seq, rest = piece[:5]
            r = max(ready, free[key[1], key[0]])
            if two and piece[6]:    # held behind an earlier outbound transfer reading its bytes
                if _reads_first(queues.get((key[0], 1)), heads.get((key[0], 1), 0), piece):
                    continue
                r = max(r, _held(self.outs[key[0]], piece[3], piece[7]))
            if r <= t + EPS:
                rem[key] = [float(n), lv, t, rest, 0.0, t]
            elif r < nxt_ready:
                nxt_ready = r
        if not rem:
            if nxt_ready == INF:
                break
            t = nxt_ready
            continue
        counts = [0, 0]
        for v in rem.values():
            counts[v[1]] += 1
        rates = [0.0, 0.0]
        nxt = nxt_ready
        for lv in (0, 1):
            if counts[lv]:
                rates[lv] = min(port, lines[lv].avail(t) / counts[lv])
                nb = lines[lv].next_break(t)
                if nb < nxt:
                    nxt = nb
        for v in rem.values():
            r = rates[v[1]]
            if r > EPS:
                e = t + v[0] / r
                if e < nxt:
                    nxt = e
        dt = nxt - t
        for lv in (0, 1):
            if counts[lv] and rates[lv] > 0:
                new_segs[lv].append((t, nxt, rates[lv] * counts[lv]))
        done = []
        for key, v in rem.items():
            v[0] -= rates[v[1]] * dt
            if v[0] <= 1e-6 * max(1.0, rates[v[1]]):
                done.append(key)
        for key in done:
            p, ch = key
            v = rem[key]
            lv, start = v[1], v[2]
            c = max(nxt + lat[lv], v[4])
            piece = queues[key][heads[key]]
            if v[3]:    # an LLC hit moved; the misses follow at DRAM
                if self.trace is not None:
                    self.trace.append((p, v[5], nxt, piece[1], lv))
                rem[key] = [float(v[3]), 0, start, 0, c, nxt]
                continue
            del rem[key]
            self.comps[p].append(c)
            del self.comps[p][:-self.max_out]
            done_by.setdefault(p, []).append((piece[3], c, piece[6]))
            if self.on_done is not None:
                self.on_done(p, piece[3], c)
            if c > self.last[p]:
                self.last[p] = c
            self.busy[p] += nxt - start
            free[ch, p] = nxt
            if two and not piece[6]:
                _remember(self.outs[p], piece[3], piece[7], nxt)
            if self.trace is not None:
                self.trace.append((p, v[5], nxt, piece[4] or piece[1], lv))
            heads[key] += 1
        t = nxt
    for lv in (0, 1):
        for seg in new_segs[lv]:
            lines[lv].add(*seg)
    for p, got in done_by.items():    # in issue order (two channels complete out of it)
        got.sort()
        for seq, c, inbound in got:
            self.issued[p].complete(seq, c)
            if inbound:
                self.issued_in[p].complete(seq, c)
    self.pend = [[] for _ in range(P)]


class _Reference(DmaSystem):
    _resolve_general = _reference_resolve


def _state(d):
    return (d.free.tolist(), d.last.tolist(), d.busy.tolist(), d.bytes.tolist(), d.comps,
            [(i.count, i.seqs, i.upto, i.retired) for i in d.issued],
            [(i.count, i.seqs, i.upto, i.retired) for i in d.issued_in],
            [tl.segs for tl in d.lines], d.outs, d.trace)


@pytest.mark.parametrize("channels", [1, 2])
@pytest.mark.parametrize("seed", range(6))
def test_general_schedule_matches_the_reference(channels, seed):
    cfg = load_config(None, {"memory.dma.channels": channels})
    rng = random.Random(seed * 10 + channels)
    P = rng.choice([3, 8, 16])
    systems = [DmaSystem(cfg, P), _Reference(cfg, P)]
    done = [[], []]
    for k, d in enumerate(systems):
        d.materialize()
        d.trace = []
        d.on_done = (lambda k: lambda p, seq, c: done[k].append((p, seq, c)))(k)
    t = 0.0
    for _batch in range(12):
        for _ in range(rng.randint(1, 6)):
            slots = sorted(rng.sample(range(P), rng.randint(1, P)))
            inbound = rng.random() < 0.7
            ts = [t + rng.choice([0.0, 0.0, 1.0, 3.5]) for _ in slots]
            ns = [rng.choice([0, 4, 4, 64, 256, 4096]) for _ in slots]
            levels = [rng.choice([0, 0, 1]) for _ in slots]
            hits = [rng.choice([0, n // 2, n]) if lv == 0 else 0 for n, lv in zip(ns, levels)]
            spans = []
            for n in ns:
                lo = rng.choice([0, 64, 128, 4096])
                spans.append((lo, lo + n))
            for d in systems:
                d.add(slots, ts, ns, levels, hits, inbound, spans)
            t += rng.choice([0.0, 2.0, 10.0])
        for d in systems:
            d.resolve()
        t = max(t, float(systems[0].last.max()) * rng.choice([0.0, 0.5, 1.0]))
    assert _state(systems[0]) == _state(systems[1])
    assert done[0] == done[1]
    assert systems[0].n_transfers > 0
