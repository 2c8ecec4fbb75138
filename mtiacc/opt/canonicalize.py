"""``canonicalize``: constant folding, algebraic identities and mask simplification, to a fixed point.

* Folding asks each op's ``fold()`` hook (see ``mtiacc.ir.ops``): a constant result becomes an
  ``arith.constant`` (a block constant for a block result), an existing value replaces the op.
* Identities are data, below: ``(op, constant operand, result)`` with the constant on the
  right-hand side (either side for commutative ops).  Float identities are only the exact ones
  (``x + -0.0``, ``x - 0.0``, ``x * 1.0``, ``x / 1.0``; ``x + 0.0`` is not ``x`` for ``x = -0.0``).
* Masks: a load or store whose mask is a constant true drops the mask (and ``other``); a store
  whose mask is a constant false is removed; a load whose mask is a constant false is its ``other``.
* Scaled compares: ``float(x) * c > p`` (``x`` an i32, ``c > 0`` and ``p`` fp32 constants; also ``>=``, ``<``,
  ``<=``) is ``x > t`` with the integer ``t`` at which the rounded product crosses ``p``: ``x -> fl(fl(x) * c)``
  never decreases, so the compare splits the i32 range at one point, found by bisection over the exact fp32
  arithmetic (numpy's).  Dropout's ``tl.rand(seed, offs) > p`` then compares the random word without converting
  it (two vector instructions a element fewer), bit for bit the same decision.
* Folded compares: ``(x ^ (x >> 31)) > t`` (an i32 ``x``, an arithmetic shift, ``0 <= t`` and ``2t + 2 < 2^31``;
  ``>=``, ``<``, ``<=`` as ``> t'`` or its negation) holds for ``x`` in ``[t + 1, 2^31)`` and ``[-2^31, -t - 2]``,
  which ``x + t + 1`` (wrapping) maps onto the unsigned ``[2t + 2, 2^32)``: ``x + (t + 1) >u 2t + 1``, an add and a
  compare instead of a shift, an xor and a compare (``uint_to_uniform_float``'s fold, after the scaled compare).
* Dots: ``acc + tt.dot(a, b, 0)``, the dot used only there, is ``tt.dot(a, b, acc)`` (Triton's combine
  pass does the same: ``acc += tl.dot(a, b)`` accumulates in place).  And ``tl.sum(x[:, :, None] * y[None, :, :],
  axis=1)`` of fp32 ``x`` (M x K) and ``y`` (K x N), M, N, K >= 16, is ``tt.dot(x, y, 0)`` with exact (``ieee``)
  products, as Triton's combine pass rewrites it: the M x K x N product block is never built (the order of a
  sum's additions is not specified).

* Extremes of an index range: ``tl.min(s + tl.arange(0, n))`` is ``s`` and ``tl.max`` is ``s + n - 1``, unless
  the sequence wraps in its type (``s + n - 1`` below ``s``, wrapping), where it holds the type's extremes:
  three scalar ops instead of a block and a reduction (Inductor's ``rand4x`` takes ``tl.min(offsets)``).

An op replaced by a rewrite is erased; other dead ops are left to ``dce``.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir import scf
from mtiacc.ir.analysis.affine import index_range
from mtiacc.ir.core import Block, Commutative, ConstantLike, Operation, Pure, Value
from mtiacc.ir.dot_ops import DotOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReduceOp
from mtiacc.ir.folding import as_unsigned
from mtiacc.ir.types import f32, i32
from mtiacc.opt.pass_manager import ModulePass, register_pass

# --------------------------------------------------------------------------- identities as data

ZERO = ("0", lambda c, t: c == 0 and not (isinstance(c, float) and math.copysign(1, c) < 0))
NEG_ZERO = ("-0.0", lambda c, t: isinstance(c, float) and c == 0 and math.copysign(1, c) < 0)
ONE = ("1", lambda c, t: c == 1)
ALL_ONES = ("-1", lambda c, t: t.is_int() and as_unsigned(c, t) == (1 << t.width) - 1)
X, C = "x", "c"  # the result is the other operand (x), or the constant operand itself (c)

#   op            constant  result       reads as
IDENTITIES = (
    (O.AddIOp,    ZERO,     X),        # x + 0  -> x
    (O.SubIOp,    ZERO,     X),        # x - 0  -> x
    (O.MulIOp,    ONE,      X),        # x * 1  -> x
    (O.MulIOp,    ZERO,     C),        # x * 0  -> 0
    (O.DivSIOp,   ONE,      X),        # x / 1  -> x
    (O.DivUIOp,   ONE,      X),
    (O.AndIOp,    ALL_ONES, X),        # x & -1 -> x
    (O.AndIOp,    ZERO,     C),        # x & 0  -> 0
    (O.OrIOp,     ZERO,     X),        # x | 0  -> x
    (O.OrIOp,     ALL_ONES, C),        # x | -1 -> -1
    (O.XOrIOp,    ZERO,     X),        # x ^ 0  -> x
    (O.ShLIOp,    ZERO,     X),        # x << 0 -> x
    (O.ShRSIOp,   ZERO,     X),        # x >> 0 -> x
    (O.ShRUIOp,   ZERO,     X),
    (O.AddFOp,    NEG_ZERO, X),        # x + -0.0 -> x
    (O.SubFOp,    ZERO,     X),        # x - 0.0  -> x
    (O.MulFOp,    ONE,      X),        # x * 1.0  -> x
    (O.DivFOp,    ONE,      X),        # x / 1.0  -> x
    (O.AddPtrOp,  ZERO,     X),        # p + 0  -> p
)

# x op x: the result is x itself, or a zero constant
SAME_OPERANDS = {O.AndIOp: X, O.OrIOp: X, O.MinSIOp: X, O.MaxSIOp: X, O.MinUIOp: X, O.MaxUIOp: X,
                 O.SubIOp: 0, O.XOrIOp: 0}


class Rewriter:
    """Replaces ops in place, keeping uses and locations right."""

    def __init__(self):
        self.changed = False     # an op was replaced or erased: sweep again
        self.made = False        # a constant was inserted (by a pattern that may still have failed)

    def constant(self, value, type, before: Operation) -> Value:
        c = O.ConstantOp.get(value, type, loc=before.loc)
        before.parent.insert_before(before, c)
        self.made = True
        return c.result

    def replace(self, op: Operation, value: Value) -> None:
        op.result.replace_all_uses_with(value)
        op.erase()
        self.changed = True

    def replace_with_op(self, op: Operation, new: Operation) -> None:
        new.loc = op.loc
        op.parent.insert_before(op, new)
        for old, repl in zip(op.results, new.results):
            repl.name_hint = old.name_hint
            old.replace_all_uses_with(repl)
        op.erase()
        self.changed = True

    def erase(self, op: Operation) -> None:
        op.erase()
        self.changed = True


def fold(rw: Rewriter, op: Operation) -> bool:
    if ConstantLike in op.traits or len(op.results) != 1:
        return False
    r = op.fold()
    if r is None or r is op.result:
        return False
    if isinstance(r, Value):
        if r.type != op.result.type:
            return False
        rw.replace(op, r)
    else:
        c = rw.constant(r, op.result.type, op)
        c.name_hint = op.result.name_hint  # the folded value keeps its source name
        rw.replace(op, c)
    return True


def identities(rw: Rewriter, op: Operation) -> bool:
    if Pure not in op.traits or len(op.operands) != 2:
        return False
    a, b = op.operands
    if a is b and type(op) in SAME_OPERANDS:
        what = SAME_OPERANDS[type(op)]
        rw.replace(op, a if what == X else rw.constant(what, op.result.type, op))
        return True
    orders = [(a, b), (b, a)] if Commutative in op.traits else [(a, b)]
    for cls, (_, matches), result in IDENTITIES:
        if not isinstance(op, cls):
            continue
        for x, c in orders:
            value = O.const_value(c)
            if value is not None and matches(value, c.type.element_type):
                chosen = x if result == X else c
                if chosen.type == op.result.type:
                    rw.replace(op, chosen)
                    return True
    return False


def _mask_value(mask: Optional[Value]):
    return None if mask is None else O.const_value(mask)


def masks(rw: Rewriter, op: Operation) -> bool:
    if isinstance(op, O.LoadOp):
        m = _mask_value(op.mask)
        if m is True:
            rw.replace_with_op(op, O.LoadOp.get(op.ptr, attrs=dict(op.attrs)))
            return True
        if m is False and op.other is not None:
            rw.replace(op, op.other)
            return True
    elif isinstance(op, O.StoreOp):
        m = _mask_value(op.mask)
        if m is True:
            rw.replace_with_op(op, O.StoreOp.get(op.ptr, op.value, attrs=dict(op.attrs)))
            return True
        if m is False:
            rw.erase(op)
            return True
    return False


def constant_if(rw: Rewriter, op: Operation) -> bool:
    """``scf.if`` on a constant condition becomes the ops of the taken branch."""
    if isinstance(op, scf.IfOp) and O.const_value(op.cond) is not None:
        scf.inline_taken_branch(op, bool(O.const_value(op.cond)))
        rw.changed = True
        return True
    return False


def _zero_block(v: Value) -> bool:
    op = getattr(v, "op", None)
    if isinstance(op, O.SplatOp):
        v = op.src
    c = O.const_value(v)
    return c is not None and not isinstance(c, bool) and c == 0


def dot_accumulate(rw: Rewriter, op: Operation) -> bool:
    """``acc + tt.dot(a, b, 0)`` -> ``tt.dot(a, b, acc)``."""
    if not isinstance(op, (O.AddFOp, O.AddIOp)):
        return False
    for d, acc in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        dot = getattr(d, "op", None)
        if isinstance(dot, DotOp) and len(d.uses) == 1 and _zero_block(dot.acc) and acc.type == d.type:
            rw.replace_with_op(op, DotOp([dot.a, dot.b, acc], [acc.type], dict(dot.attrs)))
            dot.erase()
            return True
    return False


def _expanded(v: Value, axis: int) -> Optional[Value]:
    """``x`` when ``v`` is ``broadcast(expand_dims(x, axis))`` (or the expand alone), else None."""
    op = getattr(v, "op", None)
    if isinstance(op, O.BroadcastOp):
        op = getattr(op.src, "op", None)
    if isinstance(op, ExpandDimsOp) and op.axis == axis:
        return op.src
    return None


def broadcast_mul_reduce(rw: Rewriter, op: Operation) -> bool:
    """``tl.sum(x[:, :, None] * y[None, :, :], axis=1)`` -> ``tt.dot(x, y, 0)`` (fp32, ``ieee``)."""
    if not (isinstance(op, ReduceOp) and not op.regions and op.kind == "sum" and op.axis == 1
            and len(op.src.type.shape) == 3 and op.src.type.element_type == f32):
        return False
    mul = getattr(op.src, "op", None)
    if not isinstance(mul, O.MulFOp) or len(op.src.uses) != 1:
        return False
    for a, b in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
        x, y = _expanded(a, 2), _expanded(b, 0)
        if x is None or y is None:
            continue
        (m, k), (k2, n) = x.type.shape, y.type.shape
        if k != k2 or min(m, n, k) < 16 or x.type.element_type != f32 or y.type.element_type != f32:
            return False
        zero = O.ConstantOp.get(0.0, op.result.type, loc=op.loc)
        op.parent.insert_before(op, zero)
        rw.replace_with_op(op, DotOp.get(x, y, zero.result, input_precision="ieee"))
        mul.erase()
        return True
    return False


def _splat_constant(v: Value):
    """The element of a constant block or scalar (through splats and broadcasts), else None."""
    op = getattr(v, "op", None)
    while isinstance(op, (O.SplatOp, O.BroadcastOp)):
        v = op.operands[0]
        op = getattr(v, "op", None)
    return O.const_value(v)


# cmpf predicate -> (cmpi predicate, whether its threshold is the last x with fl(x) * c <= p (else < p))
_SCALED = {"ogt": ("sgt", True), "ugt": ("sgt", True), "ole": ("sle", True), "ule": ("sle", True),
           "oge": ("sge", False), "uge": ("sge", False), "olt": ("slt", False), "ult": ("slt", False)}


def _threshold(c: float, p: float, inclusive: bool) -> Optional[int]:
    """The first i32 ``x`` with ``fl(fl(x) * c) > p`` (``>= p`` unless ``inclusive``), when the compare does not
    hold for every i32 or none."""
    import numpy as np
    c32, p32 = np.float32(c), np.float32(p)

    def above(x: int) -> bool:
        with np.errstate(over="ignore"):
            y = np.float32(x) * c32
        return bool(y > p32) if inclusive else bool(y >= p32)
    lo, hi = -(1 << 31), (1 << 31) - 1
    if above(lo) or not above(hi):
        return None
    while hi - lo > 1:          # above(lo) is false, above(hi) true
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if above(mid) else (mid, hi)
    return hi


def scaled_compare(rw: Rewriter, op: Operation) -> bool:
    """``cmpf(float(x) * c, p)`` -> ``cmpi(x, t)`` (the module docstring)."""
    if not isinstance(op, O.CmpFOp) or op.predicate not in _SCALED:
        return False
    mul = getattr(op.lhs, "op", None)
    p = _splat_constant(op.rhs)
    if not isinstance(mul, O.MulFOp) or not isinstance(p, float) or not math.isfinite(p) \
            or op.lhs.type.element_type != f32:
        return False
    for conv, cv in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
        cast, c = getattr(conv, "op", None), _splat_constant(cv)
        if isinstance(cast, O.SIToFPOp) and cast.src.type.element_type == i32 and isinstance(c, float) \
                and math.isfinite(c) and c > 0:
            pred, inclusive = _SCALED[op.predicate]
            first = _threshold(c, p, inclusive)
            if first is None:
                return False
            # x > t (or x >= t'): "above" holds from `first` on
            if pred in ("sgt", "sle"):
                t = first - 1
            else:
                t = first
            x = cast.src
            cmp = O.CmpIOp.get(pred, x, rw.constant(t, x.type, op))
            rw.replace_with_op(op, cmp)
            return True
    return False


def _folded(v: Value) -> Optional[Value]:
    """``x`` when ``v`` is ``x ^ (x >> 31)`` on i32 (an arithmetic shift), else None."""
    op = getattr(v, "op", None)
    if not isinstance(op, O.XOrIOp) or v.type.element_type != i32:
        return None
    for x, sh in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        s = getattr(sh, "op", None)
        if isinstance(s, O.ShRSIOp) and s.lhs is x and _splat_constant(s.rhs) == 31:
            return x
    return None


# predicate -> (how much t moves to make it ``> t``, whether the result is the negation)
_FOLDED = {"sgt": (0, False), "sge": (-1, False), "sle": (0, True), "slt": (-1, True)}


def folded_compare(rw: Rewriter, op: Operation) -> bool:
    """``cmpi(x ^ (x >> 31), t)`` -> ``cmpi(x + (t + 1), 2t + 1)`` unsigned (the module docstring)."""
    if not isinstance(op, O.CmpIOp) or isinstance(op, O.CmpFOp) or op.predicate not in _FOLDED:
        return False
    x, t = _folded(op.lhs), _splat_constant(op.rhs)
    if x is None or not isinstance(t, int) or isinstance(t, bool):
        return False
    shift, negate = _FOLDED[op.predicate]
    t += shift
    if t < 0 or 2 * t + 2 >= 1 << 31:
        return False
    moved = O.AddIOp.get(x, rw.constant(t + 1, x.type, op), loc=op.loc)
    op.parent.insert_before(op, moved)
    rw.replace_with_op(op, O.CmpIOp.get("ule" if negate else "ugt", moved.result, rw.constant(2 * t + 1, x.type, op)))
    return True


def reduce_iota(rw: Rewriter, op: Operation) -> bool:
    """``tl.min`` / ``tl.max`` of ``s + tl.arange(0, n)`` (the module docstring) -> scalar ops on ``s``."""
    if not isinstance(op, ReduceOp) or op.kind not in ("min", "max") or op.axis != 0:
        return False
    t = op.result.type
    found = index_range(op.src)
    if found is None or not t.is_int() or t.width == 1:
        return False
    s, n = found
    if s.type != t:                         # the offsets bitcast to another signedness: the same bits
        if not s.type.is_int() or s.type.width != t.width:
            return False
        cast = O.BitcastOp.get(s, t, loc=op.loc)
        op.parent.insert_before(op, cast)
        s = cast.result
    last = O.AddIOp.get(s, rw.constant(n - 1, t, op), loc=op.loc)
    op.parent.insert_before(op, last)
    wrapped = O.CmpIOp.get("slt" if t.signed else "ult", last.result, s)
    wrapped.loc = op.loc
    op.parent.insert_before(op, wrapped)
    w = t.width
    if op.kind == "min":
        extreme, value = (-(1 << (w - 1)) if t.signed else 0), s
    else:
        extreme, value = ((1 << (w - 1)) - 1 if t.signed else (1 << w) - 1), last.result
    rw.replace_with_op(op, O.SelectOp.get(wrapped.result, rw.constant(extreme, t, op), value))
    return True


PATTERNS: List[Callable[[Rewriter, Operation], bool]] = [fold, identities, masks, constant_if, dot_accumulate,
                                                         broadcast_mul_reduce, scaled_compare, folded_compare,
                                                         reduce_iota]


def canonicalize_block(block: Block, max_iterations: int) -> bool:
    """Rewrite ``block`` and the blocks nested in it to a fixed point; whether anything changed."""
    changed = False
    for _ in range(max_iterations):
        rw = Rewriter()
        for op in list(block.ops):
            if op.parent is not block:  # erased by an earlier rewrite in this sweep
                continue
            for r in op.regions:
                for b in r.blocks:
                    changed |= canonicalize_block(b, max_iterations)
            for pattern in PATTERNS:
                if pattern(rw, op):
                    changed = True
                    break
        changed |= rw.changed or rw.made
        if not rw.changed:
            return changed
    return changed


@register_pass
@dataclasses.dataclass(frozen=True)
class Canonicalize(ModulePass):
    name = "canonicalize"
    max_iterations: int = 10

    def run(self, module) -> bool:
        return canonicalize_block(module.body.block, self.max_iterations)
