"""The compiler's view of the machine: :class:`Target`, built from the one machine description
(:mod:`mtiacc.machine`; the built-in ``mtiacc/machine/mtia2i.yaml`` by default)."""
from __future__ import annotations

import dataclasses
import functools
from typing import Optional, Tuple

from mtiacc.machine import MachineDescription, load


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    vlen_bits: int
    lmem_bytes: int
    stack_bytes: int
    # the PEs of the chip (`grid: {x, y}`): the programs a launch runs at once
    n_pes: int
    # timing class -> (issue cycles, result latency), from the description's `timing:` section
    timing: Tuple[Tuple[str, Tuple[int, int]], ...]
    # the matrix engine (`dpe:`): fp32 / int32 accumulator rows of 32 values each
    dpe_accumulator_rows: int
    # the SIMD engine (`se.functions`): function -> its table's accuracy, ("bits", n): relative error below 2^-n,
    # ("abs_bits", n): absolute error below 2^-n
    se_functions: Tuple[Tuple[str, Tuple[str, int]], ...]
    args_base: int = 0     # the ABI: where the kernel's argument block starts in local memory
    # the whole description (the machine's digest names it in caches)
    machine: Optional[MachineDescription] = dataclasses.field(default=None, compare=False, repr=False)

    def latency(self, timing_class: str, default: int = 1) -> int:
        """Result latency in cycles of an instruction of this timing class (for scheduling)."""
        return self._timing_by_class.get(timing_class, (1, default))[1]

    @functools.cached_property
    def _timing_by_class(self):
        """``timing`` as a dict (the scheduler asks for a latency per dependence; ``timing`` never changes)."""
        return dict(self.timing)

    @property
    def vlenb(self) -> int:
        return self.vlen_bits // 8


@functools.lru_cache(maxsize=None)
def instruction_info(mnemonic: str, nargs: int):
    """The ISA table's row for a mnemonic or pseudo-instruction with ``nargs`` operands, or None: its
    ``operand_names``, ``access`` (per operand), ``effects``, ``links``, ``timing`` and ``sem_family`` (a pseudo
    has its base instruction's timing class and effects)."""
    from mtiacc.asm.pseudo import lookup
    return lookup(mnemonic, nargs)


def target_of(m: MachineDescription) -> Target:
    """The compiler's view of machine ``m``."""
    se = m.section("se.functions")
    return Target(name=m["name"], vlen_bits=m["pe.vector.vlen_bits"], lmem_bytes=m["pe.local_memory_bytes"],
                  stack_bytes=m["pe.stack_bytes"], n_pes=m["grid.x"] * m["grid.y"],
                  timing=tuple((c, (v["issue"], v["latency"])) for c, v in m.section("timing").items()),
                  dpe_accumulator_rows=m["dpe.accumulator_rows"],
                  se_functions=tuple((f, next(iter(acc.items()))) for f, acc in se.items()), machine=m)


@functools.lru_cache(maxsize=None)
def load_target(path: Optional[str] = None, overrides: Tuple[str, ...] = ()) -> Target:
    """The target of a built-in machine (default mtia2i) or a machine YAML file, with ``--set KEY=VALUE``
    ``overrides`` (a tuple: the result is cached)."""
    return target_of(load(path, tuple(overrides)))
