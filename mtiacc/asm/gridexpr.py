"""Launch-grid expressions: the one grammar the compiler checks (``mtiacc --grid``) and the simulator evaluates
(the binary's ``grid`` metadata, one expression per axis).

An axis is an integer expression over integer constants, names (the kernel's scalar parameters and constexprs),
``NAME.shape[K]`` (the size of a pointer parameter's input array along axis K), ``+ - * // %``, ``/`` (C's integer
division, rounded toward zero, as in Triton's AOT grids), unary ``+ -`` and the functions ``cdiv(a, b)``,
``min(a, b, ...)`` and ``max(a, b, ...)`` (also spelt ``triton.cdiv``, ``tl.cdiv`` ...).  :func:`parse` checks the
grammar on Python's ``ast`` and :func:`evaluate` walks the checked tree; nothing is ever passed to ``eval``.
"""
from __future__ import annotations

import ast
import functools
from typing import Dict, List, Optional, Set, Tuple

from mtiacc.diagnostics import UsageError, UserError

FUNCTIONS = ("cdiv", "min", "max")
GRAMMAR = "integers, parameter names, ARRAY.shape[K], + - * / // %, cdiv, min, max"

# operator nodes unparse to '': name them in the error
_OPERATORS = {ast.Pow: "**", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|",
              ast.BitAnd: "&", ast.BitXor: "^", ast.Invert: "~", ast.Not: "not", ast.And: "and", ast.Or: "or"}


class GridError(UserError):
    """A grid expression outside the grammar; ``reason`` says what (the caller names the flag or the binary)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _c_div(a: int, b: int) -> int:
    """``a / b`` as C divides integers (Triton's AOT grids are C expressions): rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Div: _c_div}
_FUNCS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def function_name(node: ast.Call) -> Optional[str]:
    """``cdiv`` of ``cdiv(...)``, ``triton.cdiv(...)`` or ``tl.cdiv(...)``; None for anything else."""
    fn = node.func
    name = fn.id if isinstance(fn, ast.Name) else fn.attr if (
        isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id in ("triton", "tl")) \
        else None
    return name if name in FUNCTIONS else None


def shape_ref(node) -> Optional[Tuple[str, int]]:
    """``(NAME, K)`` of ``NAME.shape[K]``, else None."""
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name) and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int) and not isinstance(node.slice.value, bool)
            and node.slice.value >= 0):
        return node.value.value.id, node.slice.value
    return None


def _check(node) -> None:
    """Raise :class:`GridError` unless ``node`` is in the grammar."""
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, int) or isinstance(node.value, bool):
            raise GridError(f"only integer constants are allowed, got {node.value!r}")
    elif isinstance(node, ast.Name):
        pass
    elif shape_ref(node) is not None:
        pass
    elif isinstance(node, (ast.Subscript, ast.Attribute)):
        raise GridError(f"'{ast.unparse(node)}' is not allowed in a grid expression (an input array's size is "
                        "NAME.shape[K])")
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check(node.operand)
    elif isinstance(node, ast.Call):
        name = function_name(node)
        if name is None or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise GridError(f"unknown function in '{ast.unparse(node)}' (cdiv, min, max are known)")
        if name == "cdiv" and len(node.args) != 2:
            raise GridError("cdiv takes two arguments")
        if name in ("min", "max") and len(node.args) < 2:
            raise GridError(f"{name} takes two or more arguments")
        for a in node.args:
            _check(a)
    else:
        op = getattr(node, "op", None)
        what = _OPERATORS.get(type(op), None) if op is not None else None
        what = what or _OPERATORS.get(type(node)) or ast.unparse(node)
        raise GridError(f"'{what}' is not allowed in a grid expression (use {GRAMMAR})")


@functools.lru_cache(maxsize=1024)
def parse(text: str) -> Tuple[ast.expr, ...]:
    """The axes (1 to 3) of grid expression ``text`` (``"cdiv(N, 256), 4"``), checked against the grammar."""
    try:
        tree = ast.parse(f"({text},)", mode="eval")
    except (SyntaxError, ValueError):
        raise GridError(f"cannot parse '{text}' (expected e.g. \"cdiv(N, BLOCK_SIZE)\")") from None
    axes = tree.body.elts if isinstance(tree.body, ast.Tuple) else [tree.body]
    if not 1 <= len(axes) <= 3:
        raise GridError(f"a grid has 1 to 3 axes, got {len(axes)}")
    for a in axes:
        _check(a)
    return tuple(axes)


def names(axes) -> Tuple[Set[str], Set[Tuple[str, int]]]:
    """The parameter names and the ``(NAME, K)`` shape references the checked ``axes`` use."""
    used: Set[str] = set()
    shapes: Set[Tuple[str, int]] = set()
    for a in axes:
        for node in ast.walk(a):
            ref = shape_ref(node)
            if ref is not None:
                shapes.add(ref)
            elif isinstance(node, ast.Name) and not _is_function(a, node):
                used.add(node.id)
    return used, shapes


def _is_function(root, name_node: ast.Name) -> bool:
    """``name_node`` is the callee of a call (``cdiv``) or the ``triton``/``tl`` of ``triton.cdiv``, or the
    array of a shape reference."""
    for node in ast.walk(root):
        if isinstance(node, ast.Call) and (node.func is name_node or isinstance(node.func, ast.Attribute)
                                           and node.func.value is name_node):
            return True
        if shape_ref(node) is not None and node.value.value is name_node:
            return True
    return False


def evaluate(expr, env: Dict[str, object], shapes: Optional[Dict[str, tuple]] = None) -> int:
    """The integer value of one axis ``expr`` (a string or an int) with names from ``env`` and
    ``NAME.shape[K]`` from the input arrays' ``shapes``."""
    if isinstance(expr, bool):
        raise UserError(f"grid expression {expr!r} is not an integer")
    if isinstance(expr, int):
        return expr
    text = str(expr)
    try:
        axes = parse(text.strip())
    except GridError as e:
        raise UserError(f"grid expression '{text}': {e.reason}") from None
    if len(axes) != 1:
        raise UserError(f"grid expression '{text}' has {len(axes)} axes; the binary stores one per axis")

    def ev(node):
        if isinstance(node, ast.Constant):
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
        ref = shape_ref(node)
        if ref is not None:
            name, k = ref
            shape = (shapes or {}).get(name)
            if shape is None:
                raise UserError(f"grid expression '{text}' uses the shape of '{name}', which is not a pointer "
                                f"parameter with an input array")
            if k >= len(shape):
                raise UserError(f"grid expression '{text}': '{name}' has shape {tuple(shape)}, with no axis {k}")
            return int(shape[k])
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Div, ast.Mod)) and b == 0:
                raise UserError(f"grid expression '{text}' divides by zero")
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        name = function_name(node)
        args = [ev(a) for a in node.args]
        if name == "cdiv" and args[1] == 0:
            raise UserError(f"grid expression '{text}' divides by zero")
        return _FUNCS[name](*args)
    return ev(axes[0])


MAX_GRID_AXIS = (1 << 31) - 1   # tl.program_id and tl.num_programs are int32


def check_grid_sizes(grid, where: str) -> None:
    """Each axis of a launch grid must fit tl.program_id's int32."""
    for axis, v in enumerate(grid):
        if v > MAX_GRID_AXIS:
            raise UserError(f"{where}: axis {axis} has {v} programs; at most {MAX_GRID_AXIS} (2**31 - 1) fit "
                            "tl.program_id's int32")


def parse_grid_option(text: str) -> Tuple[int, int, int]:
    """``X[,Y[,Z]]`` from the command line -> a 3-tuple of positive ints."""
    parts = [p.strip() for p in str(text).split(",")]
    if not 1 <= len(parts) <= 3 or any(not p for p in parts):
        raise UsageError(f"--grid '{text}' must be X, X,Y or X,Y,Z (positive integers)")
    out: List[int] = []
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
