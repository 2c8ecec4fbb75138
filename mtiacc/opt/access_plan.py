"""``access-plan``: write on every ``tt.load`` / ``tt.store`` how it moves between DRAM and local memory.

The decision is ``mtiacc.ir.analysis.access_plan`` (one analysis, run once per op); this pass records it
as the op's ``access`` attribute (``access = "runs"``), replacing any earlier one, so that ``--emit=ir``
shows it and codegen only reads it.  It must run after every other IR pass, right before codegen: any
later change to the IR could make a recorded plan stale.  The driver runs it at every ``-O`` level.
"""
from __future__ import annotations

import dataclasses

from mtiacc.ir.analysis.access_kinds import access_error
from mtiacc.ir.analysis.access_plan import plan_function
from mtiacc.ir.ops import ModuleOp
from mtiacc.opt.pass_manager import ModulePass, register_pass


@register_pass
@dataclasses.dataclass(frozen=True)
class AccessPlan(ModulePass):
    name = "access-plan"

    def run(self, module: ModuleOp) -> None:
        for f in module.funcs:
            for op, kind in plan_function(f).items():
                op.attrs["access"] = kind
                why = access_error(op)  # what the verifier would say (the driver does not verify after this pass)
                if why is not None:
                    raise AssertionError(f"access-plan wrote a plan {op.name} at {op.loc} does not fit: {why}")
