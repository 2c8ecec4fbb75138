"""TorchInductor's runtime helpers, for kernels that Inductor generated, without importing torch.

Inductor's kernels start with::

    from torch._inductor.runtime import triton_helpers, triton_heuristics
    from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math

The importer (``visitor/imports.py``) resolves those module names, when the user's project has no such files,
to Triton source that ships with this compiler: ``triton_helpers.py`` beside this module (and the
``helpers_*.py`` files it imports), written by us from the helpers' documented semantics; it defines
every function of torch 2.13's ``triton_helpers`` (tests/inductor/test_coverage.py compares with the
installed torch).  It is read and lowered like any module of the user's, never imported; in it
``libdevice`` is ``triton.language.extra.libdevice`` and ``math`` is ``triton.language.math``.  Names
it does not define (``triton_heuristics``) stay unbound, so using them in a kernel is an "undefined name"
error at the use.
"""
from __future__ import annotations

import os
import re
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))  # the folder stands for the package
PACKAGE = "torch._inductor.runtime"
MODULES = {f"{PACKAGE}.triton_helpers": os.path.join(HERE, "triton_helpers.py")}


def bundled_path(name: str) -> Optional[str]:
    """The file (or, for the package, the folder) that stands for module ``name``, or None."""
    if name == PACKAGE:
        return HERE
    return MODULES.get(name)


# Inductor writes a scan's combine function into the kernel's source as ``_triton_helper_fn_add0``
# (``a + b``), ``_triton_helper_fn_mul0`` (``a * b``), ...; a kernel saved without it (as its
# `@triton.jit` function alone) still names it.  Such a name, undefined in a kernel that imports
# Inductor's runtime, means the helper of the same operation.
_SCAN_HELPERS = {"add": "_add", "mul": "_mul"}


def missing_scan_helper(name: str, scope: dict):
    """For an undefined ``_triton_helper_fn_<op><n>`` in a kernel importing ``triton_helpers``:
    our helper doing ``<op>``; else None."""
    m = re.fullmatch(r"_triton_helper_fn_([a-z]+)\d+", name)
    if m is None or m.group(1) not in _SCAN_HELPERS:
        return None
    for v in scope.values():
        if getattr(v, "path", None) == MODULES[f"{PACKAGE}.triton_helpers"] and hasattr(v, "member"):
            return v.member(_SCAN_HELPERS[m.group(1)])
    return None
