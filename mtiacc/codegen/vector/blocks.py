"""Instruction selection for elementwise block ops: one strip-mined vector loop per op.

(Fusing chains of elementwise ops into one loop is the optimizer's `fuse-elementwise` work.)
"""
from __future__ import annotations

from typing import Dict, List

from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.vector.vloop import Src, VLoop, emit_loop, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.types import i1, i32

# op class -> vector mnemonic (.vv form); the operands are (vs2=lhs, vs1=rhs).
VECTOR_BINARY: Dict[type, str] = {
    O.AddIOp: "vadd.vv", O.SubIOp: "vsub.vv", O.MulIOp: "vmul.vv", O.MulHiUIOp: "vmulhu.vv",
    O.DivSIOp: "vdiv.vv", O.DivUIOp: "vdivu.vv", O.RemSIOp: "vrem.vv", O.RemUIOp: "vremu.vv",
    O.AndIOp: "vand.vv", O.OrIOp: "vor.vv", O.XOrIOp: "vxor.vv",
    O.ShLIOp: "vsll.vv", O.ShRSIOp: "vsra.vv", O.ShRUIOp: "vsrl.vv",
    O.MaxSIOp: "vmax.vv", O.MinSIOp: "vmin.vv", O.MaxUIOp: "vmaxu.vv", O.MinUIOp: "vminu.vv",
    O.AddFOp: "vfadd.vv", O.SubFOp: "vfsub.vv", O.MulFOp: "vfmul.vv", O.DivFOp: "vfdiv.vv",
    O.MaxNumFOp: "vfmax.vv", O.MinNumFOp: "vfmin.vv",
}

# .vv mnemonic -> (its form with a scalar right operand, its form with a scalar left operand or None): a scalar
# operand (a constant, a kernel argument) is read from its x or f register, not splatted into a vector group
SCALAR_FORMS: Dict[str, tuple] = {
    **{f"{m}.vv": (f"{m}.vx", f"{m}.vx") for m in ("vadd", "vmul", "vmulhu", "vand", "vor", "vxor", "vmax", "vmin",
                                                   "vmaxu", "vminu")},
    **{f"{m}.vv": (f"{m}.vx", None) for m in ("vsll", "vsrl", "vsra", "vdiv", "vdivu", "vrem", "vremu")},
    "vsub.vv": ("vsub.vx", "vrsub.vx"),
    **{f"{m}.vv": (f"{m}.vf", f"{m}.vf") for m in ("vfadd", "vfmul", "vfmax", "vfmin")},
    "vfsub.vv": ("vfsub.vf", "vfrsub.vf"), "vfdiv.vv": ("vfdiv.vf", "vfrdiv.vf"),
}

# comparison predicate -> its mnemonic with a scalar right operand (vector PRED scalar); a scalar left operand
# compares with the predicate swapped (s < v is v > s).  RVV has no vmsge.vx / vmsgeu.vx.
SCALAR_COMPARE = {"eq": "vmseq.vx", "ne": "vmsne.vx", "slt": "vmslt.vx", "sle": "vmsle.vx", "sgt": "vmsgt.vx",
                  "ult": "vmsltu.vx", "ule": "vmsleu.vx", "ugt": "vmsgtu.vx",
                  "oeq": "vmfeq.vf", "une": "vmfne.vf", "olt": "vmflt.vf", "ole": "vmfle.vf", "ogt": "vmfgt.vf",
                  "oge": "vmfge.vf"}
SWAPPED = {"eq": "eq", "ne": "ne", "slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle", "ult": "ugt",
           "ule": "uge", "ugt": "ult", "uge": "ule", "oeq": "oeq", "une": "une", "olt": "ogt", "ole": "oge",
           "ogt": "olt", "oge": "ole"}

BOOL_ARITH = {"vadd.vv": "vxor.vv", "vsub.vv": "vxor.vv", "vmul.vv": "vand.vv"}

# predicate -> (mnemonic, swap operands)
INT_COMPARE = {"eq": ("vmseq.vv", False), "ne": ("vmsne.vv", False),
               "slt": ("vmslt.vv", False), "sle": ("vmsle.vv", False),
               "sgt": ("vmslt.vv", True), "sge": ("vmsle.vv", True),
               "ult": ("vmsltu.vv", False), "ule": ("vmsleu.vv", False),
               "ugt": ("vmsltu.vv", True), "uge": ("vmsleu.vv", True)}
FLOAT_COMPARE = {"oeq": ("vmfeq.vv", False), "une": ("vmfne.vv", False),
                 "olt": ("vmflt.vv", False), "ole": ("vmfle.vv", False),
                 "ogt": ("vmflt.vv", True), "oge": ("vmfle.vv", True)}

CASTS = {O.SIToFPOp: "vfcvt.f.x.v", O.UIToFPOp: "vfcvt.f.xu.v",
         O.FPToSIOp: "vfcvt.rtz.x.f.v", O.FPToUIOp: "vfcvt.rtz.xu.f.v"}


def mask_to_bytes(loop: VLoop, group: str) -> str:
    """Turn the mask in v0 into 0/1 bytes (how i1 blocks live in memory) in `group`."""
    loop.ensure(i1)
    loop.b("vmv.v.i", group, 0)
    loop.b("vmerge.vim", group, group, 1, "v0")
    return group


def pick_scalar_form(forms, elem, lhs_scalar, rhs_scalar):
    """``(mnemonic, index of the vector operand, scalar register)`` when one operand of a binary op is a scalar
    that a form of ``forms`` (an entry of SCALAR_FORMS: the forms with a scalar right and left operand) reads from
    its register, given each operand's scalar register or None; floats at f32 and f64 only (how f registers hold
    scalars)."""
    if forms is None or elem.is_bool() or (elem.is_float() and sew_of(elem) < 32):
        return None
    if forms[0] is not None and rhs_scalar is not None and lhs_scalar is None:
        return forms[0], 0, rhs_scalar
    if forms[1] is not None and lhs_scalar is not None and rhs_scalar is None:
        return forms[1], 1, lhs_scalar
    return None


def lower_elementwise(b: MBuilder, op, srcs: List[Src], dst: Src) -> None:
    """Emit the loop computing elementwise `op` from `srcs` into `dst`."""
    n = op.result.type.numel
    loc_comment = op.name
    if any(getattr(v.type.element_type, "kind", "") == "bf16" for v in op.operands) \
            and not isinstance(op, (O.SelectOp, O.BitcastOp)):
        raise CompileError(f"internal: '{op.name}' on bf16 blocks reached codegen (the frontend computes in f32)")

    if type(op) in VECTOR_BINARY:
        mn = VECTOR_BINARY[type(op)]
        elem = op.lhs.type.element_type
        if elem.is_bool():  # 0/1 bytes; arithmetic wraps at one bit: + and - are xor, * is and
            mn = BOOL_ARITH.get(mn, mn)
            if mn not in ("vand.vv", "vor.vv", "vxor.vv"):
                raise CompileError(f"'{op.name}' on i1 blocks is not supported yet")

        scalar = pick_scalar_form(SCALAR_FORMS.get(mn), elem, *(s.scalar if s.is_scalar else None for s in srcs))
        if scalar is not None:   # vector op scalar: the .vx / .vf form, no splat in every strip
            form, i, reg = scalar
            vec = srcs[i]

            def compute_vx(loop: VLoop, g: List[str]) -> str:
                loop.ensure(elem)
                b(form, "v24", g[0], reg)
                return "v24"
            emit_loop(b, n, [vec], dst, compute_vx, comment=loc_comment)
            return

        def compute(loop: VLoop, g: List[str]) -> str:
            loop.ensure(elem)
            b(mn, "v24", g[0], g[1])
            return "v24"
    elif isinstance(op, (O.CmpIOp, O.CmpFOp)):
        table = FLOAT_COMPARE if isinstance(op, O.CmpFOp) else INT_COMPARE
        if op.predicate not in table and op.predicate != "one":
            raise CompileError(f"comparison predicate '{op.predicate}' on blocks is not supported yet")
        elem = op.lhs.type.element_type

        def compute(loop: VLoop, g: List[str]) -> str:
            loop.ensure(elem)
            if op.predicate == "one":
                b("vmflt.vv", "v24", g[1], g[0])
                b("vmflt.vv", "v0", g[0], g[1])
                b("vmor.mm", "v0", "v0", "v24")
            else:
                mn, swap = table[op.predicate]
                x, y = (g[1], g[0]) if swap else (g[0], g[1])
                b(mn, "v0", x, y)
            return mask_to_bytes(loop, "v24")
    elif isinstance(op, O.SelectOp):
        elem = op.result.type.element_type

        def compute(loop: VLoop, g: List[str]) -> str:
            loop.ensure(i1)
            b("vmsne.vi", "v0", g[0], 0)
            loop.ensure(elem)
            b("vmerge.vvm", "v8", g[2], g[1], "v0")
            return "v8"
    elif isinstance(op, O.NegFOp):
        elem = op.result.type.element_type

        def compute(loop: VLoop, g: List[str]) -> str:
            loop.ensure(elem)
            b("vfsgnjn.vv", "v24", g[0], g[0])
            return "v24"
    elif type(op) in CASTS and sew_of(op.src.type) == sew_of(op.result.type):
        mn = CASTS[type(op)]

        def compute(loop: VLoop, g: List[str]) -> str:
            loop.ensure(op.result.type)
            b(mn, "v24", g[0])
            return "v24"
    elif isinstance(op, O.BitcastOp) and sew_of(op.src.type) == sew_of(op.result.type):
        def compute(loop: VLoop, g: List[str]) -> str:
            return g[0]
    else:
        raise CompileError(f"'{op.name}' on blocks of {op.result.type} is not supported yet")
    emit_loop(b, n, srcs, dst, compute, comment=loc_comment)


def lower_fill(b: MBuilder, n, value: Src, dst: Src) -> None:
    """dst[i] = value for i < n (a splat or a block constant, or `other` of a masked load)."""
    emit_loop(b, n, [value], dst, lambda loop, g: g[0], comment="fill")


def lower_make_range(b: MBuilder, start: int, n: int, dst: Src) -> None:
    index = b.li(start, "idx")

    def compute(loop: VLoop, g: List[str]) -> str:
        loop.ensure(i32)
        b("vid.v", "v24")
        b("vadd.vx", "v24", "v24", index)
        return "v24"

    emit_loop(b, n, [], dst, compute, index=index, comment="tt.make_range")


def as_scalar_src(elem, reg: VReg) -> Src:
    return Src(elem, scalar=reg)
