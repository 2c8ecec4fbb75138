"""Which function parameter a pointer is computed from: the unit of aliasing the optimizer reasons with.

Triton kernels receive their buffers as pointer parameters; a pointer built from one parameter by offsets and
shape ops stays inside that parameter's buffer.  Pointers of two parameters are apart (:func:`may_share` is
false): mtiacc assumes that a launch passes distinct memory for distinct pointer parameters, unless the kernel's
function names them in a group of its ``may_alias`` attribute (``may_alias = ["X Y"]``: the launch passed memory
that ``X`` and ``Y`` share, ``mtiacc.load(...)[grid](a, a)``; the launcher compiles such a variant,
``Options.may_alias``).  The passes that order or keep loads by parameter ask :func:`may_share`, never ``is``.
"""
from __future__ import annotations

from typing import FrozenSet, List, Optional

from mtiacc.ir import ops as O
from mtiacc.ir.core import BlockArgument, Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp
from mtiacc.ir.types import PointerType, i1, i8

POINTER_THROUGH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp, ExpandDimsOp, ReshapeOp)


# offsets, splats and broadcasts only (no reshapes): what reuse-loads and keep-invariant trace
OFFSETS_THROUGH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp)


def is_byte_view(op) -> bool:
    """``tt.bitcast`` of pointers to i1 into pointers to i8: how a load through an i1 pointer reads its bytes
    (Triton's rule, the frontend's ``_load_bool``).  The same buffer, and offsets in the same 1-byte elements."""
    if not isinstance(op, O.BitcastOp):
        return False
    src, dst = op.src.type.element_type, op.result.type.element_type
    return isinstance(src, PointerType) and isinstance(dst, PointerType) and src.pointee == i1 \
        and dst.pointee == i8


def alias_groups(func: O.FuncOp) -> List[List[str]]:
    """The groups of parameter names of ``func``'s ``may_alias`` attribute (``["X Y"]``: ``[["X", "Y"]]``)."""
    return [g.split() for g in func.attrs.get("may_alias", ())]


def may_share(a: Optional[BlockArgument], b: Optional[BlockArgument]) -> bool:
    """Whether parameters ``a`` and ``b`` (roots from :func:`root_pointer`) may point into the same memory: the same
    parameter, or two that one group of their function's ``may_alias`` names (None, no root, shares with None
    only: callers treat a pointer without a root apart)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    func = a.block.parent.parent
    if func is not b.block.parent.parent or not isinstance(func, O.FuncOp) or "may_alias" not in func.attrs:
        return False
    names = list(func.arg_names)
    x, y = names[a.index], names[b.index]
    return any(x in g and y in g for g in alias_groups(func))


def root_pointer(v: Value, through=POINTER_THROUGH) -> Optional[BlockArgument]:
    """The function parameter a pointer (block) is computed from by the ops ``through`` (offsets and shape ops by
    default) and byte views of i1 pointers (:func:`is_byte_view`), if any."""
    while True:
        if isinstance(v, BlockArgument):
            owner = v.block.parent.parent if v.block.parent is not None else None
            return v if isinstance(owner, O.FuncOp) else None
        if is_byte_view(v.op):
            v = v.op.src
            continue
        if not isinstance(v.op, through):
            return None
        v = v.op.operands[0]


def written_parameters(func: O.FuncOp) -> Optional[FrozenSet[str]]:
    """The names of the pointer parameters ``func`` may write memory through: the roots of its stores' and
    atomics' pointers (and of a slot flush's, ``keep-invariant``'s).  None when one of those pointers is not
    computed from a parameter by offsets and shape ops, or a call passes a pointer on: then any may be written.
    The launcher asks it of a launch that passes memory two parameters share (``runtime/launcher.py``): if
    neither is written, no order between their accesses matters and the plain compile serves."""
    from mtiacc.ir.atomic_ops import ATOMIC_OPS
    names = list(func.arg_names)
    out = set()
    for op in func.walk():
        if isinstance(op, O.StoreOp) or isinstance(op, ATOMIC_OPS):
            ptr = op.ptr
        elif op.name == "mtia.slot_flush":
            ptr = op.dst
        elif op.name == "tt.call":
            if any(v.type.element_type.is_ptr() for v in op.operands):
                return None
            continue
        else:
            continue
        root = root_pointer(ptr)
        if root is None:
            return None
        out.add(names[root.index])
    return frozenset(out)
