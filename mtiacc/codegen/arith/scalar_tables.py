"""The scalar op tables (IR op -> RV64 mnemonic) and the helpers both ``scalar.py`` (i1/i32/i64/f32/f64)
and ``scalar_narrow.py`` (i8/i16 and f16/bf16, computed in the wide types) emit with.

f32 scalars use the ``.s`` rows; f64 use the ``.d`` rows (same table entries with the suffix swapped,
:func:`fmn`).
"""
from __future__ import annotations

from typing import Dict, Tuple

from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import FloatType, Type

# op class -> (mnemonic for <= 32-bit ints, mnemonic for 64-bit ints / pointers)
INT_BINARY: Dict[type, Tuple[str, str]] = {
    O.AddIOp: ("addw", "add"), O.SubIOp: ("subw", "sub"), O.MulIOp: ("mulw", "mul"),
    O.DivSIOp: ("divw", "div"), O.DivUIOp: ("divuw", "divu"),
    O.RemSIOp: ("remw", "rem"), O.RemUIOp: ("remuw", "remu"),
    O.AndIOp: ("and", "and"), O.OrIOp: ("or", "or"), O.XOrIOp: ("xor", "xor"),
    O.ShLIOp: ("sllw", "sll"), O.ShRSIOp: ("sraw", "sra"), O.ShRUIOp: ("srlw", "srl"),
}
FLOAT_BINARY = {O.AddFOp: "fadd.s", O.SubFOp: "fsub.s", O.MulFOp: "fmul.s", O.DivFOp: "fdiv.s",
                O.MaxNumFOp: "fmax.s", O.MinNumFOp: "fmin.s"}
MINMAX = {O.MaxSIOp: ("bge", False), O.MinSIOp: ("blt", False),
          O.MaxUIOp: ("bgeu", False), O.MinUIOp: ("bltu", False)}


def fmn(mnemonic: str, t: Type) -> str:
    """The ``.d`` row of an ``.s`` mnemonic when ``t`` is f64 (``fadd.s`` -> ``fadd.d``)."""
    if isinstance(t.element_type, FloatType) and t.element_type.kind == "f64":
        return mnemonic[:-2] + ".d" if mnemonic.endswith(".s") else mnemonic.replace(".s.", ".d.")
    return mnemonic


def f64_to_f32_odd(b: MBuilder, r: VReg) -> VReg:
    """f64 ``r`` rounded to f32 *to odd* (truncate, then set the last bit if inexact): rounding that to a half
    afterwards rounds once, correctly (f32 has more than two bits beyond f16's and bf16's precision)."""
    s, back, eq, bits, out = b.f(), b.f(), b.x(), b.x(), b.f()
    b("fcvt.s.d", s, r, "rtz")
    b("fcvt.d.s", back, s)
    b("feq.d", eq, back, r)
    b("xori", eq, eq, 1)
    b("fmv.x.w", bits, s)
    b("or", bits, bits, eq)
    b("fmv.w.x", out, bits)
    return out


def cmpf(b: MBuilder, pred: str, a: VReg, c: VReg, t: Type = FloatType("f32")) -> VReg:
    """``a pred c`` on f32 (or, with ``t`` f64, f64) registers, as 0/1 in an x register."""
    r = b.x("cmp")
    table = {"oeq": ("feq.s", a, c, False), "une": ("feq.s", a, c, True),
             "olt": ("flt.s", a, c, False), "ole": ("fle.s", a, c, False),
             "ogt": ("flt.s", c, a, False), "oge": ("fle.s", c, a, False),
             "uge": ("flt.s", a, c, True), "ugt": ("fle.s", a, c, True),
             "ule": ("flt.s", c, a, True), "ult": ("fle.s", c, a, True)}
    if pred == "one":
        u = b.x()
        b(fmn("flt.s", t), r, a, c)
        b(fmn("flt.s", t), u, c, a)
        b("or", r, r, u)
        return r
    if pred not in table:
        raise CompileError(f"float predicate '{pred}' is not supported")
    mn, x, y, invert = table[pred]
    b(fmn(mn, t), r, x, y)
    if invert:
        b("xori", r, r, 1)
    return r
