"""A tiny, safe evaluator for launch-grid expressions (``cdiv(n, BLOCK)``, ``min``, ``max``, ``+ - * // %``, ``/``
(C's integer division, rounded toward zero, as in Triton's AOT grids),
``X.shape[0]``: the size of a pointer parameter's input array along an axis).

It walks the ``ast`` of the expression and allows only integer constants, names bound in the environment, the
arithmetic operators and the three functions above -- nothing is ever passed to ``eval``.
"""
from __future__ import annotations

import ast
from typing import Dict, Optional

from mtiacc.diagnostics import UsageError, UserError


def _cdiv(a, b):
    return -(-a // b)


_FUNCS = {"cdiv": _cdiv, "min": min, "max": max}
def _c_div(a, b):
    """``a / b`` as C divides integers (Triton's AOT grids are C expressions): rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Div: _c_div}


def evaluate(expr, env: Dict[str, object], shapes: Optional[Dict[str, tuple]] = None) -> int:
    """The integer value of grid expression ``expr`` (a string or an int) with names from ``env`` and
    ``NAME.shape[K]`` from the input arrays' ``shapes``."""
    if isinstance(expr, bool):
        raise UserError(f"grid expression {expr!r} is not an integer")
    if isinstance(expr, int):
        return expr
    text = str(expr)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise UserError(f"grid expression '{text}' is not valid syntax") from None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise UserError(f"grid expression '{text}' uses '{node.id}', which is not a scalar parameter or "
                                f"constexpr of the kernel")
            v = env[node.id]
            if isinstance(v, bool) or not isinstance(v, int):
                if isinstance(v, float) and v.is_integer():
                    return int(v)
                raise UserError(f"grid expression '{text}': '{node.id}' is {v!r}, not an integer")
            return v
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "shape" and isinstance(node.value.value, ast.Name) \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            name, k = node.value.value.id, node.slice.value
            shape = (shapes or {}).get(name)
            if shape is None:
                raise UserError(f"grid expression '{text}' uses the shape of '{name}', which is not a pointer "
                                f"parameter with an input array")
            if not 0 <= k < len(shape):
                raise UserError(f"grid expression '{text}': '{name}' has shape {tuple(shape)}, with no axis {k}")
            return int(shape[k])
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Div, ast.Mod)) and b == 0:
                raise UserError(f"grid expression '{text}' divides by zero")
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call) and not node.keywords:
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if (
                isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name)
                and fn.value.id in ("triton", "tl")) else None
            if name in _FUNCS and node.args:
                args = [ev(a) for a in node.args]
                if name in ("min", "max") and len(args) < 2:
                    raise UserError(f"grid expression '{text}': {name} takes two or more arguments")
                if name == "cdiv":
                    if len(args) != 2:
                        raise UserError(f"grid expression '{text}': cdiv takes two arguments")
                    if args[1] == 0:
                        raise UserError(f"grid expression '{text}' divides by zero")
                return _FUNCS[name](*args)
        raise UserError(f"grid expression '{text}' uses something other than integers, parameter names, "
                        f"ARRAY.shape[K], + - * / // %, cdiv, min and max")
    return ev(tree)


MAX_GRID_AXIS = (1 << 31) - 1   # tl.program_id and tl.num_programs are int32


def check_grid_sizes(grid, where: str) -> None:
    """Each axis of a launch grid must fit tl.program_id's int32."""
    for axis, v in enumerate(grid):
        if v > MAX_GRID_AXIS:
            raise UserError(f"{where}: axis {axis} has {v} programs; at most {MAX_GRID_AXIS} (2**31 - 1) fit "
                            "tl.program_id's int32")


def parse_grid_option(text: str):
    """``X[,Y[,Z]]`` from the command line -> a 3-tuple of positive ints."""
    parts = [p.strip() for p in str(text).split(",")]
    if not 1 <= len(parts) <= 3 or any(not p for p in parts):
        raise UsageError(f"--grid '{text}' must be X, X,Y or X,Y,Z (positive integers)")
    out = []
    for p in parts:
        try:
            v = int(p, 0)
        except ValueError:
            raise UsageError(f"--grid '{text}': '{p}' is not an integer") from None
        if v <= 0:
            raise UsageError(f"--grid '{text}': every grid size must be positive")
        out.append(v)
    check_grid_sizes(out, f"--grid '{text}'")
    return tuple(out + [1] * (3 - len(out)))
