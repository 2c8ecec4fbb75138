"""``dot-accumulators``: decide which dots keep their accumulator in the matrix engine across a loop.

Triton's K loop, ``for ...: acc = tl.dot(a, b, acc)``: an ``scf.for`` carries a block whose only use in the
body is a ``tt.dot``'s accumulator, and whose yielded value is that dot (after ``pipeline-dots``, a chain of
dots, each the next one's accumulator).  Such dots get ``{accumulator = "engine"}``: codegen clears or loads
the engine's accumulator rows once before the loop, issues only weight loads and streamed rows in the body,
and stores the rows once after the loop.  Without it the accumulator goes to local memory and back on every
iteration.

The engine has ``accumulator-rows`` rows (the target's ``dpe.accumulator_rows``; 1024 on mtia2i): a dot
needs ``batch * M * ceil(N / 32)`` of them, and the resident accumulators of a loop and of the loops around
it must fit together.  The pass runs in every compile, last before ``access-plan`` (a decision codegen needs,
made on the loops as the optimizations left them).

The pass also marks ``{read_back = "f16"}`` / ``"bf16"`` (``read-back=false`` turns it off) where a dot's fp32
result (the yielded dot of a resident chain: the loop's result) is used only by an ``arith.truncf`` to that
type: codegen then has the engine's accumulator store write the narrow type (configuration register 6) and the
``arith.truncf`` costs nothing.  The engine rounds to nearest even exactly as the vector unit does, for every
number, infinity, overflow and NaN (the canonical NaN, 0x7e00 / 0x7fc0), so the result is the same bits.

Codegen writes a resident accumulator back in bands of rows (``dot_ops.read_back_bands``: the engine stores a
band's column groups, then the next band's).  A ``tt.store`` of the written-back block (the loop's result, or its
read-back ``arith.truncf``) gets ``{row_bands = B}`` when there is more than one band: it moves band by band,
and the DMA of a band runs while the engine writes the next, where one transfer of the whole block waited for
the last band.
"""
from __future__ import annotations

import dataclasses
from typing import Iterator, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.core import Block, OpResult, Value
from mtiacc.ir.dot_ops import DotOp, read_back_bands, read_back_source
from mtiacc.ir.types import FloatType
from mtiacc.ir.scf import ForOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


def rows_of(dot: DotOp) -> int:
    batch, m, n, _ = dot.shape
    return batch * m * -(-n // 32)


def chain(loop: ForOp, index: int) -> Optional[List[DotOp]]:
    """The dots from carried value ``index`` to the yield, each the next one's accumulator, or None."""
    v: Value = loop.iter_args[index]
    dots: List[DotOp] = []
    while len(v.uses) == 1:
        use = v.uses[0]
        op = use.op
        if op is loop.block.terminator:
            return dots if dots and use.index == index else None
        if not (isinstance(op, DotOp) and use.index == 2 and op.parent is loop.block and op.on_engine()):
            return None
        dots.append(op)
        v = op.result
    return None


def mark_read_back(module: O.ModuleOp) -> None:
    for op in module.walk():
        if isinstance(op, DotOp) and op.read_back is None and op.on_engine():
            cast = op.read_back_cast()
            if cast is not None:
                op.attrs["read_back"] = str(cast.result.type.element_type)


def written_back(v: Value) -> Optional[DotOp]:
    """The resident dot whose accumulators the engine writes straight into block ``v`` (a loop's result, or
    the read-back ``arith.truncf`` of one), if any."""
    if not isinstance(v, OpResult):
        return None
    d = read_back_source(v.op)
    if d is None and isinstance(v.op, ForOp):
        y = v.op.block.terminator.operands[v.index]
        d = y.op if isinstance(y, OpResult) and isinstance(y.op, DotOp) else None
        t = v.type.element_type
        if d is not None and isinstance(t, FloatType) and t.kind == "f16":
            return None   # f16 accumulators: stored as fp32, then narrowed by the vector unit
    if d is None or d.accumulator != "engine" or d.shape[0] != 1 or len(v.type.shape) != 2:
        return None
    return d


def mark_store_bands(module: O.ModuleOp) -> None:
    for op in module.walk():
        if isinstance(op, O.StoreOp) and op.row_bands is None:
            d = written_back(op.value)
            bands = read_back_bands(d.shape[1], d.shape[2]) if d is not None else 1
            if bands > 1:
                op.attrs["row_bands"] = bands


def engine_chains(block: Block, capacity: int, used: int = 0) -> Iterator[Tuple[ForOp, int, list, bool]]:
    """Every loop's accumulator chain under ``block``, in program order: ``(loop, index of its iter_arg, the chain's
    dots, whether the chain is the engine's)``.  A chain is the engine's when its rows fit beside those of the
    enclosing loops' engine chains within ``capacity``, or when its dots are already marked so; a consumer that
    marks a chain does it before asking for the next."""
    for op in block.ops:
        inner = used
        if isinstance(op, ForOp):
            for i in range(len(op.iter_args)):
                dots = chain(op, i)
                if dots is None:
                    continue
                need = rows_of(dots[0])
                engine = all(d.accumulator == "engine" for d in dots) or inner + need <= capacity
                yield op, i, dots, engine
                if engine:
                    inner += need
        for r in op.regions:
            for b in r.blocks:
                yield from engine_chains(b, capacity, inner)


def decide(block: Block, capacity: int) -> None:
    """Mark the dots of every chain the engine holds (:func:`engine_chains`) ``accumulator = "engine"``."""
    for _loop, _i, dots, engine in engine_chains(block, capacity):
        if engine:
            for d in dots:
                d.attrs["accumulator"] = "engine"


@register_pass
@dataclasses.dataclass(frozen=True)
class DotAccumulators(ModulePass):
    name = "dot-accumulators"
    accumulator_rows: int = 1024
    read_back: bool = True

    def run(self, module: O.ModuleOp) -> Optional[bool]:
        if not any(isinstance(op, DotOp) for op in module.walk()):
            return False
        decide(module.body.block, self.accumulator_rows)
        if self.read_back:
            mark_read_back(module)
        mark_store_bands(module)
        return None
