"""The matrix engine (DPE): ``mtia.dpe.cfg/ldw/mm/zero/acc.ld/acc.st/wait`` (docs/matrix-engine.md).

An engine command completes functionally at issue, like a DMA (the timing model, :mod:`mtiasim.dpe`, tracks
when it really completes; ``mtia.dpe.wait`` only stalls).  The state of every PE of the wave (:class:`DpeState`,
``m.dpe``): the configuration registers ``[6, P]``, the cached weight tile (decoded, zero beyond its ``K`` rows
and ``n`` columns), and the accumulators ``uint32 [P, accumulator_rows, 32]`` viewed as fp32 or int32.

Everything is vectorized over the program group: streamed rows are gathered for all programs at once (a strided
view when the programs agree on address and stride, else a gather of whole rows), and the products are one
batched float64 matmul.  Float64 is exact for the products of fp16 / bf16 / 8-bit values; the ``K``-term sums
are rounded once to fp32 and added to the fp32 accumulator (float32 addition); integer sums (at most 32 x 2^16)
are exact in float64 and added to the int32 accumulator with wrap-around.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from ..faults import SimFault, first_slot, group_slots

TYPES = ("fp16", "bf16", "int8", "uint8")
ESIZE = (2, 2, 1, 1)
CFG_NAMES = ("type", "w_stride", "x_stride", "acc_stride", "n", "w_trans", "out_type")
TYPE, W_STRIDE, X_STRIDE, ACC_STRIDE, N, W_TRANS, OUT_TYPE = range(7)
OUT_TYPES = ("as accumulated", "fp16", "bf16")
OUT_ESIZE = (4, 2, 2)
COLS = 32


class DpeState:
    """The engines of the ``P`` PEs of a wave (cleared per wave; configuration registers: type fp16, strides 0,
    ``n`` 32, no transpose)."""

    def __init__(self, cfg, P: int):
        self.P = P
        self.rows = int(cfg.dpe.accumulator_rows)
        self.cfg = np.zeros((len(CFG_NAMES), P), np.int64)
        self.acc = np.zeros((P, self.rows, COLS), np.uint32)
        self.accf = self.acc.view(np.float32)
        self.acci = self.acc.view(np.int32)
        self.w = np.zeros((P, COLS, COLS), np.float64)     # the cached weight tile [K, n], zero-padded to 32 x 32
        self.wk = np.zeros(P, np.int64)                     # its K (0: no tile loaded)
        self.wtype = np.full(P, -1, np.int64)               # the type it was decoded as
        self._scratch = {}
        self.reset()

    def scratch(self, shape) -> np.ndarray:
        """A float64 array of ``shape`` kept for reuse: the products of an ``mm`` of the whole wave, written in
        place instead of into a fresh array of megabytes (whose pages the kernel maps anew each time)."""
        buf = self._scratch.get(shape)
        if buf is None:
            buf = self._scratch[shape] = np.empty(shape)
        return buf

    def reset(self) -> None:
        self.cfg[:] = 0
        self.cfg[N] = COLS
        self.acc[:] = 0
        self.w[:] = 0
        self.wk[:] = 0
        self.wtype[:] = -1


def _uniform(a):
    """The common value of int array ``a`` (Python int), or None when its elements differ."""
    v = int(a[0])
    return v if (a == v).all() else None


def _split(g, P, *keys):
    """Subgroups of ``g`` on which every key array is uniform: ``[(sub_g, positions, key values)]``."""
    vals = [_uniform(k) for k in keys]
    if all(v is not None for v in vals):
        return [(g, slice(None), vals)]
    slots = group_slots(g, P)
    stacked = np.stack(keys)
    uniq, inv = np.unique(stacked, axis=1, return_inverse=True)
    inv = inv.reshape(-1)
    out = []
    for j in range(uniq.shape[1]):
        pos = np.flatnonzero(inv == j)
        out.append((slots[pos], pos, [int(v) for v in uniq[:, j]]))
    return out


def _check_rows(m, g, a, s, R, L, what):
    """Fault unless every program's ``R`` rows of ``L`` bytes from ``a`` at stride ``s`` lie in local memory."""
    last = a + (R - 1) * s
    lo, hi = np.minimum(a, last), np.maximum(a, last)
    bad = (R > 0) & ((lo < 0) | (hi > m.lmb - L))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SimFault(f"out-of-bounds {what}: {int(R[i])} rows of {L} bytes from local address "
                       f"0x{int(a[i]) % (1 << 64):x} with a stride of {int(s[i])} bytes (local memory is "
                       f"0x0..0x{m.lmb:x})", first_slot(g, m.P, bad))


def _starts(a, s, R, Rmax):
    """``[G, Rmax]`` row start addresses; rows at or beyond a program's ``R`` repeat its first (valid) row."""
    i = np.arange(Rmax)
    st = a[:, None] + i[None, :] * s[:, None]
    return np.where(i[None, :] < R[:, None], st, np.where(R > 0, a, 0)[:, None])


def read_rows(m, g, a, s, R, L, what, copy=True):
    """``uint8 [G, max(R), L]``: each program's rows of ``L`` bytes from local address ``a`` at stride ``s``
    (``copy=False``: a read-only view of local memory when the programs agree on address and stride, its rows'
    bytes contiguous, for a reader that copies anyway)."""
    _check_rows(m, g, a, s, R, L, what)
    Rmax = int(R.max())
    LM = m.LM
    a0, s0 = _uniform(a), _uniform(s)
    if a0 is not None and s0 is not None:
        view = as_strided(LM[:, a0:], shape=(m.P, Rmax, L), strides=(LM.strides[0], s0, 1), writeable=False)
        if g.__class__ is slice:
            return np.ascontiguousarray(view) if copy else view
        return view[g]
    win = sliding_window_view(LM, L, axis=1)
    return win[group_slots(g, m.P)[:, None], _starts(a, s, R, Rmax)]


def write_rows(m, g, a, s, R, data, what):
    """Store ``data [G, max(R), L]`` as each program's ``R`` rows at ``a``, stride ``s`` (rows in order)."""
    L = data.shape[2]
    _check_rows(m, g, a, s, R, L, what)
    LM = m.LM
    Rmax = data.shape[1]
    a0, s0, r0 = _uniform(a), _uniform(s), _uniform(R)
    if a0 is not None and s0 is not None and r0 is not None and abs(s0) >= L:
        view = as_strided(LM[:, a0:], shape=(m.P, Rmax, L), strides=(LM.strides[0], s0, 1))
        view[g] = data
        return
    slots = group_slots(g, m.P)
    valid = np.arange(Rmax)[None, :] < R[:, None]
    st = _starts(a, s, R, Rmax)
    idx = st[:, :, None] + np.arange(L)[None, None, :]
    LM[np.broadcast_to(slots[:, None], valid.shape)[valid][:, None], idx[valid]] = data[valid]


_WIDE = {}


def _wide(t):
    """Every 16-bit pattern of type ``t`` (0 fp16, 1 bf16) as float64, converted as :func:`decode`'s general path
    converts one: a lookup reads one 8-byte entry per element where the conversion takes two or three passes."""
    table = _WIDE.get(t)
    if table is None:
        bits = np.arange(1 << 16, dtype=np.uint32)
        with np.errstate(all="ignore"):
            if t == 0:
                table = bits.astype(np.uint16).view(np.float16).astype(np.float64)
            else:
                table = (bits << 16).view(np.float32).astype(np.float64)
        _WIDE[t] = table
    return table


def decode(b, t, dtype=np.float64):
    """Elements of type ``t`` from the bytes ``b [..., L]`` (contiguous), as ``dtype`` (exact)."""
    if t < 2 and dtype is np.float64:
        return _wide(t)[b.view(np.uint16)]
    if t == 0:
        return b.view(np.float16).astype(dtype)
    if t == 1:
        return (b.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(dtype)
    if t == 2:
        return b.view(np.int8).astype(dtype)
    return b.astype(dtype)


def _acc_rows(st, g, r0, R, what):
    bad = (R < 0) | (r0 < 0) | (r0 + R > st.rows)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if int(R[i]) < 0:
            raise SimFault(f"{what} of a negative number of rows ({int(R[i])})", first_slot(g, st.P, bad))
        raise SimFault(f"{what}: accumulator rows {int(r0[i])}..{int(r0[i]) + int(R[i]) - 1} are out of range "
                       f"(the engine has {st.rows} accumulator rows, 0..{st.rows - 1})", first_slot(g, st.P, bad))


def _update(acc, g, P, r0, R, n, vals):
    """``acc[p, r0 + i, :n] = vals[p, i, :n]`` for ``i < R[p]`` (vals ``[G, max(R), 32]`` of acc's dtype)."""
    ru, Ru, nu = _uniform(r0), _uniform(R), _uniform(n)
    if ru is not None and Ru is not None and nu is not None:
        acc[g, ru:ru + Ru, :nu] = vals[:, :, :nu]
        return
    slots = group_slots(g, P)
    Rmax = vals.shape[1]
    valid = np.arange(Rmax)[None, :] < R[:, None]
    rows = np.where(valid, r0[:, None] + np.arange(Rmax)[None, :], 0)
    sl = np.broadcast_to(slots[:, None], valid.shape)
    cols = np.arange(COLS)[None, None, :] < n[:, None, None]
    cur = acc[sl, rows]
    acc[sl[valid], rows[valid]] = np.where(cols, vals, cur)[valid]


def _current(acc, g, P, r0, R):
    """``[G, max(R), 32]``: the accumulator rows ``r0 .. r0 + R`` of each program (rows beyond R: row r0)."""
    ru, Ru = _uniform(r0), _uniform(R)
    if ru is not None and Ru is not None:
        return acc[g, ru:ru + Ru]
    Rmax = int(R.max())
    rows = _starts(r0, np.ones_like(r0), R, Rmax)
    return acc[group_slots(g, P)[:, None], rows]


# ------------------------------------------------------------------------------------------------------------
def cfg(d, m, pc):
    k = int(d.imm)
    X, r1 = m.X, d.rs1

    def ex(g):
        if k >= len(CFG_NAMES):
            raise SimFault(f"the matrix engine has no configuration register {k} "
                           f"(0..{len(CFG_NAMES) - 1}: {', '.join(CFG_NAMES)})")
        v = X[r1, g]
        if k == TYPE:
            bad = (v < 0) | (v > 3)
            allowed = "0 fp16, 1 bf16, 2 int8, 3 uint8"
        elif k == N:
            bad = (v < 1) | (v > COLS)
            allowed = f"1..{COLS}"
        elif k == W_TRANS:
            bad = (v < 0) | (v > 1)
            allowed = "0 or 1"
        elif k == OUT_TYPE:
            bad = (v < 0) | (v > 2)
            allowed = "0 as accumulated, 1 fp16, 2 bf16"
        else:
            bad = None
        if bad is not None and bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise SimFault(f"mtia.dpe.cfg: {int(v[i])} is not a valid value of configuration register {k} "
                           f"({CFG_NAMES[k]}: {allowed})", first_slot(g, m.P, bad))
        m.dpe.cfg[k, g] = v
    return ex


def ldw(d, m, pc):
    X, r1, r2 = m.X, d.rs1, d.rs2

    def ex(g):
        st = m.dpe
        K = X[r2, g]
        bad = (K < 1) | (K > COLS)
        if bad.any():
            raise SimFault(f"mtia.dpe.ldw of {int(K[np.flatnonzero(bad)[0]])} weight rows (K is 1..{COLS})",
                           first_slot(g, m.P, bad))
        c = st.cfg[:, g]
        a, ws = X[r1, g], c[W_STRIDE]
        for sg, pos, (k, t, n, tr) in _split(g, m.P, K, c[TYPE], c[N], c[W_TRANS]):
            es = ESIZE[t]
            rows, cols = (n, k) if tr else (k, n)
            b = read_rows(m, sg, a[pos], ws[pos], np.full(len(a[pos]), rows), cols * es, "weight-tile read",
                          copy=False)
            w = decode(b, t)                                  # [G, rows, cols]
            if tr:
                w = w.transpose(0, 2, 1)
            if sg.__class__ is slice:     # the whole wave: the tiles in place
                tile = st.w[sg]
                tile[:, k:, :] = 0
                tile[:, :k, n:] = 0
                tile[:, :k, :n] = w
            else:
                tile = np.zeros((w.shape[0], COLS, COLS))
                tile[:, :k, :n] = w
                st.w[sg] = tile
            st.wk[sg] = k
            st.wtype[sg] = t
    return ex


def mm(d, m, pc):
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2

    def ex(g):
        st = m.dpe
        R, r0 = X[r2, g], X[rd, g]
        _acc_rows(st, g, r0, R, "mtia.dpe.mm")
        c = st.cfg[:, g]
        t_all, k_all = c[TYPE], st.wk[g]
        bad = (k_all == 0) | (st.wtype[g] != t_all)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            if int(k_all[i]) == 0:
                msg = "mtia.dpe.mm with no weight tile loaded (mtia.dpe.ldw first)"
            else:
                msg = (f"mtia.dpe.mm streams {TYPES[int(t_all[i])]} rows but the weight tile was loaded as "
                       f"{TYPES[int(st.wtype[g][i])]} (reload it with mtia.dpe.ldw after changing the type)")
            raise SimFault(msg, first_slot(g, m.P, bad))
        a, xs, n = X[r1, g], c[X_STRIDE], c[N]
        for sg, pos, (t, k) in _split(g, m.P, t_all, k_all):
            Rs = R[pos]
            if int(Rs.max()) <= 0:
                continue
            b = read_rows(m, sg, a[pos], xs[pos], Rs, k * ESIZE[t], "row stream", copy=False)
            w = st.w[sg][:, :k, :]
            if t < 2:
                x = decode(b, t)
                ru, Ru, nu = _uniform(r0[pos]), _uniform(Rs), _uniform(n[pos])
                if sg.__class__ is slice and ru is not None and Ru is not None and nu is not None:
                    # the whole wave on the same rows: the products into a kept array, each sum rounded to fp32
                    # and added to its accumulator in place (fp32 addition, as below)
                    y = np.matmul(x, w, out=st.scratch(x.shape[:2] + (COLS,)))
                    cur = st.accf[sg, ru:ru + Ru, :nu]
                    np.add(cur, y[:, :, :nu], out=cur, dtype=np.float32)
                    continue
                y = np.matmul(x, w)     # [G, Rmax, 32]: exact products, sums in float64
                acc = st.accf
                vals = _current(acc, sg, m.P, r0[pos], Rs) + y.astype(np.float32)
            else:   # 8-bit sums (|sum| < 32 * 2^16) are exact in float32: the faster matmul
                y = np.matmul(decode(b, t, np.float32), w.astype(np.float32))
                acc = st.acci
                vals = _current(acc, sg, m.P, r0[pos], Rs) + y.astype(np.int64).astype(np.int32)
            _update(acc, sg, m.P, r0[pos], Rs, n[pos], vals)
    return ex


def zero(d, m, pc):
    X, r1, r2 = m.X, d.rs1, d.rs2

    def ex(g):
        st = m.dpe
        r0, R = X[r1, g], X[r2, g]
        _acc_rows(st, g, r0, R, "mtia.dpe.zero")
        ru, Ru = _uniform(r0), _uniform(R)
        if ru is not None and Ru is not None:
            st.acc[g, ru:ru + Ru] = 0
            return
        for p, a, n in zip(group_slots(g, m.P).tolist(), r0.tolist(), R.tolist()):
            st.acc[p, a:a + n] = 0
    return ex


def accld(d, m, pc):
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2

    def ex(g):
        st = m.dpe
        r0, R = X[rd, g], X[r2, g]
        _acc_rows(st, g, r0, R, "mtia.dpe.acc.ld")
        c = st.cfg[:, g]
        a, s = X[r1, g], c[ACC_STRIDE]
        for sg, pos, (n,) in _split(g, m.P, c[N]):
            Rs = R[pos]
            if int(Rs.max()) <= 0:
                continue
            b = read_rows(m, sg, a[pos], s[pos], Rs, 4 * n, "accumulator load")
            vals = np.zeros(b.shape[:2] + (COLS,), np.uint32)
            vals[:, :, :n] = b.view(np.uint32)
            _update(st.acc, sg, m.P, r0[pos], Rs, np.full(len(Rs), COLS), vals)
    return ex


def accst(d, m, pc):
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2

    def ex(g):
        st = m.dpe
        r0, R = X[r1, g], X[r2, g]
        _acc_rows(st, g, r0, R, "mtia.dpe.acc.st")
        c = st.cfg[:, g]
        a, s = X[rd, g], c[ACC_STRIDE]
        for sg, pos, (n, out, t) in _split(g, m.P, c[N], c[OUT_TYPE], c[TYPE]):
            Rs = R[pos]
            if int(Rs.max()) <= 0:
                continue
            vals = np.ascontiguousarray(_current(st.acc, sg, m.P, r0[pos], Rs)[:, :, :n])
            if out:
                if t >= 2:
                    raise SimFault("mtia.dpe.acc.st: integer accumulators are stored as int32 "
                                   "(configuration register 6, out_type, must be 0)", int(group_slots(sg, m.P)[0]))
                vals = narrow(vals.view(np.float32), out)
            write_rows(m, sg, a[pos], s[pos], Rs, vals.view(np.uint8), "accumulator store")
    return ex


def narrow(f32, out: int) -> np.ndarray:
    """fp32 values rounded to nearest even as fp16 (``out`` 1) or bf16 (2), as 16-bit patterns; a NaN becomes
    the canonical NaN (0x7e00, 0x7fc0), as the vector unit's conversions give it."""
    nan = np.isnan(f32)
    if out == 1:
        return np.where(nan, np.uint16(0x7E00), f32.astype(np.float16).view(np.uint16))
    bits = f32.view(np.uint32)
    r = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FC0), r)


def dpe_wait(d, m, pc):
    def ex(g):
        return None
    return ex


def mlu_shape(X, d, g):
    """``(rows, cols, element bytes)`` of an ``mtia.mlu.trans.e<W>``: ``x[rs2] = rows << 16 | cols``."""
    packed = X[d.rs2, g]
    return (packed >> 16) & 0xFFFF, packed & 0xFFFF, int(d.spec.name.rsplit(".e", 1)[1]) // 8


def mlutrans(d, m, pc):
    """``mtia.mlu.trans.e<W>``: the dense ``rows x cols`` block at ``x[rs1]`` transposed into ``x[rd]``."""
    X, rd, r1 = m.X, d.rd, d.rs1

    def ex(g):
        R, C, es = mlu_shape(X, d, g)
        for sg, pos, (r, c) in _split(g, m.P, R, C):
            if r <= 0 or c <= 0:
                continue
            a, dst = X[r1, g][pos], X[rd, g][pos]
            G = len(a)
            src = read_rows(m, sg, a, np.full(G, c * es), np.full(G, r), c * es, "MLU source")
            out = src.reshape(G, r, c, es).transpose(0, 2, 1, 3).reshape(G, c, r * es)
            write_rows(m, sg, dst, np.full(G, r * es), np.full(G, c), np.ascontiguousarray(out),
                       "MLU destination")
    return ex


_OPS = {"cfg": cfg, "ldw": ldw, "mm": mm, "zero": zero, "accld": accld, "accst": accst, "mlutrans": mlutrans}


def dpe(d, m, pc):
    return _OPS[d.spec.sem_op](d, m, pc)


FAMILIES = {"dpe": dpe, "dpe_wait": dpe_wait}
OPS = {"dpe": set(_OPS)}
