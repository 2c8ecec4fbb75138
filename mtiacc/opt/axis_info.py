"""``axis-info``: the pass that prints contiguity, divisibility and constancy (an analysis: it changes
nothing).  The analysis itself is ``mtiacc.ir.analysis.axis_info``, shared with codegen; ``axis-info{print=true}``
writes the facts to stderr, one line per integer block, for tests and debugging.
"""
from __future__ import annotations

import dataclasses
import sys

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.axis_info import AxisInfo, analyze, mask_all_true  # noqa: F401  (re-exported)
from mtiacc.opt.pass_manager import ModulePass, register_pass


@register_pass
@dataclasses.dataclass(frozen=True)
class AxisInfoPass(ModulePass):
    name = "axis-info"
    print: bool = False

    def run(self, module: O.ModuleOp) -> None:
        from mtiacc.ir.text.printer import Printer
        for f in module.funcs:
            info = analyze(f)
            if not self.print:
                continue
            p = Printer()
            for op in f.walk():
                for r in op.results:
                    i = info.get(r)
                    if i is not None and r.type.is_block():
                        sys.stderr.write(f"// axis-info {p.name(r)} = {op.name}: contiguity={list(i.contiguity)} "
                                         f"divisibility={list(i.divisibility)} constancy={list(i.constancy)}\n")
