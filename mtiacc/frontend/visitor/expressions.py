"""Expression handlers: one function per kind of ``ast`` expression, each ``(ctx, node) -> value``.

Handlers visit their children through ``ctx.visit`` (the choke point) and leave typing and IR
building to ``ctx.sem``.
"""
from __future__ import annotations

import ast

from mtiacc.diagnostics import CompileError
from mtiacc.frontend import language
from mtiacc.frontend.language import core, dot, shapes
from mtiacc.frontend.language import types as tl_types
from mtiacc.frontend.language.semantic import describe, is_const, literal_type
from mtiacc.frontend.values import (CONSTEXPR, Builtin, BoundMethod, FunctionRef, ModuleRef, Unsupported,
                                    check_supported, is_jit_function)
from mtiacc.frontend.visitor import functions
from mtiacc.ir.core import Value
from mtiacc.ir.types import Type, i1

BINARY_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
              ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.BitAnd: "and", ast.BitOr: "or",
              ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift"}
COMPARE_OPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
UNARY_OPS = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "not"}


def constant(ctx, node: ast.Constant):
    if node.value is None or isinstance(node.value, (bool, int, float, str)):
        return node.value
    raise CompileError(f"{type(node.value).__name__} constants are not supported in a kernel")


def name(ctx, node: ast.Name):
    return ctx.lookup(node.id)


def attribute(ctx, node: ast.Attribute):
    base = ctx.visit(node.value)
    if node.attr == "type" and _constant_or_tuple(base) and not (
            isinstance(node.value, ast.Name) and node.value.id in getattr(ctx, "lifted", ())):
        # a literal, a constexpr parameter or a name annotated tl.constexpr: Triton's constexpr_type; a number
        # assigned to a name without the annotation is lifted to a scalar (below), as Triton does
        return tl_types.constexpr_type_of(base)
    return attribute_of(ctx, base, node.attr, ast.unparse(node), isinstance(node.value, ast.Name))


def _constant_or_tuple(x) -> bool:
    if isinstance(x, (tuple, list)):
        return all(_constant_or_tuple(v) for v in x)
    return is_const(x)


def attribute_of(ctx, base, attr: str, spelled: str, named: bool = False):
    """``base.attr`` (written ``spelled``), for ``x.attr`` and ``getattr(x, "attr")``; ``named``: ``base`` is
    a name's value (a number there has tensor attributes, a literal has not)."""
    if isinstance(base, ModuleRef):
        found = language.module_attr(base, attr, spelled)
        check_supported(found, spelled)
        return found
    if named and is_const(base) and (attr in language.METHODS or attr in ("dtype", "type")):
        # Triton makes a number assigned to a name a scalar tensor of the literal's type, so
        # `value = 1; value.dtype` is int32 and `acc = 0; acc = acc.to(tl.int64)` converts it
        base = ctx.sem.constant(base, literal_type(base))
    if isinstance(base, Value):
        if attr in language.METHODS:
            return BoundMethod(attr, base, language.METHODS[attr])
        if attr == "dtype":
            return base.type.element_type
        if attr == "type":  # the block type of a block, the scalar type of a scalar
            return base.type
        if attr == "shape":
            return tuple(base.type.shape)
        if attr == "numel" and base.type.is_block():
            return base.type.numel
        if attr == "T" and base.type.is_block():
            return shapes.trans(ctx.sem, base)
        raise CompileError(f"`{spelled}` is not supported yet (values have no attribute '{attr}' here)")
    if tl_types.is_type_value(base):  # x.dtype.is_floating(), x.type.shape, p.dtype.element_ty
        return tl_types.type_attr(base, attr, spelled)
    if hasattr(base, "frontend_attr"):  # the user's own module (imports.py)
        return base.frontend_attr(attr)
    raise CompileError(f"{describe(base)} has no attribute '{attr}'")


def _getattr_impl(sem, *args, **kwargs):
    raise AssertionError("getattr and hasattr are lowered by expressions.call")


# `getattr(x, "name"[, default])` and `hasattr(x, "name")` with a constant name: the attribute `x.name`
ATTRIBUTE_BUILTINS = {name: Builtin(name, _getattr_impl) for name in ("getattr", "hasattr")}


def _attribute_builtin(ctx, fn: str, node: ast.Call):
    if node.keywords or not (2 <= len(node.args) <= (3 if fn == "getattr" else 2)):
        raise CompileError(f"`{fn}` takes the object and the attribute's name" + (
            " (and a default)" if fn == "getattr" else "") + " as positional arguments")
    base, attr = ctx.visit(node.args[0]), ctx.visit(node.args[1])
    if not isinstance(attr, str):
        raise CompileError(f"`{fn}` needs the attribute's name as a compile-time string, got {describe(attr)}")
    spelled = f"{ast.unparse(node.args[0])}.{attr}"
    if fn == "hasattr" or len(node.args) == 3:
        if isinstance(base, ModuleRef) and isinstance(language.module_attr(base, attr, spelled), Unsupported):
            found = None
        else:
            try:
                found = attribute_of(ctx, base, attr, spelled, isinstance(node.args[0], ast.Name))
            except CompileError:
                found = None
        if fn == "hasattr":
            return found is not None
        return found if found is not None else ctx.visit(node.args[2])
    return attribute_of(ctx, base, attr, spelled, isinstance(node.args[0], ast.Name))


def call(ctx, node: ast.Call):
    callee = ctx.visit(node.func)
    spelled = ast.unparse(node.func)
    if any(callee is b for b in ATTRIBUTE_BUILTINS.values()):
        return _attribute_builtin(ctx, callee.qualname, node)
    if is_jit_function(callee):
        return functions.call(ctx, callee, node)
    if isinstance(callee, FunctionRef):
        raise CompileError(f"'{callee.name}' is a plain Python function; a kernel can only call "
                           "triton.language functions")
    if callee is CONSTEXPR:
        callee = Builtin("tl.constexpr", core.constexpr)
    if not isinstance(callee, (Builtin, BoundMethod)):
        what = "a data type" if isinstance(callee, Type) else describe(callee)
        raise CompileError(f"`{spelled}` is {what}, which cannot be called")
    args, kwargs = functions.call_arguments(ctx, node)
    if isinstance(callee, BoundMethod):
        fn = Builtin(f"x.{callee.name}", callee.impl)
        return language.call_builtin(ctx.sem, fn, args, kwargs, receiver=callee.receiver, name=spelled)
    return language.call_builtin(ctx.sem, callee, args, kwargs, name=spelled)


def binop(ctx, node: ast.BinOp):
    lhs, rhs = ctx.visit(node.left), ctx.visit(node.right)
    if isinstance(node.op, ast.Pow):
        if is_const(lhs) and is_const(rhs):
            if isinstance(rhs, int) and abs(rhs) > 4096:
                raise CompileError("exponent too large in a constant expression")
            try:
                return lhs ** rhs
            except ZeroDivisionError:
                raise CompileError("division by zero in a constant expression") from None
        raise CompileError("`**` on run-time values is not supported yet")
    if isinstance(node.op, ast.MatMult):   # Triton's tensor.__matmul__ is tl.dot(a, b)
        return language.call_builtin(ctx.sem, dot.LANGUAGE["dot"], [lhs, rhs], {}, name="`@`")
    if isinstance(lhs, tuple) or isinstance(rhs, tuple):
        return _sequence_binop(node.op, lhs, rhs)
    ctx.sem.check_literals(lhs, rhs)
    return ctx.sem.binary(BINARY_OPS[type(node.op)], lhs, rhs)


def _sequence_binop(op: ast.operator, lhs, rhs) -> tuple:
    """Python's ``+`` and ``*`` on lists and tuples known at compile time (``[2] * (RANK - 2) + [32, 32]``,
    a shape); lists are tuples here."""
    if isinstance(op, ast.Add) and isinstance(lhs, tuple) and isinstance(rhs, tuple):
        return lhs + rhs
    if isinstance(op, ast.Mult):
        seq, count = (lhs, rhs) if isinstance(lhs, tuple) else (rhs, lhs)
        if isinstance(count, int) and not isinstance(count, bool) and is_const(count):
            if count * len(seq) > 1 << 16:
                raise CompileError("a repeated sequence this long is not supported")
            return seq * count
    symbol = _SYMBOLS.get(type(op), type(op).__name__)

    def what(x):
        return f"the list or tuple {list(x)}" if isinstance(x, tuple) else describe(x)
    raise CompileError(f"`{symbol}` between {what(lhs)} and {what(rhs)} is not supported: a list or tuple takes "
                       "`+` with another and `*` with a constant integer")


_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
            ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}


def unaryop(ctx, node: ast.UnaryOp):
    return ctx.sem.unary(UNARY_OPS[type(node.op)], ctx.visit(node.operand))


def _is_static(x) -> bool:
    if isinstance(x, tuple):  # x.shape == (M, N)
        return all(_is_static(e) for e in x)
    return x is None or is_const(x) or isinstance(x, (str, Type, tl_types.ConstexprType))


def compare(ctx, node: ast.Compare):
    left = ctx.visit(node.left)
    if len(node.ops) == 1:
        op, right = node.ops[0], ctx.visit(node.comparators[0])
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not (_is_static(left) or _is_static(right)):
                raise CompileError("`is` between run-time values is not supported")
            same = left is right if left is None or right is None else left == right
            return same if isinstance(op, ast.Is) else not same
        if isinstance(op, (ast.In, ast.NotIn)):
            raise CompileError("`in` is not supported yet")
        if isinstance(op, (ast.Eq, ast.NotEq)) and _is_static(left) and _is_static(right) \
                and not (is_const(left) and is_const(right)):  # dtypes, strings, None
            return (left == right) == isinstance(op, ast.Eq)
        ctx.sem.check_literals(left, right)
        return ctx.sem.compare(COMPARE_OPS[type(op)], left, right)
    # A chain `a < b < c`: only between constexprs, evaluated like Python.
    for op, comparator in zip(node.ops, node.comparators):
        right = ctx.visit(comparator)
        if not (is_const(left) and is_const(right)) or type(op) not in COMPARE_OPS:
            raise CompileError("chained comparisons on run-time values are not supported yet; "
                               "combine single comparisons with `&`")
        if not ctx.sem.compare(COMPARE_OPS[type(op)], left, right):
            return False
        left = right
    return True


def boolop(ctx, node: ast.BoolOp):
    """``a and b``, ``a or b`` as Triton's code generator reads them: operands are visited in order; a
    compile-time one decides the result on the spot when it can (``and`` stops at a false one, ``or`` at a
    true one, skipping the rest and their side effects) and is dropped otherwise; the run-time ones, which
    must be booleans (i1 scalars or blocks), are all evaluated and combined with ``&`` / ``|``."""
    word = "and" if isinstance(node.op, ast.And) else "or"
    result, dynamic = None, []
    for v in node.values:
        result = ctx.visit(v)
        if isinstance(result, Value):
            if result.type.element_type != i1:
                raise CompileError(f"`{word}` on run-time values needs booleans (i1), got {describe(result)}; "
                                   f"compare it first (`x != 0`)", ctx.src.loc(v))
            dynamic.append(result)
        elif not _is_static(result):
            raise CompileError(f"`{word}` is not supported on {describe(result)}", ctx.src.loc(v))
        elif (word == "and") != bool(result):
            return result
    if not dynamic:  # every operand was known and none decided: the last one, as in Python
        return result
    while len(dynamic) > 1:  # right to left, as Triton pairs them: a and (b and c)
        rhs, lhs = dynamic.pop(), dynamic.pop()
        dynamic.append(ctx.sem.binary(word, lhs, rhs))
    return dynamic[0]


def subscript(ctx, node: ast.Subscript):
    """``x[:, None]`` (see shapes.subscript) and ``t[0]`` on constant tuples."""
    base = ctx.visit(node.value)
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    items = []
    for e in elts:
        if isinstance(e, ast.Slice):
            # `None:`, `:None`, `::None` are `:` too (Triton allows each bound to be None)
            if any(b is not None and ctx.visit(b) is not None for b in (e.lower, e.upper, e.step)):
                raise CompileError("slices other than `:` are not supported yet")
            items.append(slice(None))
        else:
            items.append(ctx.visit(e))
    return shapes.subscript(ctx.sem, base, items)


def sequence(ctx, node):
    """``(a, b)``, ``[a, b]``: a tuple; ``(*t, 1)`` spreads the tuple ``t`` known at compile time."""
    return tuple(functions.visit_spread(ctx, node.elts))


HANDLERS = {
    ast.Constant: constant, ast.Name: name, ast.Attribute: attribute, ast.Call: call,
    ast.BinOp: binop, ast.UnaryOp: unaryop, ast.Compare: compare, ast.BoolOp: boolop,
    ast.Tuple: sequence, ast.List: sequence, ast.Subscript: subscript,
}
