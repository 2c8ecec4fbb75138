"""The core of the language: the programming model, creating blocks, memory, ``tl.where`` and the
basic arithmetic builtins, ``x.to(...)``, the loop iterators, and the data types.

Each builtin is a Python function whose signature is Triton's (the call's arguments are bound
to it, so a wrong keyword is reported like Python would), taking a :class:`Semantic` first.
The tables at the end are merged into the ``tl.*`` namespace by :mod:`mtiacc.frontend.language`.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic, describe, is_const, rounding_cast
from mtiacc.frontend.values import CONSTEXPR, Aggregate, Builtin
from mtiacc.ir import ops
from mtiacc.ir.core import Value
from mtiacc.ir.types import PointerType, Type, SCALAR_TYPES

MAX_NUMEL = 1 << 20  # Triton's limit on the elements of one block


def _const_int(x, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise CompileError(f"{what} must be a constexpr integer, got {describe(x)}")
    return x


def _axis(x) -> int:
    axis = _const_int(x, "the axis")
    if axis not in (0, 1, 2):
        raise CompileError(f"the axis must be 0, 1 or 2, got {axis}")
    return axis


def _shape(shape) -> tuple:
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    numel = 1
    for d in dims:
        d = _const_int(d, "a block dimension")
        if d <= 0 or d & (d - 1):
            raise CompileError(f"block dimensions must be powers of two, got {d}")
        numel *= d
    if numel > MAX_NUMEL:
        raise CompileError(f"a block may hold at most {MAX_NUMEL} elements, got {numel}")
    return dims


def _dtype(x) -> Type:
    if not isinstance(x, Type) or x.is_block():
        raise CompileError(f"expected a data type such as tl.float32, got {describe(x)}")
    return x


# --------------------------------------------------------------------------- programming model

def program_id(sem: Semantic, axis):
    """The id of this program along ``axis`` of the launch grid."""
    return sem.emit(ops.GetProgramIdOp.get(_axis(axis)))


def num_programs(sem: Semantic, axis):
    """The number of programs along ``axis`` of the launch grid."""
    return sem.emit(ops.GetNumProgramsOp.get(_axis(axis)))


# --------------------------------------------------------------------------- creation

def arange(sem: Semantic, start, end):
    """The block ``[start, start + 1, ..., end - 1]`` of i32; its length must be a power of two."""
    start = _const_int(start, "tl.arange's start")
    end = _const_int(end, "tl.arange's end")
    n = end - start
    if n <= 0:
        raise CompileError(f"tl.arange needs end > start, got start={start}, end={end}")
    if n & (n - 1):
        raise CompileError(f"tl.arange's length (end - start) must be a power of two, got {n}")
    if n > MAX_NUMEL:
        raise CompileError(f"tl.arange's length must be at most {MAX_NUMEL}, got {n}")
    return sem.emit(ops.MakeRangeOp.get(start, end))


def full(sem: Semantic, shape, value, dtype):
    """A block of ``shape`` with every element ``value`` converted to ``dtype``."""
    dims, dtype = _shape(shape), _dtype(dtype)
    if isinstance(value, Value) and value.type.is_block():
        raise CompileError("tl.full's value must be a scalar")
    if not (isinstance(value, Value) or is_const(value)):
        raise CompileError(f"tl.full's value must be a number, got {describe(value)}")
    v = sem.to_type(value, dtype)
    return sem.broadcast_to(v, dims) if dims else v


def zeros(sem: Semantic, shape, dtype):
    """A block of ``shape`` filled with zeros of ``dtype``."""
    return full(sem, shape, 0, dtype)


# --------------------------------------------------------------------------- memory

def _no_block_pointers(boundary_check, padding_option):
    if boundary_check not in ((), None) or padding_option not in ("", None):
        raise CompileError("boundary_check and padding_option need a block pointer (tl.make_block_ptr): the "
                           "bounds of a block of pointers are not known")


def load(sem: Semantic, pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False):
    """Load the elements at ``pointer``; where ``mask`` is false, the result is ``other``.  Through a
    block pointer: the block, ``boundary_check`` axes padded with ``padding_option`` (memory/block_ptr.py).

    Cache modifiers and eviction policies are hints; this target has no cache, so they are ignored.
    ``volatile=True`` makes the load read memory every time it runs (``tt.load {volatile = true}``: never
    merged with another load, hoisted out of a loop or dropped when unused).
    """
    if isinstance(pointer, Aggregate):
        return pointer.tl_load(sem, mask, other, boundary_check, padding_option)
    _no_block_pointers(boundary_check, padding_option)
    if not isinstance(volatile, bool):
        raise CompileError(f"tl.load's volatile must be a constexpr boolean, got {describe(volatile)}")
    return sem.load(pointer, mask, other, volatile=volatile)


def store(sem: Semantic, pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy=""):
    """Store ``value`` at ``pointer`` where ``mask`` is true (through a block pointer: inside the
    ``boundary_check`` axes' bounds)."""
    if isinstance(pointer, Aggregate):
        pointer.tl_store(sem, value, mask, boundary_check)
        return None
    _no_block_pointers(boundary_check, None)
    sem.store(pointer, value, mask)
    return None


# --------------------------------------------------------------------------- math

def where(sem: Semantic, condition, x, y):
    """``x`` where ``condition`` is true, else ``y``, element-wise (broadcasting all three)."""
    sem.check_literals(x, y)
    return sem.where(condition, x, y)


def cdiv(sem: Semantic, x, div):
    """Ceiling division: ``(x + div - 1) // div``."""
    return sem.binary("floordiv", sem.binary("sub", sem.binary("add", x, div), 1), div)


class PropagateNan:
    """``tl.PropagateNan``: ``NONE`` (a NaN operand yields the other operand) and ``ALL`` (a NaN operand
    yields NaN), with Triton's values."""

    MEMBERS = {"NONE": 0, "ALL": 0xFFFF}

    def frontend_attr(self, name: str):
        if name not in self.MEMBERS:
            raise CompileError(f"tl.PropagateNan has no member '{name}' (it has NONE and ALL)")
        return self.MEMBERS[name]


def propagates_nan(propagate_nan, fn: str) -> bool:
    """Whether ``propagate_nan=`` asks for NaN propagation (``tl.PropagateNan.ALL``)."""
    if propagate_nan is None or propagate_nan is False or propagate_nan == PropagateNan.MEMBERS["NONE"]:
        return False
    if propagate_nan == PropagateNan.MEMBERS["ALL"] and not isinstance(propagate_nan, bool):
        return True
    raise CompileError(f"{fn}: propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, "
                       f"got {describe(propagate_nan)}")


def nan_from(sem: Semantic, result, *operands):
    """``result`` where no operand is NaN, else the first NaN operand (``tl.PropagateNan.ALL``)."""
    for x in reversed(operands):
        if isinstance(x, Value) and x.type.element_type.is_float():
            result = sem.where(sem.compare("ne", x, x), x, result)
    return result


def minimum(sem: Semantic, x, y, propagate_nan=None):
    """The element-wise minimum: a NaN operand yields the other operand, or NaN with
    ``propagate_nan=tl.PropagateNan.ALL``."""
    nan = propagates_nan(propagate_nan, "tl.minimum")
    sem.check_literals(x, y)
    r = sem.binary("minimum", x, y)
    return nan_from(sem, r, x, y) if nan else r


def maximum(sem: Semantic, x, y, propagate_nan=None):
    """The element-wise maximum: a NaN operand yields the other operand, or NaN with
    ``propagate_nan=tl.PropagateNan.ALL``."""
    nan = propagates_nan(propagate_nan, "tl.maximum")
    sem.check_literals(x, y)
    r = sem.binary("maximum", x, y)
    return nan_from(sem, r, x, y) if nan else r


def constexpr(sem: Semantic, value):
    """``tl.constexpr(3)``: the constant itself."""
    if isinstance(value, Value):
        raise CompileError("tl.constexpr needs a compile-time constant, got a run-time value")
    return value


def next_power_of_2(sem: Semantic, n):
    """``triton.next_power_of_2``: the smallest power of two >= n (constexpr only)."""
    n = _const_int(n, "triton.next_power_of_2's argument")
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


# --------------------------------------------------------------------------- methods of values

def to(sem: Semantic, self_, dtype, fp_downcast_rounding=None, bitcast=False):
    """``x.to(dtype, bitcast=False)``: convert (or reinterpret) the elements of ``x``."""
    if fp_downcast_rounding is not None and not bitcast:
        return rounding_cast(sem, self_, _dtype(dtype), fp_downcast_rounding)
    return sem.cast(self_, _dtype(dtype), bitcast=bool(bitcast))


# --------------------------------------------------------------------------- loop iterators
# Only the iterator of a `for` loop (visitor/control.py recognizes these functions); called anywhere else,
# they are errors.

def range_(sem, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, **hints):
    """``tl.range``: the iterator of a run-time ``for`` loop (its GPU scheduling hints are ignored)."""
    raise CompileError("tl.range can only be the iterator of a `for` loop")


def static_range(sem, arg1, arg2=None, step=None):
    """``tl.static_range``: a ``for`` loop unrolled at compile time (constexpr bounds)."""
    raise CompileError("tl.static_range can only be the iterator of a `for` loop")


# --------------------------------------------------------------------------- tables

_DTYPE_NAMES = {
    "int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "float8e4nv": "f8E4M3FN", "float8e5": "f8E5M2", "float8e4b15": "f8E4M3B15",
    "float8e4b8": "f8E4M3FNUZ", "float8e5b16": "f8E5M2FNUZ",
}

DTYPES: Dict[str, Type] = {name: SCALAR_TYPES[ir] for name, ir in _DTYPE_NAMES.items()}

LANGUAGE: Dict[str, object] = dict(DTYPES)
LANGUAGE["pi32_t"] = PointerType(DTYPES["int32"])     # Triton's one named pointer type: *int32
for _fn in (program_id, num_programs, arange, full, zeros, load, store, where, cdiv, minimum,
            maximum):
    LANGUAGE[_fn.__name__] = Builtin(f"tl.{_fn.__name__}", _fn)
LANGUAGE["constexpr"] = CONSTEXPR
LANGUAGE["PropagateNan"] = PropagateNan()

ITERATORS = {
    "range": Builtin("tl.range", range_),
    "static_range": Builtin("tl.static_range", static_range),
}

METHODS = {"to": to, "cast": to}       # tensor.cast is tensor.to, as in Triton
