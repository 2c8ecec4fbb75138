"""Missing DMA waits: an access to local memory that a DMA transfer of the program has not been waited for.

The simulator moves a transfer's bytes when it issues, so a program that forgets ``mtia.dma.wait`` computes the
same outputs and the same cycles as one that waits: only the order of its instructions tells.  Per PE this keeps
the local byte ranges of the transfers it issued and has not waited for (:class:`InFlight`).
``mtia.dma.wait N`` retires every transfer but the ``N`` issued last (``mtia.dma.wait.in N``: every inbound one
but those); a ``fence`` and a release atomic (``.rl``) retire all of them (both wait for every transfer to
complete).  A core, vector or matrix-engine (and MLU) access, chosen by the ISA table's ``load`` / ``store``
effects, is an error when it

- reads or writes bytes that an inbound transfer (``mtia.dma.in``, ``in2d``) not waited for writes, or
- writes bytes that an outbound transfer (``mtia.dma.out``, ``out2d``) not waited for reads.

No wait between the two means the hardware may run them in either order, so the rule is about program order, not
this run's timing; the report gives the timing too: the transfer's completion in the timing model (known once the
DMA system schedules it, :attr:`mtiasim.dma.DmaSystem.on_done`) against the access's cycle, i.e. whether the
access met bytes still in flight in this run or was saved by the timing alone.  A program with no finding cannot
tell "data moves at issue" from "data moves at completion": no access touches a transfer's bytes before a wait
that follows its completion.  A local atomic (``amo*`` on a local address) reads and writes its bytes; one with
``.rl`` waits for every transfer first.  ``mtia.print`` and ``mtia.assert`` read their table of addresses and the
values it points at.

Transfers among themselves (``DMA race``): with one channel a PE's transfers run in issue order; with two, the
inbound ones run in issue order on one and the outbound ones on the other, the two directions at once, and the
command processor holds an inbound transfer only behind an earlier outbound one that reads its local bytes.  So
the pairs nothing orders are an inbound and an outbound transfer of one PE, neither waited for before the other
issued, when

- the later one is outbound and reads local bytes the earlier inbound one writes, or
- their DRAM / SRAM bytes overlap (one reads what the other writes, in either order).

Pairs of one direction, and an inbound transfer over the local bytes an earlier outbound one reads, are ordered
by the machine and not reported.

Atomics against transfers (``DMA race`` too): an atomic on a DRAM or SRAM address travels to that memory's atomic
unit apart from the DMA engine's transfers, on one channel or two, and nothing compares their addresses.  So an
atomic without ``.rl`` over DRAM / SRAM bytes a transfer not waited for writes or reads (a store in flight, a load
in flight), and a transfer over the bytes of an earlier atomic of the program without ``.aq`` that nothing has
retired since (a ``fence`` or an atomic with ``.rl`` after it: both wait for the atomics before them), are
reported.  (A later instruction reading the atomic's old value waits for it too, on an in-order core; the rule
does not follow registers: it asks for the ordering the ISA names.)  Between programs, DRAM accessed by two
programs' transfers is the race rule of :mod:`.state`.
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from ..faults import group_slots
from ..semantics.atomic import ordering
from ..sync.atomics import SIZES
from .access import accessor
from .report import describe_address

_BIG = 1 << 62


class Transfer:
    """One transfer not waited for: its issue number, instruction, direction, local rows, DRAM rows (offsets in
    ``dram.data``) and issue cycle."""
    __slots__ = ("seq", "k", "inbound", "la", "rows", "stride", "n", "da", "dstride", "t", "c")

    def __init__(self, seq, k, inbound, la, rows, stride, n, t, da=0, dstride=0):
        self.seq, self.k, self.inbound, self.t = seq, k, inbound, t
        self.c = None       # its completion, once the DMA system has scheduled it
        self.la, self.rows, self.stride, self.n = la, rows, stride, n
        self.da, self.dstride = da, dstride

    def span(self, dram: bool = False):
        a, s = (self.da, self.dstride) if dram else (self.la, self.stride)
        last = a + (self.rows - 1) * s
        return min(a, last), max(a, last) + self.n

    def bytes(self, dram: bool = False) -> np.ndarray:
        a, s = (self.da, self.dstride) if dram else (self.la, self.stride)
        return ((a + np.arange(self.rows) * s)[:, None] + np.arange(self.n)).ravel()

    def describe(self) -> str:
        lo, hi = self.span()
        if self.rows == 1:
            return f"local 0x{lo:x}..0x{hi:x} ({self.n} bytes)"
        return (f"local 0x{lo:x}..0x{hi:x} ({self.rows} rows of {self.n} bytes, {self.stride} apart)")


class Atomic:
    """One atomic of a PE on DRAM / SRAM not known to be performed: its instruction and its bytes (offsets in
    ``dram.data``)."""
    __slots__ = ("k", "off", "size")

    def __init__(self, k, off, size):
        self.k, self.off, self.size = k, off, size


class InFlight:
    """The transfers not waited for, per PE of the wave: bounds in ``[P, S]`` arrays (``seq`` -1: a free
    column) for one numpy test per access, the :class:`Transfer` itself beside them."""

    def __init__(self, san, used: int):
        self.san = san
        self.used = used
        self.two = int(getattr(san.cfg, "dma_channels", 1)) == 2
        self.reset(used, 8)

    def reset(self, P: int, S: int = 8) -> None:
        self.lo = np.zeros((P, S), np.int64)
        self.hi = np.zeros((P, S), np.int64)
        self.inb = np.zeros((P, S), bool)
        self.seq = np.full((P, S), -1, np.int64)
        self.info: List[List] = [[None] * S for _ in range(P)]
        self.count = np.zeros(P, np.int64)     # transfers issued by the PE's program (zero-byte ones too)
        self.live = 0
        self.wanted: Dict[int, list] = {}      # seq -> [(PE, note(completion), finding)] awaiting a completion
        self.amos: Dict[int, List[Atomic]] = {}    # PE -> its atomics on DRAM / SRAM not known to be performed

    def start_wave(self, P: int) -> None:
        """Every transfer of the last wave completed before the wave ended."""
        self.reset(P, self.lo.shape[1])

    # -- transfers ---------------------------------------------------------------------------------------
    def issue(self, p: int, tr: Transfer) -> None:
        free = np.flatnonzero(self.seq[p] < 0)
        if not len(free):
            S = self.lo.shape[1]
            for name in ("lo", "hi", "inb", "seq"):
                a = getattr(self, name)
                grown = np.zeros((a.shape[0], 2 * S), a.dtype) if name != "seq" else np.full((a.shape[0], 2 * S), -1)
                grown[:, :S] = a
                setattr(self, name, grown)
            for row in self.info:
                row.extend([None] * S)
            free = [S]
        j = int(free[0])
        self.lo[p, j], self.hi[p, j] = tr.span()
        self.inb[p, j] = tr.inbound
        self.seq[p, j] = tr.seq
        self.info[p][j] = tr
        self.live += 1

    def wait(self, slots, keep: int, inbound: bool = False) -> None:
        """Programs ``slots`` waited for every transfer but the ``keep`` they issued last (``inbound``: every
        transfer into local memory, ``mtia.dma.wait.in``)."""
        if not self.live:
            return
        seq = self.seq[slots]
        done = (seq >= 0) & (seq < (self.count[slots] - keep)[:, None])
        if inbound:
            done &= self.inb[slots]
        if done.any():
            self.live -= int(done.sum())
            seq[done] = -1
            self.seq[slots] = seq

    def done(self, p, seq: int, c: float) -> None:
        """The DMA system scheduled transfer ``seq`` of PE ``p`` (None: of every PE): it completes at ``c``."""
        if self.live:
            seqs = self.seq if p is None else self.seq[p:p + 1]
            for q, j in zip(*np.nonzero(seqs == seq)):
                self.info[q if p is None else p][j].c = c
        waiting = self.wanted.get(seq)
        if not waiting:
            return
        left = []
        for q, note, finding in waiting:
            if p is None or p == q:
                finding.notes.insert(2, note(c))
            else:
                left.append((q, note, finding))
        if left:
            self.wanted[seq] = left
        else:
            del self.wanted[seq]

    # -- atomics -----------------------------------------------------------------------------------------
    def atomic(self, m, k: int, p: int, off: int, size: int, aq: bool, rl: bool) -> None:
        """PE ``p``'s atomic (instruction ``k``) on the DRAM / SRAM bytes ``off .. off + size``: without ``.rl``,
        report the transfers not waited for over those bytes; then it is in flight unless ``.aq`` (the core waited
        for it); with ``.rl`` the atomics before it were performed before it issued."""
        if not rl and self.live:
            for j in np.flatnonzero(self.seq[p] >= 0).tolist():
                tr = self.info[p][j]
                lo, hi = tr.span(True)
                if lo < off + size and hi > off:
                    hit = np.intersect1d(tr.bytes(True), np.arange(off, off + size))
                    if len(hit):
                        self._amo_race(m, k, p, tr.k, hit, tr.t, later_is_atomic=True, inbound=tr.inbound)
        if rl:
            self.amos.pop(p, None)
        if not aq:
            self.amos.setdefault(p, []).append(Atomic(k, off, size))

    def drain_atomics(self, slots) -> None:
        """Programs ``slots`` waited for every atomic they issued (a ``fence``)."""
        if self.amos:
            for p in np.asarray(slots).tolist():
                self.amos.pop(p, None)

    def after_atomics(self, m, k: int, p: int, tr: Transfer) -> None:
        """PE ``p`` issues ``tr`` (instruction ``k``): report its atomics in flight over the same DRAM bytes."""
        lo, hi = tr.span(True)
        for a in self.amos.get(p, ()):
            if a.off < hi and a.off + a.size > lo:
                hit = np.intersect1d(tr.bytes(True), np.arange(a.off, a.off + a.size))
                if len(hit):
                    self._amo_race(m, k, p, a.k, hit, None, later_is_atomic=False, inbound=tr.inbound)

    def _amo_race(self, m, k, p, old_k, hit, t, later_is_atomic: bool, inbound: bool) -> None:
        """Report instruction ``k`` of PE ``p`` against the earlier ``old_k`` (a transfer issued at cycle ``t``, or
        an atomic: ``t`` None) over the DRAM bytes ``hit``."""
        san = self.san
        fs = san.findings
        key = ("dma race", k, old_k, True)
        if fs.seen(key):
            return
        n = len(hit)
        first = describe_address(san.dram, san.arrays, san.dram.base + int(hit.min()))
        where = f"{n} byte{'s' if n != 1 else ''} at {first}"
        if later_is_atomic:
            verb, other = "updates", "writes" if not inbound else "reads"
            earlier, fix = "the earlier transfer", ("a mtia.dma.wait before the atomic (or its .rl, which waits "
                                                    "for every transfer before it) orders them")
        else:
            verb, other = ("reads" if inbound else "writes"), "updates"
            earlier, fix = "the earlier atomic", ("a fence between them (or the atomic's .aq, which holds the core "
                                                  "until it is performed) orders them")
        msg = (f"{fs.op(k)} {verb} {where} that {fs.op(old_k)} {other}, issued before it and not waited for: "
               f"nothing orders an atomic and a DMA transfer")
        notes = [f"in program {san.program(int(m.linear[p]))}",
                 f"{earlier}: issued " + (f"at cycle {_cycle(t)} " if t is not None else "")
                 + f"by {_at(m.program, fs, old_k)}",
                 "an atomic travels to its memory's atomic unit apart from the DMA engine's transfers, which "
                 f"compares no DRAM or SRAM addresses with it: {fix}"]
        fs.add(key, "DMA race", msg, k, notes)

    # -- accesses ----------------------------------------------------------------------------------------
    def check(self, m, k: int, parts, when) -> None:
        """Instruction ``k`` accessed ``parts`` (:func:`_parts`); ``when(slot)`` is a program's access cycle."""
        for slots, starts, length, valid, write in parts:
            seq = self.seq[slots]
            if not (seq >= 0).any():
                continue
            ends = starts + length[:, None]
            if valid is not None:
                starts, ends = np.where(valid, starts, _BIG), np.where(valid, ends, -_BIG)
            alo, ahi = starts.min(axis=1), ends.max(axis=1)
            ov = (seq >= 0) & (self.lo[slots] < ahi[:, None]) & (self.hi[slots] > alo[:, None])
            if not write:
                ov &= self.inb[slots]
            if not ov.any():
                continue
            for i, j in zip(*np.nonzero(ov)):
                p = int(slots[i])
                tr = self.info[p][j]
                sel = slice(None) if valid is None else valid[i]
                mine = (starts[i][sel][:, None] + np.arange(int(length[i]))).ravel()
                hit = np.intersect1d(mine, tr.bytes())
                if len(hit):
                    self._report(m, k, p, tr, hit, write, when(p))

    def _report(self, m, k, p, tr, hit, write, t) -> None:
        san = self.san
        fs = san.findings
        key = ("dma wait", k, tr.k)
        if fs.seen(key):
            return
        amo = m.program.decoded[k].spec.sem_family == "amo"
        verb = "updates" if amo else "writes" if write else "reads"
        other = "writes" if tr.inbound else "reads"
        lin = int(m.linear[p])
        lo, hi = int(hit.min()), int(hit.max()) + 1
        n = len(hit)
        msg = (f"{fs.op(k)} {verb} {n} byte{'s' if n != 1 else ''} at local 0x{lo:x}..0x{hi:x} that "
               f"{fs.op(tr.k)} {other}, with no mtia.dma.wait between the two")
        notes = [f"in program {san.program(lin)}",
                 f"the transfer: {tr.describe()}, issued at cycle {_cycle(tr.t)} by {_at(m.program, fs, tr.k)}",
                 "a transfer's bytes are the program's only after a mtia.dma.wait that covers it (a fence or a "
                 "release atomic waits for every transfer)"]
        what = "update" if amo else "write" if write else "read"
        self._add(key, "missing DMA wait", msg, k, notes, p, tr, lambda c: _timing(c, t, what))

    def _add(self, key, kind, msg, k, notes, p, tr, note) -> None:
        """Record a finding whose third note compares transfer ``tr``'s completion with the access: now if the
        DMA system has scheduled it, else when it does."""
        fs = self.san.findings
        if tr.c is not None:
            notes.insert(2, note(tr.c))
        fs.add(key, kind, msg, k, notes)
        if tr.c is None:
            self.wanted.setdefault(tr.seq, []).append((p, note, fs.by_key[key]))

    # -- transfers against transfers ---------------------------------------------------------------------
    def pair(self, m, k: int, p: int, tr: Transfer) -> None:
        """PE ``p`` issues ``tr`` (instruction ``k``): with two channels, report the transfers of the other
        direction it has not waited for that ``tr`` may overtake or be overtaken by."""
        other = (self.seq[p] >= 0) & (self.inb[p] != tr.inbound)
        if not other.any():
            return
        for j in np.flatnonzero(other).tolist():
            old = self.info[p][j]
            if not tr.inbound:          # an outbound transfer reads local bytes the inbound one writes
                self._overlap(m, k, p, tr, old, False)
            self._overlap(m, k, p, tr, old, True)

    def _overlap(self, m, k, p, tr, old, dram: bool) -> None:
        lo, hi = tr.span(dram)
        olo, ohi = old.span(dram)
        if not (olo < hi and ohi > lo):
            return
        hit = np.intersect1d(tr.bytes(dram), old.bytes(dram))
        if not len(hit):
            return
        san = self.san
        fs = san.findings
        key = ("dma race", k, old.k, dram)
        if fs.seen(key):
            return
        n = len(hit)
        size = f"{n} byte{'s' if n != 1 else ''}"
        if dram:
            first = describe_address(san.dram, san.arrays, san.dram.base + int(hit.min()))
            where = f"{size} at {first}"
            verb, other = ("reads", "writes") if tr.inbound else ("writes", "reads")
            lo, hi = (san.dram.base + v for v in old.span(True))
            far = f"{first.split()[0]} 0x{lo:x}..0x{hi:x}"
            there = f"{far} to {old.describe()}" if old.inbound else f"{old.describe()} to {far}"
        else:
            where = f"{size} at local 0x{int(hit.min()):x}..0x{int(hit.max()) + 1:x}"
            verb, other = "reads", "writes"
            there = old.describe()
        msg = (f"{fs.op(k)} {verb} {where} that {fs.op(old.k)} {other}, issued before it and not waited for: "
               f"nothing orders the two transfers")
        notes = [f"in program {san.program(int(m.linear[p]))}",
                 f"the earlier transfer: {there}, issued at cycle {_cycle(old.t)} by {_at(m.program, fs, old.k)}",
                 "a PE's transfers into local memory and out of it run at once, on the DMA engine's two channels "
                 "(memory.dma.channels: 2), in no order between them: a mtia.dma.wait between the two orders them"]
        t = tr.t

        def note(c: float) -> str:
            if c > t:
                return (f"in this run's timing the earlier transfer completes at cycle {_cycle(c)}, after this one "
                        f"issued at cycle {_cycle(t)}: the two are in flight together")
            return (f"in this run's timing the earlier transfer completes at cycle {_cycle(c)}, no later than this "
                    f"one's issue at cycle {_cycle(t)}, but only by chance: nothing orders the two")
        self._add(key, "DMA race", msg, k, notes, p, old, note)


def _at(prog, fs, k: int) -> str:
    """Where instruction ``k`` is, for a note: ``file:line:col: text (pc 0x..: its disassembly)``."""
    at = fs.where(k)
    if at.startswith("pc "):
        return f"pc 0x{prog.text_base + 4 * k:x} ({prog.disassemble(k)})"
    return at + f" (pc 0x{prog.text_base + 4 * k:x}: {prog.disassemble(k)})"


def _cycle(t: float) -> str:
    return f"{t:.0f}" if t == int(t) else f"{t:.1f}"


def _timing(c: float, t: float, verb: str) -> str:
    if c > t:
        return (f"in this run's timing the transfer completes at cycle {_cycle(c)}, after the {verb} at cycle "
                f"{_cycle(t)}: the {verb} meets bytes still in flight")
    return (f"in this run's timing the transfer completes at cycle {_cycle(c)}, no later than the {verb} at cycle "
            f"{_cycle(t)}, but only by chance: nothing orders the two")


# ------------------------------------------------------------------------------------------------------------
# The executors
# ------------------------------------------------------------------------------------------------------------
def wrap(d, m, san, k, ex):
    """``ex`` with the missing-wait rule's part for instruction ``d`` (``ex`` itself when it has none)."""
    fam, op = d.spec.sem_family, d.spec.sem_op
    fl = san.flight
    if fam == "dma" and op in ("in", "out", "in2d", "out2d"):
        return _transfer(d, m, fl, k, ex)
    if fam == "dma_wait":
        keep, inbound = int(d.imm), op == "waitin"

        def hw(g):
            r = ex(g)
            fl.wait(group_slots(g, m.P), keep, inbound)
            return r
        return hw
    if fam == "amo":
        ex = _atomic(d, m, fl, k, ex)
    if fam == "fence" or (fam == "amo" and ordering(d)[1]):
        def hf(g):
            r = ex(g)
            if r is None:       # (not held back: executed) it waited for every transfer
                fl.wait(group_slots(g, m.P), 0)
                if fam == "fence":
                    fl.drain_atomics(group_slots(g, m.P))
            return r
        return hf
    parts = accessor(d)
    if parts is None:
        return ex
    if d.spec.sem_family == "dpe":
        eng = m.ts.engine

        def when(p):
            return float(eng.q[(eng.cnt[p] - 1) % eng.depth, p])
    else:
        issue = m.timing.cost(d.spec.timing, d.spec.name)[0]
        ts = m.ts

        def when(p):
            return float(ts.cyc if ts.on else m.cyc[p]) - issue

    def ha(g):
        if not fl.live:
            return ex(g)
        touched = parts(m, g)
        r = ex(g)
        if r is None:       # (an atomic held back until slower programs catch up has not run yet)
            fl.check(m, k, touched, when)
        return r
    return ha


def _atomic(d, m, fl, k, ex):
    """An atomic's part of the rule on transfers and atomics (:meth:`InFlight.atomic`), for its DRAM / SRAM
    addresses (a local one is an access of the missing-wait rule)."""
    aq, rl = (bool(b) for b in ordering(d))
    size = SIZES[d.spec.sem_op.partition(".")[2]]
    X, r1 = m.X, d.rs1

    def hx(g):
        addrs = X[r1, g].tolist()        # before it runs: its rd may be its rs1
        r = ex(g)
        if r is not None:       # held back until slower programs catch up: not executed yet
            return r
        base, lmb = m.dram.base, m.lmb
        for i, p in enumerate(group_slots(g, m.P).tolist()):
            a = addrs[i]
            if not 0 <= a < lmb:
                fl.atomic(m, k, p, a - base, size, aq, rl)
        return r
    return hx


def _transfer(d, m, fl, k, ex):
    op = d.spec.sem_op
    inbound = op.startswith("in")
    two_d = op.endswith("2d")
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2

    base = m.dram.base

    def ht(g):
        r = ex(g)
        slots = group_slots(g, m.P)
        las = (X[rd, g] if inbound else X[r1, g]).tolist()
        das = ((X[r1, g] if inbound else X[rd, g]) - base).tolist()
        ns = X[r2, g].tolist()
        rows = m.dma_cfg[0, g].tolist() if two_d else [1] * len(ns)
        strides = m.dma_cfg[2, g].tolist() if two_d else [0] * len(ns)
        dstrides = m.dma_cfg[1, g].tolist() if two_d else [0] * len(ns)
        t = m.dma_issue_t
        ts = np.broadcast_to(np.asarray(t, float), (len(ns),)).tolist()
        count = fl.count
        for i, p in enumerate(slots.tolist()):
            count[p] += 1
            if ns[i] > 0 and rows[i] > 0:
                tr = Transfer(int(count[p]) - 1, k, inbound, las[i], rows[i], strides[i], ns[i], ts[i], das[i],
                              dstrides[i])
                if fl.two and fl.live:
                    fl.pair(m, k, p, tr)
                if fl.amos.get(p):
                    fl.after_atomics(m, k, p, tr)
                fl.issue(p, tr)
        return r
    return ht
