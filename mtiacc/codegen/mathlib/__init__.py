"""The device math library: ``math.*`` ops as RVV instruction sequences, at f32 and f64.

This module is the registry: it assembles the table of expansions per element width and holds the
entry points codegen calls (``is_math``, ``expansion``, ``lower_math``, ``lower_math_scalar``).
f16 and bf16 operands are converted to f32 by the frontend before they get here (and the results
back), so the widths are f32 and f64.  The library, bottom up (each module imports only those
listed before it; this one imports them all):

- ``base``: the width descriptors (``F32``, ``F64``), the emitter ``VMath`` and its building blocks
  (Horner, Clenshaw, 2^n scaling, TwoSum), exact constants (pi, Taylor coefficients);
- ``rounding``: floor, ceil, trunc, rint, sqrt, rsqrt, fma;
- ``exp_log``: exp, exp2, expm1, log, log2, log10, log1p, tanh, sinh, cosh;
- ``trig``: sin, cos (with their reductions by pi/2), tan;
- ``inverse``: atan, atan2, asin, acos, asinh, acosh, atanh;
- ``special``: erf, erfc, erfinv, lgamma;
- ``powers``: pow (C99's special cases included), cbrt, hypot;
- ``fit``, ``f64_fit``: the scripts that derived the fitted tables (``python -m`` them; not imported);
- ``se``: which functions the SIMD engine computes instead (``mtia.se.*``: one instruction, the table's
  accuracy), by default and under ``fast_math``; the entry points take the chosen ops as ``se``.

Functions offered at both widths are written once where the algorithm is the same (exp, exp2,
expm1, log1p, tanh, the log reduction, rounding, pow's special cases); erf, sin/cos, pow and the
last steps of log/log2 differ by width and say why where they are defined.
"""
from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List

from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.mathlib import exp_log, inverse, powers, rounding, se as se_unit, special, trig
from mtiacc.codegen.mathlib.base import F32, F64, VMath, Width, abs_
from mtiacc.codegen.vector.vloop import Src, VLoop, emit_loop
from mtiacc.diagnostics import CompileError
from mtiacc.ir.types import f32, f64

# op name -> body, for the ops offered at both widths and for those offered at f32 only
BOTH_WIDTHS: Dict[str, Callable] = {
    "math.exp": exp_log.exp, "math.exp2": exp_log.exp2, "math.log": exp_log.log, "math.log2": exp_log.log2,
    "math.log1p": exp_log.log1p, "math.expm1": exp_log.expm1, "math.tanh": exp_log.tanh,
    "math.erf": special.erf, "math.sin": trig.sin, "math.cos": trig.cos, "math.powf": powers.powf,
    "math.fma": rounding.fma,       # vfmacc rounds once at every SEW
}
F32_ONLY: Dict[str, Callable] = {
    "math.sqrt": rounding.sqrt, "math.rsqrt": rounding.rsqrt, "math.absf": abs_,
    "math.floor": rounding.floor, "math.ceil": rounding.ceil, "math.trunc": rounding.trunc,
    "math.rint": rounding.rint,
    "math.tan": trig.tan, "math.atan": inverse.atan, "math.atan2": inverse.atan2, "math.asin": inverse.asin,
    "math.acos": inverse.acos, "math.sinh": exp_log.sinh, "math.cosh": exp_log.cosh,
    "math.asinh": inverse.asinh, "math.acosh": inverse.acosh, "math.atanh": inverse.atanh,
    "math.log10": exp_log.log10, "math.cbrt": powers.cbrt, "math.hypot": powers.hypot,
    "math.erfc": special.erfc, "math.erfinv": special.erfinv, "math.lgamma": special.lgamma,
}


def _at(w: Width, fn: Callable) -> Callable:
    """``fn`` run at width ``w`` (it sets the emitter's width, which the body reads)."""
    def run(e: VMath, *args: str) -> str:
        e.w = w
        return fn(e, *args)
    run.__name__ = fn.__name__
    return run


EXPANSIONS: Dict[Width, Dict[str, Callable]] = {
    F32: {name: _at(F32, fn) for name, fn in {**BOTH_WIDTHS, **F32_ONLY}.items()},
    F64: {name: _at(F64, fn) for name, fn in BOTH_WIDTHS.items()},
}


NO_SE: FrozenSet[str] = frozenset()


def expansion(op, se: FrozenSet[str] = NO_SE) -> Callable:
    """The expansion of math op ``op`` for its element type (a CompileError for a width it lacks); an f32 op named
    ``se`` names (:func:`se_unit.se_ops`, :func:`se_unit.on_se`) is one SE instruction."""
    elem = op.result.type.element_type
    if elem == f32 and se_unit.on_se(op, se):
        return se_unit.body(op.name)
    if elem == f64:
        if op.name not in EXPANSIONS[F64]:
            raise CompileError(f"'{op.name}' on f64 is not supported yet")
        return EXPANSIONS[F64][op.name]
    if elem != f32:
        raise CompileError(f"'{op.name}' on {elem} is not supported yet (the frontend computes in f32)")
    return EXPANSIONS[F32][op.name]


def is_math(op) -> bool:
    return op.name in EXPANSIONS[F32]


def _materialize(b: MBuilder, consts: Dict[tuple, VReg]) -> None:
    """Load the constants a dry run collected: x registers, and f registers through their bits."""
    for key in consts:
        kind, value = key
        if kind == "x":
            consts[key] = b.li(value, "k")
        else:   # "f" (f32 bits) or "d" (f64 bits); +0.0 straight from the zero register
            r = b.f("k")
            b("fmv.d.x" if kind == "d" else "fmv.w.x", r, "zero" if value == 0 else b.li(value))
            consts[key] = r


def lower_math(b: MBuilder, op, srcs: List[Src], dst: Src, se: FrozenSet[str] = NO_SE) -> None:
    """Emit the strip-mined loop computing math op `op` from `srcs` into `dst` (on the SE if `op` is in `se`)."""
    elem = op.result.type.element_type
    if elem == f64 and op.name == "math.sqrt":   # the frontend keeps only sqrt in f64
        def compute64(loop: VLoop, g: List[str]) -> str:
            loop.ensure(f64)
            b("vfsqrt.v", g[0], g[0])
            return g[0]
        emit_loop(b, op.result.type.numel, srcs, dst, compute64, comment=op.name, lmul=4)
        return
    fn = expansion(op, se)
    consts: Dict[tuple, VReg] = {}
    fn(VMath(b, consts, dry=True), *("v8", "v16", "v24")[:len(srcs)])
    _materialize(b, consts)

    def compute(loop: VLoop, g: List[str]) -> str:
        loop.ensure(elem)
        return fn(VMath(b, consts, dry=False), *g)

    emit_loop(b, op.result.type.numel, srcs, dst, compute, comment=op.name, lmul=2)


def lower_math_scalar(b: MBuilder, op, get, se: FrozenSet[str] = NO_SE) -> VReg:
    """A math op on scalars: run the vector expansion (or the SE instruction) with vl = 1."""
    if op.result.type == f64 and op.name == "math.sqrt":
        r = b.f("math")
        b("fsqrt.d", r, get(op.operands[0]))
        return r
    fn = expansion(op, se)
    consts: Dict[tuple, VReg] = {}
    fn(VMath(b, consts, dry=True), *("v8", "v16", "v24")[:len(op.operands)])
    _materialize(b, consts)
    vl = b.x("vl")
    b("vsetivli", vl, 1, (F64 if op.result.type == f64 else F32).vtype())
    groups = []
    for g, v in zip(("v8", "v16", "v24"), op.operands):
        b("vfmv.s.f", g, get(v))
        groups.append(g)
    res = fn(VMath(b, consts, dry=False), *groups)
    r = b.f("math")
    b("vfmv.f.s", r, res)
    return r


se_ops = se_unit.se_ops

__all__ = ["VMath", "expansion", "is_math", "lower_math", "lower_math_scalar", "EXPANSIONS", "se_ops", "NO_SE"]
