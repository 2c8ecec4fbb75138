"""The Triton frontend: Python source (read with ``ast``, never executed) -> IR.

Layers, bottom up; each imports only the layers below it:

* ``source`` (the file, locations), ``values`` (what a name can stand for), ``context`` (the
  interface through which the language layer calls back into the visitor);
* ``language/`` -- ``semantic`` (Triton's typing rules building IR), then the user-facing language
  library: the ``tl.*`` builtins and the ``triton`` / ``triton.language`` namespaces;
* ``inductor/`` -- TorchInductor's runtime helpers, bundled as Triton source;
* ``visitor/`` -- reading the module (``module_scan``, ``imports``, ``params``), then lowering a
  function: calls to helpers (``functions``), one handler per AST node kind (``expressions``,
  ``statements``, ``control``), and ``lowering`` (scope and the ``visit()`` choke point);
* ``entry`` -- ``compile_file``: one kernel of a file to a verified IR module.
"""
from mtiacc.frontend.entry import FrontendResult, compile_file
from mtiacc.frontend.visitor.params import Param

__all__ = ["compile_file", "FrontendResult", "Param"]
