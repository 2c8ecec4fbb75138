"""The AST visitor: a kernel's module read statically, then one function lowered to IR.

Bottom up: ``module_scan`` (imports, constants and jit functions of a module), ``imports`` (the
user's own modules), ``static_eval`` and ``decorators`` (``@triton.autotune`` configs and
``@triton.heuristics``, computed from the AST), ``params`` (a kernel's parameters and their types);
``functions`` (calls to ``@triton.jit`` helpers, a call's arguments); the handlers, one per AST node kind: ``expressions``,
``statements`` (assignments) and ``control`` (``if``, loops, ``return``, conditional expressions);
and ``lowering``, the hub: the scope of names, the ``visit()`` choke point, the handler table, and
the :class:`~mtiacc.frontend.context.LoweringContext` the builtins call back through.
"""
