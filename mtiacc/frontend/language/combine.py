"""``tl.reduce``, ``tl.associative_scan`` and ``tl.map_elementwise``: builtins calling a ``@triton.jit`` function.

The call builds a ``tt.reduce``/``tt.scan`` with a combine region (:mod:`mtiacc.ir.combine`): the
region's block takes the scalars ``a_1 .. a_n, b_1 .. b_n`` and calls the combine function on them
with a ``tt.call``, exactly like any helper call: the visitor lowers it (specialized and lowered once
per argument types), reached through ``sem.lowering`` (:mod:`mtiacc.frontend.context`); the
``inline`` pass then puts its body in the region.

Semantics follow Triton's language reference:

* ``input`` is a block or a tuple of blocks (broadcast to one shape); the combine function takes
  ``2 n`` scalars (the left group, then the right group) and returns ``n`` scalars of the operands'
  element types (constants are converted; another type is an error).  The result is a block (or a
  tuple of blocks, when ``input`` is a tuple) without ``axis``; ``keep_dims`` keeps it with size 1.
* ``tl.reduce(x, None, f)`` reduces every dimension (the blocks are flattened first).
* ``tl.associative_scan(x, axis, f, reverse=False)`` is the inclusive scan; ``reverse`` scans from
  the end.
* ``tl.map_elementwise(f, *args, pack=1)`` applies the scalar function ``f`` to every element of ``args``
  (broadcast to one shape) and returns its result(s) as blocks of that shape.  ``f`` is called once, on the
  whole blocks (the visitor's *element-wise mode*: an ``if`` on a block condition inside it evaluates both
  branches and selects per element, which is what running ``f`` per element computes; branches with loads,
  stores, atomics or prints are rejected there).  ``pack=k`` passes ``k`` elements of each argument per call
  (``f(a_0 .. a_k-1, b_0 .. b_k-1, ...)``, returning ``k`` values per result): the flattened block's
  elements ``i*k .. i*k+k-1`` make one call.
"""
from __future__ import annotations

from typing import List, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic, describe, is_const
from mtiacc.frontend.values import FunctionRef, is_jit_function
from mtiacc.ir import combine as C
from mtiacc.ir.core import Value
from mtiacc.ir.permute_ops import JoinOp, SplitOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReduceOp, ReshapeOp, ScanOp


def _operands(sem: Semantic, input, fn: str) -> Tuple[List[Value], bool]:
    is_tuple = isinstance(input, (tuple, list))
    items = list(input) if is_tuple else [input]
    if not items:
        raise CompileError(f"{fn} needs at least one block")
    for x in items:
        if not isinstance(x, Value) or not x.type.is_block():
            raise CompileError(f"{fn} needs a block or a tuple of blocks, got {describe(x)}")
        if x.type.is_ptr():
            raise CompileError(f"{fn} of pointers is not supported")
    if len({x.type.shape for x in items}) > 1:
        items = list(sem.broadcast(*items))
    return items, is_tuple


def _check_fn(combine_fn, fn: str):
    if is_jit_function(combine_fn):
        return combine_fn
    what = f"the plain Python function `{combine_fn.name}`" if isinstance(combine_fn, FunctionRef) \
        else describe(combine_fn)
    raise CompileError(f"{fn}'s combine_fn must be a @triton.jit function, got {what}")


def _axis(axis, rank: int, fn: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise CompileError(f"{fn}'s axis must be a constexpr integer, got {describe(axis)}")
    if not -rank <= axis < rank:
        raise CompileError(f"{fn}: axis {axis} is out of range for a block of rank {rank}")
    return axis + rank if axis < 0 else axis


def _fill_region(sem: Semantic, op, combine_fn, fn: str) -> None:
    """Lower ``combine_fn(a_1 .. a_n, b_1 .. b_n)`` into ``op``'s combine block and end it."""
    lowering = sem.lowering
    if lowering is None:
        raise CompileError(f"internal: {fn} needs the function being lowered")
    block = op.regions[0].blocks[0]
    n = len(block.args) // 2
    builder = sem.builder
    saved = builder.block
    builder.block = block
    try:
        out = lowering.call_jit_function(combine_fn, list(block.args), {})
        values = out if isinstance(out, tuple) else (out,)
        if len(values) != n:
            raise CompileError(f"{fn}: the combine function returns {len(values)} value(s) for {n} "
                               f"operand(s)")
        results = []
        for i, (v, a) in enumerate(zip(values, block.args[:n])):
            if is_const(v):
                v = sem.to_type(v, a.type)
            if not isinstance(v, Value) or v.type != a.type:
                got = v.type if isinstance(v, Value) else describe(v)
                raise CompileError(f"{fn}: the combine function's result {i} is {got}, but the operand "
                                   f"has elements of type {a.type}")
            results.append(v)
        builder.insert(C.RETURNS[op.name].get(results))
    finally:
        builder.block = saved


def reduce(sem: Semantic, input, axis, combine_fn, keep_dims=False):
    """Combine the elements along ``axis`` (all axes when None) with ``combine_fn``."""
    fn = "tl.reduce"
    srcs, is_tuple = _operands(sem, input, fn)
    combine_fn = _check_fn(combine_fn, fn)
    shape = srcs[0].type.shape
    if axis is None:
        if len(shape) > 1:
            srcs = [sem.emit(ReshapeOp.get(x, (x.type.numel,))) for x in srcs]
        a = 0
    else:
        a = _axis(axis, len(shape), fn)
    op = C.build(ReduceOp, srcs, a, loc=sem.builder.loc)
    _fill_region(sem, op, combine_fn, fn)
    sem.builder.insert(op)
    results = list(op.results)
    if keep_dims:
        for k, r in enumerate(results):
            if not r.type.is_block():       # a scalar (every axis reduced): a splat, as tl.sum's keep_dims
                results[k] = sem.broadcast_to(r, (1,) * len(shape))
                continue
            for d in (range(len(shape)) if axis is None else [a]):
                r = sem.emit(ExpandDimsOp.get(r, d))
            results[k] = r
    return tuple(results) if is_tuple else results[0]


def associative_scan(sem: Semantic, input, axis, combine_fn, reverse=False):
    """The inclusive scan of ``input`` along ``axis`` with ``combine_fn`` (from the end if ``reverse``)."""
    fn = "tl.associative_scan"
    srcs, is_tuple = _operands(sem, input, fn)
    combine_fn = _check_fn(combine_fn, fn)
    a = _axis(axis, len(srcs[0].type.shape), fn)
    if not isinstance(reverse, int):  # bool, or a constexpr int used as one
        raise CompileError(f"{fn}: reverse must be a constexpr bool, got {describe(reverse)}")
    reverse = bool(reverse)
    op = C.build(ScanOp, srcs, a, reverse=reverse, loc=sem.builder.loc)
    _fill_region(sem, op, combine_fn, fn)
    sem.builder.insert(op)
    results = list(op.results)
    return tuple(results) if is_tuple else results[0]


# --------------------------------------------------------------------------- tl.map_elementwise

def _unpack(sem: Semantic, x: Value, pack: int) -> List[Value]:
    """``pack`` blocks of shape ``(n / pack,)``: piece ``j`` holds the flattened ``x``'s elements ``i*pack + j``."""
    n = x.type.numel
    if pack == 1:
        return [sem.emit(ReshapeOp.get(x, (n,)))]
    halves = sem.emit(ReshapeOp.get(x, (n // pack, pack // 2, 2)))
    even, odd = (_unpack(sem, sem.emit(SplitOp.get(halves, q)), pack // 2) for q in (0, 1))
    return [p for pair in zip(even, odd) for p in pair]


def _repack(sem: Semantic, pieces: List[Value], shape) -> Value:
    """The inverse of :func:`_unpack`, reshaped to ``shape``."""
    pack = len(pieces)
    if pack == 1:
        return sem.emit(ReshapeOp.get(pieces[0], tuple(shape)))
    m = pieces[0].type.numel
    even, odd = (_repack(sem, pieces[q::2], (m, pack // 2)) for q in (0, 1))
    return sem.emit(ReshapeOp.get(sem.emit(JoinOp.get(even, odd)), tuple(shape)))


def map_elementwise(sem: Semantic, scalar_fn, *args, pack=1):
    """``scalar_fn`` applied to every element of ``args`` (broadcast to one shape); see the module docstring."""
    fn = "tl.map_elementwise"
    scalar_fn = _check_fn(scalar_fn, fn)
    lowering = sem.lowering
    if lowering is None:
        raise CompileError(f"internal: {fn} needs the function being lowered")
    if not args:
        raise CompileError(f"{fn} needs at least one argument")
    if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1:
        raise CompileError(f"{fn}: pack must be a constexpr integer >= 1, got {describe(pack)}")
    values = [a if isinstance(a, Value) else sem.materialize(a) for a in args]
    values = list(sem.broadcast(*values))
    shape = values[0].type.shape if values[0].type.is_block() else ()
    n = values[0].type.numel if shape else 1
    if pack > 1 and (not shape or n % pack or pack & (pack - 1)):
        raise CompileError(f"{fn}: pack={pack} must be a power of 2 dividing the number of elements ({n})")
    pieces = [p for v in values for p in _unpack(sem, v, pack)] if pack > 1 else values
    out = lowering.call_jit_elementwise(scalar_fn, pieces)
    single = not isinstance(out, tuple)
    results = [out] if single else list(out)
    if len(results) % pack:
        raise CompileError(f"{fn}: with pack={pack} the function must return a multiple of {pack} values, "
                           f"got {len(results)}")
    blocks = []
    piece_shape = pieces[0].type.shape if pieces[0].type.is_block() else ()
    for k in range(len(results) // pack):
        group = []
        for j, r in enumerate(results[k * pack:(k + 1) * pack]):
            if r is None or not (isinstance(r, Value) or is_const(r)):
                raise CompileError(f"{fn}: the function's result {k * pack + j} is {describe(r)}, not a value")
            r = sem.materialize(r)          # a constant takes its literal type, as Triton's scalar results do
            group.append(sem.broadcast_to(r, piece_shape) if piece_shape else r)
        if len({g.type for g in group}) > 1:
            raise CompileError(f"{fn}: the values the function returns for one result differ in type: "
                               + ", ".join(str(g.type.element_type) for g in group))
        blocks.append(_repack(sem, group, shape) if pack > 1 else group[0])
    return blocks[0] if single else tuple(blocks)     # as Triton: one block only for a single return value
