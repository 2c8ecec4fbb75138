"""RVV arithmetic families: integer/float element-wise ops, FMA, compares, merges, moves, conversions, masks,
reductions.

``vd = vs2 op second`` where the second operand is ``vs1`` (.vv), ``x[rs1]`` (.vx), ``f[rs1]`` (.vf) or the
immediate (.vi), whichever the row has.  Masked-off and tail elements keep their old values.
"""
from __future__ import annotations

import numpy as np

from ..faults import SimFault
from .common import div_signed, div_unsigned, has, mulh_signed, vm_of
from .fp import canonical_nan, float_to_int, fminmax, fused, int_to_float, sgnj
from .vcommon import (FT, ST, UT, active, float_view, mask_bits, reg_off, scalar_f, scalar_x, vl_of, with_sew,
                      write, write_mask)
from .vector import _vtype


def _second(d, m, kind):
    """``get(g, sew, n) -> operand`` for the row's second operand, in view kind 'u', 's' or 'f'."""
    if has(d, "vs1") and getattr(d, "vs1", None) is not None:
        vs1 = d.vs1

        def get(g, sew, n):
            view = (m.Vu if kind == "u" else m.Vs if kind == "s" else m.Vf)[sew]
            off = reg_off(m, vs1, sew, n)
            return view[g, off:off + n]
        return get
    if has(d, "rs1") and getattr(d, "rs1", None) is not None:
        r1 = d.rs1
        if kind == "f":
            return lambda g, sew, n: scalar_f(m, g, r1, sew)
        table = UT if kind == "u" else ST
        return lambda g, sew, n: scalar_x(m, g, r1, table[sew])
    if has(d, "imm") and getattr(d, "imm", None) is not None:
        imm = int(d.imm)
        table = UT if kind == "u" else ST
        consts = {s: np.array(imm).astype(table[s])[()] for s in table}
        return lambda g, sew, n: consts[sew]
    return lambda g, sew, n: None


def _elementwise(d, m, kind, fn, sew_ok=None):
    """Executor for ``vd = fn(vs2, second, sew)`` over the views of ``kind``."""
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)
    second = _second(d, m, kind)
    views = m.Vu if kind == "u" else m.Vs if kind == "s" else m.Vf

    def inner(g, sew):
        if kind == "f":
            float_view(m, sew)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        view = views[sew]
        o2 = reg_off(m, vs2, sew, n)
        od = reg_off(m, vd, sew, n)
        r = fn(view[g, o2:o2 + n], second(g, sew, n), sew)
        write(view, g, od, n, r, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def _shift_amount(b, sew):
    return b & (sew - 1)


_VALU = {  # op -> (view kind, fn(a, b, sew))
    "add": ("u", lambda a, b, s: a + b),
    "sub": ("u", lambda a, b, s: a - b),
    "rsub": ("u", lambda a, b, s: b - a),
    "mul": ("u", lambda a, b, s: a * b),
    "mulh": ("s", lambda a, b, s: mulh_signed(a, np.broadcast_to(b, a.shape), s)),
    "div": ("s", lambda a, b, s: div_signed(a, np.broadcast_to(b, a.shape), False)),
    "divu": ("u", lambda a, b, s: div_unsigned(a, np.broadcast_to(b, a.shape), False)),
    "rem": ("s", lambda a, b, s: div_signed(a, np.broadcast_to(b, a.shape), True)),
    "remu": ("u", lambda a, b, s: div_unsigned(a, np.broadcast_to(b, a.shape), True)),
    "and": ("u", lambda a, b, s: a & b),
    "or": ("u", lambda a, b, s: a | b),
    "xor": ("u", lambda a, b, s: a ^ b),
    "sll": ("u", lambda a, b, s: a << (b & UT[s](s - 1))),
    "srl": ("u", lambda a, b, s: a >> (b & UT[s](s - 1))),
    "sra": ("s", lambda a, b, s: a >> (b & ST[s](s - 1))),
    "min": ("s", lambda a, b, s: np.minimum(a, b)),
    "minu": ("u", lambda a, b, s: np.minimum(a, b)),
    "max": ("s", lambda a, b, s: np.maximum(a, b)),
    "maxu": ("u", lambda a, b, s: np.maximum(a, b)),
}


def valu(d, m, pc):
    kind, fn = _VALU[d.spec.sem_op]
    return _elementwise(d, m, kind, fn)


def _canon_nan(r):
    nan = r != r
    if nan.any():
        r = np.where(nan, canonical_nan(r.dtype), r)
    return r


_SIGN = {16: np.uint16(0x8000), 32: np.uint32(0x80000000), 64: np.uint64(1 << 63)}
_MAG = {16: np.uint16(0x7FFF), 32: np.uint32(0x7FFFFFFF), 64: np.uint64((1 << 63) - 1)}


def _fsgnj(op):
    def fn(a, b, s):
        ut = UT[s]
        bb = np.broadcast_to(b, a.shape).view(ut) if np.ndim(b) else np.asarray(b).view(ut)
        return sgnj(a.view(ut), bb, op, _SIGN[s], _MAG[s]).view(a.dtype)
    return fn


_VFALU = {
    "add": lambda a, b, s: _canon_nan(a + b),
    "sub": lambda a, b, s: _canon_nan(a - b),
    "rsub": lambda a, b, s: _canon_nan(b - a),
    "mul": lambda a, b, s: _canon_nan(a * b),
    "div": lambda a, b, s: _canon_nan(a / b),
    "rdiv": lambda a, b, s: _canon_nan(b / a),
    "min": lambda a, b, s: fminmax(a, np.broadcast_to(b, a.shape), False),
    "max": lambda a, b, s: fminmax(a, np.broadcast_to(b, a.shape), True),
    "sgnj": _fsgnj("sgnj"), "sgnjn": _fsgnj("sgnjn"), "sgnjx": _fsgnj("sgnjx"),
}


def vfalu(d, m, pc):
    return _elementwise(d, m, "f", _VFALU[d.spec.sem_op])


def vfunary(d, m, pc):
    if d.spec.sem_op != "sqrt":
        raise KeyError(d.spec.sem_op)
    return _elementwise(d, m, "f", lambda a, b, s: _canon_nan(np.sqrt(a)))


def vfma(d, m, pc):
    op = d.spec.sem_op
    if op not in ("macc", "nmacc", "msac", "nmsac", "madd", "nmadd", "msub", "nmsub"):
        raise KeyError(op)
    neg_prod = op in ("nmacc", "nmsac", "nmadd", "nmsub")
    neg_acc = op in ("nmacc", "msac", "nmadd", "msub")
    overwrite = op in ("madd", "nmadd", "msub", "nmsub")   # vd is a factor, vs2 the addend
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)
    second = _second(d, m, "f")

    def inner(g, sew):
        view = float_view(m, sew)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2 = reg_off(m, vs2, sew, n)
        od = reg_off(m, vd, sew, n)
        a, b, c = view[g, o2:o2 + n], second(g, sew, n), view[g, od:od + n]
        if overwrite:
            a, c = c, a
        r = fused(a, b, c, neg_prod, neg_acc, view.dtype.type)   # one rounding, at every SEW
        write(view, g, od, n, _canon_nan(r), active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


_VCMP = {"eq": ("u", np.equal), "ne": ("u", np.not_equal), "lt": ("s", np.less), "ltu": ("u", np.less),
         "le": ("s", np.less_equal), "leu": ("u", np.less_equal), "gt": ("s", np.greater),
         "gtu": ("u", np.greater)}
_VFCMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
          "ge": np.greater_equal}


def _compare(d, m, kind, fn):
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)
    second = _second(d, m, kind)
    views = m.Vu if kind == "u" else m.Vs if kind == "s" else m.Vf

    def inner(g, sew):
        if kind == "f":
            float_view(m, sew)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2 = reg_off(m, vs2, sew, n)
        res = fn(views[sew][g, o2:o2 + n], second(g, sew, n))
        write_mask(m, g, vd, n, res, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def vcmp(d, m, pc):
    kind, fn = _VCMP[d.spec.sem_op]
    return _compare(d, m, kind, fn)


def vfcmp(d, m, pc):
    return _compare(d, m, "f", _VFCMP[d.spec.sem_op])


def vmerge(d, m, pc):
    op = d.spec.sem_op
    if op not in ("vmerge", "fmerge"):
        raise KeyError(op)
    kind = "f" if op == "fmerge" else "u"
    vd, vs2 = d.vd, d.vs2
    second = _second(d, m, kind)

    def inner(g, sew):
        views = float_view(m, sew) if kind == "f" else m.Vu[sew]
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2 = reg_off(m, vs2, sew, n)
        od = reg_off(m, vd, sew, n)
        r = np.where(mask_bits(m, g, 0, n), second(g, sew, n), views[g, o2:o2 + n])
        write(views, g, od, n, r, active(m, g, n, 1, tail))
        return None
    return with_sew(m, inner)


def vmv(d, m, pc):
    op = d.spec.sem_op
    if op not in ("v", "x", "i", "f"):
        raise KeyError(op)
    kind = "f" if op == "f" else "u"
    vd = d.vd
    second = _second(d, m, kind)

    def inner(g, sew):
        views = float_view(m, sew) if kind == "f" else m.Vu[sew]
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        od = reg_off(m, vd, sew, n)
        write(views, g, od, n, second(g, sew, n), active(m, g, n, 1, tail))
        return None
    return with_sew(m, inner)


def vslide(d, m, pc):
    """``vslidedown.vi``: ``vd[i] = vs2[i + uimm]`` for the active body elements, 0 where ``i + uimm`` reaches
    VLMAX (the source group's length under vtype's LMUL)."""
    if d.spec.sem_op != "down":
        raise KeyError(d.spec.sem_op)
    vd, vs2, vm, off = d.vd, d.vs2, vm_of(d), int(d.imm) & 31

    def inner(g, sew):
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        vtypes = np.unique(np.atleast_1d(m.vtype[g]))
        vlmax = max(_vtype(int(t), m.vlenb * 8)[1] for t in vtypes)   # vl <= each program's VLMAX
        o2 = reg_off(m, vs2, sew, vlmax)
        od = reg_off(m, vd, sew, n)
        view = m.Vu[sew]
        src = view[g, o2:o2 + vlmax]
        idx = np.arange(n) + off
        inside = idx < vlmax
        r = np.zeros(src.shape[:-1] + (n,), src.dtype)
        r[..., inside] = src[..., idx[inside]]
        if len(vtypes) > 1:   # programs with a shorter group read zeros past their own VLMAX
            per = np.array([_vtype(int(t), m.vlenb * 8)[1] for t in np.atleast_1d(m.vtype[g])])
            r = np.where(idx[None, :] < per[:, None], r, 0).astype(src.dtype)
        write(view, g, od, n, r.copy(), active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def vmv_scalar(d, m, pc):
    op = d.spec.sem_op
    X, F = m.X, m.F

    if op == "x.s":
        rd, vs2 = d.rd, d.vs2

        def inner(g, sew):
            if rd:
                X[rd, g] = m.Vs[sew][g, reg_off(m, vs2, sew, 1)]
    elif op == "f.s":
        rd, vs2 = d.rd, d.vs2

        def inner(g, sew):
            v = m.Vu[sew][g, reg_off(m, vs2, sew, 1)]
            if sew == 64:
                F[rd, g] = v
            elif sew in (32, 16):   # NaN-boxed: every bit above the value is one
                F[rd, g] = v.astype(np.uint64) | np.uint64(((1 << 64) - 1) ^ ((1 << sew) - 1))
            else:
                raise SimFault(f"vfmv.f.s with SEW={sew}: no {sew}-bit float type")
    elif op in ("s.x", "s.f"):
        vd, r1 = d.vd, d.rs1

        def inner(g, sew):
            if op == "s.x":
                val = X[r1, g].astype(UT[sew])
            else:
                val = scalar_f(m, g, r1, sew)[:, 0].view(UT[sew])
            on = m.vl[g] > 0
            off = reg_off(m, vd, sew, 1)
            if on.all():
                m.Vu[sew][g, off] = val
            else:
                cur = m.Vu[sew][g, off]
                m.Vu[sew][g, off] = np.where(on, val, cur)
    else:
        raise KeyError(op)

    def wrapped(g, sew):
        inner(g, sew)
        return None
    return with_sew(m, wrapped)


def vid(d, m, pc):
    vd, vm = d.vd, vm_of(d)

    def inner(g, sew):
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        od = reg_off(m, vd, sew, n)
        write(m.Vu[sew], g, od, n, np.arange(n).astype(UT[sew])[None, :], active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


_VCVT = {  # op -> (source view kind, converter(a, sew))
    "f.x": ("s", lambda a, s: int_to_float(a, 0, FT[s])),
    "f.xu": ("u", lambda a, s: int_to_float(a, 0, FT[s])),
    "x.f": ("f", lambda a, s: float_to_int(a, 0, True, s).astype(ST[s])),
    "xu.f": ("f", lambda a, s: float_to_int(a, 0, False, s).astype(UT[s]).view(ST[s])),
    "rtz.x.f": ("f", lambda a, s: float_to_int(a, 1, True, s).astype(ST[s])),
    "rtz.xu.f": ("f", lambda a, s: float_to_int(a, 1, False, s).astype(UT[s]).view(ST[s])),
}


def vcvt(d, m, pc):
    kind, conv = _VCVT[d.spec.sem_op]
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)

    def inner(g, sew):
        fview = float_view(m, sew)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        src = (m.Vs if kind == "s" else m.Vu if kind == "u" else m.Vf)[sew]
        o2 = reg_off(m, vs2, sew, n)
        od = reg_off(m, vd, sew, n)
        r = conv(src[g, o2:o2 + n], sew)
        dst = fview if kind in ("s", "u") else m.Vs[sew]
        write(dst, g, od, n, r, active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


_VMASK = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
          "nand": lambda a, b: ~(a & b), "andn": lambda a, b: a & ~b, "orn": lambda a, b: a | ~b,
          "nor": lambda a, b: ~(a | b), "xnor": lambda a, b: ~(a ^ b)}


def vmask(d, m, pc):
    fn = _VMASK[d.spec.sem_op]
    vd, vs2, vs1 = d.vd, d.vs2, d.vs1

    def ex(g):
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        res = fn(mask_bits(m, g, vs2, n), mask_bits(m, g, vs1, n))
        write_mask(m, g, vd, n, res, active(m, g, n, 1, tail))
        return None
    return ex


_VRED = {  # op -> (view kind, ufunc, identity(sew))
    "sum": ("u", np.add, lambda s: 0),
    "and": ("u", np.bitwise_and, lambda s: (1 << s) - 1),
    "or": ("u", np.bitwise_or, lambda s: 0),
    "xor": ("u", np.bitwise_xor, lambda s: 0),
    "max": ("s", np.maximum, lambda s: -(1 << (s - 1))),
    "min": ("s", np.minimum, lambda s: (1 << (s - 1)) - 1),
    "maxu": ("u", np.maximum, lambda s: 0),
    "minu": ("u", np.minimum, lambda s: (1 << s) - 1),
}


def _reduction(d, m, view_of, reduce_fn):
    vd, vs2, vs1, vm = d.vd, d.vs2, d.vs1, vm_of(d)

    def inner(g, sew):
        view = view_of(sew)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2 = reg_off(m, vs2, sew, n)
        o1 = reg_off(m, vs1, sew, 1)
        od = reg_off(m, vd, sew, 1)
        r = reduce_fn(view[g, o2:o2 + n], view[g, o1], active(m, g, n, vm, tail), sew)
        if tail is None:
            view[g, od] = r
        else:  # programs with vl = 0 leave vd alone
            view[g, od] = np.where(tail > 0, r, view[g, od])
        return None
    return with_sew(m, inner)


def vred(d, m, pc):
    kind, uf, ident = _VRED[d.spec.sem_op]

    def reduce_fn(x, init, act, sew):
        dt = x.dtype
        if act is not None:
            x = np.where(act, x, np.array(ident(sew)).astype(dt))
        r = uf.reduce(x, axis=1).astype(dt)
        return uf(r, init).astype(dt)
    return _reduction(d, m, lambda s: (m.Vu if kind == "u" else m.Vs)[s], reduce_fn)


def vfred(d, m, pc):
    op = d.spec.sem_op
    if op not in ("usum", "osum", "max", "min"):
        raise KeyError(op)

    def reduce_fn(x, init, act, sew):
        dt = x.dtype
        if op in ("usum", "osum"):
            if act is not None:  # -0.0 is the exact identity of IEEE addition
                x = np.where(act, x, np.array(-0.0, dt))
            if op == "osum":
                cols = np.concatenate([init[:, None], x], axis=1)
                return _canon_nan(np.add.accumulate(cols, axis=1, dtype=dt)[:, -1])
            return _canon_nan(init + np.add.reduce(x, axis=1, dtype=dt))
        if act is not None:
            x = np.where(act, x, np.array(np.nan, dt))
        red = (np.fmax if op == "max" else np.fmin).reduce(x, axis=1)
        return fminmax(red, init, op == "max")
    return _reduction(d, m, lambda s: float_view(m, s), reduce_fn)


FAMILIES = {"valu": valu, "vfalu": vfalu, "vfma": vfma, "vcmp": vcmp, "vfcmp": vfcmp, "vmerge": vmerge,
            "vslide": vslide,
            "vmv": vmv, "vmv_scalar": vmv_scalar, "vid": vid, "vcvt": vcvt, "vfunary": vfunary, "vmask": vmask,
            "vred": vred, "vfred": vfred}
OPS = {"valu": set(_VALU), "vfalu": set(_VFALU), "vfma": {"macc", "nmacc", "msac", "nmsac", "madd", "nmadd", "msub", "nmsub"},
       "vcmp": set(_VCMP), "vfcmp": set(_VFCMP), "vmerge": {"vmerge", "fmerge"}, "vmv": {"v", "x", "i", "f"},
       "vmv_scalar": {"x.s", "s.x", "f.s", "s.f"}, "vid": None, "vcvt": set(_VCVT), "vfunary": {"sqrt"},
       "vmask": set(_VMASK), "vred": set(_VRED), "vfred": {"usum", "osum", "max", "min"},
       "vslide": {"down"}}
