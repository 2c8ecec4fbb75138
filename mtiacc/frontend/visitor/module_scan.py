"""The module level of the user's file, read statically: imports, constants and jit functions.

Nothing is executed.  Only top-level statements are considered: imports (also those of a ``try:`` block's
body, as its ``except ImportError:`` fallback would only matter to Python) bind module names,
assignments of constant expressions bind constants, ``def`` binds functions; anything else
(calls, ``if __name__ == "__main__":``, ...) is ignored.
"""
from __future__ import annotations

import ast
import dataclasses
import operator
from typing import Dict, List, Optional

from mtiacc.frontend.language import module_attr
from mtiacc.frontend.values import CONSTEXPR, JIT, Builtin, FunctionRef, Marker, ModuleRef, NonConstantGlobal


class NotConstant(Exception):
    """An expression that cannot be evaluated statically."""


@dataclasses.dataclass
class ModuleInfo:
    scope: Dict[str, object]
    jit_functions: Dict[str, ast.FunctionDef]
    # functions under @triton.autotune / @triton.heuristics without @triton.jit: name -> that decorator
    tuned_without_jit: Dict[str, ast.expr] = dataclasses.field(default_factory=dict)


def _user_module(resolver, name: str, level: int = 0):
    """The user's own module ``name`` (see imports.py), or None for triton, mtiacc (``mtiacc.language``, the
    MTIA extensions) and unknown modules."""
    if resolver is None or (not level and name.split(".")[0] in ("triton", "mtiacc")):
        return None
    return resolver(name, level)


def _bind_import(scope: Dict[str, object], node: ast.stmt, resolver=None) -> None:
    if isinstance(node, ast.ImportFrom):
        user = _user_module(resolver, node.module or "", node.level)
        if user is not None or node.level:
            for alias in node.names:
                if alias.name == "*":
                    continue
                found = user.member(alias.name) if user is not None else None
                if found is None:  # `from . import utils`: a module of the package (with or without __init__)
                    found = _user_module(resolver, f"{node.module}.{alias.name}" if node.module else alias.name,
                                         node.level)
                if found is not None:
                    scope[alias.asname or alias.name] = found
            return
    if isinstance(node, ast.Import):
        for alias in node.names:
            user = _user_module(resolver, alias.name)
            if user is not None:
                top = alias.name.split(".")[0]
                scope[alias.asname or top] = user if alias.asname else _user_module(resolver, top)
                continue
            if alias.asname:
                scope[alias.asname] = ModuleRef(alias.name)
            else:  # `import triton.language` binds `triton`
                top = alias.name.split(".")[0]
                scope[top] = ModuleRef(top)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        base = ModuleRef(node.module)
        for alias in node.names:
            if alias.name == "*":
                continue
            scope[alias.asname or alias.name] = module_attr(base, alias.name, alias.name)


def resolve_static(node: ast.expr, scope: Dict[str, object]) -> object:
    """The object a dotted name (``tl.constexpr``, ``triton.jit``) refers to, or None."""
    if isinstance(node, ast.Name):
        return scope.get(node.id)
    if isinstance(node, ast.Attribute):
        base = resolve_static(node.value, scope)
        if isinstance(base, ModuleRef):
            return module_attr(base, node.attr, ast.unparse(node))
    return None


def is_jit_decorator(node: ast.expr, scope: Dict[str, object]) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    found = resolve_static(target, scope)
    if found is JIT:
        return True
    # A file that uses `@triton.jit` without importing triton is still a Triton file.
    return found is None and ast.unparse(target) in ("triton.jit", "jit")


def decorator_kind(node: ast.expr, scope: Dict[str, object]) -> Optional[str]:
    """``"jit"``, ``"autotune"`` or ``"heuristics"`` for Triton's kernel decorators, else None."""
    if is_jit_decorator(node, scope):
        return "jit"
    target = node.func if isinstance(node, ast.Call) else node
    found = resolve_static(target, scope)
    for kind in ("autotune", "heuristics"):
        if found == Marker(f"triton.{kind}") or found is None and ast.unparse(target) in (f"triton.{kind}", kind):
            return kind
    return None


def is_constexpr_annotation(ann: Optional[ast.expr], scope) -> bool:
    """Whether a parameter annotation makes it a compile-time parameter (``tl.constexpr``, a ``tl.dtype``)."""
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.split(".")[-1] == "constexpr"
    found = resolve_static(ann, scope)  # a `tl.dtype` parameter takes a type: a compile-time value too
    return found is CONSTEXPR or ast.unparse(ann) in ("tl.constexpr", "constexpr") or \
        (isinstance(found, Builtin) and found.qualname == "tl.dtype")


_CONST_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Mod: operator.mod,
                 ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
                 ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_CONST_UNOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
                ast.Not: operator.not_}


def const_eval(node: ast.expr, scope: Dict[str, object]):
    """A module-level or default-value expression's constant value, or NotConstant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.Name):
        v = scope.get(node.id)
        if isinstance(v, (bool, int, float)):
            return v
        raise NotConstant(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _CONST_BINOPS:
        a, b = const_eval(node.left, scope), const_eval(node.right, scope)
        if isinstance(node.op, ast.Pow) and isinstance(b, int) and abs(b) > 256:
            raise NotConstant("huge power")
        try:
            return _CONST_BINOPS[type(node.op)](a, b)
        except (ArithmeticError, ValueError) as e:
            raise NotConstant(str(e)) from None
    if isinstance(node, ast.UnaryOp) and type(node.op) in _CONST_UNOPS:
        return _CONST_UNOPS[type(node.op)](const_eval(node.operand, scope))
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        fn = resolve_static(node.func, scope)
        if isinstance(fn, Marker) and fn.qualname.endswith("constexpr"):
            return const_eval(node.args[0], scope)
    raise NotConstant(ast.unparse(node))


def _bind_assign(scope: Dict[str, object], targets: List[ast.expr], value: Optional[ast.expr]) -> None:
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if value is None:
        return
    try:
        v = const_eval(value, scope)
    except (NotConstant, TypeError):
        v = None
    for name in names:
        scope[name] = v if v is not None else NonConstantGlobal(name)


def scan_module(tree: ast.Module, resolver=None) -> ModuleInfo:
    """``resolver(name, level)`` finds the user's own modules (imports.py); without it, every
    module but triton's is foreign."""
    scope: Dict[str, object] = {}
    jit: Dict[str, ast.FunctionDef] = {}
    tuned: Dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _bind_import(scope, node, resolver)
        elif isinstance(node, ast.Try):  # `try: from triton.language.extra import mtia` / `except ImportError:`
            for stmt in node.body:
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    _bind_import(scope, stmt, resolver)
        elif isinstance(node, ast.Assign):
            _bind_assign(scope, node.targets, node.value)
        elif isinstance(node, ast.AnnAssign):
            _bind_assign(scope, [node.target], node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            is_jit = any(is_jit_decorator(d, scope) for d in node.decorator_list)
            scope[node.name] = FunctionRef(node.name, is_jit)
            if is_jit:
                jit[node.name] = node
            else:
                jit.pop(node.name, None)
                kinds = [d for d in node.decorator_list if decorator_kind(d, scope) in ("autotune", "heuristics")]
                if kinds:
                    tuned[node.name] = kinds[0]
        elif isinstance(node, ast.ClassDef):
            scope[node.name] = NonConstantGlobal(node.name)
    return ModuleInfo(scope, jit, tuned)

