"""Statement handlers: one function per kind of ``ast`` statement, each ``(ctx, node) -> None``.

Expression statements, assignments and ``pass``; the statements that direct control (``if``,
``for``, ``while``, ``return``, ``break``) are in ``control.py``.
"""
from __future__ import annotations

import ast

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import is_const
from mtiacc.frontend.values import CONSTEXPR
from mtiacc.frontend.visitor.expressions import BINARY_OPS
from mtiacc.frontend.visitor.module_scan import resolve_static
from mtiacc.ir.types import Type


def expr(ctx, node: ast.Expr) -> None:
    if isinstance(node.value, ast.Constant):  # a docstring, or any bare constant: no effect
        return
    ctx.visit(node.value)


def _assign_to(ctx, target: ast.expr, value) -> None:
    if isinstance(target, ast.Name):
        ctx.bind(target.id, value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        if not isinstance(value, tuple) or len(value) != len(target.elts):
            raise CompileError(f"cannot unpack {'this value' if not isinstance(value, tuple) else f'{len(value)} values'} "
                               f"into {len(target.elts)} names")
        for t, v in zip(target.elts, value):
            _assign_to(ctx, t, v)
    else:
        raise CompileError(f"assigning to `{ast.unparse(target)}` is not supported yet")


def assign(ctx, node: ast.Assign) -> None:
    value = ctx.visit(node.value)
    for target in node.targets:
        _assign_to(ctx, target, value)
        if isinstance(target, ast.Name):
            lifted = getattr(ctx, "lifted", None)
            if lifted is not None:
                (lifted.add if is_const(value) else lifted.discard)(target.id)


def _static(value) -> bool:
    """A compile-time value: a constant, None, a string, a dtype (Inductor's ``INDEX_DTYPE: tl.constexpr =
    tl.int32``) or a tuple of them (tutorial 06's ``v_order: tl.constexpr = (0, 1) if ... else (1, 0)``)."""
    if isinstance(value, (tuple, list)):
        return all(_static(v) for v in value)
    return is_const(value) or value is None or isinstance(value, (str, Type))


def annassign(ctx, node: ast.AnnAssign) -> None:
    if node.value is None:
        return  # a bare annotation binds nothing
    value = ctx.visit(node.value)
    if resolve_static(node.annotation, ctx.globals) is CONSTEXPR and not _static(value):
        raise CompileError(f"`{ast.unparse(node.target)}` is annotated tl.constexpr but its value is "
                           "not a compile-time constant")
    _assign_to(ctx, node.target, value)
    if isinstance(node.target, ast.Name) and getattr(ctx, "lifted", None) is not None:
        ctx.lifted.discard(node.target.id)


def augassign(ctx, node: ast.AugAssign) -> None:
    if not isinstance(node.target, ast.Name):
        raise CompileError(f"assigning to `{ast.unparse(node.target)}` is not supported yet")
    current = ctx.lookup(node.target.id)
    if type(node.op) not in BINARY_OPS:
        symbol = "**" if isinstance(node.op, ast.Pow) else "@"
        raise CompileError(f"`{symbol}=` is not supported yet")
    value = ctx.visit(node.value)
    ctx.sem.check_literals(current, value)
    ctx.bind(node.target.id, ctx.sem.binary(BINARY_OPS[type(node.op)], current, value))


def pass_(ctx, node: ast.Pass) -> None:
    return None


HANDLERS = {
    ast.Expr: expr, ast.Assign: assign, ast.AnnAssign: annassign, ast.AugAssign: augassign, ast.Pass: pass_,
}
