"""``tt.dot`` on the matrix engine (DPE) and, for exact float products, on the vector unit.

    engine.py    the engine's commands, its configuration, accumulator rows, waiting for it
    tiles.py     one 2-D product as weight tiles and streamed rows
    dot.py       the leaf: operands (tf32 split, w_trans), accumulators, batch, chunks
    exact.py     ieee f32 / f64 dots as vector multiply-adds
    resident.py  accumulators kept in the engine across a loop (control.py calls it)
    mlu.py       transposes of blocks on the memory layout unit, behind the engine's queue (ndblocks calls it)
"""
from __future__ import annotations

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.matrix import dot, exact
from mtiacc.ir.dot_ops import DotOp


def lower(lw: Lowering, op: DotOp) -> None:
    if op.on_engine():
        dot.lower(lw, op)
    else:
        exact.lower(lw, op)


reads = dot.reads

__all__ = ["lower", "reads"]
