"""The SIMD engine's functions, ``mtia.se.<function>.v vd, vs2[, v0.t]``: ``vd[i] = f(vs2[i])`` for the body
elements at SEW 32 or 16 (fp32, fp16); masked-off and tail elements keep their old values, as in RVV.

The values are the SE's table approximation (:func:`mtiasim.se.model.evaluate`, with the accuracy the machine
YAML's ``se.functions`` gives each function), not the correctly rounded result.

Its floating-point ALUs, ``mtia.se.f<op>.vv vd, vs2, vs1`` / ``.vf vd, vs2, fs1``: the vector unit's ``vf<op>``
(IEEE, rounded to nearest even, NaN canonical) at SEW 32 or 16 only; ``mtia.se.fncvt.f.f.w vd, vs2``: the vector
unit's ``vfncvt.f.f.w`` (fp32 to fp16) at SEW 16 only.
"""
from __future__ import annotations

from ..faults import SimFault
from ..se.model import EXACT, evaluate
from .common import vm_of
from .convert_debug import _NARROW
from .varith import _VFALU, _elementwise
from .vcommon import active, float_view, reg_off, vl_of, with_sew, write


def se(d, m, pc):
    fn = d.spec.sem_op
    acc = m.cfg.se.accuracy(fn)
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)

    def inner(g, sew):
        if sew not in (16, 32):
            raise SimFault(f"'{d.spec.name}' with SEW={sew}: the SIMD engine computes fp32 (e32) and fp16 (e16)")
        view = float_view(m, sew)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2 = reg_off(m, vs2, sew, n)
        od = reg_off(m, vd, sew, n)
        write(view, g, od, n, evaluate(fn, view[g, o2:o2 + n], acc), active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


def se_alu(d, m, pc):
    fn = _VFALU[d.spec.sem_op]

    def checked(a, b, sew):
        if sew not in (16, 32):
            raise SimFault(f"'{d.spec.name}' with SEW={sew}: the SIMD engine computes fp32 (e32) and fp16 (e16)")
        return fn(a, b, sew)
    return _elementwise(d, m, "f", checked)


def se_cvt(d, m, pc):
    """``mtia.se.fncvt.f.f.w``: the vector unit's ``vfncvt.f.f.w`` at SEW 16 (fp32 in, fp16 out) only."""
    narrow = _NARROW["f.f"][2]
    vd, vs2, vm = d.vd, d.vs2, vm_of(d)

    def inner(g, sew):
        if sew != 16:
            raise SimFault(f"'{d.spec.name}' with SEW={sew}: the SIMD engine converts fp32 to fp16 (e16) only")
        src, dst = float_view(m, 32), float_view(m, 16)
        n, tail = vl_of(m, g)
        if n == 0:
            return None
        o2, od = reg_off(m, vs2, 32, n), reg_off(m, vd, 16, n)
        write(dst, g, od, n, narrow(src[g, o2:o2 + n], 16), active(m, g, n, vm, tail))
        return None
    return with_sew(m, inner)


FAMILIES = {"se": se, "se_alu": se_alu, "se_cvt": se_cvt}
OPS = {"se": set(EXACT), "se_alu": {"add", "sub", "rsub", "mul", "min", "max"}, "se_cvt": {"ncvt"}}
