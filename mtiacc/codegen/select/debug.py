"""Codegen of ``tt.print`` / ``tt.assert``: ``mtia.print`` / ``mtia.assert`` over a table of addresses.

The simulator's convention (``mtiasim/semantics/convert_debug.py``): the instruction's immediate
indexes ``meta["strings"]`` (an entry describing the prefix or message and the values' types and
shapes) and ``x[rs1]`` is the local address of a table of 8-byte local addresses, one per value.
A block passes its buffer (a splat or a constant is filled into one first); a scalar is stored
into a slot of its own.  ``mtia.flush`` before the kernel's final ``ret`` writes the buffered lines
(isel emits it when the kernel prints).
"""
from __future__ import annotations

from typing import List, Tuple

from mtiacc.codegen.context import SCALAR_BACKED, Lowering
from mtiacc.codegen.memory.gather import _slot_store
from mtiacc.codegen.machine.mir import Mem, VReg
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.vector.vloop import Src, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.ops import AssertOp, PrintOp
from mtiacc.ir.types import triton_type_name

DEBUG_OPS = (PrintOp, AssertOp)
MAX_ENTRIES = 2047  # the immediate is a signed 12-bit number


def handles(op) -> bool:
    return isinstance(op, DEBUG_OPS)


def _type_name(v: Value) -> str:
    t = v.type.element_type
    if t.is_float() and t.width == 64:
        raise CompileError("printing fp64 values is not supported yet")
    return triton_type_name(t)


def _table(lw: Lowering, values: List[Value], loc) -> Tuple[VReg, List[Buffer]]:
    """Write the table of the values' local addresses; returns a register holding its address, and
    the buffers it allocated (free once the instruction has read them)."""
    b = lw.b
    temps = []
    table = lw.lmem.alloc(8 * max(len(values), 1), "debug table", loc)
    temps.append(table)
    treg = b.li(table.offset, "table")
    for k, v in enumerate(values):
        elem = v.type.element_type
        if not v.type.is_block():
            slot = lw.lmem.alloc(8, "debug value", loc)
            temps.append(slot)
            addr = b.li(slot.offset, "slot")
            _slot_store(b, addr, elem, lw.get(v))
        elif isinstance(v, OpResult) and isinstance(v.op, SCALAR_BACKED):
            buf = lw.lmem.alloc(v.type.numel * elem_bytes(elem), "debug value", loc)
            temps.append(buf)
            lower_fill(b, v.type.numel, lw.src(v), Src(elem, addr=buf.offset))
            addr = b.li(buf.offset, "block")
        else:
            addr = b.li(lw.buffer(v).offset, "block")
        b("sd", addr, Mem(treg, 8 * k))
    return treg, temps


def _entry(lw: Lowering, entry: dict) -> int:
    strings = lw.debug.strings
    if len(strings) >= MAX_ENTRIES:
        raise CompileError(f"more than {MAX_ENTRIES} device_print/device_assert calls are not supported yet")
    strings.append(entry)
    return len(strings) - 1


def lower(lw: Lowering, op) -> None:
    b = lw.b
    if isinstance(op, PrintOp):
        args = [{"type": _type_name(v), "shape": list(v.type.shape)} for v in op.values]
        index = _entry(lw, {"kind": "print", "prefix": op.prefix, "args": args})
        treg, temps = _table(lw, list(op.values), op.loc)
        b("mtia.print", treg, index)
        lw.debug.prints = True
    else:
        v = op.condition
        # the simulator reports the location (line table), the program and the failing element
        index = _entry(lw, {"kind": "assert", "message": op.message,
                            "type": _type_name(v), "shape": list(v.type.shape)})
        treg, temps = _table(lw, [v], op.loc)
        b("mtia.assert", treg, index)
    for buf in temps:  # the instruction has read them
        lw.lmem.free(buf)
