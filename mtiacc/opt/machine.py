"""The machine passes' names in the pass registry, so pipelines and ``--disable-pass`` reach them.

Their code is in codegen (``mtiacc/codegen/machine/schedule.py``, ``mtiacc/codegen/machine/peephole.py``), run after
register allocation; see ``mtiacc.codegen.MACHINE_PASSES``.
"""
from __future__ import annotations

import dataclasses

from mtiacc.opt.pass_manager import MachinePass, register_pass


@register_pass
@dataclasses.dataclass(frozen=True)
class MachinePeephole(MachinePass):
    """Local rewrites of machine code: self moves, constants into immediates, dead defs, repeated
    ``vsetvli`` (a DMA wait a later one covers goes in ``insert-waits``, which places the waits)."""

    name = "machine-peephole"


@register_pass
@dataclasses.dataclass(frozen=True)
class MachineSchedule(MachinePass):
    """List scheduling within basic blocks with the target's latencies."""

    name = "machine-schedule"
