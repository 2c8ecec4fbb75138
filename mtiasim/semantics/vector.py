"""RVV configuration and memory families: vsetvli/vsetivli, unit-stride, strided and indexed loads/stores.

Vector loads and stores address the PE's local memory; only active elements (body, and v0 set when masked) are
touched or checked.  Element addresses must be aligned to the element width.
"""
from __future__ import annotations

import numpy as np

from .common import lm_fault, vm_of
from .vcommon import UT, active, reg_off, vl_of, with_sew, write

ALL = slice(None)
U64 = np.uint64


def _vtype(vtypei: int, vlen: int):
    """(sew, vlmax) for a vtype immediate, or (0, 0) when it is illegal."""
    lmul = vtypei & 7
    vsew = (vtypei >> 3) & 7
    if vsew > 3 or lmul == 4 or vtypei >> 8:
        return 0, 0
    sew = 8 << vsew
    base = vlen // sew
    vlmax = base << lmul if lmul < 4 else base >> (8 - lmul)
    return sew, vlmax


def vsetvli(d, m, pc):
    op = d.spec.sem_op
    vt = int(d.vtypei)
    sew, vlmax = _vtype(vt, m.vlenb * 8)
    X, rd = m.X, d.rd
    if op == "vsetivli":
        avl_imm = int(d.imm) if getattr(d, "imm", None) is not None else int(d.rs1)
        avl_imm &= 31  # uimm5
        r1 = None
    elif op == "vsetvli":
        r1 = d.rs1
        avl_imm = None
    else:
        raise KeyError(op)
    keep = r1 == 0 and rd == 0            # keep the current vl
    use_max = r1 == 0 and rd != 0         # AVL = VLMAX

    def ex(g):
        if sew == 0:
            m.sew[g] = 0
            m.vl[g] = 0
        else:
            if keep:
                m.vl[g] = np.minimum(m.vl[g], vlmax)
            elif use_max:
                m.vl[g] = vlmax
            elif r1 is None:
                m.vl[g] = min(avl_imm, vlmax)
            else:
                avl = X[r1, g].view(U64)
                m.vl[g] = np.minimum(avl, U64(vlmax)).astype(np.int64)
            m.sew[g] = sew
        m.vtype[g] = vt
        if rd:
            X[rd, g] = m.vl[g]
        m.update_uniform()
    return ex


# ------------------------------------------------------------------------------------------------------------
# Memory helpers
# ------------------------------------------------------------------------------------------------------------
def _check(m, g, addr, act, esz, what):
    """Fault unless every active element address is in local memory and aligned."""
    a = addr if act is None else addr[act]
    if a.size == 0:
        return
    if int(a.min()) < 0 or int(a.max()) > m.lmb - esz or (esz > 1 and (a & (esz - 1)).any()):
        lm_fault(m, g, addr if act is None else np.where(act, addr, 0), esz, what)


def _gather(m, g, dt, addr, act, esz):
    view = m.LMv[dt]
    sh = esz.bit_length() - 1
    idx = addr >> sh
    if act is not None:
        idx = np.where(act, idx, 0)
    return view[m.rows[g][:, None], idx]


def _scatter(m, g, dt, addr, act, vals, esz):
    view = m.LMv[dt]
    sh = esz.bit_length() - 1
    idx = addr >> sh
    rows = np.broadcast_to(m.rows[g][:, None], idx.shape)
    if act is None:
        view[rows, idx] = vals
    else:
        view[rows[act], idx[act]] = vals[act]


def _eew(op) -> int:
    e = int(op)
    if e not in UT:
        raise KeyError(op)
    return e


def _data_reg(d):
    v = getattr(d, "vs3", None)
    return d.vd if v is None else v


def vload(d, m, pc):
    eew = _eew(d.spec.sem_op)
    esz = eew // 8
    dt = "u%d" % eew
    lmv = m.LMv[dt]
    regs = m.Vu[eew]
    X, r1, vd, vm = m.X, d.rs1, d.vd, vm_of(d)
    sh = esz.bit_length() - 1
    ar = None

    def ex(g):
        nonlocal ar
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        off = reg_off(m, vd, eew, n)
        base = X[r1, g]
        act = active(m, g, n, vm, tail)
        if act is None:
            b0 = int(base[0])
            lo, hi = int(base.min()), int(base.max())
            if lo < 0 or hi > m.lmb - n * esz or ((lo | hi) & (esz - 1)) or (esz > 1 and (base & (esz - 1)).any()):
                _check(m, g, base[:, None] + np.arange(n) * esz, None, esz, "vector load")
            if lo == hi:
                s = b0 >> sh
                regs[g, off:off + n] = lmv[g, s:s + n]
            else:
                if ar is None or len(ar) < n:
                    ar = np.arange(max(n, 64))
                regs[g, off:off + n] = lmv[m.rows[g][:, None], (base >> sh)[:, None] + ar[:n]]
            return None
        addr = base[:, None] + np.arange(n) * esz
        _check(m, g, addr, act, esz, "vector load")
        write(regs, g, off, n, _gather(m, g, dt, addr, act, esz), act)
        return None
    return with_sew(m, lambda g, sew: ex(g))


def vstore(d, m, pc):
    eew = _eew(d.spec.sem_op)
    esz = eew // 8
    dt = "u%d" % eew
    lmv = m.LMv[dt]
    regs = m.Vu[eew]
    X, r1, vs3, vm = m.X, d.rs1, _data_reg(d), vm_of(d)
    sh = esz.bit_length() - 1

    def ex(g):
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        off = reg_off(m, vs3, eew, n)
        base = X[r1, g]
        act = active(m, g, n, vm, tail)
        vals = regs[g, off:off + n]
        if act is None:
            lo, hi = int(base.min()), int(base.max())
            if lo < 0 or hi > m.lmb - n * esz or (esz > 1 and (base & (esz - 1)).any()):
                _check(m, g, base[:, None] + np.arange(n) * esz, None, esz, "vector store")
            if lo == hi:
                s = lo >> sh
                lmv[g, s:s + n] = vals
            else:
                lmv[m.rows[g][:, None], (base >> sh)[:, None] + np.arange(n)] = vals
            return None
        addr = base[:, None] + np.arange(n) * esz
        _check(m, g, addr, act, esz, "vector store")
        _scatter(m, g, dt, addr, act, vals, esz)
        return None
    return with_sew(m, lambda g, sew: ex(g))


def _addresses_strided(m, d, g, n):
    return m.X[d.rs1, g][:, None] + m.X[d.rs2, g][:, None] * np.arange(n)


def _indexed(idx_eew):
    def addresses(m, d, g, n):
        off = reg_off(m, d.vs2, idx_eew, n, "index register group")
        offs = m.Vu[idx_eew][g, off:off + n].astype(np.int64)  # zero-extended byte offsets
        return m.X[d.rs1, g][:, None] + offs
    return addresses


def _vload_general(d, m, eew_of, addresses):
    vd, vm = d.vd, vm_of(d)

    def inner(g, sew):
        eew = eew_of(sew)
        esz = eew // 8
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        off = reg_off(m, vd, eew, n)
        act = active(m, g, n, vm, tail)
        addr = addresses(m, d, g, n)
        _check(m, g, addr, act, esz, "vector load")
        write(m.Vu[eew], g, off, n, _gather(m, g, "u%d" % eew, addr, act, esz), act)
        return None
    return with_sew(m, inner)


def _vstore_general(d, m, eew_of, addresses):
    vs3, vm = _data_reg(d), vm_of(d)

    def inner(g, sew):
        eew = eew_of(sew)
        esz = eew // 8
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        off = reg_off(m, vs3, eew, n)
        act = active(m, g, n, vm, tail)
        addr = addresses(m, d, g, n)
        _check(m, g, addr, act, esz, "vector store")
        _scatter(m, g, "u%d" % eew, addr, act, m.Vu[eew][g, off:off + n], esz)
        return None
    return with_sew(m, inner)


def vload_strided(d, m, pc):
    eew = _eew(d.spec.sem_op)
    return _vload_general(d, m, lambda sew: eew, _addresses_strided)


def vstore_strided(d, m, pc):
    eew = _eew(d.spec.sem_op)
    return _vstore_general(d, m, lambda sew: eew, _addresses_strided)


def vload_indexed(d, m, pc):
    return _vload_general(d, m, lambda sew: sew, _indexed(_eew(d.spec.sem_op)))


def vstore_indexed(d, m, pc):
    return _vstore_general(d, m, lambda sew: sew, _indexed(_eew(d.spec.sem_op)))


FAMILIES = {"vsetvli": vsetvli, "vload": vload, "vstore": vstore, "vload_strided": vload_strided,
            "vstore_strided": vstore_strided, "vload_indexed": vload_indexed, "vstore_indexed": vstore_indexed}
_E = {"8", "16", "32", "64"}
OPS = {"vsetvli": {"vsetvli", "vsetivli"}, "vload": _E, "vstore": _E, "vload_strided": _E, "vstore_strided": _E,
       "vload_indexed": _E, "vstore_indexed": _E}
