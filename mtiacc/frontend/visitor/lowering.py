"""Lowering one kernel's body: the scope of names and the single ``visit()`` choke point.

``visit()`` is the only way a node is lowered.  It makes the node's location current (every op
built while lowering the node gets it) and turns any error into a :class:`CompileError` at that
location: a user error raised without a location gets the node's; any other exception is a
bug in this compiler and is reported as "internal compiler error", still at the node, with no
compiler traceback in the message.  The handlers themselves live in ``expressions.py``,
``statements.py`` and ``control.py``, one small function per kind of node; this module puts
their tables together.
"""
from __future__ import annotations

import ast
import builtins
from typing import Callable, Dict, List, Set

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.context import LoweringContext
from mtiacc.frontend.inductor.runtime import missing_scan_helper
from mtiacc.frontend.language.pybuiltins import PY_BUILTINS
from mtiacc.frontend.language.semantic import Semantic
from mtiacc.frontend.source import SourceFile
from mtiacc.frontend.values import ModuleRef, NonConstantGlobal, check_supported
from mtiacc.frontend.visitor import control, expressions, functions, statements
from mtiacc.frontend.visitor.imports import LoadedModule
from mtiacc.frontend.visitor.module_scan import ModuleInfo
from mtiacc.ir.core import Builder, Value

HANDLERS: Dict[type, Callable] = {**expressions.HANDLERS, **statements.HANDLERS, **control.HANDLERS}
_PY_BUILTINS = set(dir(builtins))
_TRITON_MODULES = ("triton", "triton.language", "mtiacc.language")  # mtiacc.language: the MTIA extensions



class TooDeep(CompileError):
    """Python's stack ran out lowering an expression: reported at the statement that holds it (where the stack
    runs out depends on the process, e.g. the recursion limit a host such as Inductor raised)."""
    at_statement = False

class FunctionLowering(LoweringContext):
    """The lowering of one function's body (the kernel, or a helper it calls) into a ``tt.func``.

    Handlers receive it as ``ctx``; the builtins reach it as ``sem.lowering``, through the
    :class:`LoweringContext` interface it implements.
    """

    def __init__(self, src: SourceFile, module: ModuleInfo, builder: Builder):
        self.src = src
        self.globals = module.scope
        self.locals: Dict[str, object] = {}
        self.builder = builder
        self.sem = Semantic(builder, lowering=self)
        self.returned = False
        self.module = module
        # Helpers and control flow (functions.py, control.py): whether this is the kernel itself,
        # what a `return` gave, the state shared with helpers, and this file as a LoadedModule.
        self.is_kernel = True
        self.return_values = None
        self.session = None
        self.loaded = None
        self.entry = builder.block
        # names an `if` branch or a loop body assigned that are not visible after it: why (control.py)
        self.scoped_out: Dict[str, str] = {}
        # names a plain assignment bound to a number: Triton lifts those to scalars (`n = 10; n.type` is int32)
        self.lifted: Set[str] = set()

    def helper_lowering(self, module: LoadedModule, builder: Builder,
                        session: functions.Session) -> FunctionLowering:
        """The lowering of a ``@triton.jit`` helper's body (functions.py), in the session of this kernel."""
        sub = FunctionLowering(module.src, module.info, builder)
        sub.session, sub.loaded, sub.is_kernel = session, module, False
        return sub

    # ------------------------------------------------------------------ the choke point

    def visit(self, node: ast.AST):
        loc = self.src.loc(node)
        saved = self.builder.loc
        if loc is not None:
            self.builder.loc = loc
        try:
            handler = HANDLERS.get(type(node))
            if handler is None:
                raise CompileError(unsupported_message(node))
            return handler(self, node)
        except TooDeep as e:
            if not e.at_statement and isinstance(node, ast.stmt):
                e.loc, e.at_statement = loc, True     # the statement, not the node where the stack ran out
            raise
        except CompileError as e:
            if e.loc is None:
                e.loc = loc
            raise
        except RecursionError:
            raise TooDeep("an expression is nested too deeply for the compiler; split it into several "
                          "statements", loc) from None
        except Exception as e:  # a bug in this compiler, reported at the user's code
            raise CompileError(f"internal compiler error: {type(e).__name__}: {e}", loc) from e
        finally:
            self.builder.loc = saved

    def visit_body(self, body: List[ast.stmt]) -> None:
        control.lower_statements(self, body)

    # ------------------------------------------------------------------ names

    def lookup(self, name: str):
        if name in self.locals:
            return self.locals[name]
        if name in self.globals:
            v = self.globals[name]
            if isinstance(v, NonConstantGlobal):
                raise CompileError(f"global '{name}' is not a compile-time constant; a kernel may only "
                                   "use constant globals")
            if isinstance(v, ModuleRef) and not v.qualname.startswith(_TRITON_MODULES) and v.qualname != "mtiacc":
                raise CompileError(f"module '{v.qualname}' cannot be used inside a kernel")
            check_supported(v, name)
            return v
        if name in PY_BUILTINS:  # float("inf"), int(...), min/max on constexprs
            return PY_BUILTINS[name]
        if name in expressions.ATTRIBUTE_BUILTINS:   # getattr / hasattr with a constant name
            return expressions.ATTRIBUTE_BUILTINS[name]
        if name in _PY_BUILTINS:
            raise CompileError(f"the Python builtin `{name}` is not supported in a kernel yet")
        helper = missing_scan_helper(name, self.globals)
        if helper is not None:
            return helper
        if name in self.scoped_out:
            raise CompileError(f"'{name}' is not defined here: {self.scoped_out[name]}")
        raise CompileError(f"undefined name '{name}'")

    def bind(self, name: str, value) -> None:
        if isinstance(value, Value) and value.name_hint is None:
            value.name_hint = name
        self.locals[name] = value

    # ------------------------------------------------------------------ for the language layer

    def call_jit_function(self, fn, args, kwargs):
        """A ``@triton.jit`` function called by a builtin (``tl.reduce``'s combine_fn), see frontend/context.py."""
        return functions.call_values(self, fn, args, kwargs)

    def call_jit_elementwise(self, fn, args):
        """``tl.map_elementwise``'s call, in element-wise mode (see frontend/context.py)."""
        s = functions.session_of(self)
        s.elementwise += 1
        try:
            return functions.call_values(self, fn, args, {})
        finally:
            s.elementwise -= 1


# What to call each kind of unsupported node in a message.
_KINDS = {
    ast.For: "`for` loops", ast.AsyncFor: "`async for` loops", ast.While: "`while` loops",
    ast.With: "`with` statements", ast.AsyncWith: "`async with` statements",
    ast.Try: "`try` statements", ast.Raise: "`raise` statements", ast.Assert: "`assert` statements",
    ast.Delete: "`del` statements", ast.Global: "`global` statements",
    ast.Nonlocal: "`nonlocal` statements", ast.Import: "imports inside a kernel",
    ast.ImportFrom: "imports inside a kernel", ast.FunctionDef: "nested functions",
    ast.AsyncFunctionDef: "nested functions", ast.ClassDef: "classes inside a kernel",
    ast.Break: "`break` statements", ast.Continue: "`continue` statements",
    ast.Lambda: "`lambda` expressions", ast.ListComp: "list comprehensions",
    ast.SetComp: "set comprehensions", ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions", ast.Dict: "dicts", ast.Set: "sets",
    ast.JoinedStr: "f-strings", ast.Await: "`await` expressions", ast.Yield: "`yield` expressions",
    ast.YieldFrom: "`yield from` expressions", ast.NamedExpr: "`:=` assignments",
    ast.Starred: "`*` unpacking", ast.Subscript: "indexing and slicing (`x[...]`)",
    ast.Slice: "slices",
}
if hasattr(ast, "Match"):
    _KINDS[ast.Match] = "`match` statements"


def unsupported_message(node: ast.AST) -> str:
    what = _KINDS.get(type(node), f"`{type(node).__name__}` nodes")
    return f"{what} are not supported yet"
