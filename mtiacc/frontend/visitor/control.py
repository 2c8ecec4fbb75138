"""Control flow in kernels: ``for``, ``while``, ``if``, early ``return``, conditional expressions.

Triton's rules, kept here:

* ``for x in range(...)`` / ``tl.range(...)`` become ``scf.for``; ``tl.static_range(...)`` is
  unrolled here, its induction variable a constexpr.  A constexpr negative step is turned around
  (``iv = lower + upper - iv'`` over the reversed range, as Triton does); a run-time step must be
  positive.
* Loop-carried values are the names assigned in the loop body (found by a pre-pass over the
  body's AST, never by lowering it twice) that are bound before the loop; a tuple (Triton 3's
  tuples) is carried element by element and must keep its structure, as ``if`` results are.  A carried value keeps
  its type: a constexpr start value takes its literal type (``acc = 0`` is i32), and a body that
  changes the type is an error.  Names first bound inside a loop or a branch are not visible
  after it unless both branches bind them.
* ``if`` on a constexpr lowers only the taken branch; on a run-time scalar it becomes ``scf.if``
  whose results are the names the branches assign.
* ``return`` inside an ``if``: the statements after the ``if`` move into the branches that do
  not return, so every ``return`` ends the function (and no IR ever jumps).
* ``a if c else b``: a constexpr ``c`` picks one side; a run-time scalar picks between scalars
  with ``scf.if`` and between blocks with ``arith.select``.
"""
from __future__ import annotations

import ast
from typing import List, Optional, Sequence, Set, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import shapes
from mtiacc.frontend.language.core import range_, static_range
from mtiacc.frontend.language.semantic import describe, is_const, literal_type
from mtiacc.frontend.values import Aggregate, Builtin
from mtiacc.frontend.visitor.functions import call_arguments, session_of
from mtiacc.ir import ops
from mtiacc.ir import scf
from mtiacc.ir.core import Block, Value
from mtiacc.ir.types import Type, i1, i32, i64

MAX_UNROLL = 4096  # tl.static_range iterations


# --------------------------------------------------------------------------- pre-passes over the AST

class _Assigned(ast.NodeVisitor):
    def __init__(self):
        self.names: List[str] = []

    def _add(self, name: str):
        if name not in self.names:
            self.names.append(name)

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Store):
            self._add(node.id)

    def visit_FunctionDef(self, node):  # a nested def's names are its own
        pass

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def assigned_names(stmts: Sequence[ast.stmt]) -> List[str]:
    """The names a list of statements may bind, in order of first appearance."""
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


def contains_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def always_returns(stmts: Sequence[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and always_returns(last.body) and always_returns(last.orelse)


# --------------------------------------------------------------------------- statement lists

def lower_statements(ctx, stmts: Sequence[ast.stmt]) -> None:
    """Lower statements in order; an ``if`` holding a ``return`` takes the rest into its branches."""
    stmts = list(stmts)
    for i, s in enumerate(stmts):
        if ctx.returned:
            return
        if isinstance(s, ast.If) and contains_return(s):
            rest = stmts[i + 1:]
            merged = ast.If(test=s.test, body=s.body + ([] if always_returns(s.body) else rest),
                            orelse=s.orelse + ([] if always_returns(s.orelse) else rest))
            ast.copy_location(merged, s)
            merged.end_lineno, merged.end_col_offset = s.end_lineno, s.end_col_offset
            merged._mtiacc_returns = True
            ctx.visit(merged)
            return
        ctx.visit(s)


class _Saved:
    """The lowering state a branch or a loop body changes, to restore afterwards."""

    def __init__(self, ctx):
        self.locals = dict(ctx.locals)
        self.block = ctx.builder.block
        self.returned = ctx.returned
        self.return_values = ctx.return_values

    def restore(self, ctx) -> None:
        ctx.locals = dict(self.locals)
        ctx.builder.block = self.block
        ctx.returned = self.returned
        ctx.return_values = self.return_values


def _in_block(ctx, block: Block, fn):
    saved = ctx.builder.block
    ctx.builder.block = block
    try:
        return fn()
    finally:
        ctx.builder.block = saved


def at_function_level(ctx) -> bool:
    region = ctx.builder.block.parent
    return region is not None and isinstance(region.parent, ops.FuncOp)


# --------------------------------------------------------------------------- merging values

def _mergeable(x) -> bool:
    return isinstance(x, Value) or is_const(x)


def _coerce(ctx, x, t: Type, what: str) -> Value:
    """``x`` (a constexpr or a value) as a run-time value of type ``t``; a type change is an error."""
    if isinstance(x, Value):
        if x.type != t:
            raise CompileError(what.format(got=x.type, want=t))
        return x
    v = ctx.sem.to_type(x, t.element_type)
    return ctx.sem.broadcast_to(v, t.shape) if t.is_block() else v


def _label(name: Optional[str]) -> str:
    return f"`{name}`" if name else "the value"


def _common_branch_type(a, b, name: Optional[str]) -> Type:
    if isinstance(a, Value) and isinstance(b, Value):
        if a.type != b.type:
            raise CompileError(f"{_label(name)} has type {a.type} in the then branch but {b.type} in the "
                               "else branch; both branches must give it one type")
        return a.type
    v = a if isinstance(a, Value) else b if isinstance(b, Value) else None
    return v.type if v is not None else literal_type(a)


def _merge_pairs(ctx, pairs, then_block: Block, else_block: Block):
    """``pairs``: [(name, then value, else value)].  Yields each branch's value as a result of one
    type; returns the result types and, per pair, either an index into the results or a constant."""
    types: List[Type] = []
    then_vals: List[Value] = []
    else_vals: List[Value] = []
    plan = []
    for name, a, b in pairs:
        if (is_const(a) and is_const(b) and type(a) is type(b) and a == b) or (a is None and b is None):
            plan.append(("const", a))  # None both: `f() if c else g()` over calls that return nothing
            continue
        if not (_mergeable(a) and _mergeable(b)):
            raise CompileError(f"{_label(name)} is {describe(a)} in one branch and {describe(b)} in "
                               "the other; only numbers and values can differ between branches")
        t = _common_branch_type(a, b, name)
        msg = f"{_label(name)} has type {{got}} in one branch but {{want}} in the other"
        then_vals.append(_in_block(ctx, then_block, lambda: _coerce(ctx, a, t, msg)))
        else_vals.append(_in_block(ctx, else_block, lambda: _coerce(ctx, b, t, msg)))
        plan.append(("result", len(types)))
        types.append(t)
    return types, then_vals, else_vals, plan


def _condition(ctx, test, what: str) -> Value:
    """A run-time scalar condition as i1."""
    if not isinstance(test, Value):
        raise CompileError(f"the condition of {what} must be a boolean, got {describe(test)}")
    if test.type.is_block() and not (what == "`if`" and session_of(ctx).elementwise):
        raise CompileError(f"the condition of {what} must be a scalar, got a block ({test.type}); "
                           "use tl.where for blocks")
    if test.type.element_type != i1:
        test = ctx.sem.compare("ne", test, 0)
    return test


# --------------------------------------------------------------------------- if

def lower_if(ctx, node: ast.If) -> None:
    test = ctx.visit(node.test)
    returns = getattr(node, "_mtiacc_returns", False)
    if test is None or is_const(test) or not isinstance(test, Value):
        if not (test is None or is_const(test)):
            raise CompileError(f"the condition of `if` must be a boolean, got {describe(test)}")
        lower_statements(ctx, node.body if test else node.orelse)
        return
    if test.type.is_block() and test.type.numel == 1:  # Triton unsplats a one-element block here (only here)
        test = shapes.item(ctx.sem, test)
    cond = _condition(ctx, test, "`if`")
    if contains_loop_return(node):
        raise CompileError("`return` inside a loop is not supported yet")
    saved = _Saved(ctx)
    outcomes = []
    blocks = (Block(), Block())
    for block, body in zip(blocks, (node.body, node.orelse)):
        saved.restore(ctx)
        ctx.builder.block = block
        ctx.return_values = None
        ctx.returned = False
        lower_statements(ctx, body)
        outcomes.append((dict(ctx.locals), ctx.returned, ctx.return_values))
    saved.restore(ctx)
    if returns:
        _finish_returning_if(ctx, node, cond, blocks, outcomes)
        return
    pairs = []
    for name in assigned_names(node.body + node.orelse):
        a = outcomes[0][0].get(name)
        b = outcomes[1][0].get(name)
        if a is None or b is None:  # bound in one branch only: not visible after the `if`
            ctx.locals.pop(name, None)
            branch = "then" if a is not None else "else"
            ctx.scoped_out[name] = (f"it is assigned only in the {branch} branch of the `if` at line "
                                    f"{node.lineno}; assign it before the `if` or in both branches")
            continue
        if a is b:
            continue
        pairs.append((name, a, b))
    _emit_if(ctx, node, cond, blocks, pairs)


class _AggShape:
    """The structure of a carried :class:`Aggregate` (a block pointer): ``template`` gives the parts
    that are not carried, ``inner`` the structures of its carried parts."""

    def __init__(self, template: Aggregate, inner: tuple):
        self.template, self.inner = template, inner


def _split_pair(name: Optional[str], a, b):
    """Tuples of one length in both branches (Triton 3's tuples) merge element by element: the
    structure and the leaf pairs ``[(label, a_i, b_i)]``; block pointers by their carried parts."""
    if isinstance(a, Aggregate) or isinstance(b, Aggregate):
        if not (isinstance(a, Aggregate) and a.same_fixed_parts(b)):
            raise CompileError(f"{_label(name)} is {describe(a)} in one branch and {describe(b)} in the "
                               "other; branches may change only the offsets of a block pointer")
        shapes, leaves = [], []
        for i in a.carried:
            shape, more = _split_pair(f"{name or 'the value'}.part{i}", a.parts()[i], b.parts()[i])
            shapes.append(shape)
            leaves += more
        return _AggShape(a, tuple(shapes)), leaves
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        shapes, leaves = [], []
        for i, (x, y) in enumerate(zip(a, b)):
            shape, more = _split_pair(f"{name or 'the value'}[{i}]", x, y)
            shapes.append(shape)
            leaves += more
        return tuple(shapes), leaves
    return None, [(name, a, b)]


def _join(shape, values):
    """The inverse of flattening: ``shape`` (None for a leaf, else a tuple of shapes) filled in order."""
    if isinstance(shape, _AggShape):
        parts = list(shape.template.parts())
        for i, inner in zip(shape.template.carried, shape.inner):
            parts[i] = _join(inner, values)
        return shape.template.with_parts(parts)
    return next(values) if shape is None else tuple(_join(s, values) for s in shape)


def _emit_if(ctx, node, cond: Value, blocks, pairs) -> List:
    if cond.type.is_block():
        return _emit_select(ctx, node, cond, blocks, pairs)
    split = [_split_pair(name, a, b) for name, a, b in pairs]
    types, tv, ev, plan = _merge_pairs(ctx, [p for _, leaves in split for p in leaves], *blocks)
    blocks[0].append(scf.YieldOp.get(tv, loc=ctx.builder.loc))
    blocks[1].append(scf.YieldOp.get(ev, loc=ctx.builder.loc))
    op = scf.IfOp.get(cond, types, blocks[0], blocks[1])
    ctx.builder.insert(op)
    return _bind_joined(ctx, pairs, split, [x if kind == "const" else op.results[x] for kind, x in plan])


def _bind_joined(ctx, pairs, split, leaves: List) -> List:
    """The values an ``if`` defines, rebuilt from their ``leaves`` (tuples joined) and bound to their names."""
    flat = iter(leaves)
    values = []
    for (name, _, _), (shape, _) in zip(pairs, split):
        v = _join(shape, flat)
        if name is not None:
            ctx.bind(name, v)
        values.append(v)
    return values


# ops a branch may not run for the elements whose condition is false
_EFFECTS = {"tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.barrier", "tt.print", "tt.assert"}


def _emit_select(ctx, node, cond: Value, blocks, pairs) -> List:
    """An ``if`` on a block condition inside ``tl.map_elementwise``'s function (element-wise mode): what
    running the function per element computes, for branches without effects: both branches' ops run, and
    each value the ``if`` defines (or returns) is ``tl.where(cond, then value, else value)``."""
    for block in blocks:
        for top in block.ops:
            for op in top.walk():
                if op.name in _EFFECTS or op.name.startswith("mtia."):
                    raise CompileError(f"an `if` on a block condition (in tl.map_elementwise's function) runs "
                                       f"both branches and selects per element, so its branches may not "
                                       f"load, store or have other effects; this one has `{op.name}`")
    for block in blocks:
        for op in list(block.ops):
            ctx.builder.insert(op)
    split = [_split_pair(name, a, b) for name, a, b in pairs]
    merged = []
    for name, a, b in (p for _, leaves in split for p in leaves):
        if (is_const(a) and is_const(b) and type(a) is type(b) and a == b) or (a is None and b is None):
            merged.append(a)
            continue
        if not (_mergeable(a) and _mergeable(b)):
            raise CompileError(f"{_label(name)} is {describe(a)} in one branch and {describe(b)} in "
                               "the other; only numbers and values can differ between branches")
        if isinstance(a, Value) and isinstance(b, Value) and a.type.element_type != b.type.element_type:
            raise CompileError(f"{_label(name)} has type {a.type.element_type} in the then branch but "
                               f"{b.type.element_type} in the else branch; both branches must give it one type")
        merged.append(ctx.sem.where(cond, a, b))
    return _bind_joined(ctx, pairs, split, merged)


def _as_tuple(v) -> tuple:
    return () if v is None else v if isinstance(v, tuple) else (v,)


def _finish_returning_if(ctx, node, cond, blocks, outcomes) -> None:
    """Both branches end the function: the ``scf.if`` yields what they return."""
    (_, r0, v0), (_, r1, v1) = outcomes
    t0, t1 = _as_tuple(v0 if r0 else None), _as_tuple(v1 if r1 else None)
    if len(t0) != len(t1):
        raise CompileError(f"this function returns {len(t0)} value(s) on one path and {len(t1)} on "
                           "another; every path must return the same number of values")
    pairs = [(None, a, b) for a, b in zip(t0, t1)]
    values = _emit_if(ctx, node, cond, blocks, pairs)
    ctx.returned = True
    if not t0:
        ctx.return_values = None
    else:
        ctx.return_values = tuple(values) if isinstance(v0 if r0 else v1, tuple) else values[0]
    if ctx.is_kernel and at_function_level(ctx):
        ctx.builder.insert(ops.ReturnOp.get())


def contains_loop_return(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, (ast.For, ast.While)) and contains_return(n):
            return True
    return False


# --------------------------------------------------------------------------- loops

def _shape_of(v):
    """A carried value's structure: None for a number or a value, a tuple of structures for a tuple
    (Triton 3's tuples are carried element by element); False when it cannot be carried."""
    if isinstance(v, tuple):
        inner = tuple(_shape_of(e) for e in v)
        return False if any(x is False for x in inner) else inner
    if isinstance(v, Aggregate):
        inner = tuple(_shape_of(v.parts()[i]) for i in v.carried)
        return False if any(x is False for x in inner) else _AggShape(v, inner)
    return None if isinstance(v, Value) or is_const(v) else False


def _leaves(name: str, shape, v) -> List[Tuple[str, object]]:
    """``[(label, leaf)]`` of ``v`` laid out as ``shape``; an error if ``v`` has another structure."""
    if shape is None:
        return [(name, v)]
    if isinstance(shape, _AggShape):
        if not shape.template.same_fixed_parts(v):
            raise CompileError(f"loop-carried variable `{name}` is {describe(shape.template)} before the loop "
                               f"but {describe(v)} at the end of the loop body; a loop may change only the "
                               "offsets of a block pointer (tl.advance)")
        return [x for i, s in zip(shape.template.carried, shape.inner)
                for x in _leaves(f"{name}.part{i}", s, v.parts()[i])]
    if not isinstance(v, tuple) or len(v) != len(shape):
        raise CompileError(f"loop-carried variable `{name}` is a tuple of {len(shape)} before the loop but "
                           f"{describe(v)} at the end of the loop body; a loop must keep its structure")
    return [x for i, (s, e) in enumerate(zip(shape, v)) for x in _leaves(f"{name}[{i}]", s, e)]


def _carried(ctx, body: Sequence[ast.stmt], exclude: Set[str]):
    """The names a loop carries and their structures (see ``_shape_of``)."""
    names = []
    for name in assigned_names(body):
        if name in exclude or name not in ctx.locals:
            continue
        shape = _shape_of(ctx.locals[name])
        if shape is not False:
            names.append((name, shape))
    return names


def _flat_names(names) -> List[str]:
    """The loop's argument names: ``t_0``, ``t_1`` for the elements of a carried tuple ``t``."""
    def walk(label: str, shape) -> List[str]:
        if isinstance(shape, _AggShape):
            return [x for i, sh in zip(shape.template.carried, shape.inner) for x in walk(f"{label}_{i}", sh)]
        return [label] if shape is None else [x for i, sh in enumerate(shape) for x in walk(f"{label}_{i}", sh)]
    return [x for name, shape in names for x in walk(name, shape)]


def _bind_all(ctx, names, values) -> None:
    it = iter(values)
    for name, shape in names:
        ctx.bind(name, _join(shape, it))


def _loop_body(ctx, node, block: Block, names, args, types) -> List[Value]:
    """Lower a loop body into ``block`` with ``names`` bound to ``args``; the values to yield."""
    ctx.builder.block = block
    _bind_all(ctx, names, args)
    if any(isinstance(n, ast.Return) for s in node.body for n in ast.walk(s)):
        raise CompileError("`return` inside a loop is not supported yet")
    lower_statements(ctx, node.body)
    leaves = [x for name, shape in names for x in _leaves(name, shape, ctx.locals.get(name))]
    out = []
    for (name, v), t in zip(leaves, types):
        msg = (f"loop-carried variable `{name}` has type {{want}} before the loop but {{got}} at the "
               "end of the loop body; a loop must keep the type of every value it carries")
        if not _mergeable(v):
            raise CompileError(f"loop-carried variable `{name}` is {describe(v)} at the end of the loop "
                               "body; it must stay a number or a value")
        out.append(_coerce(ctx, v, t, msg))
    return out


def _initial(ctx, names) -> List[Value]:
    return [ctx.sem.materialize(v) for n, shape in names for _, v in _leaves(n, shape, ctx.locals[n])]


def _bind_after(ctx, saved: _Saved, names, results, node=None) -> None:
    if node is not None:  # names first assigned in the body end with it
        for name in assigned_names(node.body):
            if name not in saved.locals:
                ctx.scoped_out[name] = (f"it is first assigned inside the loop at line {node.lineno}, and a "
                                        "value a loop body creates is not visible after the loop; assign it "
                                        "before the loop")
    saved.restore(ctx)
    _bind_all(ctx, names, results)


def _bound(ctx, x, what: str):
    if isinstance(x, Value):
        if x.type.is_block() or not x.type.is_int() or x.type.is_bool():
            raise CompileError(f"{what} must be an integer scalar, got {describe(x)}")
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise CompileError(f"{what} must be an integer, got {describe(x)}")
    return x


def lower_for(ctx, node: ast.For) -> None:
    if node.orelse:
        raise CompileError("`for ... else` is not supported yet")
    it = node.iter
    kind = _range_kind(ctx, it)
    args, kwargs = _range_args(ctx, it, kind)
    if not isinstance(node.target, ast.Name):
        raise CompileError("the loop variable must be a single name")
    if kind == "static_range":
        _unroll(ctx, node, *args)
        return
    lo, hi, step = (_bound(ctx, x, w) for x, w in zip(args, ("the start", "the end", "the step")))
    if is_const(step) and step == 0:
        raise CompileError("the step of a range must not be zero")
    reverse = is_const(step) and step < 0
    if reverse:  # range(a, b, -s) visits a + b - iv' for iv' in range(b, a, s)
        lo, hi, step = hi, lo, -step
    ints = [x for x in (lo, hi, step) if isinstance(x, Value)]
    t = i64 if any(x.type.element_type.width == 64 for x in ints) else i32
    lo_v, hi_v, st_v = (ctx.sem.to_type(x, t) if is_const(x) else ctx.sem.cast(x, t) for x in (lo, hi, step))
    saved = _Saved(ctx)
    names = _carried(ctx, node.body, {node.target.id})
    inits = _initial(ctx, names)
    types = [v.type for v in inits]
    loop = scf.ForOp.get(lo_v, hi_v, st_v, inits, arg_names=[node.target.id] + _flat_names(names))
    loop.attrs.update(kwargs)   # the kept hints (num_stages)
    ctx.builder.insert(loop)
    iv = loop.induction_var
    body_block = loop.block
    if reverse:
        def reversed_iv():
            s = ctx.sem.binary("add", lo_v, hi_v)
            return ctx.sem.binary("sub", s, iv)
        iv_value = _in_block(ctx, body_block, reversed_iv)
    else:
        iv_value = iv
    ctx.locals[node.target.id] = iv_value
    yields = _loop_body(ctx, node, body_block, names, loop.iter_args, types)
    body_block.append(scf.YieldOp.get(yields, loc=ctx.builder.loc))
    _bind_after(ctx, saved, names, loop.results, node)


def _unroll(ctx, node: ast.For, start, end=None, step=1) -> None:
    if end is None:
        start, end = 0, start
    for x, w in ((start, "start"), (end, "end"), (step, "step")):
        if isinstance(x, bool) or not isinstance(x, int):
            raise CompileError(f"tl.static_range needs constexpr integer bounds; its {w} is {describe(x)}")
    if step == 0:
        raise CompileError("the step of a range must not be zero")
    values = range(start, end, step)
    if len(values) > MAX_UNROLL:
        raise CompileError(f"tl.static_range would unroll {len(values)} iterations (at most {MAX_UNROLL})")
    if contains_return(node):
        raise CompileError("`return` inside a loop is not supported yet")
    for v in values:
        ctx.bind(node.target.id, v)
        lower_statements(ctx, node.body)


def lower_while(ctx, node: ast.While) -> None:
    if node.orelse:
        raise CompileError("`while ... else` is not supported yet")
    if contains_return(node):
        raise CompileError("`return` inside a loop is not supported yet")
    saved = _Saved(ctx)
    names = _carried(ctx, node.body, set())
    inits = _initial(ctx, names)
    types = [v.type for v in inits]
    loop = scf.WhileOp.get(inits, types, arg_names=_flat_names(names))
    ctx.builder.insert(loop)
    ctx.builder.block = loop.before_block
    _bind_all(ctx, names, loop.before_block.args)
    test = ctx.visit(node.test)
    if is_const(test) or test is None:
        raise CompileError("`while` on a constexpr condition is not supported (it would never end or "
                           "never run); use a run-time condition")
    cond = _condition(ctx, test, "`while`")
    ctx.builder.insert(scf.ConditionOp.get(cond, list(loop.before_block.args)))
    saved_locals = dict(saved.locals)
    ctx.locals = saved_locals
    yields = _loop_body(ctx, node, loop.after_block, names, loop.after_block.args, types)
    loop.after_block.append(scf.YieldOp.get(yields, loc=ctx.builder.loc))
    _bind_after(ctx, saved, names, loop.results, node)


# --------------------------------------------------------------------------- the iterator of a `for` loop

def _range_kind(ctx, it: ast.expr) -> str:
    if isinstance(it, ast.Call):
        if isinstance(it.func, ast.Name) and it.func.id == "range" and "range" not in ctx.locals \
                and "range" not in ctx.globals:
            return "range"
        fn = ctx.visit(it.func)
        if isinstance(fn, Builtin) and fn.impl is range_:
            return "range"
        if isinstance(fn, Builtin) and fn.impl is static_range:
            return "static_range"
    raise CompileError("a `for` loop must iterate over range(...), tl.range(...) or tl.static_range(...)")


def _range_args(ctx, it: ast.Call, kind: str):
    args, kwargs = call_arguments(ctx, it)  # range(*bounds) too
    names = ["arg1", "arg2", "step"]
    hints = ("num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten",
             "warp_specialize", "disable_licm")
    kept = {}
    for k in list(kwargs):
        if kind != "static_range" and k in hints:
            v = kwargs.pop(k)  # scheduling hints for GPUs: only num_stages means something here (pipeline-dots)
            if k == "num_stages" and isinstance(v, int) and not isinstance(v, bool) and v > 0:
                kept["num_stages"] = v
        elif k not in names:
            raise CompileError(f"{'tl.' if kind != 'range' else ''}{kind}() got an unexpected keyword "
                               f"argument '{k}'")
    if not 1 <= len(args) <= 3:
        raise CompileError(f"a range takes 1 to 3 positional arguments, got {len(args)}")
    bound = list(args) + [kwargs.get(n) for n in names[len(args):]]
    while bound and bound[-1] is None:
        bound.pop()
    if kind == "static_range":
        return bound, {}
    if len(bound) == 1:
        bound = [0, bound[0]]
    if len(bound) == 2:
        bound.append(1)
    return bound, kept


# --------------------------------------------------------------------------- return, break, continue

def return_(ctx, node: ast.Return) -> None:
    """``return``: ends the function (an ``if`` holding one took the rest in, see lower_statements)."""
    if node.value is not None:
        if ctx.is_kernel:
            raise CompileError("a kernel cannot return a value")
        ctx.return_values = ctx.visit(node.value)
    if ctx.is_kernel and at_function_level(ctx):
        ctx.builder.insert(ops.ReturnOp.get())
    ctx.returned = True


def break_(ctx, node) -> None:
    word = "break" if isinstance(node, ast.Break) else "continue"
    raise CompileError(f"`{word}` is not supported yet (Triton does not support it either); "
                       "use a `while` loop with a condition")


# --------------------------------------------------------------------------- conditional expressions

def lower_ifexp(ctx, node: ast.IfExp):
    test = ctx.visit(node.test)
    if test is None or is_const(test):
        return ctx.visit(node.body if test else node.orelse)
    cond = _condition(ctx, test, "a conditional expression")
    blocks = (Block(), Block())
    sides = []
    for block, expr in zip(blocks, (node.body, node.orelse)):
        sides.append(_in_block(ctx, block, lambda: ctx.visit(expr)))
    a, b = sides
    if any(isinstance(x, Value) and x.type.is_block() for x in (a, b)):
        # Blocks: both sides are computed, then selected element-wise.
        for block in blocks:
            for op in list(block.ops):
                block.ops.remove(op)
                ctx.builder.insert(op)
        return ctx.sem.where(cond, a, b)
    return _emit_if(ctx, node, cond, blocks, [(None, a, b)])[0]


HANDLERS = {
    ast.If: lower_if, ast.For: lower_for, ast.While: lower_while, ast.Return: return_, ast.Break: break_,
    ast.Continue: break_, ast.IfExp: lower_ifexp,
}
