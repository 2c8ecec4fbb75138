"""``axis-info``: contiguity, divisibility and constancy of integer values, per dimension (an analysis).

For each dimension of an integer block (a scalar counts as one dimension of size 1):

* contiguity ``c``: the values come in runs of ``c`` consecutive integers (``tl.arange`` is one run);
* divisibility ``d``: the first value of every run is a multiple of ``d`` (a power of two, capped);
* constancy ``k``: the values come in runs of ``k`` equal integers (a splat is one run).

This is what Triton's AxisInfo computes.  Both the ``axis-info`` pass (which prints the facts) and the
access plan (``access_plan.py``, which asks ``is_uniform`` whether a mask is uniform over a block, so a
masked access stays one guarded DMA transfer) use it.  ``analyze(func)`` returns ``{value: AxisInfo}``.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.core import Value

MAX_DIV = 1 << 30


@dataclasses.dataclass(frozen=True)
class AxisInfo:
    contiguity: Tuple[int, ...]
    divisibility: Tuple[int, ...]
    constancy: Tuple[int, ...]


def _pow2_div(c: int) -> int:
    return MAX_DIV if c == 0 else min(MAX_DIV, c & -c)


def _shape(v: Value) -> Tuple[int, ...]:
    return tuple(v.type.shape) if v.type.is_block() else (1,)


def _unknown(v: Value) -> AxisInfo:
    n = len(_shape(v))
    return AxisInfo((1,) * n, (1,) * n, (1,) * n)


def _rule(op, info) -> AxisInfo:
    r = op.results[0]
    shape = _shape(r)
    if isinstance(op, O.ConstantOp) and isinstance(op.value, int) and not isinstance(op.value, bool):
        return AxisInfo((1,) * len(shape), (_pow2_div(op.value),) * len(shape), shape)
    if isinstance(op, O.MakeRangeOp):
        return AxisInfo(shape, (_pow2_div(op.start),), (1,))
    if isinstance(op, O.SplatOp):
        s = info.get(op.src)
        d = s.divisibility[0] if s else 1
        return AxisInfo((1,) * len(shape), (d,) * len(shape), shape)
    if isinstance(op, O.BroadcastOp):
        s = info.get(op.src) or _unknown(op.src)
        src = _shape(op.src)
        const = tuple(n if m == 1 else k for n, m, k in zip(shape, src, s.constancy))
        return AxisInfo(s.contiguity, s.divisibility, const)
    ins = [info.get(v) or _unknown(v) for v in op.operands]
    if isinstance(op, (O.AddIOp, O.SubIOp, O.AddPtrOp)) and len(ins) == 2:
        a, b = ins
        contig = tuple(max(min(ca, kb), min(cb, ka) if isinstance(op, (O.AddIOp, O.AddPtrOp)) else 1)
                       for ca, cb, ka, kb in zip(a.contiguity, b.contiguity, a.constancy, b.constancy))
        return AxisInfo(contig, tuple(math.gcd(x, y) for x, y in zip(a.divisibility, b.divisibility)),
                        tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)))
    if isinstance(op, O.MulIOp):
        a, b = ins
        return AxisInfo((1,) * len(shape),
                        tuple(min(MAX_DIV, x * y) for x, y in zip(a.divisibility, b.divisibility)),
                        tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)))
    if op.operands and all(i for i in ins) and len(op.results) == 1:
        # any other elementwise op: only constancy carries over
        k = ins[0].constancy
        for i in ins[1:]:
            k = tuple(math.gcd(x, y) for x, y in zip(k, i.constancy))
        if len(k) == len(shape):
            return AxisInfo((1,) * len(shape), (1,) * len(shape), k)
    return _unknown(r)


def analyze(func: O.FuncOp) -> Dict[Value, AxisInfo]:
    """The facts for every integer or pointer value of ``func`` (arguments: nothing known)."""
    info: Dict[Value, AxisInfo] = {}
    for a in func.args:
        if a.type.is_int() or a.type.is_ptr():
            info[a] = _unknown(a)
    for op in func.walk():
        if len(op.results) != 1 or not (op.results[0].type.is_int() or op.results[0].type.is_ptr()):
            continue
        info[op.results[0]] = _rule(op, info)
    return info


def mask_all_true(mask: Value) -> bool:
    """Whether a mask is provably all true: ``range < bound`` with the range's top below a constant bound."""
    op = getattr(mask, "op", None)
    if isinstance(op, O.CmpIOp) and op.predicate == "slt":
        return op.fold() is True
    return O.const_value(mask) is True


def is_uniform(v: Value, info: Dict[Value, AxisInfo]) -> bool:
    """Whether every element of block ``v`` is provably equal (constancy spans each whole dimension),
    given ``analyze``'s facts for its function."""
    i = info.get(v)
    return i is not None and v.type.is_block() and tuple(i.constancy) == tuple(v.type.shape)
