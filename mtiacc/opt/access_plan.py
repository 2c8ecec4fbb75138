"""``access-plan``: write on every ``tt.load`` / ``tt.store`` how it moves between DRAM and local memory.

The decision is ``mtiacc.ir.analysis.access_plan`` (one analysis, run once per op); this pass records it
as the op's ``access`` attribute (``access = "runs"``), replacing any earlier one, so that ``--emit=ir``
shows it and codegen only reads it.  It runs after every pass that could change an access, at every ``-O``
level (``pipelines.REQUIRED_TAIL``): a later change to the IR could make a recorded plan stale.  Only
``legalize-fp8`` follows it, which re-encodes fp8 elements as bytes of the same size and moves no access.

It also writes on each ``tt.load`` and ``mtia.async_copy`` that may read bytes an earlier store of the program
writes why (``after_store = "tl.store at line 8: the same parameter, at overlapping offsets"``: the store named is
the first such one; ``mtiacc.ir.analysis.dram_order``), replacing any earlier reason: the DMA engine does not
order a load behind a store in flight (docs/architecture.md, "DMA channels"), so codegen waits for the stores first.
An atomic whose ``sem`` has no release gets the same attribute for the same reason; a load, async copy or store
that may access bytes an earlier atomic whose ``sem`` has no acquire updates gets ``after_atomic`` (why: codegen
puts a ``fence`` before its transfers, since nothing orders a DMA transfer behind an atomic).
"""
from __future__ import annotations

import dataclasses

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.access_plan import plan_function
from mtiacc.ir.analysis.dram_order import atomic_hazards, dram_hazards
from mtiacc.ir.atomic_ops import ATOMIC_OPS
from mtiacc.ir.mtia import AsyncCopyOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


@register_pass
@dataclasses.dataclass(frozen=True)
class AccessPlan(ModulePass):
    name = "access-plan"

    def run(self, module: O.ModuleOp) -> None:
        for f in module.funcs:
            for op, kind in plan_function(f).items():
                op.attrs["access"] = kind
            hazards, after_atomic = dram_hazards(f), atomic_hazards(f)
            for op in f.walk():
                if isinstance(op, (O.LoadOp, AsyncCopyOp) + ATOMIC_OPS):
                    op.attrs.pop("after_store", None)
                    if op in hazards:
                        op.attrs["after_store"] = hazards[op]
                if isinstance(op, (O.LoadOp, AsyncCopyOp, O.StoreOp)):
                    op.attrs.pop("after_atomic", None)
                    if op in after_atomic:
                        op.attrs["after_atomic"] = after_atomic[op]
