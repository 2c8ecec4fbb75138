"""The few Python builtins a kernel may call on compile-time constants, as Triton's frontend allows.

* ``float(x)``: a constexpr float; ``x`` is a number or one of the strings Python accepts for the
  special values (``"inf"``, ``"-inf"``, ``"nan"``, ``"+inf"``, ``"infinity"``, any case), as in
  ``other=-float("inf")`` or ``tl.full([B], float("-inf"), tl.float32)``.
* ``int(x)``, ``bool(x)``: a constexpr conversion of a constant.
* ``isinstance(x, cls)`` with ``tl.tensor``, ``tl.dtype``, ``tl.pointer_type``, ``tl.block_type``,
  ``tl.tuple``, ``tl.constexpr``, ``int``, ``float``, ``bool`` or a tuple of those: a constexpr bool
  (see ``types.py``).
* ``len(t)``: the length of a tuple known at compile time (``len(x.shape)``, a helper's returned
  tuple).
* ``min(a, b, ...)``, ``max(a, b, ...)``, ``abs(x)``: Python's on constexprs; with run-time values,
  ``tl.minimum``/``tl.maximum`` (left to right) and ``tl.abs``, as Triton's code generator maps them
  (Inductor's GEMM templates write ``min(GROUP_M, grid_m - group_id * GROUP_M)``).

A run-time value passed to ``float``/``int``/``bool`` is an error at the call ("... needs a
compile-time constant").
"""
from __future__ import annotations

import builtins
import math
from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import math as tl_math
from mtiacc.frontend.language import types as tl_types
from mtiacc.frontend.language.semantic import describe, is_const
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value

_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
            "+infinity": math.inf, "-infinity": -math.inf, "nan": math.nan, "+nan": math.nan,
            "-nan": math.nan}


def _need_const(fn: str, x) -> None:
    if not is_const(x):
        raise CompileError(f"the Python builtin `{fn}` needs a compile-time constant, got {describe(x)}"
                           + ("; use .to(tl.float32)" if fn == "float" else ""))


def float_(sem, x=0.0):
    if isinstance(x, str):
        v = _SPECIAL.get(x.strip().lower())
        if v is None:
            try:
                return builtins.float(x)
            except ValueError:
                raise CompileError(f"could not convert string to float: {x!r}") from None
        return v
    _need_const("float", x)
    return builtins.float(x)


def int_(sem, x=0):
    if isinstance(x, str):
        try:
            return builtins.int(x)
        except ValueError:
            raise CompileError(f"invalid literal for int(): {x!r}") from None
    _need_const("int", x)
    if isinstance(x, float) and not math.isfinite(x):
        raise CompileError(f"cannot convert {x} to an integer")
    return builtins.int(x)


def bool_(sem, x=False):
    _need_const("bool", x)
    return builtins.bool(x)


def _extreme(sem, fn: str, pick, args):
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        raise CompileError(f"{fn}() needs at least one argument")
    if all(is_const(a) for a in args):
        return pick(args)
    for a in args:
        if not (is_const(a) or isinstance(a, Value)):
            raise CompileError(f"{fn}() needs numbers or values, got {describe(a)}")
    out = args[0]  # with run-time values: tl.minimum / tl.maximum, left to right
    for a in args[1:]:
        out = sem.binary("minimum" if fn == "min" else "maximum", out, a)
    return out


def min_(sem, *args):
    return _extreme(sem, "min", builtins.min, args)


def max_(sem, *args):
    return _extreme(sem, "max", builtins.max, args)


def abs_(sem, x):
    if isinstance(x, Value):
        return tl_math.abs_(sem, x)
    _need_const("abs", x)
    return builtins.abs(x)


def len_(sem, x):
    if isinstance(x, (tuple, list, str)):
        return builtins.len(x)
    raise CompileError(f"len() needs a tuple known at compile time (blocks have no len() in Triton; "
                       f"use x.shape[0]), got {describe(x)}")


PY_BUILTINS: Dict[str, Builtin] = {
    "len": Builtin("len", len_), "isinstance": Builtin("isinstance", tl_types.isinstance_),
    "float": Builtin("float", float_), "int": Builtin("int", int_), "bool": Builtin("bool", bool_),
    "min": Builtin("min", min_), "max": Builtin("max", max_), "abs": Builtin("abs", abs_),
}
