"""A ``@triton.jit`` function as mtiacc's frontend takes it: a :class:`~mtiacc.runtime.KernelSource`.

The frontend compiles the function's own source (Triton's ``fn.src``, patched or not), located in the user's
file at its ``def`` (Triton's ``def_file_line_number`` and column), with the values of the names it takes from
its surroundings: what an enclosing function binds (its closure), and module-level names whose value the file
alone does not give (assigned under an ``if``, from a call).  Each is passed as what Triton's code generator sees,
a constant: a number, string, ``None`` or tuple of them (a ``tl.constexpr`` unwrapped), a ``tl.dtype`` or other
``triton.language`` object by its name, and a ``@triton.jit`` function as its own ``KernelSource``.  Nothing is
written anywhere: errors point at the user's file and line, in nested kernels and their helpers too.
"""
from __future__ import annotations

import ast
import inspect
import os
import textwrap
from typing import Dict, List, Optional, Tuple

from mtiacc.diagnostics import SourceLocation, UserError


def python_function(fn):
    """The Python function under a JITFunction (or an Autotuner / Heuristics wrapping one)."""
    py = fn
    while hasattr(py, "fn") and not inspect.isfunction(py):
        py = py.fn
    return py


def _language_name(v) -> Optional[str]:
    """``triton.language.<name>`` for an object ``triton.language`` exports under that name (a dtype first by
    identity, then by equality), else None."""
    try:
        import triton.language as tl
    except ImportError:          # pragma: no cover - the backend only runs under Triton
        return None
    if type(v).__name__ == "JITFunction":
        return None
    for name in dir(tl):
        if not name.startswith("_") and getattr(tl, name) is v:
            return f"triton.language.{name}"
    if isinstance(v, tl.dtype):
        for name in dir(tl):
            if not name.startswith("_") and isinstance(getattr(tl, name), tl.dtype) and getattr(tl, name) == v:
                return f"triton.language.{name}"
    return None


def _is_jit(v) -> bool:
    return type(v).__name__ == "JITFunction" and hasattr(v, "fn")


def captured(py) -> Dict[str, object]:
    """The values of the names ``py`` takes from its enclosing function's scope."""
    if not getattr(py, "__closure__", None):
        return {}
    out = {}
    for name, cell in zip(py.__code__.co_freevars, py.__closure__):
        try:
            out[name] = cell.cell_contents
        except ValueError:       # a name the enclosing function has not assigned yet
            continue
    return out


def _static_names(path: str) -> set:
    """Names the file binds at its top level in a way mtiacc reads without running it: imports, ``def``,
    ``class``, and assignments whose value calls nothing but ``constexpr(...)``."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return set()
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            calls = [c for c in ast.walk(node.value) if isinstance(c, ast.Call)]
            if all(ast.unparse(c.func).split(".")[-1] == "constexpr" for c in calls):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def _first_use(py, var: str, file: str) -> SourceLocation:
    """Where the function ``py`` of ``file`` first reads ``var`` (its ``def`` line when that is not found)."""
    try:
        lines, start = inspect.getsourcelines(py)
    except (OSError, TypeError):
        return SourceLocation(file, py.__code__.co_firstlineno)
    text = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    hits = [n for n in ast.walk(ast.parse(textwrap.dedent(text))) if isinstance(n, ast.Name) and n.id == var]
    if not hits:
        return SourceLocation(file, start)
    n = min(hits, key=lambda n: (n.lineno, n.col_offset))
    return SourceLocation(file, start + n.lineno - 1, indent + n.col_offset + 1, indent + n.end_col_offset + 1)


def function_source(fn) -> str:
    """A JITFunction's source from its ``def`` (Triton's ``fn.src``, which a test may have patched)."""
    src = getattr(fn, "src", None)
    if src is None:
        src = inspect.getsource(python_function(fn))
    src = textwrap.dedent(src)
    if not src.startswith("def "):     # inspect.getsource's text starts at the decorators
        lines = src.split("\n")
        src = "\n".join(lines[next(i for i, line in enumerate(lines) if line.startswith("def ")):])
    return src


def _position(fn, py) -> Tuple[str, int, int]:
    """(file, line of the ``def``, its indentation) of a JITFunction."""
    path = getattr(fn, "file_name", None) or inspect.getsourcefile(py)
    line = getattr(fn, "def_file_line_number", None)
    col = getattr(fn, "def_file_col_number", None)
    if line is None or col is None:
        lines, start = inspect.getsourcelines(py)
        at = next((i for i, text in enumerate(lines) if text.lstrip().startswith("def ")), 0)
        line, col = start + at, len(lines[at]) - len(lines[at].lstrip()) + 1
    return os.path.abspath(path), int(line), int(col) - 1


class _Unwritable(Exception):
    pass


_SKIP = object()


def _value(v, seen: Dict[int, object]):
    """A captured value as :class:`KernelSource` takes it, :data:`_SKIP` for one the file's own reading names
    the same (a class, a module other than Triton's), or :class:`_Unwritable`."""
    if type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = v.value
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple):
        items = [_value(x, seen) for x in v]
        if any(x is _SKIP for x in items):
            raise _Unwritable
        return tuple(items)
    if _is_jit(v):
        return kernel_source(v, seen=seen)
    from mtiacc.runtime import Global
    if type(v).__name__ == "module":
        return Global(v.__name__) if v.__name__.split(".")[0] in ("triton", "mtiacc") else _SKIP
    named = _language_name(v)
    if named is not None:
        return Global(named)
    if isinstance(v, type):
        return _SKIP
    raise _Unwritable


def _names_read(text: str) -> set:
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound_names(text: str) -> set:
    """The names a function's source binds itself: its parameters and every name it assigns (a patched source
    may bind a name its original took from the enclosing function)."""
    node = ast.parse(text).body[0]
    names = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def kernel_source(fn, tuples: Optional[Dict[str, object]] = None, seen: Optional[Dict[int, object]] = None):
    """The :class:`~mtiacc.runtime.KernelSource` of a JITFunction (see the module's docstring); ``tuples``: its
    tuple parameters (name -> Triton type)."""
    from mtiacc.runtime import KernelSource
    seen = {} if seen is None else seen
    if id(fn) in seen:
        return seen[id(fn)]
    py = python_function(fn)
    path, line, indent = _position(fn, py)
    text = function_source(fn)
    found: Dict[str, object] = {}
    ks = seen[id(fn)] = KernelSource(path, py.__name__, text, line, indent, found, dict(tuples or {}))
    read, own = _names_read(text), _bound_names(text)
    glob = getattr(py, "__globals__", {})
    known = _static_names(path)
    values = {n: glob[n] for n in read if n in glob and n not in known}
    values.update({n: v for n, v in captured(py).items() if n in read})
    for var, v in sorted(values.items()):
        if var in own:
            continue
        try:
            out = _value(v, seen)
        except _Unwritable:
            if var not in captured(py):
                continue          # a module-level name: the frontend says what it cannot use
            v = v.value if type(v).__name__ == "constexpr" and hasattr(v, "value") else v
            raise UserError(
                f"kernel '{py.__name__}' uses '{var}' from its enclosing function, a {type(v).__name__}: mtiacc "
                f"compiles captured numbers, strings, None, dtypes, tuples of them and @triton.jit "
                f"functions (pass anything else as an argument)", _first_use(py, var, path)) from None
        if out is not _SKIP:
            found[var] = out
    return ks


# ---------------------------------------------------------------------------------------------- tuple parameters

def flat_names(name: str, ty) -> List[Tuple[str, object]]:
    """A parameter of Triton type ``ty`` as the parameters mtiacc compiles: itself, or for a tuple (Triton 3.x
    takes tuples of tensors and scalars as one argument) one per leaf, ``name__0``, ``name__1__0``, ..."""
    if not isinstance(ty, (tuple, list)):
        return [(name, ty)]
    out: List[Tuple[str, object]] = []
    for i, t in enumerate(ty):
        out += flat_names(f"{name}__{i}", t)
    return out


def flat_values(v, ty) -> list:
    if not isinstance(ty, (tuple, list)):
        return [v]
    return [x for item, t in zip(v, ty) for x in flat_values(item, t)]
