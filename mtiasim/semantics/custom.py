"""MTIA custom instructions: DMA between DRAM and local memory, DMA wait, program id and grid size.

A DMA completes functionally at issue (allowed by the architecture contract); the timing model tracks when it
really completes and ``mtia.dma.wait`` stalls on that.
"""
from __future__ import annotations

import numpy as np

from ..faults import SimFault, group_slots


def dma(d, m, pc):
    op = d.spec.sem_op
    if op not in ("in", "out"):
        raise KeyError(op)
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    inbound = op == "in"

    def ex(g):
        slots = group_slots(g, m.P)
        dst_or_lm = X[rd, g]
        src = X[r1, g]
        nbytes = X[r2, g]
        dram = m.dram
        LM = m.LM
        lmb = m.lmb
        total = 0
        for i in range(len(slots)):
            p = int(slots[i])
            n = int(nbytes[i])
            if n < 0:
                raise SimFault(f"DMA of a negative length ({n} bytes)", p)
            if n == 0:
                continue
            if inbound:
                la, da = int(dst_or_lm[i]), int(src[i])
            else:
                la, da = int(src[i]), int(dst_or_lm[i])
            if la < 0 or la + n > lmb:
                what = "write" if inbound else "read"
                raise SimFault(f"out-of-bounds DMA {what} of {n} bytes at local address 0x{la % (1 << 64):x} "
                               f"(local memory is 0x0..0x{lmb:x})", p)
            off = dram.check(da, n, "read" if inbound else "write", p)
            if inbound:
                LM[p, la:la + n] = dram.data[off:off + n]
            else:
                dram.data[off:off + n] = LM[p, la:la + n]
            total += n
        if inbound:
            m.dma_bytes_in += total
        else:
            m.dma_bytes_out += total
        return None
    return ex


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
