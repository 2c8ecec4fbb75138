"""Calls from a kernel to ``@triton.jit`` helper functions.

A call binds its arguments to the helper's parameters with Python's rules (positional, keyword,
defaults).  Every argument that is not a run-time value (constexprs, dtypes, None, strings)
is baked into the helper, as Triton does: one ``tt.func`` per distinct combination of run-time
argument types and constant arguments, named ``helper``, ``helper_1``, ...  The helper body is
lowered once per combination, with its own module's globals, and the call is a ``tt.call``; the
``inline`` pass puts the bodies in place before codegen.

Returned constants (``return x, 4``) come back to the caller as constants; returned run-time
values are the helper's results.  ``return a, b`` gives the caller a tuple.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Tuple

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.imports import HelperRef, LoadedModule
from mtiacc.frontend.module_scan import NotConstant, const_eval
from mtiacc.frontend.params import _is_constexpr_annotation
from mtiacc.frontend.semantic import describe
from mtiacc.frontend.values import FunctionRef
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
        from mtiacc.frontend.imports import Importer
        import os
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
    from mtiacc.frontend.module_scan import resolve_static
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


def _freeze(x):
    if isinstance(x, tuple):
        return tuple(_freeze(e) for e in x)
    return (type(x).__name__, repr(x))


def call(ctx, callee, node: ast.Call):
    if isinstance(callee, FunctionRef):
        module, name = module_of(ctx), callee.name
    else:
        assert isinstance(callee, HelperRef)
        module, name = callee.module, callee.name
    fn = module.info.jit_functions.get(name)
    if fn is None:
        raise CompileError(f"'{name}' is not a @triton.jit function")
    args = []
    for x in node.args:
        if isinstance(x, ast.Starred):
            raise CompileError("`*` unpacking in calls is not supported yet")
        args.append(ctx.visit(x))
    kwargs = {}
    for k in node.keywords:
        if k.arg is None:
            raise CompileError("`**` unpacking in calls is not supported yet")
        kwargs[k.arg] = ctx.visit(k.value)
    return call_values(ctx, callee, args, kwargs)


def call_values(ctx, callee, args, kwargs):
    """Call the helper ``callee`` with already lowered arguments (``tl.reduce``'s combine_fn too)."""
    if isinstance(callee, FunctionRef):
        module, name = module_of(ctx), callee.name
    else:
        module, name = callee.module, callee.name
    fn = module.info.jit_functions.get(name)
    if fn is None:
        raise CompileError(f"'{name}' is not a @triton.jit function")
    bound = bind_arguments(fn, module, args, kwargs)
    params = {p.arg: p for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    key_parts = []
    for pname, v in bound.items():
        if isinstance(v, Value):
            if _is_constexpr_annotation(params[pname].annotation, module.info.scope):
                raise CompileError(f"parameter '{pname}' of '{name}' is a tl.constexpr, but the call passes "
                                   f"{describe(v)}")
            key_parts.append((pname, "value", v.type))
        elif isinstance(v, tuple) and any(isinstance(e, Value) for e in v):
            raise CompileError(f"passing a tuple of run-time values to '{name}' is not supported yet")
        else:
            key_parts.append((pname, "const", _freeze(v)))
    key = (module.path, name, tuple(key_parts))
    s = session_of(ctx)
    if key in s.active or any(k[:2] == key[:2] for k in s.active):
        raise CompileError(f"recursive call to '{name}' is not supported")
    if key not in s.cache:
        s.cache[key] = _lower_helper(ctx, s, module, fn, bound)
    sym, template, is_tuple, ftype = s.cache[key]
    runtime = [v for v in bound.values() if isinstance(v, Value)]
    op = CallOp.get(sym, runtime, list(ftype.outputs))
    ctx.builder.insert(op)
    values = tuple(op.results[x] if kind == "result" else x for kind, x in template)
    if is_tuple:
        return values
    return values[0] if values else None


def _lower_helper(ctx, s: Session, module: LoadedModule, fn: ast.FunctionDef, bound: Dict[str, object]):
    from mtiacc.frontend.lowering import FunctionLowering
    runtime = [(n, v) for n, v in bound.items() if isinstance(v, Value)]
    sym = s.fresh_name(fn.name)
    loc = module.src.loc(fn)
    func = ops.FuncOp.get(sym, [v.type for _, v in runtime], [n for n, _ in runtime], loc=loc)
    func.attrs["sym_visibility"] = "private"
    s.module_op.body.block.append(func)
    sub = FunctionLowering(module.src, module.info, Builder(func.entry, loc))
    sub.session, sub.loaded, sub.is_kernel = s, module, False
    args = iter(func.args)
    for n, v in bound.items():
        sub.locals[n] = next(args) if isinstance(v, Value) else v
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
    vals = sub.return_values if sub.returned else None
    is_tuple = isinstance(vals, tuple)
    flat = vals if is_tuple else (() if vals is None else (vals,))
    template, results = [], []
    for v in flat:
        if isinstance(v, Value):
            template.append(("result", len(results)))
            results.append(v)
        elif isinstance(v, tuple) and any(isinstance(e, Value) for e in v):
            raise CompileError(f"'{fn.name}' returns a nested tuple of run-time values, which is not "
                               "supported yet", loc)
        else:
            template.append(("const", v))
    end = fn.body[-1]
    sub.builder.loc = module.src.loc(end)
    sub.builder.insert(ops.ReturnOp.get(results))
    ftype = FunctionType(tuple(a.type for a in func.args), tuple(v.type for v in results))
    func.attrs["function_type"] = ftype
    return sym, template, is_tuple, ftype
