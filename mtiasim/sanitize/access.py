"""What an instruction touches in local memory, for the sanitizer's rules: a vector access's addresses per program
(``vplan``) and, for the missing-wait rule, every local access's rows (``accessor``)."""
from __future__ import annotations

import numpy as np

from ..dpe.engine import local_spans
from ..faults import SimFault, group_slots
from ..semantics.common import vm_of
from ..semantics.vcommon import active, reg_off, vl_of

_SCALAR = {"b": 1, "h": 2, "w": 4, "d": 8, "bu": 1, "hu": 2, "wu": 4}


def per_sew(m, g):
    """[(subgroup, sew)] splitting ``g`` by SEW (empty when a program's vtype is illegal: the instruction faults)."""
    s = m.sew_u
    if s is not None:
        return [(g, s)] if s else []
    sg = m.sew[g]
    if (sg == 0).any():
        return []
    slots = group_slots(g, m.P)
    return [(slots[sg == v], int(v)) for v in np.unique(sg)]


def vplan(d, m, g):
    """[(slots, addresses [G, n], active or None, element bytes, first register byte)] of a vector access."""
    fam = d.spec.sem_family
    reg = d.vd if getattr(d, "vs3", None) is None else d.vs3
    vm = vm_of(d)
    out = []
    try:
        for sg, sew in per_sew(m, g):
            n, tail = vl_of(m, sg)
            if n == 0:
                continue
            act = active(m, sg, n, vm, tail)
            base = m.X[d.rs1, sg][:, None]
            if fam.endswith("indexed"):
                ieew = int(d.spec.sem_op)
                off = reg_off(m, d.vs2, ieew, n, "index register group")
                addr = base + m.Vu[ieew][sg, off:off + n].astype(np.int64)
                esz = sew // 8
            else:
                esz = int(d.spec.sem_op) // 8
                step = m.X[d.rs2, sg][:, None] if fam.endswith("strided") else esz
                addr = base + step * np.arange(n)
            if act is not None:
                addr = np.where(act, addr, 0)
            out.append((group_slots(sg, m.P), addr, act, esz, reg * m.vlenb))
    except SimFault:
        return []       # the instruction faults itself
    return out


def accessor(d):
    """``parts(m, g)`` for an instruction that reads or writes local memory (the ISA table's ``load`` / ``store``
    effects; DMA transfers and the debugging instructions aside), else None: what it touches, computed before it
    runs, as ``[(slots [G], row starts [G, n], row bytes [G], valid [G, n] or None, write)]``."""
    eff = d.spec.effects
    if eff & {"dma", "io"} or not eff & {"load", "store"}:
        return None
    fam = d.spec.sem_family
    write = "store" in eff
    if fam in ("load", "store", "fload", "fstore"):
        size = 4 if fam[0] == "f" and d.spec.sem_op == "w" else 8 if fam[0] == "f" else _SCALAR[d.spec.sem_op]
        r1, imm = d.rs1, int(d.imm)

        def scalar(m, g):
            slots = group_slots(g, m.P)
            return [(slots, (m.X[r1, g] + imm)[:, None], np.full(len(slots), size), None, write)]
        return scalar
    if fam.startswith(("vload", "vstore")):
        def vector(m, g):
            return [(slots, addr, np.full(len(slots), esz), act, write)
                    for slots, addr, act, esz, _r0 in vplan(d, m, g)]
        return vector
    if fam == "dpe":
        op = d.spec.sem_op
        reads = "load" in eff

        def engine(m, g):
            out = []
            slots = group_slots(g, m.P)
            for i, (a, s, rows, L) in enumerate(local_spans(op, d, m, g)):
                rows = np.maximum(rows, 0)
                R = int(rows.max()) if len(rows) else 0
                if R <= 0:
                    continue
                r = np.arange(R)
                starts = a[:, None] + r * s[:, None] if np.ndim(s) else a[:, None] + r * s
                L = np.broadcast_to(L, rows.shape)
                valid = (r < rows[:, None]) & (L[:, None] > 0)
                out.append((slots, starts, L, valid, not (reads and i == 0)))
            return out
        return engine
    raise NotImplementedError(f"{d.spec.name}: the sanitizer does not know which local bytes it touches")
