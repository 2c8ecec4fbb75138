"""The simulator's view of a machine description: :class:`MachineConfig` and its engines' sections, built from
:func:`mtiacc.machine.load` (the simulator never reads a machine file itself)."""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Dict, Optional, Tuple

from . import MachineDescription, Overrides, load


@dataclasses.dataclass(frozen=True)
class DpeConfig:
    """The matrix engine of a PE (``dpe:`` in the YAML; docs/matrix-engine.md)."""
    macs_per_cycle: Tuple[Tuple[str, float], ...]
    accumulator_rows: int
    queue_depth: int
    weight_load_cycles: float
    switch_cycles: float
    latency_cycles: float
    acc_bytes_per_cycle: float
    mlu_bytes_per_cycle: float      # the memory layout unit (MLU) behind the engine's queue: transposes
    mlu_latency_cycles: float

    def macs(self, kind: str) -> float:
        """MACs per cycle for input type ``kind`` (fp16, bf16, int8; uint8 runs at the int8 rate)."""
        return dict(self.macs_per_cycle)["int8" if kind == "uint8" else kind]

    @property
    def peak_macs(self) -> float:
        """The engine's MACs per cycle at its fp16 / bf16 rate (the roofline's matrix peak)."""
        return max(self.macs("fp16"), self.macs("bf16"))


@dataclasses.dataclass(frozen=True)
class AtomicsConfig:
    """The atomic units (``atomics:`` in the YAML; mtiasim/sync/atomics.py has the model)."""

    noc_cycles: float            # one way between a PE and the SRAM / DRAM atomic units
    service_cycles: float        # an atomic at its unit (atomics to one address are performed one at a time)
    local_latency_cycles: float  # an atomic on the PE's own local memory


@dataclasses.dataclass(frozen=True)
class Accuracy:
    """How close one SE function's table gets: a relative bound ``2^-bits`` or an absolute one ``2^-abs_bits``."""

    bits: Optional[int] = None
    abs_bits: Optional[int] = None

    def describe(self) -> str:
        return f"relative error < 2^-{self.bits}" if self.bits else f"absolute error < 2^-{self.abs_bits}"


@dataclasses.dataclass(frozen=True)
class SeConfig:
    """The SE of a PE (``se:`` in the YAML; mtiasim/se/ has the model)."""

    elements_per_cycle: float
    functions: Tuple[Tuple[str, Accuracy], ...]

    def accuracy(self, fn: str) -> Accuracy:
        return dict(self.functions)[fn]


@dataclasses.dataclass(frozen=True)
class MachineConfig:
    name: str
    clock_hz: float
    grid_x: int
    grid_y: int
    job_launch_ns: float
    local_memory_bytes: int
    vlen_bits: int
    datapath_bits: int
    dram_bytes: int
    dram_bw_bytes_per_s: float
    dram_base: int
    dram_buffer_gap: int
    dma_setup_cycles: float
    dma_max_outstanding: int
    timing: Dict[str, Tuple[float, float]]  # class -> (issue, latency)
    path: str
    local_memory_bw_bytes_per_s: float
    dram_latency_ns: float
    sram_bytes: int
    sram_bw_bytes_per_s: float
    sram_latency_ns: float
    dma_pe_bytes_per_cycle: float
    fp64_slowdown: int               # vector float ops at SEW=64 occupy the unit this many times longer
    dpe: DpeConfig
    se: SeConfig                     # the SIMD engine (mtiasim/se/)
    atomics: AtomicsConfig
    machine: Optional[MachineDescription] = dataclasses.field(default=None, compare=False, repr=False)
    llc_bytes: int = 0               # the SRAM's part that caches DRAM (mtiasim/llc.py); the rest is LLS
    llc_line_fill: int = 1           # 1: an LLC miss moves its whole lines from DRAM; 0: only the bytes asked for
    llc_line_bytes: int = 128        # the LLC's line (memory.sram.llc_line_bytes)
    dma_channels: int = 1            # 2: a PE's inbound and outbound transfers run at once (mtiasim/dma.py)

    def ns_to_cycles(self, ns: float) -> float:
        return ns * 1e-9 * self.clock_hz

    @property
    def n_pes(self) -> int:
        return self.grid_x * self.grid_y

    @property
    def vlenb(self) -> int:
        return self.vlen_bits // 8

    @property
    def job_launch_cycles(self) -> int:
        return int(math.ceil(self.job_launch_ns * 1e-9 * self.clock_hz - 1e-6))

    @property
    def dram_bytes_per_cycle(self) -> float:
        return self.dram_bw_bytes_per_s / self.clock_hz

    @property
    def sram_bytes_per_cycle(self) -> float:
        return self.sram_bw_bytes_per_s / self.clock_hz

    @property
    def local_memory_bytes_per_cycle(self) -> float:
        return self.local_memory_bw_bytes_per_s / self.clock_hz


def config_of(m: MachineDescription) -> MachineConfig:
    """The simulator's view of machine ``m``."""
    dpe = m.section("dpe")
    se = m.section("se")
    return MachineConfig(
        name=m["name"], clock_hz=m["clock_hz"], grid_x=m["grid.x"], grid_y=m["grid.y"],
        job_launch_ns=m["job_launch_ns"], local_memory_bytes=m["pe.local_memory_bytes"],
        vlen_bits=m["pe.vector.vlen_bits"], datapath_bits=m["pe.vector.datapath_bits"],
        dram_bytes=m["memory.dram.bytes"], dram_bw_bytes_per_s=m["memory.dram.bw_bytes_per_s"],
        dram_base=m["memory.dram.base_address"], dram_buffer_gap=m["memory.dram.buffer_gap_bytes"],
        dma_setup_cycles=m["memory.dma.setup_cycles"], dma_max_outstanding=m["memory.dma.max_outstanding"],
        timing={c: (float(v["issue"]), float(v["latency"])) for c, v in m.section("timing").items()},
        path=m.path,
        local_memory_bw_bytes_per_s=m["pe.local_memory_bw_bytes_per_s"],
        dram_latency_ns=m["memory.dram.latency_ns"],
        sram_bytes=m["memory.sram.bytes"], sram_bw_bytes_per_s=m["memory.sram.bw_bytes_per_s"],
        sram_latency_ns=m["memory.sram.latency_ns"], dma_pe_bytes_per_cycle=m["memory.dma.pe_bytes_per_cycle"],
        fp64_slowdown=m["pe.vector.fp64_slowdown"], llc_bytes=m["memory.sram.llc_bytes"],
        llc_line_fill=m["memory.sram.llc_line_fill"], llc_line_bytes=m["memory.sram.llc_line_bytes"],
        dma_channels=m["memory.dma.channels"],
        dpe=DpeConfig(macs_per_cycle=tuple((k, dpe["macs_per_cycle"][k]) for k in ("fp16", "bf16", "int8")),
                      **{k: v for k, v in dpe.items() if k != "macs_per_cycle"}),
        se=SeConfig(se["elements_per_cycle"], tuple((f, Accuracy(**acc)) for f, acc in se["functions"].items())),
        atomics=AtomicsConfig(**m.section("atomics")),
        machine=m)


@functools.lru_cache(maxsize=32)
def _config(m: MachineDescription) -> MachineConfig:
    return config_of(m)


def load_config(path: Optional[str] = None, overrides: Overrides = ()) -> MachineConfig:
    """The simulator's view of machine ``path`` (a YAML file or a built-in name; default mtia2i) with
    ``overrides`` (``--set KEY=VALUE`` texts or a ``{key: value}`` mapping)."""
    return _config(load(path, overrides))
