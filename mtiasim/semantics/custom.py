"""MTIA custom instructions: DMA between DRAM and local memory, DMA wait, program id and grid size.

A DMA completes functionally at issue (allowed by the architecture contract); the timing model tracks when it
really completes and ``mtia.dma.wait`` stalls on that.
"""
from __future__ import annotations


from ..faults import SimFault, group_slots


def dma(d, m, pc):
    op = d.spec.sem_op
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
        what = "read" if inbound else "write"
        lo = hi = 0   # the last buffer hit: [lo, hi) in DRAM addresses
        level = 0
        levels = []
        total = 0
        for p, la, da, n in zip(slots, las, das, ns):
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
            if inbound:
                LM[p, la:la + n] = data[off:off + n]
            else:
                data[off:off + n] = LM[p, la:la + n]
            total += n
        if inbound:
            m.dma_bytes_in += total
        else:
            m.dma_bytes_out += total
        if m.timing is not None:
            _record(m, g, slots, ns, levels)
        return None
    return ex


def _record(m, g, slots, ns, levels):
    """Hand the transfers to the DMA timing model (issue times from the timing closure: ``m.dma_issue_t``)."""
    ts, t = m.ts, m.dma_issue_t
    if ts.on:
        n0, l0 = ns[0], levels[0]
        if g.__class__ is slice and all(n == n0 for n in ns) and all(lv == l0 for lv in levels):
            m.dma.add_uniform(t, n0, l0)
            return
        ts.materialize()
    if not hasattr(t, "__len__"):
        t = [t] * len(slots)
    m.dma.add(slots, t, ns, levels)


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


FAMILIES = {"dma": dma, "dma_wait": dma_wait, "pid": pid, "nprogs": nprogs}
OPS = {"dma": {"in", "out"}}
