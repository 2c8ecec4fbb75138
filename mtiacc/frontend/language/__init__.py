"""The user-facing language: the ``triton`` and ``triton.language`` names a kernel may use.

This package is the frontend's language layer, between the typing rules below it and the AST
visitor above it.  Bottom up:

* ``semantic`` -- Triton's typing rules (promotion, broadcasting) and the IR they build;
* expansions the builtins share: ``x.to(..., fp_downcast_rounding=)`` (in ``semantic``) and, in ``combine``,
  ``tl.reduce`` / ``tl.associative_scan`` with a ``@triton.jit`` combine function);
* the builtins by subject, each a Python function with Triton's signature taking a
  :class:`Semantic` first: ``core`` (programming model, creation, memory, ``where``, ``x.to``, the
  loop iterators, the data types), ``math`` (``tl.exp`` ..., ``tl.math``, libdevice), ``shapes``
  (shapes, reductions, scans), ``join``, ``sort``, ``dot``, ``dot_scaled``, ``memory`` (atomics, block pointers, tensor
  descriptors), ``random`` (Philox: ``tl.rand``, ``tl.randn``, ...), ``types`` (type classes), ``debug``,
  ``mtia`` (the MTIA extensions, ``triton.language.extra.mtia``), and
  ``pybuiltins`` (``float``, ``min``, ``isinstance`` ... on constants);
* this module, which assembles the ``triton`` and ``triton.language`` namespaces from them (none of
  them imports it back), with ``exports`` (Triton's export list, for typo hints); ``tl_names``
  renders ``docs/language.md``'s table of names from both.

Names that Triton has but this compiler does not are reported as "not supported yet" where they
are used.  The builtins never import the visitor; the few that lower user code reach it through
``Semantic.lowering`` (:mod:`mtiacc.frontend.context`).
"""
from __future__ import annotations

import inspect
from typing import Dict, Optional, Sequence

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import core, debug, dot, dot_scaled, join, memory, random, shapes, sort
from mtiacc.frontend.language import math as tl_math
from mtiacc.frontend.language import mtia
from mtiacc.frontend.language import types as tl_types
from mtiacc.frontend.language.exports import RANDOM_EXPORTS, TL_EXPORTS, TL_NAMES, TRITON_EXPORTS  # noqa: F401
from mtiacc.frontend.language.semantic import FValue, Semantic
from mtiacc.frontend.values import JIT, Builtin, ForeignRef, Marker, ModuleRef, Unsupported

# `tl.<name>`, in the order the modules add them
LANGUAGE: Dict[str, object] = dict(core.LANGUAGE)
LANGUAGE.update(tl_math.TL_MATH)
LANGUAGE.update({"math": ModuleRef(tl_math.MATH_MODULE), "extra": ModuleRef("triton.language.extra")})
LANGUAGE.update(shapes.LANGUAGE)
LANGUAGE.update(core.ITERATORS)
LANGUAGE.update(debug.LANGUAGE)
LANGUAGE.update(sort.LANGUAGE)
LANGUAGE.update(tl_types.CLASSES)
LANGUAGE.update(join.LANGUAGE)
LANGUAGE.update(dot.LANGUAGE)
LANGUAGE.update(dot_scaled.LANGUAGE)
LANGUAGE.update(random.LANGUAGE)
LANGUAGE["random"] = ModuleRef(random.MODULE)
LANGUAGE.update(memory.LANGUAGE)


def _clamp(sem: Semantic, x, min, max, propagate_nan=None):
    """``tl.clamp`` (computed by math.py's) with Triton's ``propagate_nan``: ``tl.PropagateNan.ALL`` makes a
    NaN ``x`` the result (Triton: it applies to ``x`` only)."""
    nan = core.propagates_nan(propagate_nan, "tl.clamp")
    r = tl_math.clamp(sem, x, min, max)
    return core.nan_from(sem, r, x) if nan else r


LANGUAGE["clamp"] = Builtin("tl.clamp", _clamp)

# `x.<name>(...)` on run-time values
METHODS: Dict[str, object] = dict(core.METHODS)
METHODS.update(shapes.METHODS)
METHODS.update(sort.METHODS)
METHODS.update(join.METHODS)
METHODS.update(memory.METHODS)
# free functions Triton also makes tensor methods (its `@_tensor_member_fn`): `x.abs()`, `x.exp()`, `p.store(v)`
for _name in ("abs", "cdiv", "ceil", "cos", "erf", "exp", "exp2", "floor", "log", "log2", "rsqrt", "sigmoid", "sin",
              "sqrt", "sqrt_rn", "store"):
    METHODS.setdefault(_name, LANGUAGE[_name].impl)

TRITON: Dict[str, object] = {
    "jit": JIT,
    "language": ModuleRef("triton.language"),
    "cdiv": Builtin("triton.cdiv", core.cdiv),
    "next_power_of_2": Builtin("triton.next_power_of_2", core.next_power_of_2),
    "autotune": Marker("triton.autotune"),
    "heuristics": Marker("triton.heuristics"),
    "Config": Marker("triton.Config"),
}


def _nearest(attr: str, spelled: str, names) -> str:
    """``did you mean `tl.arange`?`` for the names nearest ``attr`` (up to three about as near as the nearest),
    or nothing."""
    import difflib
    close = difflib.get_close_matches(attr, sorted(n for n in names if not n.startswith("_")), n=3, cutoff=0.75)
    if not close:
        return ""
    score = [difflib.SequenceMatcher(None, attr, c).ratio() for c in close]
    close = [c for c, r in zip(close, score) if r >= score[0] - 0.05]
    prefix = spelled[:len(spelled) - len(attr)]
    spelled_close = [f"`{prefix}{c}`" for c in close]
    listed = spelled_close[0] if len(close) == 1 else ", ".join(spelled_close[:-1]) + " or " + spelled_close[-1]
    return f"did you mean {listed}?"


def _lookup(table, exported, attr: str, spelled: str) -> object:
    """``attr`` of a module whose names we implement (``table``) and whose names in Triton are ``exported``: its
    meaning; else a name Triton has that we do not ("not supported yet"), or a name that does not exist (a typo,
    with the nearest names: ours first, then Triton's)."""
    found = table.get(attr)
    if found is not None:
        return found
    if attr in exported:
        return Unsupported(spelled)
    hint = _nearest(attr, spelled, table) or _nearest(attr, spelled, exported)
    return Unsupported(spelled, hint, missing=True)


def module_attr(module: ModuleRef, attr: str, spelled: str) -> object:
    """``module.attr``: the object it names, or :class:`Unsupported` (reported where used)."""
    if (module.qualname, attr) in (("triton.language.extra", "mtia"), ("mtiacc", "language")):
        return ModuleRef(module.qualname + "." + attr)
    if module.qualname in mtia.NAMES:   # the MTIA extensions (language/mtia/): every name is ours
        return _lookup(mtia.LANGUAGE, (), attr, spelled)
    if tl_math.is_math_module(module.qualname):
        found = tl_math.lookup(module.qualname, attr)
        return found if found is not None else Unsupported(spelled)
    if module.qualname == "triton.language":
        if attr in dot.NOT_ON_THIS_TARGET:
            return Unsupported(spelled, reason=dot.NOT_ON_THIS_TARGET[attr])
        return _lookup(LANGUAGE, TL_EXPORTS, attr, spelled)
    if module.qualname == random.MODULE:   # `tl.random.uint_to_uniform_float`
        return _lookup(random.LANGUAGE, RANDOM_EXPORTS, attr, spelled)
    if module.qualname == "triton":
        return _lookup(TRITON, TRITON_EXPORTS, attr, spelled)
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
