"""Shared machinery of the vector families: SEW/vl resolution per group, masks, register-group writeback."""
from __future__ import annotations

import numpy as np

from ..faults import SimFault, group_slots

ALL = slice(None)
UT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
ST = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
FT = {16: np.float16, 32: np.float32, 64: np.float64}


def with_sew(m, inner):
    """An executor that calls ``inner(g, sew)``; a group whose programs disagree on SEW is split by SEW."""
    def ex(g):
        s = m.sew_u
        if s is None:
            sg = m.sew[g]
            s = int(sg[0])
            if not (sg == s).all():
                slots = group_slots(g, m.P)
                for v in np.unique(sg):
                    _check_sew(int(v))
                    inner(slots[sg == v], int(v))
                return None
        if s == 0:
            _check_sew(0)
        return inner(g, s)
    return ex


def _check_sew(s):
    if s == 0:
        raise SimFault("vector instruction with an illegal vtype (no vsetvli has run, or it set vill)")


def vl_of(m, g):
    """(n, tail): the largest vl in the group and, when the group's vls differ, the per-program vl array."""
    n = m.vl_u
    if n is not None:
        return n, None
    vlg = m.vl[g]
    n = int(vlg.max())
    if (vlg == n).all():
        return n, None
    return n, vlg


def active(m, g, n: int, vm: int, tail):
    """Boolean ``[G, n]`` of active body elements, or ``None`` when all ``n`` elements are active everywhere."""
    act = None
    if vm == 0:
        nb = (n + 7) >> 3
        act = np.unpackbits(m.V[g, :nb], axis=1, count=n, bitorder="little").view(bool)
    if tail is not None:
        t = np.arange(n) < tail[:, None]
        act = t if act is None else act & t
    return act


def mask_bits(m, g, reg: int, n: int) -> np.ndarray:
    base = reg * m.vlenb
    nb = (n + 7) >> 3
    return np.unpackbits(m.V[g, base:base + nb], axis=1, count=n, bitorder="little").view(bool)


def reg_off(m, reg: int, bits: int, n: int, what: str = "register group") -> int:
    """The element offset of register ``reg`` in the ``bits``-wide view; faults if ``n`` elements overflow v31."""
    per = m.vlenb * 8 // bits
    off = reg * per
    if off + n > 32 * per:
        raise SimFault(f"{what} starting at v{reg} with {n} elements of {bits} bits runs past v31")
    return off


def write(view, g, off: int, n: int, r, act) -> None:
    """Store ``r`` into elements ``off..off+n`` of the group's registers, only where ``act`` (None: all)."""
    if act is None:
        view[g, off:off + n] = r
    elif isinstance(g, slice):
        np.copyto(view[g, off:off + n], r, where=act, casting="unsafe")
    else:
        cur = view[g, off:off + n]
        np.copyto(cur, r, where=act, casting="unsafe")
        view[g, off:off + n] = cur


def write_mask(m, g, vd: int, n: int, res, act) -> None:
    """Write mask bits ``res`` ([G, n] bool) to mask register ``vd`` (inactive and tail bits undisturbed)."""
    base = vd * m.vlenb
    cur = np.unpackbits(m.V[g, base:base + m.vlenb], axis=1, bitorder="little")
    if act is None:
        cur[:, :n] = res
    else:
        np.copyto(cur[:, :n], res, where=act, casting="unsafe")
    m.V[g, base:base + m.vlenb] = np.packbits(cur, axis=1, bitorder="little")


def scalar_x(m, g, r1: int, dt):
    """x[rs1] of the group as a ``[G, 1]`` column of dtype ``dt`` (truncated to SEW)."""
    return m.X[r1, g].astype(dt)[:, None]


def scalar_f(m, g, r1: int, sew: int):
    """f[rs1] as a ``[G, 1]`` column of the SEW float type (NaN-boxing rules for SEW=16)."""
    if sew == 64:
        return m.FD[r1, g][:, None]
    if sew == 32:
        boxed = m.FH[r1, g] == np.uint32(0xFFFFFFFF)
        return np.where(boxed, m.FW[r1, g], np.uint32(0x7FC00000)).view(np.float32)[:, None]
    if sew == 16:
        bits = m.F[r1, g]
        boxed = (bits >> np.uint64(16)) == np.uint64(0xFFFFFFFFFFFF)
        half = np.where(boxed, bits & np.uint64(0xFFFF), np.uint64(0x7E00)).astype(np.uint16)
        return half.view(np.float16)[:, None]
    raise SimFault(f"a scalar float operand with SEW={sew}: no {sew}-bit float type")


def float_view(m, sew: int):
    v = m.Vf.get(sew)
    if v is None:
        raise SimFault(f"floating-point vector instruction with SEW={sew} (no {sew}-bit float type)")
    return v
