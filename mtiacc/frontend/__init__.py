"""The Triton frontend: Python source (read with ``ast``, never executed) -> IR.

Layers, bottom up: ``source`` (file, locations), ``module_scan`` (imports, constants, jit
functions), ``params`` (constexprs, signature, type inference), ``semantic`` (Triton's typing
rules building IR), ``language`` (the ``tl.*`` names), ``expressions``/``statements`` (one
handler per AST node kind), ``lowering`` (scope and the ``visit()`` choke point), ``driver``.
"""
from mtiacc.frontend.driver import FrontendResult, compile_file
from mtiacc.frontend.params import Param

__all__ = ["compile_file", "FrontendResult", "Param"]
