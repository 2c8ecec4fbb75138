"""Calls from a kernel to ``@triton.jit`` helper functions.

A call binds its arguments to the helper's parameters with Python's rules (positional, keyword,
defaults).  Every argument that is not a run-time value (constexprs, dtypes, None, strings)
is baked into the helper, as Triton does: one ``tt.func`` per distinct combination of run-time
argument types and constant arguments, named ``helper``, ``helper_1``, ...  The helper body is
lowered once per combination, with its own module's globals, and the call is a ``tt.call``; the
``inline`` pass puts the bodies in place before codegen.

Returned constants (``return x, 4``) come back to the caller as constants; returned run-time
values are the helper's results.  ``return a, b`` gives the caller a tuple (nested tuples too).
Tuples of run-time values may be passed (``helper((a, b))``, Triton 3's tuples): their values are
the function's arguments, in order, and the helper sees the tuple rebuilt.
"""
from __future__ import annotations

import ast
import os
from typing import Dict, List, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import describe
from mtiacc.frontend.values import Aggregate, FunctionRef, HelperRef
from mtiacc.frontend.visitor.imports import Importer, LoadedModule
from mtiacc.frontend.visitor.module_scan import NotConstant, const_eval, resolve_static
from mtiacc.ir import ops
from mtiacc.ir.core import Builder, Value
from mtiacc.ir.scf import CallOp
from mtiacc.ir.types import FunctionType, Type


class Session:
    """State shared by a kernel and every helper lowered for it."""

    def __init__(self, module_op: ops.ModuleOp):
        self.module_op = module_op
        self.cache: Dict[Tuple, Tuple] = {}
        self.active: List[Tuple] = []
        self.names = {f.sym_name for f in module_op.funcs}
        self.elementwise = 0        # > 0 inside tl.map_elementwise's function: `if` on a block selects per element

    def fresh_name(self, base: str) -> str:
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name


def session_of(ctx) -> Session:
    if ctx.session is None:
        node = ctx.entry  # the function's entry block (branch blocks are not attached yet)
        while node is not None and not isinstance(node, ops.ModuleOp):
            node = node.parent
        ctx.session = Session(node)
    return ctx.session


def module_of(ctx) -> LoadedModule:
    if ctx.loaded is None:
        ctx.loaded = LoadedModule(os.path.splitext(os.path.basename(ctx.src.path))[0], ctx.src.path, ctx.src,
                                  ctx.module, Importer(os.path.dirname(os.path.abspath(ctx.src.path))))
    return ctx.loaded


def _default(module: LoadedModule, node: ast.expr, name: str):
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return node.value
    try:
        return const_eval(node, module.info.scope)
    except (NotConstant, TypeError):
        pass
    found = resolve_static(node, module.info.scope)
    if isinstance(found, Type):
        return found
    raise CompileError(f"the default value of parameter '{name}' is not a compile-time constant",
                       module.src.loc(node))


def bind_arguments(fn: ast.FunctionDef, module: LoadedModule, args, kwargs) -> Dict[str, object]:
    a = fn.args
    if a.vararg is not None or a.kwarg is not None:
        raise CompileError(f"helper '{fn.name}' has *args or **kwargs parameters, which are not supported yet")
    positional = a.posonlyargs + a.args
    names = [p.arg for p in positional]
    if len(args) > len(names):
        raise CompileError(f"{fn.name}() takes {len(names)} positional arguments but {len(args)} were given")
    bound: Dict[str, object] = dict(zip(names, args))
    kwonly = [p.arg for p in a.kwonlyargs]
    for k, v in kwargs.items():
        if k not in names[len(a.posonlyargs):] and k not in kwonly:
            raise CompileError(f"{fn.name}() got an unexpected keyword argument '{k}'")
        if k in bound:
            raise CompileError(f"{fn.name}() got multiple values for argument '{k}'")
        bound[k] = v
    defaults = dict(zip(names[len(names) - len(a.defaults):], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    out: Dict[str, object] = {}
    for name in names + kwonly:
        if name in bound:
            out[name] = bound[name]
        elif name in defaults:
            out[name] = _default(module, defaults[name], name)
        else:
            raise CompileError(f"{fn.name}() missing required argument '{name}'")
    return out


def _of_module(module: LoadedModule, x):
    """``x``, or for a ``@triton.jit`` function of ``module`` named by a bare name, a reference that names
    its module."""
    return HelperRef(module, x.name) if isinstance(x, FunctionRef) and x.jit else x


def _freeze(x):
    """The part of a helper's specialization key that ``x`` decides: the type of a run-time value, the
    value of a constant, the structure of a tuple (which may hold both)."""
    if isinstance(x, Value):
        return ("value", x.type)
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple(_freeze(e) for e in x))
    if isinstance(x, Aggregate):  # a block pointer, a descriptor: its structure and its parts
        return (type(x).__name__, x.key(), tuple(_freeze(e) for e in x.parts()))
    if isinstance(x, HelperRef):
        return ("helper", x.module.path, x.name)
    return (type(x).__name__, repr(x))


def _flatten(x) -> List[Value]:
    """The run-time values in ``x`` (a value, a constant, or a possibly nested tuple), in order."""
    if isinstance(x, Value):
        return [x]
    if isinstance(x, (tuple, list)):
        return [v for e in x for v in _flatten(e)]
    if isinstance(x, Aggregate):
        return [v for e in x.parts() for v in _flatten(e)]
    return []


def _rebuild(x, values):
    """``x`` with its run-time values replaced, in order, by those of the iterator ``values``."""
    if isinstance(x, Value):
        return next(values)
    if isinstance(x, (tuple, list)):
        return type(x)(_rebuild(e, values) for e in x)
    if isinstance(x, Aggregate):
        return x.with_parts([_rebuild(e, values) for e in x.parts()])
    return x


def call(ctx, callee, node: ast.Call):
    if isinstance(callee, FunctionRef):
        module, name = module_of(ctx), callee.name
    else:
        assert isinstance(callee, HelperRef)
        module, name = callee.module, callee.name
    fn = module.info.jit_functions.get(name)
    if fn is None:
        raise CompileError(f"'{name}' is not a @triton.jit function")
    args, kwargs = call_arguments(ctx, node)
    return call_values(ctx, callee, args, kwargs)


def visit_spread(ctx, nodes) -> list:
    """The lowered values of ``nodes`` (call arguments, tuple elements), each ``*t`` (``t`` a tuple known
    at compile time) spread in place."""
    out = []
    for x in nodes:
        if isinstance(x, ast.Starred):
            v = ctx.visit(x.value)
            if not isinstance(v, (tuple, list)):
                raise CompileError(f"`*` unpacking needs a tuple known at compile time, got {describe(v)}",
                                   ctx.src.loc(x))
            out.extend(v)
        else:
            out.append(ctx.visit(x))
    return out


def call_arguments(ctx, node: ast.Call):
    """The lowered positional and keyword arguments of ``node``, with ``*t`` (``t`` a tuple known at
    compile time: a tuple expression, a helper's ``return a, b``, ``tl.split(x)``, ``x.shape``) spread
    into the positional ones and ``**d`` (a dict of constants and values: ``**{"k": 1}``) into the
    keyword ones, as Python does.  Every call in a kernel takes its arguments from here."""
    args = visit_spread(ctx, node.args)
    kwargs = {}
    for k in node.keywords:
        if k.arg is not None:
            if k.arg in kwargs:
                raise CompileError(f"keyword argument repeated: {k.arg}", ctx.src.loc(k))
            kwargs[k.arg] = ctx.visit(k.value)
            continue
        for key, v in _keyword_dict(ctx, k.value).items():
            if key in kwargs:
                raise CompileError(f"got multiple values for keyword argument '{key}'", ctx.src.loc(k))
            kwargs[key] = v
    return args, kwargs


def _keyword_dict(ctx, node: ast.expr) -> Dict[str, object]:
    """``**{"k": v, ...}`` or ``**d`` with ``d`` a constant dict: its items, values lowered."""
    if isinstance(node, ast.Dict):
        out: Dict[str, object] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:  # {**inner}
                out.update(_keyword_dict(ctx, value))
                continue
            name = ctx.visit(key)
            if not isinstance(name, str):
                raise CompileError(f"keywords must be strings, got {describe(name)}", ctx.src.loc(key))
            out[name] = ctx.visit(value)
        return out
    v = ctx.visit(node)
    if not isinstance(v, dict) or not all(isinstance(key, str) for key in v):
        raise CompileError(f"`**` unpacking needs a dict with string keys known at compile time, got "
                           f"{describe(v)}", ctx.src.loc(node))
    return dict(v)


def call_values(ctx, callee, args, kwargs):
    """Call the helper ``callee`` with already lowered arguments (``tl.reduce``'s combine_fn too)."""
    if isinstance(callee, FunctionRef):
        module, name = module_of(ctx), callee.name
    else:
        module, name = callee.module, callee.name
    fn = module.info.jit_functions.get(name)
    if fn is None:
        raise CompileError(f"'{name}' is not a @triton.jit function")
    here = module_of(ctx)
    if module is not here:  # a function of this module passed to another module's helper stays this module's
        args = [_of_module(here, a) for a in args]
        kwargs = {k: _of_module(here, v) for k, v in kwargs.items()}
    bound = bind_arguments(fn, module, args, kwargs)
    # A helper's `tl.constexpr` annotation does not decide anything: as in Triton, what the call passes
    # does (tutorial 06 passes the run-time blocks offs_m and offs_n to `offs_m: tl.constexpr`).
    key_parts = [(pname, _freeze(v)) for pname, v in bound.items()]
    key = (module.path, name, tuple(key_parts), session_of(ctx).elementwise > 0)
    s = session_of(ctx)
    if key in s.active or any(k[:2] == key[:2] for k in s.active):
        raise CompileError(f"recursive call to '{name}' is not supported")
    if key not in s.cache:
        s.cache[key] = _lower_helper(ctx, s, module, fn, bound)
    sym, template, ftype, passthrough = s.cache[key]
    runtime = [x for v in bound.values() for x in _flatten(v)]
    op = CallOp.get(sym, runtime, list(ftype.outputs))
    ctx.builder.insert(op)
    # a result that is an argument returned as it is stays the caller's value (a block pointer's base,
    # shape and strides keep their identity, so a loop can carry it)
    results = [runtime[k] if k is not None else r for k, r in zip(passthrough, op.results)]
    return _rebuild(template, iter(results))


def _lower_helper(ctx, s: Session, module: LoadedModule, fn: ast.FunctionDef, bound: Dict[str, object]):
    runtime = [(n if isinstance(v, Value) else f"{n}_{i}", x)
               for n, v in bound.items() for i, x in enumerate(_flatten(v))]
    sym = s.fresh_name(fn.name)
    loc = module.src.loc(fn)
    func = ops.FuncOp.get(sym, [v.type for _, v in runtime], [n for n, _ in runtime], loc=loc)
    func.attrs["sym_visibility"] = "private"
    s.module_op.body.block.append(func)
    sub = ctx.helper_lowering(module, Builder(func.entry, loc), s)
    args = iter(func.args)
    for n, v in bound.items():
        sub.locals[n] = _rebuild(v, args)
    key = (module.path, fn.name, ())
    s.active.append(key)
    try:
        sub.visit_body(fn.body)
    except CompileError as e:
        if ctx.builder.loc is not None:
            e.notes.append(f"in '{fn.name}', called from {ctx.builder.loc}")
        raise
    finally:
        s.active.remove(key)
    template = sub.return_values if sub.returned else None  # constants stay; values become results
    results = _flatten(template)
    end = fn.body[-1]
    sub.builder.loc = module.src.loc(end)
    sub.builder.insert(ops.ReturnOp.get(results))
    ftype = FunctionType(tuple(a.type for a in func.args), tuple(v.type for v in results))
    func.attrs["function_type"] = ftype
    passthrough = [next((k for k, a in enumerate(func.args) if a is v), None) for v in results]
    return sym, template, ftype, passthrough
