"""A kernel defined inside a function, with the values it captures from the enclosing scope.

mtiacc compiles a kernel from a file, and a kernel defined in a function is compiled from a copy of its file with
the kernel appended at the top level (:func:`mtiacc.triton_backend.launcher._source_of`), where the enclosing
function's locals do not exist.  So each name the kernel takes from its closure is replaced, in the appended
source, by the value it holds: a number, string, ``None`` or tuple of them (a ``tl.constexpr`` unwrapped) as its
literal, a ``tl.dtype`` as ``triton.language.<name>``, and a ``@triton.jit`` function (a helper defined beside
the kernel) by the name of its own appended copy, itself with its captures replaced.  The kernel then compiles
as it would with those values written in, which is what Triton's code generator sees: captured names are
constants to it.
"""
from __future__ import annotations

import ast
import inspect
import math
import textwrap
from typing import Dict, List, Optional, Tuple

from mtiacc.diagnostics import SourceLocation, UserError


def python_function(fn):
    """The Python function under a JITFunction (or an Autotuner / Heuristics wrapping one)."""
    py = fn
    while hasattr(py, "fn") and not inspect.isfunction(py):
        py = py.fn
    return py


def _literal(v) -> str:
    if v is None or isinstance(v, (bool, str, int)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "-float('inf')"
        return repr(v)
    if isinstance(v, tuple):
        return "(" + "".join(_literal(x) + ", " for x in v) + ")"
    raise TypeError(type(v).__name__)


def _language_name(v):
    """``triton.language.<name>`` for a class or function that ``triton.language`` exports (not a dtype)."""
    if not (isinstance(v, type) or callable(v)) or type(v).__name__ == "JITFunction":
        return None
    try:
        import triton.language as tl
    except ImportError:          # pragma: no cover - the backend only runs under Triton
        return None
    return next((f"triton.language.{n}" for n in ("constexpr_type",) if getattr(tl, n, None) is v), None)


def _dtype_text(v):
    try:
        import triton.language as tl
    except ImportError:          # pragma: no cover - the backend only runs under Triton
        return None
    if not isinstance(v, tl.dtype):
        return None
    for name in dir(tl):
        if not name.startswith("_") and getattr(tl, name) is v:
            return f"triton.language.{name}"
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


def _static_names(text: str) -> set:
    """Names the file binds at its top level in a way mtiacc reads without running it: imports, ``def``,
    ``class``, and assignments whose value calls nothing but ``constexpr(...)``."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
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


def unknown_globals(py, text: str) -> Dict[str, object]:
    """The module-level names ``py`` uses whose value mtiacc's static reading of the file cannot know (assigned
    under an ``if``, from a call, ...) while Python has it as a value :func:`appended_functions` can write in:
    Triton sees them as the constexprs they hold, so the kernel is compiled with them written in too."""
    code = getattr(py, "__code__", None)
    names = [n for n in code.co_names if n in py.__globals__] if code is not None else []
    if not names:
        return {}
    known = _static_names(text)
    out = {}
    for n in names:
        if n in known:
            continue
        v = py.__globals__[n]
        if type(v).__name__ == "constexpr" and hasattr(v, "value"):
            v = v.value
        if _dtype_text(v) is None:
            try:
                _literal(v)
            except TypeError:
                continue
        out[n] = v
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


def _substituted(src: str, texts: Dict[str, str]) -> str:
    """``src`` with every load of a name in ``texts`` replaced by its text (columns are UTF-8 byte offsets)."""
    if not texts:
        return src
    lines = src.encode("utf-8").split(b"\n")
    hits = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id in texts]
    for n in sorted(hits, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        row = lines[n.lineno - 1]
        lines[n.lineno - 1] = row[:n.col_offset] + texts[n.id].encode("utf-8") + row[n.end_col_offset:]
    return b"\n".join(lines).decode("utf-8")


def _renamed_def(src: str, old: str, new: str) -> str:
    tree = ast.parse(src)
    node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    lines = src.split("\n")
    row = lines[node.lineno - 1]
    at = row.find(f"def {old}")
    if at >= 0:
        lines[node.lineno - 1] = row[:at] + f"def {new}" + row[at + 4 + len(old):]
    return "\n".join(lines)


def _bound_names(src: str) -> set:
    """The names a function's source binds itself: its parameters and every name it assigns.  A kernel whose
    source a test patched (``x = ...`` put in for a placeholder) may bind a name its original took from the
    enclosing function."""
    node = ast.parse(src).body[0]
    names = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def function_source(fn) -> str:
    """A JITFunction's source from its ``def`` (Triton's ``fn.src``, which a test may have patched)."""
    src = getattr(fn, "src", None)
    if src is None:
        src = inspect.getsource(python_function(fn))
    src = textwrap.dedent(src)
    # decorators of a nested definition come with inspect.getsource: the appended copy adds its own
    tree = ast.parse(src)
    node = tree.body[0]
    if getattr(node, "decorator_list", None):
        src = "\n".join(src.split("\n")[node.lineno - 1:])
    return src


def appended_functions(fn, name: str, suffix: str, file: str, tuples: Optional[Dict[str, object]] = None,
                       text: str = "") -> Tuple[str, List[str]]:
    """(the kernel's new name, the ``@triton.jit`` definitions to append: its helpers first, the kernel last)
    with every captured name (and every module-level name of :func:`unknown_globals` in the file's ``text``)
    replaced by its value, and the kernel's tuple parameters (``tuples``: name ->
    Triton type) flattened (:func:`untupled`)."""
    out: List[str] = []
    seen: Dict[int, str] = {}

    def visit(f, fname: str) -> str:
        if id(f) in seen:
            return seen[id(f)]
        new = f"{fname}__mtiacc_{suffix}"
        seen[id(f)] = new
        py = python_function(f)
        texts: Dict[str, str] = {}
        own = _bound_names(function_source(f))
        for var, v in {**unknown_globals(py, text), **captured(py)}.items():
            if var in own:
                continue      # assigned in the (patched) source: the original's capture of it is not used
            exported = _language_name(v)
            if exported is not None:              # tl.constexpr_type imported in the enclosing function
                texts[var] = exported
                continue
            if isinstance(v, type) or type(v).__name__ == "module":
                continue                          # a class or module: the file's imports name it the same
            if type(v).__name__ == "constexpr" and hasattr(v, "value"):
                v = v.value
            if _is_jit(v):
                texts[var] = visit(v, getattr(v, "__name__", var))
                continue
            written = _dtype_text(v)
            if written is None:
                try:
                    written = _literal(v)
                except TypeError:
                    raise UserError(
                        f"kernel '{fname}' uses '{var}' from its enclosing function, a {type(v).__name__}: mtiacc "
                        f"compiles captured numbers, strings, None, dtypes, tuples of them and @triton.jit "
                        f"functions (pass anything else as an argument)", _first_use(py, var, file)) from None
            texts[var] = written
        src = _substituted(function_source(f), texts)
        if f is fn:
            src = untupled(src, tuples or {})
        src = _renamed_def(src, fname, new)
        out.append(src)
        return new

    return visit(fn, name), out


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


class _Untupled(ast.NodeTransformer):
    """The kernel's tuple parameters as their leaves: ``p[0][1]`` (constant indices) is ``p__0__1``, ``len(p)``
    its length, ``p`` elsewhere the tuple expression of its leaves."""

    def __init__(self, tuples: Dict[str, object]):
        self.tuples = tuples

    def _path(self, node):
        """(parameter, its type at the indexed element, the flat name) of ``p[i][j]``, else None."""
        idx = []
        while isinstance(node, ast.Subscript):
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
                return None
            idx.append(node.slice.value)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.tuples:
            return None
        ty, name = self.tuples[node.id], node.id
        for i in reversed(idx):
            if not isinstance(ty, (tuple, list)) or not -len(ty) <= i < len(ty):
                return None
            i %= len(ty)
            ty, name = ty[i], f"{name}__{i}"
        return node.id, ty, name

    def _expr(self, ty, name: str, like: ast.AST) -> ast.expr:
        if isinstance(ty, (tuple, list)):
            out = ast.Tuple([self._expr(t, f"{name}__{i}", like) for i, t in enumerate(ty)], ast.Load())
        else:
            out = ast.Name(name, ast.Load())
        return ast.copy_location(out, like)

    def visit_FunctionDef(self, node):
        args = []
        for a in node.args.args:
            if a.arg in self.tuples:
                args += [ast.copy_location(ast.arg(n), a) for n, _ in flat_names(a.arg, self.tuples[a.arg])]
            else:
                args.append(a)
        node.args.args = args
        node.body = [self.visit(s) for s in node.body]
        return node

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords:
            found = self._path(node.args[0])
            if found is not None and isinstance(found[1], (tuple, list)):
                return ast.copy_location(ast.Constant(len(found[1])), node)
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        found = self._path(node)
        if found is not None:
            return self._expr(found[1], found[2], node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.tuples and isinstance(node.ctx, ast.Load):
            return self._expr(self.tuples[node.id], node.id, node)
        return node


def untupled(src: str, tuples: Dict[str, object]) -> str:
    """The kernel's source with its tuple parameters (``{name: Triton type}``) flattened (:class:`_Untupled`)."""
    if not tuples:
        return src
    tree = _Untupled(tuples).visit(ast.parse(src))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
