"""Debugging: ``tl.static_assert`` and ``tl.static_print`` at compile time, ``tl.device_print`` and
``tl.device_assert`` at run time on the device.

``device_print(prefix, *values)`` prints, per program and per element of the (broadcast) blocks,
one line ``pid (x, y, z) idx (i, j) <prefix><values>``; the simulator buffers each program's lines
and writes them in program-id order.  ``device_assert(cond, msg)`` stops the run (source location,
message, program id, first failing element) when an element of ``cond`` is false.  Unlike Triton,
assertions are always checked (Triton checks them only in debug mode).
"""
from __future__ import annotations

import sys

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic, describe
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.ops import AssertOp, PrintOp


def _text(x, what: str) -> str:
    if not isinstance(x, str):
        raise CompileError(f"{what} must be a constexpr string, got {describe(x)}")
    return x


def static_assert(sem, cond, msg=""):
    """``tl.static_assert(cond, msg)``: a compile error here when the constexpr ``cond`` is false."""
    if isinstance(cond, Value):
        raise CompileError("tl.static_assert needs a compile-time condition, got a run-time value")
    if not cond:
        raise CompileError("static assertion failed" + (f": {msg}" if msg else ""))
    return None


def _static_text(x) -> str:
    if isinstance(x, Value):
        return f"<run-time value of type {x.type}>"
    if isinstance(x, tuple):
        return "(" + ", ".join(_static_text(e) for e in x) + ("," if len(x) == 1 else "") + ")"
    return str(x)


def static_print(sem, *values, sep=" ", end="\n", file=None, flush=False):
    """``tl.static_print(...)``: print at compile time, to stderr."""
    sys.stderr.write(sep.join(_static_text(v) for v in values) + end)
    return None


def device_print(sem: Semantic, prefix, *args, hex=False):
    """Print ``prefix`` and the values of ``args`` at run time, per program and element."""
    prefix = _text(prefix, "the prefix of tl.device_print")
    if hex not in (False, None):
        raise CompileError("tl.device_print(hex=True) is not supported yet")
    values = []
    for a in args:
        if isinstance(a, str):
            raise CompileError("tl.device_print prints strings only as its prefix")
        v = sem.materialize(a)
        if v.type.is_ptr():
            raise CompileError("printing pointers with tl.device_print is not supported yet")
        values.append(v)
    blocks = [v for v in values if v.type.is_block()]
    if len(blocks) > 1:
        shape = blocks[0].type.shape
        for b in blocks[1:]:
            shape = sem.broadcast_shapes(shape, b.type.shape)
        values = [sem.broadcast_to(v, shape) if v.type.is_block() else v for v in values]
    if prefix and not prefix.endswith((" ", ":")) and values:
        prefix += " "
    sem.emit(PrintOp.get(prefix, values))
    return None


def device_assert(sem: Semantic, cond, msg="", mask=None):
    """Stop the run when an element of ``cond`` is false (where ``mask`` is true)."""
    msg = _text(msg, "the message of tl.device_assert")
    if not isinstance(cond, Value):
        if cond:
            return None
        cond = sem.materialize(bool(cond))
    if cond.type.is_ptr():
        raise CompileError("the condition of tl.device_assert must be a number or a boolean block")
    if mask is not None:
        cond = sem.where(mask, cond, True if cond.type.is_bool() else 1)
    sem.emit(AssertOp.get(cond, msg))
    return None


LANGUAGE = {
    "static_assert": Builtin("tl.static_assert", static_assert),
    "static_print": Builtin("tl.static_print", static_print),
    "device_print": Builtin("tl.device_print", device_print),
    "device_assert": Builtin("tl.device_assert", device_assert),
}
