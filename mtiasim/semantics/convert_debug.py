"""Widening and narrowing conversions (RVV 1.0), the unsigned high multiplies, and the MTIA debug instructions.

Widening (``vsext``/``vzext``: SEW is the *destination* width, the source is SEW/2, /4 or /8; ``vfwcvt``: SEW is
the *source* width, the destination 2*SEW).  Narrowing (``vnsrl``/``vnsra``/``vfncvt``: SEW is the destination
width, the source 2*SEW).  Masked-off and tail elements keep their old values, as in varith.py.

Debugging (``mtia.print``, ``mtia.assert``, ``mtia.flush``): the immediate indexes ``meta["strings"]`` of the
binary, an entry describing the values (``{"kind": "print", "prefix", "args": [{"type", "shape"}]}`` or
``{"kind": "assert", "message", "type", "shape"}``); ``x[rs1]`` is the local address of a table of 8-byte
local addresses, one per value (a scalar is stored in a slot of its own).  Printed lines are buffered per
program; ``mtia.flush`` (the compiler emits it just before the kernel returns, where every program of a wave
meets, since the machine runs the lowest pc first) writes the buffers to stdout in program-id order.  So the
output is one program's lines after another's, each in that program's order, programs in id order per wave.
A failing ``mtia.assert`` flushes the buffers and stops the run with the assert's source location, its message,
the failing program and the first failing element.
"""
from __future__ import annotations

import sys

import numpy as np

from ..faults import SimFault, group_slots
from .common import mulh_signed, vm_of
from .fp import DYN, RTZ, canonical_nan, float_to_int, int_to_float
from .vcommon import FT, ST, UT, active, float_view, reg_off, scalar_x, vl_of, with_sew, write


def _need(width: int, what: str) -> None:
    if width not in UT:
        raise SimFault(f"{what}: no {width}-bit element type (check the vtype's SEW)")


# ---------------------------------------------------------------------------------------------------- integers
def vext(d, m, pc):
    op = d.spec.sem_op
    if op not in ("z2", "s2", "z4", "s4", "z8", "s8"):
        raise KeyError(op)
    signed, factor = op[0] == "s", int(op[1])
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)

    def inner(g, sew):
        src_w = sew // factor
        _need(src_w, d.spec.name)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        views = m.Vs if signed else m.Vu
        o2, od = reg_off(m, vs2, src_w, n), reg_off(m, vd, sew, n)
        r = views[src_w][g, o2:o2 + n].astype((ST if signed else UT)[sew])
        write(views[sew], g, od, n, r, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def vnarrow(d, m, pc):
    op = d.spec.sem_op
    if op not in ("srl", "sra"):
        raise KeyError(op)
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)
    form = d.spec.name.rsplit(".", 1)[1]

    def amount(g, sew, n):
        if form == "wv":
            o1 = reg_off(m, d.vs1, sew, n)
            return m.Vu[sew][g, o1:o1 + n].astype(np.uint64)
        if form == "wx":
            return scalar_x(m, g, d.rs1, np.uint64)
        return np.uint64(int(d.imm) & 63)

    def inner(g, sew):
        wide = 2 * sew
        _need(wide, d.spec.name)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2, od = reg_off(m, vs2, wide, n), reg_off(m, vd, sew, n)
        a = (m.Vs if op == "sra" else m.Vu)[wide][g, o2:o2 + n]
        sh = (amount(g, sew, n) & np.uint64(wide - 1)).astype(a.dtype)
        r = (a >> sh).astype(UT[sew])     # the low SEW bits (an integer cast to a narrower unsigned type wraps)
        write(m.Vu[sew], g, od, n, r, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def vmulhx(d, m, pc):
    op = d.spec.sem_op
    if op not in ("mulhu", "mulhsu"):
        raise KeyError(op)
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)
    a_signed = op == "mulhsu"
    vector_b = d.spec.name.endswith(".vv")

    def inner(g, sew):
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2, od = reg_off(m, vs2, sew, n), reg_off(m, vd, sew, n)
        a = (m.Vs if a_signed else m.Vu)[sew][g, o2:o2 + n]
        if vector_b:
            o1 = reg_off(m, d.vs1, sew, n)
            b = m.Vu[sew][g, o1:o1 + n]
        else:
            b = np.broadcast_to(scalar_x(m, g, d.rs1, UT[sew]), a.shape)
        r = mulh_signed(a, b, sew, a_signed, False).astype(UT[sew])
        write(m.Vu[sew], g, od, n, r, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


# ---------------------------------------------------------------------------------------------------- floats
def _canon(r):
    nan = r != r
    return np.where(nan, canonical_nan(r.dtype), r) if nan.any() else r


def _round_to_odd(a, dt):
    """``a`` (a wider float array) narrowed to ``dt`` rounding to odd (``vfncvt.rod.f.f.w``)."""
    r = a.astype(dt)
    wide = r.astype(a.dtype)
    fin = np.isfinite(a)
    toward = np.where(np.abs(wide) > np.abs(a), np.zeros_like(r), r)   # truncate toward zero
    r = np.where(fin & (np.abs(wide) > np.abs(a)), np.nextafter(r, toward), r)
    inexact = fin & (r.astype(a.dtype) != a)
    ut = UT[8 * np.dtype(dt).itemsize]
    bits = r.view(ut)
    return np.where(inexact, bits | ut(1), bits).view(dt)


# op -> (source view kind, destination view kind, fn(a, dst_width))
_WIDEN = {
    "f.f": ("f", "f", lambda a, w: a.astype(FT[w])),
    "f.x": ("s", "f", lambda a, w: int_to_float(a.astype(np.int64), DYN, FT[w])),
    "f.xu": ("u", "f", lambda a, w: int_to_float(a.astype(np.uint64), DYN, FT[w])),
    "x.f": ("f", "s", lambda a, w: float_to_int(a, DYN, True, w).astype(ST[w])),
    "xu.f": ("f", "u", lambda a, w: float_to_int(a, DYN, False, w).astype(UT[w])),
    "rtz.x.f": ("f", "s", lambda a, w: float_to_int(a, RTZ, True, w).astype(ST[w])),
    "rtz.xu.f": ("f", "u", lambda a, w: float_to_int(a, RTZ, False, w).astype(UT[w])),
}
_NARROW = {
    "f.f": ("f", "f", lambda a, w: _canon(a.astype(FT[w]))),
    "rod.f.f": ("f", "f", lambda a, w: _canon(_round_to_odd(a, FT[w]))),
    "f.x": ("s", "f", lambda a, w: int_to_float(a.astype(np.int64), DYN, FT[w])),
    "f.xu": ("u", "f", lambda a, w: int_to_float(a.astype(np.uint64), DYN, FT[w])),
    "x.f": ("f", "s", lambda a, w: float_to_int(a, DYN, True, w).astype(ST[w])),
    "xu.f": ("f", "u", lambda a, w: float_to_int(a, DYN, False, w).astype(UT[w])),
    "rtz.x.f": ("f", "s", lambda a, w: float_to_int(a, RTZ, True, w).astype(ST[w])),
    "rtz.xu.f": ("f", "u", lambda a, w: float_to_int(a, RTZ, False, w).astype(UT[w])),
}


def _fconvert(d, m, table, widen: bool):
    op = d.spec.sem_op
    kin, kout, fn = table[op]
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)
    views = {"f": m.Vf, "s": m.Vs, "u": m.Vu}

    def inner(g, sew):
        sw, dw = (sew, 2 * sew) if widen else (2 * sew, sew)
        for w, k in ((sw, kin), (dw, kout)):
            if k == "f":
                float_view(m, w)
            else:
                _need(w, d.spec.name)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2, od = reg_off(m, vs2, sw, n), reg_off(m, vd, dw, n)
        r = fn(views[kin][sw][g, o2:o2 + n], dw)
        write(views[kout][dw], g, od, n, r, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def vfwcvt(d, m, pc):
    return _fconvert(d, m, _WIDEN, True)


def vfncvt(d, m, pc):
    return _fconvert(d, m, _NARROW, False)


# ---------------------------------------------------------------------------------------------------- debugging
_NP = {"i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
       "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "fp16": np.float16, "bf16": np.uint16,
       "fp32": np.float32, "fp64": np.float64}


def _entry(m, index: int, kind: str) -> dict:
    strings = m.program.meta.get("strings") or []
    if not 0 <= index < len(strings) or not isinstance(strings[index], dict) \
            or strings[index].get("kind") != kind:
        raise SimFault(f"mtia.{kind} {index}: the binary's metadata has no {kind} entry {index} in 'strings'")
    return strings[index]


def _values(m, slot: int, table: int, k: int, ty: str, shape) -> np.ndarray:
    """The k-th value of the table at local address ``table`` of program ``slot``, as a flat numpy array."""
    lm = m.LM[slot]
    addr = int(lm[table + 8 * k: table + 8 * k + 8].view(np.uint64)[0])
    dt = np.dtype(_NP[ty])
    count = int(np.prod(shape)) if shape else 1
    end = addr + count * dt.itemsize
    if end > len(lm):
        raise SimFault(f"debug value {k} at local address 0x{addr:x} runs past local memory", slot)
    a = lm[addr:end].view(dt).copy()
    if ty == "bf16":
        a = (a.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return a


def _fmt(x, ty: str) -> str:
    if ty.startswith("fp") or ty == "bf16":
        return repr(float(x)) if np.isfinite(x) else str(float(x))
    return str(int(x))


def _buffers(m) -> dict:
    buf = m.__dict__.get("_debug_lines")
    if buf is None:
        buf = m.__dict__["_debug_lines"] = {}
    return buf


def flush_lines(m) -> None:
    buf = _buffers(m)
    for slot in sorted(buf, key=lambda s: int(m.linear[s])):
        sys.stdout.write("".join(line + "\n" for line in buf[slot]))
    buf.clear()
    sys.stdout.flush()


def _pid(m, slot: int) -> str:
    p = m.program_id(slot)
    return "(" + ", ".join(str(int(v)) for v in p) + ")"


def _index(i: int, shape) -> str:
    idx = np.unravel_index(i, shape) if shape else ()
    return "(" + ", ".join(str(int(v)) for v in idx) + ")"


def debug(d, m, pc):
    op = d.spec.sem_op
    if op == "flush":
        def ex_flush(g):
            flush_lines(m)
        return ex_flush
    if op not in ("print", "assert"):
        raise KeyError(op)
    index, r1 = int(d.imm), d.rs1

    if op == "print":
        def ex_print(g):
            e = _entry(m, index, "print")
            args = e.get("args") or []
            shape = next((tuple(a["shape"]) for a in args if a.get("shape")), ())
            prefix = e.get("prefix", "")
            buf = _buffers(m)
            for slot in group_slots(g, m.P).tolist():
                table = int(m.X[r1, slot])
                vals = [_values(m, slot, table, k, a["type"], a.get("shape") or ()) for k, a in enumerate(args)]
                head = f"pid {_pid(m, slot)}"
                lines = buf.setdefault(slot, [])
                count = int(np.prod(shape)) if shape else 1
                for i in range(count):
                    parts = ", ".join(_fmt(v[i] if len(v) > 1 else v[0], a["type"]) for v, a in zip(vals, args))
                    where = f" idx {_index(i, shape)}" if shape else ""
                    lines.append(f"{head}{where} {prefix}{parts}".rstrip())
            return None
        return ex_print

    def ex_assert(g):
        e = _entry(m, index, "assert")
        shape = tuple(e.get("shape") or ())
        for slot in group_slots(g, m.P).tolist():
            table = int(m.X[r1, slot])
            cond = _values(m, slot, table, 0, e.get("type", "i1"), shape)
            bad = np.flatnonzero(cond == 0)
            if len(bad):
                flush_lines(m)
                where = [f"element {_index(int(bad[0]), shape)} of the condition is false"] if shape else []
                raise SimFault(f"device assertion failed: {e.get('message', '')}", slot, notes=where)
        return None
    return ex_assert


FAMILIES = {"vext": vext, "vnarrow": vnarrow, "vmulhx": vmulhx, "vfwcvt": vfwcvt, "vfncvt": vfncvt,
            "debug": debug}
OPS = {"vext": {"z2", "s2", "z4", "s4", "z8", "s8"}, "vnarrow": {"srl", "sra"}, "vmulhx": {"mulhu", "mulhsu"},
       "vfwcvt": set(_WIDEN), "vfncvt": set(_NARROW), "debug": {"print", "assert", "flush"}}
