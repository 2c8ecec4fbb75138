"""What an instruction touches in local memory, for the sanitizer's rules: a vector access's addresses per program
(``vplan``) and, for the missing-wait rule, every local access's rows (``accessor``)."""
from __future__ import annotations

import numpy as np

from ..dpe.engine import local_spans
from ..faults import SimFault, group_slots
from ..semantics.common import vm_of
from ..sync.atomics import SIZES
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
    effects, DMA transfers aside; an atomic on a local address; ``mtia.print`` / ``mtia.assert``), else None: what
    it touches, computed before it runs, as ``[(slots [G], row starts [G, n], row bytes [G], valid [G, n] or None,
    write)]``."""
    eff = d.spec.effects
    fam = d.spec.sem_family
    if fam == "amo":
        return _atomic(d)
    if fam == "debug" and d.spec.sem_op in ("print", "assert"):
        return _debug(d)
    if eff & {"dma", "io"} or not eff & {"load", "store"}:
        return None
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


def _atomic(d):
    """An atomic's bytes when its address is in local memory (it reads and writes them; elsewhere: none)."""
    size, r1 = SIZES[d.spec.sem_op.partition(".")[2]], d.rs1

    def atomic(m, g):
        slots = group_slots(g, m.P)
        a = m.X[r1, g][:, None]
        return [(slots, a, np.full(len(slots), size), (a >= 0) & (a + size <= m.lmb), True)]
    return atomic


def _width(ty: str) -> int:
    """Bytes of a debug value's element type (``i1`` is a byte)."""
    return 1 if ty == "i1" else int(ty.lstrip("iufpb")) // 8


def _debug(d):
    """``mtia.print`` / ``mtia.assert``: the table of addresses at ``x[rs1]`` (8 bytes a value) and each value
    (its shape's elements), read from local memory (none when the instruction faults itself)."""
    index, r1, kind = int(d.imm), d.rs1, d.spec.sem_op

    def values(m):
        strings = m.program.meta.get("strings") or []
        e = strings[index] if 0 <= index < len(strings) else None
        if not isinstance(e, dict) or e.get("kind") != kind:
            return None
        args = e.get("args") or [] if kind == "print" else [e]
        out = []
        for a in args:
            shape = a.get("shape") or ()
            count = 1
            for s in shape:
                count *= int(s)
            out.append(count * _width(a.get("type", "i1")))
        return out

    def debug(m, g):
        sizes = values(m)
        if sizes is None:
            return []
        slots = group_slots(g, m.P)
        table = m.X[r1, g].astype(np.int64)
        if ((table < 0) | (table + 8 * len(sizes) > m.lmb)).any():
            return []
        parts = [(slots, table[:, None], np.full(len(slots), 8 * len(sizes)), None, False)]
        for j, n in enumerate(sizes):
            addr = np.array([int(m.LM[p, t + 8 * j:t + 8 * j + 8].view(np.uint64)[0])
                             for p, t in zip(slots.tolist(), table.tolist())], np.int64)
            parts.append((slots, addr[:, None], np.full(len(slots), n), None, False))
        return parts
    return debug
