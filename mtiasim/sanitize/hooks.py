"""The sanitizer's executors: each wraps an instruction's executor (only in a sanitized run, so a plain run pays
nothing) and reads the operands it needs before the instruction runs, checks and records after it ran (so the
instruction's own faults, out of bounds and the like, come first)."""
from __future__ import annotations

import numpy as np

from ..faults import SimFault, group_slots
from ..semantics.common import reg_deps, vm_of
from ..semantics.dpe import ACC_STRIDE, N, OUT_TYPE, mlu_shape
from ..semantics.vcommon import active, reg_off, vl_of
from ..sync.atomics import SIZES
from .access import per_sew as _per_sew, vplan as _vplan
from .waits import wrap

U64 = np.uint64
_SIZES = {"b": 1, "h": 2, "w": 4, "d": 8, "bu": 1, "hu": 2, "wu": 4}


def attach(m, san) -> None:
    """Wrap machine ``m``'s executors with the sanitizer's checks (the missing-wait rule outermost: it sees an
    instruction's addresses before and its timing after everything else)."""
    execs = list(m.execs)
    for k, d in enumerate(m.program.decoded):
        if d is None:
            continue
        hook = _hook_for(d)
        if hook is not None:
            execs[k] = hook(d, m, san, k, execs[k])
        execs[k] = wrap(d, m, san, k, execs[k])
    m.execs = execs
    m.dma.on_done = san.flight.done


def _hook_for(d):
    fam, op = d.spec.sem_family, d.spec.sem_op
    if fam in ("alu", "alu_w") and op in ("div", "divu", "rem", "remu"):
        return scalar_div
    if fam == "valu" and op in ("div", "divu", "rem", "remu"):
        return lambda d, m, san, k, ex: vector_div(d, m, san, k, vector_write(d, m, san, k, ex))
    if fam in ("load", "fload"):
        return scalar_load
    if fam in ("store", "fstore"):
        return scalar_store
    if fam in ("vload", "vload_strided", "vload_indexed"):
        return vector_load
    if fam in ("vstore", "vstore_strided", "vstore_indexed"):
        return vector_store
    if fam == "dma" and op in ("in", "out", "in2d", "out2d"):
        return dma
    if fam in ("amo", "fence"):
        return sync
    if fam == "dpe" and op == "accst":
        return acc_store
    if fam == "dpe" and op == "mlutrans":
        return mlu_transpose
    if any(f == "v" for f, _ in reg_deps(d)[1]):
        return vector_write
    return None


def _first(bad):
    """(row of the first true element's program, count of programs with one)."""
    rows = bad.reshape(bad.shape[0], -1).any(axis=1)
    return int(np.flatnonzero(rows)[0]), int(rows.sum())


# ------------------------------------------------------------------------------------------------------------
# Integer division by zero
# ------------------------------------------------------------------------------------------------------------
def _quotient(op: str, a: int, bits: int) -> str:
    if op == "div":
        return "-1"
    if op == "divu":
        return f"0x{(1 << bits) - 1:x} (all ones)"
    return f"the dividend, {a}"


def scalar_div(d, m, san, k, ex):
    op, word = d.spec.sem_op, d.spec.sem_family == "alu_w"
    r1, r2, X = d.rs1, d.rs2, m.X
    name = d.spec.name
    bits = 32 if word else 64
    verb = "divides" if op.startswith("div") else "takes the remainder of"

    def hx(g):
        b = X[r2, g]
        zero = (b & 0xFFFFFFFF) == 0 if word else b == 0
        if zero.any():
            row, times = _first(zero)
            slot = int(group_slots(g, m.P)[row])
            a = int(X[r1, slot])
            a = int(np.int64(a).astype(np.int32)) if word else a
            if op.endswith("u"):
                a %= 1 << bits
            san.division(k, int(m.linear[slot]), a, 0, f"{name} {verb}", _quotient(op, a, bits), times)
        return ex(g)
    return hx


def vector_div(d, m, san, k, ex):
    op = d.spec.sem_op
    vs2, vm = d.vs2, vm_of(d)
    vs1 = getattr(d, "vs1", None)
    r1 = getattr(d, "rs1", None) if vs1 is None else None
    name = d.spec.name
    verb = "divides" if op.startswith("div") else "takes the remainder of"

    def hx(g):
        try:
            for sg, sew in _per_sew(m, g):
                n, tail = vl_of(m, sg)
                if n == 0:
                    continue
                view = m.Vu[sew]
                if vs1 is not None:
                    o1 = reg_off(m, vs1, sew, n)
                    b = view[sg, o1:o1 + n]
                else:
                    b = np.broadcast_to(m.XU[r1, sg][:, None] & U64((1 << sew) - 1), (len(m.X[0, sg]), n))
                zero = b == 0
                if vs1 is not None:     # a lane whose divisor was never written is garbage anyway
                    esz = sew // 8
                    rows = group_slots(sg, m.P)
                    zero = zero & san.vinit[rows, vs1 * m.vlenb:vs1 * m.vlenb + n * esz].reshape(
                        len(rows), n, esz).all(axis=2)
                act = active(m, sg, n, vm, tail)
                if act is not None:
                    zero = zero & act
                if not zero.any():
                    continue
                row, times = _first(zero)
                slot = int(group_slots(sg, m.P)[row])
                j = int(np.flatnonzero(zero[row])[0])
                o2 = reg_off(m, vs2, sew, n)
                a = int(view[slot, o2 + j])
                if not op.endswith("u") and a >> (sew - 1):
                    a -= 1 << sew
                san.division(k, int(m.linear[slot]), a, 0, f"{name} (element {j}, SEW {sew}) {verb}",
                             _quotient(op, a, sew), times)
        except SimFault:
            pass        # the instruction itself faults, with its own message
        return ex(g)
    return hx


# ------------------------------------------------------------------------------------------------------------
# Local memory: scalar loads and stores
# ------------------------------------------------------------------------------------------------------------
def _scalar_size(d) -> int:
    if d.spec.sem_family in ("fload", "fstore"):
        return 4 if d.spec.sem_op == "w" else 8
    return _SIZES[d.spec.sem_op]


def scalar_load(d, m, san, k, ex):
    size, r1, imm = _scalar_size(d), d.rs1, int(d.imm)
    init, rows, cols = san.init[:m.P], m.rows, np.arange(size)
    what = f"{d.spec.name} of {size} byte{'s' if size != 1 else ''}"

    def hx(g):
        a = m.X[r1, g] + imm
        r = ex(g)
        ok = init[rows[g][:, None], a[:, None] + cols]
        if not ok.all():
            row, times = _first(~ok)
            slot = int(group_slots(g, m.P)[row])
            j = int(np.flatnonzero(~ok[row])[0])
            san.uninitialized(k, int(m.linear[slot]), int(a[row]) + j, int((~ok[row]).sum()), what, times)
        return r
    return hx


def scalar_store(d, m, san, k, ex):
    size, r1, imm = _scalar_size(d), d.rs1, int(d.imm)
    init, rows, cols = san.init[:m.P], m.rows, np.arange(size)

    def hx(g):
        a = m.X[r1, g] + imm
        r = ex(g)
        init[rows[g][:, None], a[:, None] + cols] = True
        return r
    return hx


# ------------------------------------------------------------------------------------------------------------
# Vector loads and stores: the bytes' state moves with the data
# ------------------------------------------------------------------------------------------------------------
def _bytes(plan_item):
    slots, addr, act, esz, r0 = plan_item
    G, n = addr.shape
    idx = addr[:, :, None] + np.arange(esz)                       # [G, n, esz] local byte addresses
    ridx = r0 + np.arange(n * esz).reshape(n, esz)                # register bytes
    sel = None if act is None else np.broadcast_to(act[:, :, None], idx.shape)
    return slots, idx, np.broadcast_to(ridx, idx.shape), sel


def _vector_move(to_registers: bool):
    """A vector load (local memory's byte state into the register bytes it fills) or store (the other way)."""
    def hook(d, m, san, k, ex):
        init, vinit = san.init[:m.P], san.vinit[:m.P]

        def hx(g):
            plan = _vplan(d, m, g)
            r = ex(g)
            for item in plan:
                slots, idx, ridx, sel = _bytes(item)
                rows = np.broadcast_to(slots[:, None, None], idx.shape)
                if sel is not None:
                    rows, idx, ridx = rows[sel], idx[sel], ridx[sel]
                if to_registers:
                    vinit[rows, ridx] = init[rows, idx]
                else:
                    init[rows, idx] = vinit[rows, ridx]
            return r
        return hx
    return hook


vector_load = _vector_move(True)
vector_store = _vector_move(False)


# element-wise families of one width: a result byte is defined when the operands' bytes at its place are
_SAME_WIDTH = {"valu", "vfalu", "vfma", "vfunary", "vmulhx", "vcvt"}


def vector_write(d, m, san, k, ex):
    """Any other instruction writing vector registers: an element-wise one of a single width passes its
    operands' state on (garbage lanes stay garbage); any other (moves, merges, compares, widening) defines its
    destination group."""
    regs = sorted({r for f, r in reg_deps(d)[1] if f == "v"})
    srcs = []
    if d.spec.sem_family in _SAME_WIDTH:
        named = {getattr(d, a, None) for a in ("vs1", "vs2", "vd")}
        srcs = sorted({r for f, r in reg_deps(d)[0] if f == "v" and (r != 0 or vm_of(d) == 1 or 0 in named)})
    widen = 2 if d.spec.sem_family == "vfwcvt" else 1
    vinit, vlenb = san.vinit[:m.P], m.vlenb

    def hx(g):
        r = ex(g)
        lm = int(m.vtype[g].max()) & 7
        span = (1 << lm if lm < 4 else 1) * widen
        for reg in regs:
            hi = min(32, reg + span)
            if srcs:
                state = np.ones_like(vinit[g, reg * vlenb:hi * vlenb])
                for s in srcs:
                    w = min(hi - reg, 32 - s) * vlenb
                    state[:, :w] &= vinit[g, s * vlenb:s * vlenb + w]
                vinit[g, reg * vlenb:hi * vlenb] = state
            else:
                vinit[g, reg * vlenb:hi * vlenb] = True
        return r
    return hx


# ------------------------------------------------------------------------------------------------------------
# DMA: local bytes written / read, DRAM bytes accessed (races)
# ------------------------------------------------------------------------------------------------------------
def dma(d, m, san, k, ex):
    op = d.spec.sem_op
    inbound = op.startswith("in")
    two_d = op.endswith("2d")
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    init = san.init[:m.P]
    base = m.dram.base
    what = f"{d.spec.name} (a DMA out)"

    def hx(g):
        r = ex(g)
        slots = group_slots(g, m.P).tolist()
        las = (X[rd, g] if inbound else X[r1, g]).tolist()
        das = (X[r1, g] if inbound else X[rd, g]).tolist()
        ns = X[r2, g].tolist()
        cfg = [m.dma_cfg[j, g].tolist() for j in range(3)] if two_d else None
        bad_first, bad_times = None, 0
        for i, (p, la, da, n) in enumerate(zip(slots, las, das, ns)):
            if n <= 0:
                continue
            if two_d:
                nr, ds, ls = cfg[0][i], cfg[1][i], cfg[2][i]
                if nr <= 0:
                    continue
                cols = np.arange(n)
                loc = ((la + np.arange(nr) * ls)[:, None] + cols).ravel()
                off = ((da - base + np.arange(nr) * ds)[:, None] + cols).ravel()
            else:
                loc, off = slice(la, la + n), slice(da - base, da - base + n)
            lin = int(m.linear[p])
            if inbound:
                init[p, loc] = True
            else:
                ok = init[p, loc]
                if not ok.all():
                    bad_times += 1
                    if bad_first is None:
                        j = int(np.flatnonzero(~ok)[0])
                        addr = la + j if isinstance(loc, slice) else int(loc[j])
                        bad_first = (lin, addr, int((~ok).sum()))
            san.dram_access(lin, k, off, write=not inbound)
        if bad_first is not None:
            lin, addr, nbytes = bad_first
            san.uninitialized(k, lin, addr, nbytes, what, bad_times)
        return r
    return hx


# ------------------------------------------------------------------------------------------------------------
# Atomics and fences: synchronization (and an atomic writes its local bytes)
# ------------------------------------------------------------------------------------------------------------
def sync(d, m, san, k, ex):
    """An atomic or a fence synchronizes its program; an atomic on local memory reads its bytes (an
    uninitialized read when never written, unless it only swaps a value in: ``amoswap`` into ``zero``) and
    writes them."""
    is_amo = d.spec.sem_family == "amo"
    op, _dot, w = d.spec.sem_op.partition(".")
    size = SIZES.get(w, 0) if is_amo else 0
    reads = is_amo and not (op == "swap" and d.rd == 0)
    init, lmb = san.init[:m.P], m.lmb
    what = f"{d.spec.name} of {size} bytes"

    def hx(g):
        addr = m.X[d.rs1, g].copy() if is_amo else None
        r = ex(g)
        if r is not None:
            return r        # held back until slower programs catch up: not executed yet
        slots = group_slots(g, m.P)
        san.synced(m.linear[slots])
        if is_amo:
            bad, first = 0, None
            for p, a in zip(slots.tolist(), addr.tolist()):
                if 0 <= a <= lmb - size:
                    ok = init[p, a:a + size]
                    if reads and not ok.all():
                        bad += 1
                        if first is None:
                            first = (int(m.linear[p]), a + int(np.flatnonzero(~ok)[0]), int((~ok).sum()))
                    init[p, a:a + size] = True
            if first is not None:
                san.uninitialized(k, first[0], first[1], first[2], what, bad)
        return r
    return hx


def acc_store(d, m, san, k, ex):
    """``mtia.dpe.acc.st``: the rows it stores are written."""
    X, rd, r2 = m.X, d.rd, d.rs2
    init = san.init[:m.P]

    def hx(g):
        r = ex(g)
        cfg = m.dpe.cfg
        slots = group_slots(g, m.P).tolist()
        for i, p in enumerate(slots):
            a, R = int(X[rd, p]), int(X[r2, p])
            s, n, out = int(cfg[ACC_STRIDE, p]), int(cfg[N, p]), int(cfg[OUT_TYPE, p])
            width = n * (2 if out else 4)
            for row in range(max(R, 0)):
                init[p, a + row * s:a + row * s + width] = True
        return r
    return hx



def mlu_transpose(d, m, san, k, ex):
    """``mtia.mlu.trans``: the destination's bytes take the state of the source bytes they come from."""
    X, rd, r1 = m.X, d.rd, d.rs1
    init = san.init[:m.P]

    def hx(g):
        R, C, es = mlu_shape(X, d, g)
        slots = group_slots(g, m.P).tolist()
        src, dst = X[r1, g].tolist(), X[rd, g].tolist()
        r = ex(g)           # (a block outside local memory faults here)
        R = np.broadcast_to(R, (len(slots),)).tolist()
        C = np.broadcast_to(C, (len(slots),)).tolist()
        for i, p in enumerate(slots):
            n = R[i] * C[i] * es
            if n <= 0:
                continue
            state = init[p, src[i]:src[i] + n].reshape(R[i], C[i], es)
            init[p, dst[i]:dst[i] + n] = state.transpose(1, 0, 2).ravel()
        return r
    return hx
