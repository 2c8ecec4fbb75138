"""The kinds of the ``access`` attribute of ``tt.load`` / ``tt.store``: how an access moves between DRAM
and local memory, and the operand shape each kind needs.

``access_plan.py`` chooses one kind per load and store (and per ``mtia.async_copy``, a load into a local
buffer); ``LoadOp`` / ``StoreOp`` check the attribute
against this table (a known kind, on an op and a pointer shape it fits); codegen lowers each kind with
its own strategy (``mtiacc/codegen/memory/``).  This module imports nothing, so the ops can use it.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Tuple

Shape = Optional[Tuple[int, ...]]  # the pointer's shape; None for a scalar pointer


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str
    fits: Callable[[Shape], bool]    # whether the kind makes sense for this pointer shape
    needs: str                       # the shape rule, for messages
    ops: Tuple[str, ...] = ("tt.load", "tt.store", "mtia.async_copy")


def _rank(n: int) -> Callable[[Shape], bool]:
    return lambda s: s is not None and len(s) == n


def _one_axis(s: Shape) -> bool:
    """At most one dimension longer than 1, and at least two elements."""
    if s is None or sum(1 for d in s if d != 1) > 1:
        return False
    n = 1
    for d in s:
        n *= d
    return n >= 2


KINDS = {k.name: k for k in (
    # one DMA transfer of a unit-stride block (a prefix mask shortens it, a uniform mask guards it)
    Kind("contiguous", _rank(1), "a 1-D pointer block"),
    # one DMA per element: a mask that is neither, or a constant stride with such a mask
    Kind("elements", _rank(1), "a 1-D pointer block"),
    # one DMA per run of an index split with // and % (or a DRAM window read once)
    Kind("runs", _one_axis, "a block of one axis with two elements or more"),
    # a 2-D tile of split indices, by runs along one axis
    Kind("split-tiles", lambda s: _rank(2)(s) and 1 not in s, "a 2-D pointer block without size-1 axes"),
    # an N-d tile wrapped along some axes ((u + arange(B)) % R): one 2-D DMA per run of DRAM rows
    Kind("wrapped-tiles", lambda s: s is not None and any(d > 1 for d in s),
         "a pointer block with an axis longer than 1"),
    # an affine N-d tile (or a run-time stride): one DMA per row, or per element off unit stride
    Kind("tiles", lambda s: s is not None, "a pointer block"),
    # one DMA per element from / to a pointer block without structure
    Kind("gather", lambda s: s is not None, "a pointer block", ("tt.load", "mtia.async_copy")),
    Kind("scatter", lambda s: s is not None, "a pointer block", ("tt.store",)),
    # one element through a local-memory slot
    Kind("scalar", lambda s: s is None, "a scalar pointer"),
)}


def access_error(op) -> Optional[str]:
    """Why the ``access`` attribute of load/store ``op`` does not fit it, or None (also when it has none)."""
    name = op.attrs.get("access")
    if name is None:
        return None
    kind = KINDS.get(name)
    if kind is None:
        return f"access = \"{name}\" is not a known kind (known: {', '.join(KINDS)})"
    if op.name not in kind.ops:
        return f"access = \"{name}\" is for {' and '.join(kind.ops)} only"
    t = op.ptr.type
    if not kind.fits(tuple(t.shape) if t.is_block() else None):
        return f"access = \"{name}\" needs {kind.needs}, got {t}"
    return None
