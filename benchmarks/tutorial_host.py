"""A Triton tutorial's definitions as its file has them, without the demonstration its module runs.

A tutorial file defines its kernels and their host code (``add``, ``softmax``, ``matmul``, ``LayerNorm`` ...) and
then, at module level, runs them: a unit test on small inputs, ``benchmark.run(...)`` over every size.  To launch
the tutorial's own host code through the Triton backend, :func:`load_definitions` executes only the definitions:
the imports, the functions and classes (decorators included: ``@triton.autotune(configs=get_autotune_config())``
is evaluated as the file writes it) and the module-level names they read (``DEVICE = ...``, ``NUM_SM = ...``,
``layer_norm = LayerNorm.apply``), compiled under the file's own name and line numbers so that Triton reads each
kernel's source from the file.  A statement is left out when it calls a function the file defines (other than the
questions it asks of the target: ``is_cuda()``, ``supports_tma()``, ``num_sms()`` ...), when it is a bare
expression (``print``, ``benchmark.run``, ``torch.manual_seed``) or a loop or an assertion, when it reads what
such a statement set, and the ``if __name__ == "__main__":`` block.
"""
from __future__ import annotations

import ast
import sys
import types
from pathlib import Path

_TARGET_QUESTIONS = ("is_", "supports_", "num_sms", "device_blas_name")


def _calls_demo(node: ast.AST, defined: set) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in defined \
                and not n.func.id.startswith(_TARGET_QUESTIONS):
            return True
    return False


def _is_main_guard(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)


def _names(node: ast.AST, ctx) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def definitions(source: str, filename: str) -> ast.Module:
    """The statements of ``source`` that define things (see the module's docstring); a statement that reads a
    name only a left-out statement sets (``if torch.allclose(triton_output, ...)``) is left out too."""
    tree = ast.parse(source, filename)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    keep, dropped = [], set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Try)):
            keep.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.If)) and not _is_main_guard(node) \
                and not _calls_demo(node, defined) and not (_names(node, ast.Load) & dropped):
            keep.append(node)
        else:
            dropped |= _names(node, ast.Store)
    return ast.Module(body=keep, type_ignores=[])


def load_definitions(path, name: str = None) -> types.ModuleType:
    """Import the definitions of the tutorial at ``path`` as a module (registered in ``sys.modules``, as Triton's
    autotuner and ``torch.autograd.Function`` expect of a kernel's module)."""
    path = Path(path).resolve()
    name = name or "tutorial_" + path.stem.replace("-", "_")
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    code = compile(definitions(path.read_text(encoding="utf-8"), str(path)), str(path), "exec")
    exec(code, module.__dict__)
    return module
