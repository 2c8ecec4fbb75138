"""Where a fused loop's masks go: straight into ``v0``, and multiplies by a bool that become masked multiplies.

A fused loop (``codegen/tensor/fused.py``) keeps an ``i1`` value in a register group and copies it into ``v0`` (``vmmv.m``, one
instruction as long as any other) right before the op that reads it as a mask.  Two patterns need less:

* **A compare straight into v0.**  A compare whose only reader takes it as its mask (a select, a bool cast, a
  masked multiply below) writes ``v0`` itself when nothing between the two writes ``v0``: the copy goes.
* **A multiply by a bool, masked.**  ``uitofp(m) * x`` (Inductor's dropout: ``keep.to(tl.float32) * x``) is
  ``x`` where ``m`` holds (``1.0 * x`` is ``x``: LLVM folds it the same way) and ``0.0 * x`` elsewhere.  One
  multiply by ``0.0`` under the mask ``not m``, the other elements undisturbed, computes it in ``x``'s register:
  one instruction where the cast and the multiply took four (``vmmv.m``, ``vmv.v.i``, ``vmerge.vxm``,
  ``vfmul.vv``).  ``0.0 * x`` keeps its IEEE meaning (``-0.0`` for a negative ``x``, NaN for an infinite one).
  ``not m`` is the compare's inverted predicate when ``m`` is an integer compare written into ``v0`` (the
  inverse of ``ugt`` is ``ule``, exactly), else one ``vmnand.mm``.  The loop then runs mask-undisturbed
  (``ta, mu``).

:func:`plan` finds both in a region's ops; the loop's emission follows it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Set

from mtiacc.codegen import mathlib
from mtiacc.codegen.vector.blocks import CASTS, VECTOR_BINARY
from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.fused import BOOL_CASTS
from mtiacc.ir.types import f32, f64

# an integer predicate -> the predicate true exactly where it is false
INVERSE = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sle": "sgt", "sgt": "sle",
           "ult": "uge", "uge": "ult", "ule": "ugt", "ugt": "ule"}


@dataclass
class MaskedMul:
    cast: int           # the index of the ``uitofp(m)`` op (it emits nothing)
    mask: Value         # ``m``
    x: Value            # the other factor


@dataclass
class Plan:
    masked: Dict[int, MaskedMul] = field(default_factory=dict)   # op index of the multiply -> its pattern
    to_v0: Dict[int, bool] = field(default_factory=dict)         # op index of a compare -> whether v0 gets its inverse
    reader: Dict[int, int] = field(default_factory=dict)         # op index of such a compare -> the op reading v0
    skip: Set[int] = field(default_factory=set)                  # ops that emit nothing (the casts above)

    @property
    def policy(self) -> str:
        return "ta, mu" if self.masked else "ta, ma"


def _uses(ops: List) -> Dict[Value, List[int]]:
    uses: Dict[Value, List[int]] = {}
    for j, op in enumerate(ops):
        for v in op.operands:
            uses.setdefault(v, []).append(j)
    return uses


def _bool_to_float(v: Value, ops_at: Dict[object, int]):
    """The index of ``uitofp(m)`` (``m`` i1, the result f32 or f64) defining ``v`` in the region, else None."""
    if isinstance(v, OpResult) and isinstance(v.op, O.UIToFPOp) and v.op.src.type.element_type.is_bool() \
            and v.type.element_type in (f32, f64):
        return ops_at.get(v.op)
    return None


def plan(ops: List, stores: Dict[Value, object]) -> Plan:
    """The two patterns in ``ops`` (a fused region's ops, constants left out); ``stores``: values written out."""
    p = Plan()
    uses = _uses(ops)
    at = {op: j for j, op in enumerate(ops)}
    for j, op in enumerate(ops):
        if not (isinstance(op, O.MulFOp) and op.result.type.element_type in (f32, f64)) or op.lhs is op.rhs:
            continue
        for c, x in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            i = _bool_to_float(c, at)
            if i is not None and uses.get(c) == [j] and c not in stores:
                p.masked[j] = MaskedMul(i, ops[i].src, x)
                p.skip.add(i)
                break
    for j, op in enumerate(ops):
        if not isinstance(op, (O.CmpIOp, O.CmpFOp)) or op.predicate == "one" or op.result in stores \
                or op.operands[0].type.element_type.is_bool():
            continue
        readers = uses.get(op.result, [])
        if len(readers) != 1:
            continue
        k = readers[0]
        reader, invert = ops[k], False
        if k in p.skip:        # the cast of a masked multiply: v0 is read at the multiply, as ``not m``
            k = next(m for m, mm in p.masked.items() if mm.cast == k)
            invert = True
        elif not ((isinstance(reader, O.SelectOp) and reader.operands[0] is op.result
                   and not reader.result.type.element_type.is_bool())
                  or isinstance(reader, BOOL_CASTS)):
            continue
        if all(_keeps_v0(ops[m], m, p, stores) for m in range(j + 1, k)):
            p.to_v0[j] = invert
            p.reader[j] = k
    return p


def _keeps_v0(op, j: int, p: Plan, stores) -> bool:
    """Whether op ``j`` leaves ``v0`` alone (it writes it to read a mask, or to store an i1 result)."""
    if j in p.skip:
        return True
    if isinstance(op, O.MathFmaOp):     # vfmacc / vfmadd, never masked
        return True
    if j in p.masked or mathlib.is_math(op):
        return False
    if op.result.type.element_type.is_bool() and op.result in stores:
        return False
    if isinstance(op, (O.CmpIOp, O.CmpFOp)):
        return op.predicate != "one"
    if type(op) in VECTOR_BINARY:    # mask ops on i1 write their own group
        return True
    if type(op) in CASTS or isinstance(op, O.BitcastOp):
        return not op.operands[0].type.element_type.is_bool()
    return isinstance(op, O.NegFOp)
