"""MTIA custom instructions: DMA between DRAM and local memory (1-D and 2-D), the DMA configuration registers,
DMA wait, program id and grid size.

A DMA completes functionally at issue (allowed by the architecture contract); the timing model tracks when it
really completes and ``mtia.dma.wait`` stalls on that.  A 2-D DMA (``mtia.dma.in2d`` / ``out2d``) moves
``rows`` rows of ``x[rs2]`` bytes, row ``r`` at ``DRAM + r * dram_stride`` and ``local + r * local_stride``
(``mtia.dma.cfg`` registers 0, 1, 2 of the program); the timing model sees it as one transfer of
``rows * bytes``.
"""
from __future__ import annotations


import numpy as np

from ..faults import SimFault, group_slots


def dma(d, m, pc):
    op = d.spec.sem_op
    if op in ("in2d", "out2d"):
        return dma2d(d, m, pc)
    if op not in ("in", "out"):
        raise KeyError(op)
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    inbound = op == "in"

    def ex(g):
        slots = group_slots(g, m.P).tolist()
        las = (X[rd, g] if inbound else X[r1, g]).tolist()      # local addresses
        das = (X[r1, g] if inbound else X[rd, g]).tolist()      # DRAM addresses
        ns = X[r2, g].tolist()
        dram, LM, lmb, data, base = m.dram, m.LM, m.lmb, m.dram.data, m.dram.base
        what = "DMA read" if inbound else "DMA write"
        lo = hi = 0   # the last buffer hit: [lo, hi) in DRAM addresses
        level = 0
        levels = []
        llc = dram.llc if inbound else None
        hits = [0] * len(slots) if llc is not None else None
        cached = []     # the reads the LLC sees: (position, DRAM offset, bytes)
        total = 0
        for i, (p, la, da, n) in enumerate(zip(slots, las, das, ns)):
            if n <= 0:
                if n < 0:
                    raise SimFault(f"DMA of a negative length ({n} bytes)", p)
                levels.append(0)
                continue
            if la < 0 or la + n > lmb:
                raise SimFault(f"out-of-bounds DMA {'write' if inbound else 'read'} of {n} bytes at local address "
                               f"0x{la % (1 << 64):x} (local memory is 0x0..0x{lmb:x})", p)
            if not (lo <= da and da + n <= hi):
                off = dram.check(da, n, what, p)
                b = dram.buffers[dram.index_of(da)]
                lo, hi, level = b.addr, b.end, b.level
            levels.append(level)
            off = da - base
            if llc is not None and level == 0:
                cached.append((i, off, n))
            if inbound:
                LM[p, la:la + n] = data[off:off + n]
            else:
                data[off:off + n] = LM[p, la:la + n]
            total += n
        if cached:
            _llc_reads(llc, hits, cached)
        if inbound:
            m.dma_bytes_in += total
            m.dram_reads[g] += 1
        else:
            m.dma_bytes_out += total
            m.dram_epoch += 1
        if m.timing is not None:
            _record(m, g, slots, ns, levels, hits, inbound,
                    [(la, la + n) if n > 0 else (0, 0) for la, n in zip(las, ns)])
        return None
    return ex


def dma2d(d, m, pc):
    inbound = d.spec.sem_op == "in2d"
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    cfg = m.dma_cfg

    def ex(g):
        slots = group_slots(g, m.P).tolist()
        las = (X[rd, g] if inbound else X[r1, g]).tolist()      # local addresses of row 0
        das = (X[r1, g] if inbound else X[rd, g]).tolist()      # DRAM addresses of row 0
        ns = X[r2, g].tolist()
        rows, dss, lss = (cfg[k, g].tolist() for k in range(3))
        totals, levels, spans = [], [], []
        llc = m.dram.llc if inbound else None
        hits = [0] * len(slots) if llc is not None else None
        cached = []     # the reads the LLC sees: (position, DRAM offset, bytes, rows, stride)
        for i, (p, la, da, n, nr, ds, ls) in enumerate(zip(slots, las, das, ns, rows, dss, lss)):
            if n < 0:
                raise SimFault(f"2-D DMA with rows of a negative length ({n} bytes)", p)
            if nr < 0:
                raise SimFault(f"2-D DMA of a negative number of rows ({nr}; DMA configuration register 0)", p)
            if n == 0 or nr == 0:
                totals.append(0)
                levels.append(0)
                spans.append((0, 0))
                continue
            levels.append(_copy2d(m, p, inbound, la, da, n, nr, ds, ls))
            totals.append(n * nr)
            last = la + (nr - 1) * ls
            spans.append((min(la, last), max(la, last) + n))
            if llc is not None and levels[-1] == 0:
                cached.append((i, da - m.dram.base, n, nr, ds))
        if cached:
            _llc_reads(llc, hits, cached)
        total = sum(totals)
        if inbound:
            m.dma_bytes_in += total
            m.dram_reads[g] += 1
        else:
            m.dma_bytes_out += total
            m.dram_epoch += 1
        if m.timing is not None:
            _record(m, g, slots, totals, levels, hits, inbound, spans)
        return None
    return ex


def _llc_reads(llc, hits, reads):
    """``hits[i]``: how the LLC serves each read ``(i, offset, bytes[, rows, stride])`` of a step, in slot order:
    all at once when they are rows apart of the same shape (:meth:`mtiasim.llc.Llc.read_many`), else one after
    the other (a read of consecutive bytes alone costs less than its share of the reads at once)."""
    shape = reads[0][2:]
    if len(reads) > 1 and len(shape) == 3 and shape[1] > 1 and shape[2] != shape[0] \
            and all(r[2:] == shape for r in reads):
        got = llc.read_many([r[1] for r in reads], *shape)
        if got is not None:
            for r, h in zip(reads, got):
                hits[r[0]] = h
            return
    for r in reads:
        hits[r[0]] = llc.read(*r[1:])


def _copy2d(m, p, inbound, la, da, n, nr, ds, ls):
    """Copy program ``p``'s ``nr`` rows of ``n`` bytes (checked first); returns the memory level of row 0."""
    dram, lmb = m.dram, m.lmb
    what = "DMA read" if inbound else "DMA write"
    last = nr - 1
    llo, lhi = min(la, la + last * ls), max(la, la + last * ls) + n
    if llo < 0 or lhi > lmb:    # name the first row out of bounds
        for r in range(nr):
            a = la + r * ls
            if a < 0 or a + n > lmb:
                raise SimFault(f"out-of-bounds 2-D DMA {'write' if inbound else 'read'} of {n} bytes at local "
                               f"address 0x{a % (1 << 64):x} in row {r} of {nr} (local memory is "
                               f"0x0..0x{lmb:x})", p)
    dlo, dhi = min(da, da + last * ds), max(da, da + last * ds) + n
    i = dram.index_of(dlo)
    if not (i >= 0 and dhi <= dram.buffers[i].end):  # not all in one buffer: every row must be in one
        for r in range(nr):
            try:
                dram.check(da + r * ds, n, what, p)
            except SimFault as f:
                raise SimFault(f.message.replace(what, f"2-D {what}", 1) + f" in row {r} of {nr}",
                               p, f.notes) from None
    level = dram.buffers[dram.index_of(da)].level
    data, LM = dram.data, m.LM[p]
    off = da - dram.base
    dst_stride = ls if inbound else ds
    if ls >= 0 and ds >= 0 and dst_stride >= n:
        # rows do not overlap where they land: one copy between two strided views of the rows (in bounds, checked
        # above; a stride of 0 reads one row again and again)
        lv = np.ndarray((nr, n), np.uint8, LM, la, (ls, 1))
        dv = np.ndarray((nr, n), np.uint8, data, off, (ds, 1))
        if inbound:
            lv[...] = dv
        else:
            dv[...] = lv
        return level
    cols = np.arange(n)
    if abs(dst_stride) >= n:       # rows do not overlap where they land: one gather / scatter
        lidx = (la + np.arange(nr) * ls)[:, None] + cols
        didx = (off + np.arange(nr) * ds)[:, None] + cols
        if inbound:
            LM[lidx] = data[didx]
        else:
            data[didx] = LM[lidx]
        return level
    for r in range(nr):            # overlapping rows land in order: the last one wins
        a, b = la + r * ls, off + r * ds
        if inbound:
            LM[a:a + n] = data[b:b + n]
        else:
            data[b:b + n] = LM[a:a + n]
    return level


def dma_cfg(d, m, pc):
    k = int(d.imm)
    cfg, X, r1 = m.dma_cfg, m.X, d.rs1
    if k not in (0, 1, 2):
        def bad(g):
            raise SimFault(f"DMA configuration register {k} does not exist (they are 0 rows, 1 DRAM row stride, "
                           f"2 local row stride)")
        return bad

    def ex(g):
        cfg[k, g] = X[r1, g]
    return ex


def _record(m, g, slots, ns, levels, hits=None, inbound=True, spans=None):
    """Hand the transfers to the DMA timing model (issue times from the timing closure: ``m.dma_issue_t``);
    ``hits``: per transfer, how the LLC serves it (``(hit bytes, DRAM bytes)`` from :meth:`mtiasim.llc.Llc.read`, 0
    for a transfer it does not see; ``None``: no LLC); ``inbound``: into local memory;
    ``spans``: the local bytes each touches, ``[lo, hi)``."""
    ts, t = m.ts, m.dma_issue_t
    if ts.on:
        n0, l0 = ns[0], levels[0]
        h0 = hits[0] if hits is not None else 0
        s0 = spans[0] if spans else (0, 0)
        if g.__class__ is slice and all(n == n0 for n in ns) and all(lv == l0 for lv in levels) \
                and (hits is None or all(h == h0 for h in hits)) and (not spans or m.dma.channels == 1 or all(sp == s0 for sp in spans)):
            m.dma.add_uniform(t, n0, l0, h0, inbound, s0)
            return
        ts.materialize()
    if not hasattr(t, "__len__"):
        t = [t] * len(slots)
    elif t.__class__ is np.ndarray:
        t = t.tolist()      # Python floats: the DMA schedule's arithmetic is scalar (the same doubles, faster)
    m.dma.add(slots, t, ns, levels, hits, inbound, spans)


def dma_wait(d, m, pc):
    def ex(g):
        return None
    return ex


def _axis(d):
    a = int(d.imm)
    if a not in (0, 1, 2):
        def ex(g):
            raise SimFault(f"grid axis {a} does not exist (axes are 0, 1, 2)")
        return None, ex
    return a, None


def pid(d, m, pc):
    a, bad = _axis(d)
    if bad:
        return bad
    X, rd, P = m.X, d.rd, m.pid

    def ex(g):
        if rd:
            X[rd, g] = P[a, g]
    return ex


def nprogs(d, m, pc):
    a, bad = _axis(d)
    if bad:
        return bad
    X, rd = m.X, d.rd

    def ex(g):
        if rd:
            X[rd, g] = m.nprogs[a]
    return ex


FAMILIES = {"dma": dma, "dma_cfg": dma_cfg, "dma_wait": dma_wait, "pid": pid, "nprogs": nprogs}
OPS = {"dma": {"in", "out", "in2d", "out2d"}, "dma_cfg": {"cfg"}}
