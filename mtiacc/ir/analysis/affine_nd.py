"""Structure of N-d integer blocks, pointer blocks and masks (the N-d counterpart of ``affine.py``).

An integer block of shape ``(d0, .., dk)`` is *affine* when element ``(i0, .., ik)`` equals
``start + sum(stride[j] * ij)`` where ``start`` and every ``stride[j]`` are scalar polynomials in
run-time scalars (``Poly``: products are allowed, so ``pid * BLOCK * stride`` is one term).  A pointer
block is a scalar base pointer plus an affine offset in elements.  A mask is a *prefix box* when
element ``(i0, .., ik)`` is active exactly when ``ij < count[j]`` for every constrained ``j``
(``(rows < M)[:, None] & (cols < N)[None, :]``), and a *range box* when also lower bounds
``ij >= lo[j]`` may constrain it (a block pointer's ``0 <= off + arange(B) < shape``).

Loads and stores of such blocks move one row (the last dimension) per DMA transfer when the last
stride is 1 (the ``tiles`` access plan, ``codegen/memory/tiles.py``).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp, TransOp

Mono = Tuple[int, ...]  # the sorted ``seq`` numbers of the values multiplied (deterministic order)


class Poly:
    """``sum(coef * product(values))`` with integer coefficients (the empty product is 1)."""

    __slots__ = ("terms", "vals")

    def __init__(self, terms: Optional[Dict[Mono, int]] = None, vals: Optional[Dict[int, Value]] = None):
        self.terms = {m: c for m, c in (terms or {}).items() if c}
        self.vals = dict(vals or {})

    @staticmethod
    def const(c: int) -> "Poly":
        return Poly({(): c})

    @staticmethod
    def var(v: Value) -> "Poly":
        return Poly({(v.seq,): 1}, {v.seq: v})

    def as_const(self) -> Optional[int]:
        if not self.terms:
            return 0
        if list(self.terms) == [()]:
            return self.terms[()]
        return None

    def is_zero(self) -> bool:
        return not self.terms

    def __add__(self, o: "Poly") -> "Poly":
        t = dict(self.terms)
        for m, c in o.terms.items():
            t[m] = t.get(m, 0) + c
        return Poly(t, {**self.vals, **o.vals})

    def __neg__(self) -> "Poly":
        return Poly({m: -c for m, c in self.terms.items()}, self.vals)

    def __sub__(self, o: "Poly") -> "Poly":
        return self + (-o)

    def __mul__(self, o: "Poly") -> "Poly":
        t: Dict[Mono, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                m = tuple(sorted(m1 + m2))
                t[m] = t.get(m, 0) + c1 * c2
        return Poly(t, {**self.vals, **o.vals})

    def monomials(self):
        """``(coef, [values])`` per term."""
        return [(c, [self.vals[i] for i in m]) for m, c in self.terms.items()]


@dataclasses.dataclass
class NdAffine:
    start: Poly
    strides: List[Poly]

    @property
    def uniform(self) -> bool:
        return all(s.is_zero() for s in self.strides)

    def __add__(self, o: "NdAffine") -> "NdAffine":
        return NdAffine(self.start + o.start, [a + b for a, b in zip(self.strides, o.strides)])

    def scale(self, k: Poly) -> "NdAffine":
        return NdAffine(self.start * k, [s * k for s in self.strides])


def _zero_strides(rank: int) -> List[Poly]:
    return [Poly() for _ in range(rank)]


def _reshape_map(src_shape, dst_shape) -> Optional[List[Optional[int]]]:
    """For a reshape that only adds or drops dimensions of size 1: the source dim of each result dim."""
    src = [i for i, d in enumerate(src_shape) if d != 1]
    dst = [i for i, d in enumerate(dst_shape) if d != 1]
    if [src_shape[i] for i in src] != [dst_shape[i] for i in dst]:
        return None
    out: List[Optional[int]] = [None] * len(dst_shape)
    for s, d in zip(src, dst):
        out[d] = s
    return out


def _through_shape_op(op, inner: List, fill):
    """Map per-dimension facts ``inner`` (of op's source) to op's result dimensions."""
    rank = len(op.result.type.shape)
    if isinstance(op, O.SplatOp):
        return [fill() for _ in range(rank)]
    if isinstance(op, O.BroadcastOp):
        return [fill() if s == 1 and r != 1 else x
                for x, s, r in zip(inner, op.src.type.shape, op.result.type.shape)]
    if isinstance(op, ExpandDimsOp):
        out = list(inner)
        out.insert(op.axis, fill())
        return out
    if isinstance(op, TransOp):
        return [inner[d] for d in op.order]
    if isinstance(op, ReshapeOp):
        m = _reshape_map(op.src.type.shape, op.result.type.shape)
        if m is None:
            return None
        return [inner[s] if s is not None else fill() for s in m]
    return None


_SHAPE = (O.BroadcastOp, ExpandDimsOp, TransOp, ReshapeOp)


def _reshape_strides(src_shape, dst_shape, strides: List[Poly]) -> Optional[List[Poly]]:
    """The strides after a reshape that merges or splits dimensions (row-major order, as ``tt.reshape``
    keeps it): source and result dimensions (size 1 aside) pair up in groups of equal product
    (``(32768,)`` -> ``(4, 32, 32, 4, 2)`` is one group); each group's source dimensions must be
    row-major among themselves (``stride[j] == stride[j + 1] * size[j + 1]``), and its result dimensions
    then take row-major strides from the group's innermost stride.  None when a group is not."""
    src = [(d, s) for d, s in zip(src_shape, strides) if d != 1]
    dst = [k for k, d in enumerate(dst_shape) if d != 1]
    out = [Poly() for _ in dst_shape]
    i = j = 0
    while i < len(src) and j < len(dst):
        group, ks = [src[i]], [dst[j]]
        ps, pd = src[i][0], dst_shape[dst[j]]
        i, j = i + 1, j + 1
        while ps != pd:
            if ps < pd and i < len(src):
                group.append(src[i])
                ps, i = ps * src[i][0], i + 1
            elif pd < ps and j < len(dst):
                ks.append(dst[j])
                pd, j = pd * dst_shape[dst[j]], j + 1
            else:
                return None
        for (_, outer), (size, inner) in zip(group, group[1:]):
            if not (outer - inner * Poly.const(size)).is_zero():
                return None
        stride = group[-1][1]
        for k in reversed(ks):
            out[k] = stride
            stride = stride * Poly.const(dst_shape[k])
    return out if i == len(src) and j == len(dst) else None


def _shape_strides(op, strides: List[Poly]) -> Optional[List[Poly]]:
    """Affine strides through a shape op (a reshape may also merge or split dimensions)."""
    out = _through_shape_op(op, strides, Poly)
    if out is None and isinstance(op, ReshapeOp):
        out = _reshape_strides(op.src.type.shape, op.result.type.shape, strides)
    return out


def nd_affine(v: Value) -> Optional[NdAffine]:
    """The affine form of an integer scalar or block (of any rank), or None."""
    if not v.type.is_int():
        return None
    rank = len(v.type.shape)
    op = v.op if isinstance(v, OpResult) else None
    if isinstance(op, O.ConstantOp):
        return NdAffine(Poly.const(int(op.value)), _zero_strides(rank))
    if not v.type.is_block():
        return NdAffine(Poly.var(v), [])
    if isinstance(op, O.MakeRangeOp):
        return NdAffine(Poly.const(op.start), [Poly.const(1)])
    if isinstance(op, O.SplatOp):
        inner = nd_affine(op.src)
        return None if inner is None else NdAffine(inner.start, _zero_strides(rank))
    if isinstance(op, _SHAPE):
        inner = nd_affine(op.src)
        if inner is None:
            return None
        strides = _shape_strides(op, inner.strides)
        return None if strides is None else NdAffine(inner.start, strides)
    if isinstance(op, (O.AddIOp, O.SubIOp, O.MulIOp)):
        a, b = nd_affine(op.lhs), nd_affine(op.rhs)
        if a is None or b is None:
            return None
        if isinstance(op, O.AddIOp):
            return a + b
        if isinstance(op, O.SubIOp):
            return a + b.scale(Poly.const(-1))
        if b.uniform:
            return a.scale(b.start)
        if a.uniform:
            return b.scale(a.start)
    return None


def pointer_nd(v: Value) -> Optional[Tuple[Value, NdAffine]]:
    """(scalar base pointer, affine offset in elements) of a pointer block, or None."""
    if not isinstance(v, OpResult) or not v.type.is_block():
        return None
    op = v.op
    rank = len(v.type.shape)
    if isinstance(op, O.SplatOp):
        return op.src, NdAffine(Poly(), _zero_strides(rank))
    if isinstance(op, _SHAPE):
        inner = pointer_nd(op.src)
        if inner is None:
            return None
        strides = _shape_strides(op, inner[1].strides)
        return None if strides is None else (inner[0], NdAffine(inner[1].start, strides))
    if isinstance(op, O.AddPtrOp):
        base, off = pointer_nd(op.ptr), nd_affine(op.offset)
        if base is not None and off is not None:
            return base[0], base[1] + off
    return None


Range = Tuple[Optional[Poly], Optional[Poly]]


def range_box(mask: Value) -> Optional[List[Optional[Range]]]:
    """Per dimension, the range ``(lo, hi)`` of active indices ``lo <= i < hi`` (None for a bound that
    is absent; None for a dimension with every index active), or None when the mask is not such a box.
    Block pointers and descriptors check ``0 <= off + arange(B) < shape`` per axis: a range box."""
    if not isinstance(mask, OpResult) or not mask.type.is_block():
        return None
    op = mask.op
    rank = len(mask.type.shape)
    if isinstance(op, O.ConstantOp):
        return [None] * rank if op.value else None
    if isinstance(op, O.SplatOp):
        c = getattr(op.src, "op", None)
        return [None] * rank if isinstance(c, O.ConstantOp) and c.value else None
    if isinstance(op, _SHAPE):
        inner = range_box(op.src)
        return None if inner is None else _through_shape_op(op, inner, lambda: None)
    if isinstance(op, O.AndIOp):
        a, b = range_box(op.lhs), range_box(op.rhs)
        if a is None or b is None:
            return None
        out: List[Optional[Range]] = []
        for x, y in zip(a, b):
            if x is None or y is None:
                out.append(x if y is None else y)
                continue
            if x[0] is not None and y[0] is not None or x[1] is not None and y[1] is not None:
                return None   # two bounds on one side (the larger of two lows is not affine)
            out.append((x[0] if x[0] is not None else y[0], x[1] if x[1] is not None else y[1]))
        return out
    if isinstance(op, O.CmpIOp) and op.predicate in ("slt", "sgt", "sle", "sge"):
        return _compare_range(op, rank)
    return None


def _compare_range(op, rank: int) -> Optional[List[Optional[Range]]]:
    """``u + i OP y`` or ``y OP u + i`` (``i`` the index along one axis, ``u`` and ``y`` uniform)."""
    a, b = nd_affine(op.lhs), nd_affine(op.rhs)
    if a is None or b is None:
        return None
    pred = op.predicate
    if a.uniform and not b.uniform:     # y OP x  ->  x OP' y
        a, b = b, a
        pred = {"slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle"}[pred]
    if not b.uniform:
        return None
    varying = [j for j, s in enumerate(a.strides) if not s.is_zero()]
    if len(varying) != 1 or a.strides[varying[0]].as_const() != 1:
        return None
    bound = b.start - a.start          # u + i OP y  <=>  i OP y - u
    one = Poly.const(1)
    rng = {"slt": (None, bound), "sle": (None, bound + one),
           "sgt": (bound + one, None), "sge": (bound, None)}[pred]
    out: List[Optional[Range]] = [None] * rank
    out[varying[0]] = rng
    return out


def prefix_box(mask: Value) -> Optional[List[Optional[Poly]]]:
    """Per dimension, the count of active leading indices (None: every index), or None: a range box
    without lower bounds."""
    box = range_box(mask)
    if box is None or any(r is not None and r[0] is not None for r in box):
        return None
    return [None if r is None else r[1] for r in box]
