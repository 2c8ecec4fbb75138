"""The kinds of the ``access`` attribute of ``tt.load`` / ``tt.store``: how an access moves between DRAM
and local memory, and the operand shape each kind needs.

``access_plan.py`` chooses one kind per load and store; ``LoadOp`` / ``StoreOp`` check the attribute
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
    what: str                        # what the lowering does, in one line
    fits: Callable[[Shape], bool]    # whether the kind makes sense for this pointer shape
    needs: str                       # the shape rule, for messages
    ops: Tuple[str, ...] = ("tt.load", "tt.store")


def _block(s: Shape) -> bool:
    return s is not None


def _one_axis(s: Shape) -> bool:
    """At most one dimension longer than 1, and at least two elements."""
    if s is None or sum(1 for d in s if d != 1) > 1:
        return False
    n = 1
    for d in s:
        n *= d
    return n >= 2


KINDS = {k.name: k for k in (
    Kind("contiguous", "one DMA transfer of a unit-stride block (a prefix mask shortens it, a uniform mask "
         "guards it)", lambda s: s is not None and len(s) == 1, "a 1-D pointer block"),
    Kind("elements", "one DMA per element: a constant stride other than 1, or a general mask",
         lambda s: s is not None and len(s) == 1, "a 1-D pointer block"),
    Kind("runs", "one DMA per run of an index split with // and % (or a window read once)", _one_axis,
         "a block of one axis with two elements or more"),
    Kind("split-tiles", "a 2-D tile of split indices, by runs along one axis",
         lambda s: s is not None and len(s) == 2 and 1 not in s, "a 2-D pointer block without size-1 axes"),
    Kind("tiles", "one DMA per row of an affine N-d tile (per element off unit stride, checked at run time "
         "when the stride is a run-time value)", _block, "a pointer block"),
    Kind("gather", "one DMA per element from a pointer block without structure", _block, "a pointer block",
         ("tt.load",)),
    Kind("scatter", "one DMA per element to a pointer block without structure", _block, "a pointer block",
         ("tt.store",)),
    Kind("scalar", "one element through a local-memory slot", lambda s: s is None, "a scalar pointer"),
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
