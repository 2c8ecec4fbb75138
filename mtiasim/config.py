"""The machine description the simulator runs on, read from the target YAML (never from ``mtiacc.target``)."""
from __future__ import annotations

import dataclasses
import math
import os
from typing import Dict, Optional, Tuple

import yaml

from mtiacc.diagnostics import UserError

from .se.model import SeConfig, parse_se

DEFAULT_CONFIG = os.path.join(os.path.dirname(__file__), "configs", "mtia2i.yaml")


@dataclasses.dataclass(frozen=True)
class DpeConfig:
    """The matrix engine of a PE (``dpe:`` in the YAML; docs/matrix-engine.md)."""
    macs_per_cycle: Tuple[Tuple[str, float], ...] = (("fp16", 1024.0), ("bf16", 1024.0), ("int8", 2048.0))
    accumulator_rows: int = 1024
    queue_depth: int = 16
    weight_load_cycles: float = 32.0
    switch_cycles: float = 2.0
    latency_cycles: float = 32.0
    acc_bytes_per_cycle: float = 128.0
    mlu_bytes_per_cycle: float = 64.0      # the memory layout unit (MLU) behind the engine's queue: transposes
    mlu_latency_cycles: float = 8.0

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

    noc_cycles: float = 16.0           # one way between a PE and the SRAM / DRAM atomic units
    service_cycles: float = 4.0        # an atomic at its unit (atomics to one address are performed one at a time)
    local_latency_cycles: float = 2.0  # an atomic on the PE's own local memory


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
    path: str = ""
    local_memory_bw_bytes_per_s: float = 1.0e12
    dram_latency_ns: float = 100.0
    sram_bytes: int = 256 << 20
    sram_bw_bytes_per_s: float = 2.7e12
    sram_latency_ns: float = 20.0
    dma_pe_bytes_per_cycle: float = 64.0
    fp64_slowdown: int = 1           # vector float ops at SEW=64 occupy the unit this many times longer
    dpe: DpeConfig = DpeConfig()
    se: SeConfig = SeConfig()        # the SIMD engine (mtiasim/se/)
    atomics: AtomicsConfig = AtomicsConfig()

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


def _atomics(raw, path: str) -> AtomicsConfig:
    sec = raw.get("atomics")
    if sec is None:
        return AtomicsConfig()
    if not isinstance(sec, dict):
        raise UserError(f"machine description {path}: 'atomics' must be a mapping")
    unknown = set(sec) - {f.name for f in dataclasses.fields(AtomicsConfig)}
    if unknown:
        raise UserError(f"machine description {path}: unknown key atomics.{sorted(unknown)[0]}")
    out = AtomicsConfig(**{k: float(v) for k, v in sec.items()})
    if min(out.noc_cycles, out.service_cycles, out.local_latency_cycles) < 0:
        raise UserError(f"machine description {path}: the atomics' cycle counts must not be negative")
    return out


def _get(d, path: str, where: str, default=None):
    cur = d
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            if default is not None:
                return default
            raise UserError(f"machine description {where} is missing '{path}'")
        cur = cur[part]
    return cur


def _dpe(raw, path: str) -> DpeConfig:
    """The ``dpe:`` section (defaults: :class:`DpeConfig`'s, when the section is absent)."""
    sec = raw.get("dpe")
    if sec is None:
        return DpeConfig()
    if not isinstance(sec, dict):
        raise UserError(f"machine description {path}: 'dpe' must be a mapping")
    dflt = DpeConfig()
    macs = sec.get("macs_per_cycle", dict(dflt.macs_per_cycle))
    if not isinstance(macs, dict) or set(macs) != {"fp16", "bf16", "int8"}:
        raise UserError(f"machine description {path}: dpe.macs_per_cycle needs exactly fp16, bf16 and int8")
    return DpeConfig(macs_per_cycle=tuple((k, float(macs[k])) for k in ("fp16", "bf16", "int8")),
                     accumulator_rows=int(sec.get("accumulator_rows", dflt.accumulator_rows)),
                     queue_depth=int(sec.get("queue_depth", dflt.queue_depth)),
                     weight_load_cycles=float(sec.get("weight_load_cycles", dflt.weight_load_cycles)),
                     switch_cycles=float(sec.get("switch_cycles", dflt.switch_cycles)),
                     latency_cycles=float(sec.get("latency_cycles", dflt.latency_cycles)),
                     acc_bytes_per_cycle=float(sec.get("acc_bytes_per_cycle", dflt.acc_bytes_per_cycle)),
                     mlu_bytes_per_cycle=float(sec.get("mlu_bytes_per_cycle", dflt.mlu_bytes_per_cycle)),
                     mlu_latency_cycles=float(sec.get("mlu_latency_cycles", dflt.mlu_latency_cycles)))


def load_config(path: Optional[str] = None) -> MachineConfig:
    """Read and check a machine YAML; every problem is a :class:`UserError` naming the file and key."""
    path = path or DEFAULT_CONFIG
    try:
        with open(path, encoding="utf-8") as f:
            raw = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except FileNotFoundError:
        raise UserError(f"machine description '{path}' does not exist") from None
    except OSError as e:
        raise UserError(f"cannot read machine description '{path}': {e.strerror}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        if mark is not None:   # at the problem's line and column, as the compiler reports source errors
            from mtiacc.diagnostics import SourceLocation
            context = f" ({e.context})" if getattr(e, "context", None) else ""
            raise UserError(f"machine description is not valid YAML: {e.problem}{context}",
                            SourceLocation(path, mark.line + 1, mark.column + 1)) from None
        raise UserError(f"machine description '{path}' is not valid YAML: {e}") from None
    if not isinstance(raw, dict):
        raise UserError(f"machine description '{path}' must be a mapping")
    try:
        timing_raw = _get(raw, "timing", path)
        timing = {}
        for cls, v in timing_raw.items():
            if not isinstance(v, dict) or "issue" not in v or "latency" not in v:
                raise UserError(f"machine description {path}: timing class '{cls}' needs 'issue' and 'latency'")
            timing[str(cls)] = (float(v["issue"]), float(v["latency"]))
        cfg = MachineConfig(
            name=str(raw.get("name", "machine")),
            clock_hz=float(_get(raw, "clock_hz", path)),
            grid_x=int(_get(raw, "grid.x", path)),
            grid_y=int(_get(raw, "grid.y", path)),
            job_launch_ns=float(_get(raw, "job_launch_ns", path)),
            local_memory_bytes=int(_get(raw, "pe.local_memory_bytes", path)),
            vlen_bits=int(_get(raw, "pe.vector.vlen_bits", path)),
            datapath_bits=int(_get(raw, "pe.vector.datapath_bits", path)),
            dram_bytes=int(_get(raw, "memory.dram.bytes", path)),
            dram_bw_bytes_per_s=float(_get(raw, "memory.dram.bw_bytes_per_s", path)),
            dram_base=int(_get(raw, "memory.dram.base_address", path, 0x10000000)),
            dram_buffer_gap=int(_get(raw, "memory.dram.buffer_gap_bytes", path, 4096)),
            dma_setup_cycles=float(_get(raw, "memory.dma.setup_cycles", path)),
            dma_max_outstanding=int(_get(raw, "memory.dma.max_outstanding", path)),
            timing=timing,
            path=path,
            local_memory_bw_bytes_per_s=float(_get(raw, "pe.local_memory_bw_bytes_per_s", path)),
            dram_latency_ns=float(_get(raw, "memory.dram.latency_ns", path)),
            sram_bytes=int(_get(raw, "memory.sram.bytes", path)),
            sram_bw_bytes_per_s=float(_get(raw, "memory.sram.bw_bytes_per_s", path)),
            sram_latency_ns=float(_get(raw, "memory.sram.latency_ns", path)),
            dma_pe_bytes_per_cycle=float(_get(raw, "memory.dma.pe_bytes_per_cycle", path)),
            fp64_slowdown=int(_get(raw, "pe.vector.fp64_slowdown", path, 1)),
            dpe=_dpe(raw, path),
            se=parse_se(raw.get("se"), path),
            atomics=_atomics(raw, path),
        )
    except (TypeError, ValueError, AttributeError) as e:
        raise UserError(f"machine description '{path}' has a malformed value: {e}") from None
    if cfg.vlen_bits % 64 or cfg.vlen_bits <= 0:
        raise UserError(f"machine description {path}: pe.vector.vlen_bits must be a positive multiple of 64")
    if cfg.local_memory_bytes % 8 or cfg.local_memory_bytes <= 0:
        raise UserError(f"machine description {path}: pe.local_memory_bytes must be a positive multiple of 8")
    if cfg.n_pes <= 0 or cfg.clock_hz <= 0 or cfg.datapath_bits <= 0 or cfg.dram_bw_bytes_per_s <= 0:
        raise UserError(f"machine description {path}: grid, clock, datapath and DRAM bandwidth must be positive")
    if min(cfg.sram_bw_bytes_per_s, cfg.local_memory_bw_bytes_per_s, cfg.dma_pe_bytes_per_cycle) <= 0:
        raise UserError(f"machine description {path}: SRAM, local-memory and per-PE DMA bandwidths must be positive")
    if min(cfg.dram_latency_ns, cfg.sram_latency_ns, cfg.dma_setup_cycles) < 0:
        raise UserError(f"machine description {path}: latencies and the DMA setup cost must not be negative")
    d = cfg.dpe
    if min(d.accumulator_rows, d.queue_depth, d.acc_bytes_per_cycle, d.mlu_bytes_per_cycle,
           *(v for _, v in d.macs_per_cycle)) <= 0:
        raise UserError(f"machine description {path}: dpe.accumulator_rows, queue_depth, acc_bytes_per_cycle, "
                        f"mlu_bytes_per_cycle and macs_per_cycle must be positive")
    if min(d.weight_load_cycles, d.switch_cycles, d.latency_cycles, d.mlu_latency_cycles) < 0:
        raise UserError(f"machine description {path}: the dpe's cycle counts must not be negative")
    if cfg.dma_max_outstanding <= 0:
        raise UserError(f"machine description {path}: memory.dma.max_outstanding must be positive")
    return cfg
