"""The MTIA language extensions: ``from triton.language.extra import mtia`` (also ``mtiacc.language``).

``buffers`` (local buffers, asynchronous copies, waits) and ``sync`` (a barrier over atomics, atomics with a
memory scope); ``mtiacc/language.py`` documents the same functions for Python.  ``LANGUAGE`` is the module's
namespace, looked up by :func:`mtiacc.frontend.language.module_attr`.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.frontend.language.mtia import buffers, sync
from mtiacc.frontend.values import Builtin

MODULE = "triton.language.extra.mtia"
# the module names a kernel may import it as (``import mtiacc.language as mtia`` too)
NAMES = (MODULE, "mtiacc.language")

LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"mtia.{f.__name__}", f)
                               for f in buffers.FUNCTIONS + sync.FUNCTIONS}

__all__ = ["MODULE", "NAMES", "LANGUAGE"]
