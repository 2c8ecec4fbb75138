"""The user-facing language: the ``triton`` and ``triton.language`` names a kernel may use.

This module assembles the namespaces from the modules that implement them, and nothing imports
it back from there.  The builtins (each a Python function with Triton's signature, taking a
:class:`Semantic` first) live, by subject, in ``lang_core`` (programming model, creation, memory,
``where``, the loop iterators, the data types), ``lang_math`` (``tl.exp`` ..., ``tl.math``,
libdevice), ``lang_shapes`` (shapes, reductions, scans), ``lang_debug``, ``lang_sort``,
``lang_types`` (type classes) and ``lang_join``; ``combine`` (``tl.reduce`` with a combine function)
and ``fp8_rtz`` serve them.  Names that Triton has but this compiler does not are reported as "not
supported yet" where they are used.
"""
from __future__ import annotations

import difflib
import inspect
from typing import Dict, Optional, Sequence

from mtiacc.diagnostics import CompileError
from mtiacc.frontend import lang_core, lang_debug, lang_join, lang_math, lang_shapes, lang_sort, lang_types
from mtiacc.frontend.semantic import FValue, Semantic
from mtiacc.frontend.tl_exports import TL_NAMES
from mtiacc.frontend.values import JIT, Builtin, ForeignRef, Marker, ModuleRef, Unsupported

# `tl.<name>`, in the order the modules add them
LANGUAGE: Dict[str, object] = dict(lang_core.LANGUAGE)
LANGUAGE.update(lang_math.TL_MATH)
LANGUAGE.update({"math": ModuleRef(lang_math.MATH_MODULE), "extra": ModuleRef("triton.language.extra")})
LANGUAGE.update(lang_shapes.LANGUAGE)
LANGUAGE.update(lang_core.ITERATORS)
LANGUAGE.update(lang_debug.LANGUAGE)
LANGUAGE.update(lang_sort.LANGUAGE)
LANGUAGE.update(lang_types.CLASSES)
LANGUAGE.update(lang_join.LANGUAGE)

# `x.<name>(...)` on run-time values
METHODS: Dict[str, object] = dict(lang_core.METHODS)
METHODS.update(lang_shapes.METHODS)
METHODS.update(lang_sort.METHODS)
METHODS.update(lang_join.METHODS)

TRITON: Dict[str, object] = {
    "jit": JIT,
    "language": ModuleRef("triton.language"),
    "cdiv": Builtin("triton.cdiv", lang_core.cdiv),
    "next_power_of_2": Builtin("triton.next_power_of_2", lang_core.next_power_of_2),
    "autotune": Marker("triton.autotune"),
    "heuristics": Marker("triton.heuristics"),
    "Config": Marker("triton.Config"),
}


def _did_you_mean(attr: str, spelled: str, names) -> str:
    """A hint for a likely typo: only for names Triton does not export either (tl.maximun)."""
    if any(attr in group for group in TL_NAMES.values()):
        return ""
    close = difflib.get_close_matches(attr, [n for n in names if not n.startswith("_")], n=1, cutoff=0.8)
    return f"did you mean `{spelled[:len(spelled) - len(attr)]}{close[0]}`?" if close else ""


def module_attr(module: ModuleRef, attr: str, spelled: str) -> object:
    """``module.attr``: the object it names, or :class:`Unsupported` (reported where used)."""
    if lang_math.is_math_module(module.qualname):
        found = lang_math.lookup(module.qualname, attr)
        return found if found is not None else Unsupported(spelled)
    if module.qualname == "triton.language":
        return LANGUAGE.get(attr) or Unsupported(spelled, _did_you_mean(attr, spelled, LANGUAGE))
    if module.qualname == "triton":
        return TRITON.get(attr, Unsupported(spelled))
    if module.qualname.startswith("triton."):
        return Unsupported(spelled)
    return ForeignRef(f"{module.qualname}.{attr}")


def call_builtin(sem: Semantic, fn: Builtin, args: Sequence[FValue], kwargs: Dict[str, FValue],
                 receiver: Optional[FValue] = None, name: Optional[str] = None) -> FValue:
    """Bind the call's arguments to the builtin's signature (Python's rules), then run it."""
    pos = ([receiver] if receiver is not None else []) + list(args)
    try:
        inspect.signature(fn.impl).bind(sem, *pos, **kwargs)
    except TypeError as e:
        raise CompileError(f"{name or fn.qualname}(): {e}") from None
    return fn.impl(sem, *pos, **kwargs)
