"""Structure of 1-D index blocks built with ``//`` and ``%`` of a flat index, as TorchInductor writes them.

Inductor's pointwise kernels take ``xindex = xoffset + tl.arange(0, XBLOCK)`` apart into
``x0 = xindex % 64``, ``x1 = (xindex // 64) % 3``, ``x2 = xindex // 192`` and index each input with a
sum of those (``x0 + 64*x2``, a bias ``x0``, a per-row scalar ``x1``).  Such an index is not affine
(``affine.py``), but it is piecewise affine: with ``x = xs + i``,

    index(i) = base + sum(coef_k * ((x // div_k) % mod_k))           (mod_k may be absent)

and every term is affine in ``x`` on the segments between consecutive multiples of its *period*
(``div_k`` when it divides, else ``mod_k``).  So on the aligned segments of ``G = gcd(periods)``
elements the index moves by a constant *slope* (the sum of the coefficients of the terms that do
not divide): a run of ``G`` contiguous elements when the slope is 1, one element repeated when it is
0.  The ``runs`` access plan moves such accesses one run at a time, or reads the window of DRAM they
touch once and spreads it in local memory (``codegen/memory/runs.py``).

``//`` and ``%`` round toward zero in Triton; they agree with the floor division this analysis
assumes only when ``x`` is not negative, so ``xs`` must be provably non-negative (program ids,
non-negative constants, counting-up loop variables from such a start, their sums and products);
otherwise there is no structure (gather path).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional, Tuple

from mtiacc.ir.analysis.affine import Affine
from mtiacc.ir import ops as O
from mtiacc.ir.core import BlockArgument, OpResult, Value
from mtiacc.ir.scf import ForOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp


@dataclasses.dataclass(frozen=True)
class Term:
    """``coef * ((x // div) % mod)``; ``mod`` None: no modulo."""
    coef: int
    div: int = 1
    mod: Optional[int] = None

    @property
    def period(self) -> Optional[int]:
        """The index is affine in ``x`` between consecutive multiples of this (None: everywhere)."""
        return self.div if self.div > 1 else self.mod


@dataclasses.dataclass(frozen=True)
class Split:
    """``index(i) = base + lin * i + sum(term(xs + i))``: base and xs are uniform (stride-0) affines."""
    base: Affine = Affine()
    lin: int = 0
    xs: Optional[Affine] = None
    terms: Tuple[Term, ...] = ()

    def __add__(self, o: "Split") -> Optional["Split"]:
        if self.xs is not None and o.xs is not None and not _same(self.xs, o.xs):
            return None
        return Split(self.base + o.base, self.lin + o.lin, self.xs if self.xs is not None else o.xs,
                     _merge(self.terms + o.terms))

    def scale(self, k: int) -> "Split":
        return Split(self.base.scale(k), self.lin * k, self.xs if k else None,
                     tuple(Term(t.coef * k, t.div, t.mod) for t in self.terms if k))

    @property
    def pure_linear(self) -> bool:
        return not self.terms

    def normalized(self) -> "Split":
        """``lin * i`` written as ``lin * x - lin * xs``, then terms simplified (``x0 + 64*x1 -> x``)."""
        if self.xs is None or not self.lin:
            return Split(self.base, self.lin, self.xs, _simplify(self.terms))
        terms = _simplify(_merge(self.terms + (Term(self.lin),)))
        return Split(self.base + self.xs.scale(-self.lin), 0, self.xs, terms)

    @property
    def period(self) -> Optional[int]:
        """G: the gcd of the terms' periods (None when every term is affine in x)."""
        g = 0
        for t in self.terms:
            if t.period is not None:
                g = math.gcd(g, t.period)
        return g or None

    @property
    def slope(self) -> int:
        """How much the index moves per element inside an aligned segment of G elements."""
        return self.lin + sum(t.coef for t in self.terms if t.div == 1)


def _same(a: Affine, b: Affine) -> bool:
    if a.const != b.const or a.stride != b.stride or len(a.terms) != len(b.terms):
        return False
    return all(any(v is w and c == d for w, d in b.terms) for v, c in a.terms)


def _merge(terms: Tuple[Term, ...]) -> Tuple[Term, ...]:
    out: dict = {}
    for t in terms:
        key = (t.div, t.mod)
        out[key] = out.get(key, 0) + t.coef
    return tuple(Term(c, d, m) for (d, m), c in out.items() if c)


def _simplify(terms: Tuple[Term, ...]) -> Tuple[Term, ...]:
    """``c*((x//d) % a) + c*a*((x//(d*a)) % b)`` is ``c*((x//d) % (a*b))`` (b absent: no modulo)."""
    terms = _merge(terms)
    changed = True
    while changed:
        changed = False
        for lo in terms:
            if lo.mod is None:
                continue
            for hi in terms:
                if hi is lo or hi.div != lo.div * lo.mod or hi.coef % lo.mod:
                    continue
                # hi.coef == k * lo.coef * lo.mod merges the part k of hi that matches lo
                if hi.coef != lo.coef * lo.mod:
                    continue
                mod = None if hi.mod is None else lo.mod * hi.mod
                rest = tuple(t for t in terms if t is not lo and t is not hi)
                terms = _merge(rest + (Term(lo.coef, lo.div, mod),))
                changed = True
                break
            if changed:
                break
    return tuple(t for t in terms if not (t.mod == 1))


# --------------------------------------------------------------------------- non-negativity

def non_negative(v: Value, depth: int = 0) -> bool:
    """Whether the integer scalar ``v`` is provably >= 0 (ignoring wrap-around, as affine.py does)."""
    if depth > 16:
        return False
    if isinstance(v, BlockArgument):  # a for loop's induction variable, counting up from >= 0
        loop = getattr(getattr(v.block, "parent", None), "parent", None)
        if isinstance(loop, ForOp) and v is loop.induction_var:
            step = int_const(loop.step)
            return step is not None and step > 0 and non_negative(loop.lower, depth + 1)
        return False
    op = v.op if isinstance(v, OpResult) else None
    if isinstance(op, O.GetProgramIdOp):  # also tl.num_programs
        return True
    if isinstance(op, O.ConstantOp):
        return isinstance(op.value, int) and op.value >= 0
    if isinstance(op, (O.AddIOp, O.MulIOp)):
        return non_negative(op.lhs, depth + 1) and non_negative(op.rhs, depth + 1)
    if isinstance(op, O.ExtSIOp):
        return non_negative(op.src, depth + 1)
    if isinstance(op, O.ExtUIOp):
        return True
    return False


def _non_negative_affine(a: Affine) -> bool:
    return a.const >= 0 and a.stride >= 0 and all(c > 0 and non_negative(v) for v, c in a.terms)


# --------------------------------------------------------------------------- the analysis

def int_const(v: Value) -> Optional[int]:
    c = O.const_value(v)
    if isinstance(c, bool) or not isinstance(c, int):
        if isinstance(v, OpResult) and isinstance(v.op, O.SplatOp):
            return int_const(v.op.src)
        return None
    return c


def single_axis(shape) -> bool:
    """Whether at most one dimension is longer than 1: row-major positions are that axis' indices
    (a (1024, 1) tile of Inductor's y/x kernels with XBLOCK = 1 is a 1-D block)."""
    return sum(1 for d in shape if d != 1) <= 1


def _numel(v: Value) -> int:
    return v.type.numel if v.type.is_block() else 1


def _same_positions(op) -> bool:
    """Shape ops that keep every element at its row-major position (on single-axis blocks)."""
    return isinstance(op, (ExpandDimsOp, ReshapeOp, O.BroadcastOp)) and op.src.type.is_block() and \
        _numel(op.src) == _numel(op.result)


def uniform_at_zero(s: Optional[Split]) -> Optional[Split]:
    """A one-element block broadcast: its value at position 0, uniform (when it has no terms)."""
    if s is None or s.terms:
        return None
    return Split(s.base)


def split_of(v: Value, depth: int = 0) -> Optional[Split]:
    """The split form of an integer scalar or single-axis block, or None."""
    if depth > 64 or not v.type.is_int() or not single_axis(v.type.shape):
        return None
    op = v.op if isinstance(v, OpResult) else None
    if isinstance(op, O.ConstantOp):
        c = int_const(v)
        return None if c is None else Split(Affine((), c, 0))
    if not v.type.is_block():
        return Split(Affine(((v, 1),)))
    if isinstance(op, O.MakeRangeOp):
        return Split(Affine((), op.start, 0), 1)
    if isinstance(op, O.SplatOp):
        inner = split_of(op.src, depth + 1)
        return inner if inner is not None and inner.pure_linear and not inner.lin else None
    if _same_positions(op):
        return split_of(op.src, depth + 1)
    if isinstance(op, O.BroadcastOp) and _numel(op.src) == 1:
        return uniform_at_zero(split_of(op.src, depth + 1))
    if isinstance(op, O.ExtSIOp):  # the same integer, wider
        return split_of(op.src, depth + 1)
    if isinstance(op, (O.AddIOp, O.SubIOp, O.MulIOp)):
        a, b = split_of(op.lhs, depth + 1), split_of(op.rhs, depth + 1)
        if a is None or b is None:
            return None
        if isinstance(op, O.AddIOp):
            return a + b
        if isinstance(op, O.SubIOp):
            return a + b.scale(-1)
        for x, y in ((a, b), (b, a)):
            k = _pure_const(y)
            if k is not None:
                return x.scale(k)
        return None
    if isinstance(op, (O.DivSIOp, O.RemSIOp, O.DivUIOp, O.RemUIOp)):
        c = int_const(op.rhs)
        a = split_of(op.lhs, depth + 1)
        if c is None or c <= 0 or a is None:
            return None
        return div_rem(a, c, isinstance(op, (O.DivSIOp, O.DivUIOp)))
    return None


def _pure_const(s: Split) -> Optional[int]:
    if s.terms or s.lin or s.base.terms or s.base.stride:
        return None
    return s.base.const


def div_rem(a: Split, c: int, is_div: bool) -> Optional[Split]:
    if a.pure_linear and a.lin == 1:  # x // c, x % c with x = base + i
        if not _non_negative_affine(a.base):
            return None
        t = Term(1, c, None) if is_div else Term(1, 1, c)
        return Split(Affine(), 0, a.base, (t,))
    if a.lin or a.base.terms or a.base.const or len(a.terms) != 1 or a.terms[0].coef != 1:
        return None
    t = a.terms[0]  # (x // d) % m, itself divided or reduced
    if is_div:
        if t.mod is None:
            return Split(Affine(), 0, a.xs, (Term(1, t.div * c, None),))
        if t.mod % c == 0:  # ((x // d) % m) // c == (x // (d c)) % (m / c)
            return Split(Affine(), 0, a.xs, (Term(1, t.div * c, t.mod // c),))
        return None
    if t.mod is None or t.mod % c == 0:
        return Split(Affine(), 0, a.xs, (Term(1, t.div, c),))
    return None


def split_pointer(v: Value, depth: int = 0) -> Optional[Tuple[Value, Split]]:
    """(scalar base pointer, split offset in elements) of a single-axis pointer block, or None."""
    if depth > 64 or not isinstance(v, OpResult) or not v.type.is_block() or not single_axis(v.type.shape):
        return None
    op = v.op
    if isinstance(op, O.SplatOp):
        return op.src, Split()
    if _same_positions(op):
        return split_pointer(op.src, depth + 1)
    if isinstance(op, O.BroadcastOp) and _numel(op.src) == 1:
        inner = split_pointer(op.src, depth + 1)
        at0 = uniform_at_zero(inner[1]) if inner is not None else None
        return None if at0 is None else (inner[0], at0)
    if isinstance(op, O.AddPtrOp):
        base = split_pointer(op.ptr, depth + 1)
        off = split_of(op.offset)
        if base is not None and off is not None:
            total = base[1] + off
            return None if total is None else (base[0], total)
    return None


# --------------------------------------------------------------------------- masks

@dataclasses.dataclass(frozen=True)
class Cond:
    """A condition on scalars: ``lhs pred rhs`` (affines), or ``flag`` (an i1 scalar) when set."""
    pred: str = "slt"
    lhs: Affine = Affine()
    rhs: Affine = Affine()
    flag: Optional[Value] = None


@dataclasses.dataclass(frozen=True)
class MaskForm:
    """Element ``i`` is active iff ``i < count`` (None: every ``i``) and every condition holds."""
    count: Optional[Affine] = None
    conds: Tuple[Cond, ...] = ()


SWAP = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle"}


def uniform_part(s: Optional[Split]) -> Optional[Affine]:
    return s.base if s is not None and not s.terms and not s.lin else None


def mask_form(mask: Value, depth: int = 0) -> Optional[MaskForm]:
    """Prefix masks (``xindex < xnumel``), all-true ones, conditions on scalars (``pid < M``, a
    one-element ``xindex < xnumel`` broadcast over a (YBLOCK, 1) tile) and their ``&``; else None."""
    if depth > 32 or not isinstance(mask, OpResult) or not single_axis(mask.type.shape):
        return None
    op = mask.op
    if isinstance(op, O.ConstantOp):
        return MaskForm() if op.value is True or op.value == 1 else None
    if isinstance(op, O.SplatOp):
        c = O.const_value(op.src)
        if c is not None:
            return MaskForm() if c else None
        return MaskForm(None, (Cond(flag=op.src),)) if op.src.type.is_int() else None
    if _same_positions(op):
        return mask_form(op.src, depth + 1)
    if isinstance(op, O.BroadcastOp) and _numel(op.src) == 1:
        inner = mask_form(op.src, depth + 1)
        if inner is None:
            return None
        if inner.count is None:
            return MaskForm(None, inner.conds)
        return MaskForm(None, inner.conds + (Cond("sgt", inner.count, Affine()),))  # active iff 0 < count
    if isinstance(op, O.AndIOp):
        a, b = mask_form(op.lhs, depth + 1), mask_form(op.rhs, depth + 1)
        if a is None or b is None or (a.count is not None and b.count is not None):
            return None
        return MaskForm(a.count if a.count is not None else b.count, a.conds + b.conds)
    if isinstance(op, O.CmpIOp) and op.predicate in SWAP:
        lhs, rhs, pred = op.lhs, op.rhs, op.predicate
        a, b = split_of(lhs), split_of(rhs)
        if a is None or b is None:
            return None
        ua, ub = uniform_part(a), uniform_part(b)
        if ua is not None and ub is not None:
            return MaskForm(None, (Cond(pred, ua, ub),))
        if pred in ("sgt", "sge"):
            a, b, pred = b, a, SWAP[pred]
            ub = uniform_part(b)
        # a.base + i < b  <=>  i < b - a.base
        if a.terms or a.lin != 1 or ub is None:
            return None
        count = ub + (-a.base)
        return MaskForm(count + Affine((), 1, 0) if pred == "sle" else count)
    return None


WINDOW_BYTES = 64 * 1024   # the most a ``runs`` load reads into its window at once


def window_elements(s: Split, n: int, esize: int) -> Optional[int]:
    """The elements of the window a ``runs`` load of ``n`` elements of ``esize`` bytes reads its index ``s``
    through (one DMA over the indices the runs touch, then a strided spread), or None when it reads run by run:
    only a non-negative slope over a period, or a slope above 1, has one.  Up to 16 times the block for a
    stride (reading 16 elements per element used is cheaper than a transfer per element), at most
    :data:`WINDOW_BYTES`.  Codegen takes a window of this size when it fits beside the live blocks, else one of
    ``n`` elements, else none (the local-memory plan counts the same)."""
    if not (s.slope >= 0 and (s.period is not None or s.slope > 1)):
        return None
    return max(n, min(n * min(s.slope, 16), WINDOW_BYTES // esize))

