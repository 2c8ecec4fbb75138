"""Every key of a machine description: its type, unit and constraint (the one place that declares them).

A key is dotted (``memory.dram.bw_bytes_per_s``).  ``<class>`` stands for each timing class of the ISA table
(``mtiacc.asm.isa.TIMING_CLASSES``), ``<function>`` for each function of the SIMD engine
(``mtiacc.asm.isa.SE_FUNCTIONS``).  Every key is required and no other key is allowed, except that each SE
function has exactly one of ``bits`` and ``abs_bits``.  Numbers may be written as YAML reads them (``393216``,
``0x10000000``, ``1.0e12``) or in the exponent form YAML 1.1 reads as text (``1.35e9``): an ``int`` key takes an
integral value, a ``float`` key any number.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict, Optional, Tuple


@dataclasses.dataclass(frozen=True)
class Key:
    """One key: its Python type (``str``, ``int``, ``float``), unit, bounds and what it means."""

    type: type
    unit: str
    doc: str
    minimum: Optional[float] = None       # inclusive
    positive: bool = False                # > 0
    maximum: Optional[float] = None       # inclusive
    multiple_of: Optional[int] = None
    one_of_group: Optional[str] = None    # keys of a group: exactly one of them is present

    def describe(self) -> str:
        """The constraint in words: ``a positive integer (bytes)``."""
        kind = {str: "a string", int: "an integer", float: "a number"}[self.type]
        if self.positive:
            kind = {int: "a positive integer", float: "a positive number"}[self.type]
        elif self.minimum == 0 and self.maximum is None:
            kind = {int: "a non-negative integer", float: "a non-negative number"}[self.type]
        elif self.minimum is not None and self.maximum is not None:
            kind += f" from {_num(self.minimum)} to {_num(self.maximum)}"
        elif self.minimum is not None:
            kind += f" of at least {_num(self.minimum)}"
        if self.multiple_of:
            kind += f", a multiple of {self.multiple_of}"
        return kind + (f" ({self.unit})" if self.unit else "")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def _k(type_, unit, doc, **kw) -> Key:
    return Key(type_, unit, doc, **kw)


LLC_STEP = 32 << 20     # the SRAM splits between LLC and LLS in 32 MB steps [ISCA25 Table 2]
POS = dict(positive=True)
NONNEG = dict(minimum=0)

# dotted key -> its declaration; <class> and <function> are expanded by :func:`keys`
SCHEMA: Dict[str, Key] = {
    "name": _k(str, "", "the machine's name (stored in binaries compiled for it)"),
    "clock_hz": _k(float, "Hz", "the PEs' clock", **POS),
    "grid.x": _k(int, "PEs", "PEs along x of the grid", **POS),
    "grid.y": _k(int, "PEs", "PEs along y of the grid", **POS),
    "job_launch_ns": _k(float, "ns", "the cost of launching a job", **NONNEG),
    "pe.local_memory_bytes": _k(int, "bytes", "local memory of one PE", positive=True, multiple_of=8),
    "pe.local_memory_bw_bytes_per_s": _k(float, "bytes/s", "local-memory read + write bandwidth of a PE", **POS),
    "pe.stack_bytes": _k(int, "bytes", "part of local memory reserved for the stack (spills)", **NONNEG),
    "pe.vector.vlen_bits": _k(int, "bits", "vector register length", positive=True, multiple_of=64),
    "pe.vector.datapath_bits": _k(int, "bits", "vector unit datapath width per cycle", **POS),
    "pe.vector.fp64_slowdown": _k(int, "x", "how many times longer a float op at SEW=64 occupies the unit",
                                  minimum=1),
    "memory.dram.bytes": _k(int, "bytes", "DRAM capacity", **POS),
    "memory.dram.bw_bytes_per_s": _k(float, "bytes/s", "DRAM bandwidth shared by all PEs", **POS),
    "memory.dram.latency_ns": _k(float, "ns", "DRAM latency", **NONNEG),
    "memory.dram.base_address": _k(int, "address", "where kernel buffers are placed from", **NONNEG),
    "memory.dram.buffer_gap_bytes": _k(int, "bytes", "unmapped gap between kernel buffers", **NONNEG),
    "memory.sram.bytes": _k(int, "bytes", "on-chip SRAM capacity", **POS),
    "memory.sram.bw_bytes_per_s": _k(float, "bytes/s", "SRAM bandwidth shared by all PEs", **POS),
    "memory.sram.latency_ns": _k(float, "ns", "SRAM latency", **NONNEG),
    "memory.sram.llc_bytes": _k(int, "bytes", "the part of the SRAM that is a hardware cache of DRAM (LLC); the "
                                "rest is software-managed (LLS)", minimum=0, multiple_of=LLC_STEP),
    "memory.sram.llc_line_fill": _k(int, "0 or 1", "1: a read that misses the LLC fills its whole lines from DRAM; "
                                    "0: DRAM moves only the bytes it asked for", minimum=0, maximum=1),
    "memory.sram.llc_line_bytes": _k(int, "bytes", "the LLC's line: what a miss fills and residency is kept in",
                                     **POS),
    "memory.dma.setup_cycles": _k(float, "cycles", "setup of one DMA transfer", **NONNEG),
    "memory.dma.max_outstanding": _k(int, "transfers", "DMA queue depth per PE", **POS),
    "memory.dma.pe_bytes_per_cycle": _k(float, "bytes/cycle", "a PE's NoC port", **POS),
    "memory.dma.channels": _k(int, "channels", "1: a PE's transfers in one issue order; 2: inbound and outbound "
                              "ones on a channel each, at once", minimum=1, maximum=2),
    "dpe.macs_per_cycle.fp16": _k(float, "MACs/cycle", "matrix engine rate, fp16 inputs", **POS),
    "dpe.macs_per_cycle.bf16": _k(float, "MACs/cycle", "matrix engine rate, bf16 inputs", **POS),
    "dpe.macs_per_cycle.int8": _k(float, "MACs/cycle", "matrix engine rate, int8 inputs", **POS),
    "dpe.accumulator_rows": _k(int, "rows of 32", "fp32 / int32 accumulator rows", **POS),
    "dpe.queue_depth": _k(int, "commands", "the engine's command FIFO", **POS),
    "dpe.weight_load_cycles": _k(float, "cycles", "filling an array with a 32 x 32 tile", **NONNEG),
    "dpe.switch_cycles": _k(float, "cycles", "swapping the active array", **NONNEG),
    "dpe.latency_cycles": _k(float, "cycles", "last streamed row to the accumulators", **NONNEG),
    "dpe.acc_bytes_per_cycle": _k(float, "bytes/cycle", "accumulator rows to or from local memory", **POS),
    "dpe.mlu_bytes_per_cycle": _k(float, "bytes/cycle", "the layout unit's transpose rate", **POS),
    "dpe.mlu_latency_cycles": _k(float, "cycles", "the layout unit's fill-to-drain depth", **NONNEG),
    "se.elements_per_cycle": _k(float, "elements/cycle", "the SIMD engine's rate", **POS),
    "se.functions.<function>.bits": _k(int, "bits", "relative error below 2^-bits", minimum=1, maximum=52,
                                       one_of_group="accuracy"),
    "se.functions.<function>.abs_bits": _k(int, "bits", "absolute error below 2^-abs_bits", minimum=1,
                                           maximum=52, one_of_group="accuracy"),
    "atomics.noc_cycles": _k(float, "cycles", "one way between a PE and an atomic unit", **NONNEG),
    "atomics.service_cycles": _k(float, "cycles", "an atomic at its unit", **NONNEG),
    "atomics.local_latency_cycles": _k(float, "cycles", "an atomic on the PE's own local memory", **NONNEG),
    "timing.<class>.issue": _k(int, "cycles", "issue cost of the timing class", minimum=1),
    "timing.<class>.latency": _k(int, "cycles", "result latency of the timing class", **NONNEG),
}


def _placeholders() -> Dict[str, Tuple[str, ...]]:
    from mtiacc.asm.isa import SE_FUNCTIONS, TIMING_CLASSES
    return {"<class>": tuple(TIMING_CLASSES), "<function>": tuple(SE_FUNCTIONS)}


def keys() -> Dict[str, Key]:
    """Every concrete dotted key -> its :class:`Key`, in the schema's order."""
    global _KEYS
    if _KEYS is None:
        ph = _placeholders()
        out: Dict[str, Key] = {}
        for pattern, key in SCHEMA.items():
            hole = next((h for h in ph if h in pattern), None)
            for name in (ph[hole] if hole else (None,)):
                out[pattern.replace(hole, name) if hole else pattern] = key
        _KEYS = out
    return _KEYS


_KEYS: Optional[Dict[str, Key]] = None


def sections() -> frozenset:
    """Every dotted prefix of a key (``memory``, ``memory.dram``): the keys whose value is a mapping (computed
    once: reading a machine file asks at every mapping)."""
    global _SECTIONS
    if _SECTIONS is None:
        _SECTIONS = frozenset(".".join(k.split(".")[:i]) for k in keys() for i in range(1, k.count(".") + 1))
    return _SECTIONS


_SECTIONS: Optional[frozenset] = None


def coerce(key: Key, value) -> object:
    """``value`` as the key's type, or a ``str`` saying what is wrong (checked against the key's bounds)."""
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return f"must be {key.describe()}, got {_show(value)}"
    if key.type is str:
        return value if isinstance(value, str) else f"must be {key.describe()}, got {_show(value)}"
    v = value
    if isinstance(v, str):
        try:
            v = int(v, 0) if key.type is int else float(v)
        except ValueError:
            try:
                v = float(v)
            except ValueError:
                return f"must be {key.describe()}, got {_show(value)}"
    if key.type is int:
        if isinstance(v, float):
            if not (math.isfinite(v) and v.is_integer()):
                return f"must be {key.describe()}, got {_show(value)}"
            v = int(v)
    else:
        v = float(v)
        if not math.isfinite(v):
            return f"must be {key.describe()}, got {_show(value)}"
    if (key.positive and v <= 0 or key.minimum is not None and v < key.minimum
            or key.maximum is not None and v > key.maximum or key.multiple_of and v % key.multiple_of):
        return f"must be {key.describe()}, got {_show(value)}"
    return v


def _show(value) -> str:
    return "nothing" if value is None else "a mapping" if isinstance(value, dict) else \
        "a list" if isinstance(value, list) else repr(value)


def describe_schema() -> str:
    """The schema as a table (``python -m mtiacc.machine --schema``)."""
    rows = [f"{pattern:40} {key.describe():60} {key.doc}" for pattern, key in SCHEMA.items()]
    return "\n".join(rows)
