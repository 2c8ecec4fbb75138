"""``contract-fma``: a float multiply whose product only an add reads becomes a fused multiply-add.

Triton compiles with ``enable_fp_fusion=True`` unless a kernel's launch says otherwise: its GPU backends let LLVM
contract ``a * b + c`` into one fused multiply-add, rounded once.  mtiacc does the same on the IR, so that a
kernel computes what Triton's backends compute and a multiply-add is one instruction (``vfmacc`` / ``vfmadd``,
``fmadd.s``): ``arith.addf(arith.mulf(a, b), c)``, either operand order, becomes ``math.fma(a, b, c)`` (at the
add's location) when

* the add is the multiply's only user (a product read elsewhere stays rounded, for every reader alike), and
* in the same block (the product of a loop-invariant multiply stays outside the loop), and
* the type is f32 or f64, scalar or block, and
* neither factor is a bool converted to a float (``keep.to(tl.float32) * x``, dropout's): that product is exact
  (``x``, ``0.0 * x`` or ``-x``), so rounding it changes nothing, and codegen computes it as a masked multiply
  (codegen/vector/masks.py), cheaper than a merge and a fused multiply-add.

A subtraction stays a multiply and a subtract.  ``mtiacc --no-fp-fusion`` (``Options.fp_fusion = False``,
``mtiacc.compile(..., fp_fusion=False)``, the Triton backend's ``enable_fp_fusion=False``) leaves the pass out.
"""
from __future__ import annotations

import dataclasses

from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult
from mtiacc.ir.types import f32, f64
from mtiacc.opt.pass_manager import ModulePass, register_pass


def _product(v, block):
    """The ``arith.mulf`` defining ``v`` when only one op reads it and it is in ``block``, else None."""
    if isinstance(v, OpResult) and isinstance(v.op, O.MulFOp) and v.op.parent is block and len(v.uses) == 1:
        return v.op
    return None


def _bool_number(v) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, (O.UIToFPOp, O.SIToFPOp)) \
        and v.op.src.type.element_type.is_bool()


def contract(module) -> int:
    """Rewrite every contractible add in ``module``; the number rewritten."""
    done = 0
    for add in [op for op in module.walk() if isinstance(op, O.AddFOp)]:
        if add.result.type.element_type not in (f32, f64):
            continue
        for p, c in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
            mul = _product(p, add.parent)
            if mul is None or mul.result.type != add.result.type or _bool_number(mul.lhs) or _bool_number(mul.rhs):
                continue
            fma = O.MathFmaOp.get(mul.lhs, mul.rhs, c, loc=add.loc)
            add.parent.insert_before(add, fma)
            fma.result.name_hint = add.result.name_hint
            add.result.replace_all_uses_with(fma.result)
            add.erase()
            mul.erase()
            done += 1
            break
    return done


@register_pass
@dataclasses.dataclass(frozen=True)
class ContractFma(ModulePass):
    name = "contract-fma"

    def run(self, module) -> bool:
        return contract(module) > 0      # False: nothing changed, no verification needed
