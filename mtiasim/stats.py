"""Run statistics: what the runner counts, the figures derived from them (utilization, bandwidth, roofline), and
their renderings (a rich table for ``--stats``, a dict for ``--stats-json``).

Units of time: cycles at the machine's clock; seconds = cycles / clock_hz.  Per-PE figures are summed over the
waves a PE ran.  "PE-cycles" = cycles x PEs: a unit's utilization is its busy PE-cycles over the PE-cycles of
the waves (each wave counts its PEs for its length).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

import numpy as np

STALLS = ("dependence", "structural", "dma_wait", "dpe_wait", "atomic_wait", "synchronization")


@dataclasses.dataclass
class Stats:
    programs: int = 0
    waves: int = 0
    grid: Tuple[int, int, int] = (1, 1, 1)
    instructions: int = 0
    by_unit: Dict[str, int] = dataclasses.field(default_factory=dict)
    by_timing_class: Dict[str, int] = dataclasses.field(default_factory=dict)
    cycles: int = 0
    launch_cycles: int = 0
    wave_cycles: List[int] = dataclasses.field(default_factory=list)
    wave_pes: List[int] = dataclasses.field(default_factory=list)
    clock_hz: float = 1.0
    dma_bytes_in: int = 0          # DRAM or SRAM -> local memory
    dma_bytes_out: int = 0         # local memory -> DRAM or SRAM
    dram_bytes: int = 0
    sram_bytes: int = 0
    dma_transfers: int = 0
    flops: float = 0.0             # scalar, vector and matrix-engine operations (an FMA or a MAC is two)
    vector_flops: float = 0.0
    dpe_macs: float = 0.0          # the matrix engine's useful MACs (R x K x n per mm; integer ones too)
    atomics: int = 0               # atomics performed
    atomic_round_trip: float = 0.0  # their issue-to-result cycles, summed
    atomic_contention: float = 0.0  # cycles they waited at their unit for earlier atomics on the same address
    steps: int = 0
    wall_seconds: float = 0.0
    # per PE (index = PE), summed over waves
    pe_programs: np.ndarray = None
    pe_finish: np.ndarray = None          # cycles from wave start to the PE's last activity, summed
    pe_core: np.ndarray = None            # cycles the core issued (not stalled)
    pe_stalls: Dict[str, np.ndarray] = None
    pe_vector_busy: np.ndarray = None
    pe_dma_busy: np.ndarray = None
    pe_lm_bytes: np.ndarray = None
    pe_vector_min: np.ndarray = None      # cycles the vector FLOPs need at the vector unit's peak
    pe_dpe_busy: np.ndarray = None        # cycles the matrix engine streamed rows (mm)
    pe_dpe_min: np.ndarray = None         # cycles its MACs need at its peak for their input type
    pe_mlu_busy: np.ndarray = None        # cycles the memory layout unit transposed (mtia.mlu.trans)
    pe_se_busy: np.ndarray = None         # cycles the SIMD engine computed functions (mtia.se.*)
    pe_se_elements: np.ndarray = None     # elements it computed
    issue_busy: Dict[str, float] = dataclasses.field(default_factory=dict)   # unit -> core issue cycles
    # the machine, for the derived figures
    machine: Dict[str, float] = dataclasses.field(default_factory=dict)

    # -------------------------------------------------------------------------------------------------------
    @property
    def time_s(self) -> float:
        return self.cycles / self.clock_hz

    @property
    def time_us(self) -> float:
        return self.time_s * 1e6

    @property
    def lm_bytes(self) -> int:
        return int(self.pe_lm_bytes.sum()) if self.pe_lm_bytes is not None else 0

    @property
    def dpe_flops(self) -> float:
        return 2.0 * self.dpe_macs

    @property
    def pe_cycles(self) -> float:
        """The PE-cycles of all waves (each wave: its length x its PEs)."""
        return float(sum(c * p for c, p in zip(self.wave_cycles, self.wave_pes)))

    def units(self) -> Dict[str, Dict[str, float]]:
        """Per unit: busy PE-cycles and utilization."""
        cap = max(self.pe_cycles, 1.0)
        busy = {
            "scalar": float(self.issue_busy.get("scalar", 0.0)),
            "vector": float(self.pe_vector_busy.sum()) if self.pe_vector_busy is not None else 0.0,
            "command_processor": float(self.issue_busy.get("custom", 0.0) + self.issue_busy.get("dma", 0.0)
                                       + self.issue_busy.get("dpe", 0.0) + self.issue_busy.get("mlu", 0.0)),
            "dma": float(self.pe_dma_busy.sum()) if self.pe_dma_busy is not None else 0.0,
            "dpe": float(self.pe_dpe_busy.sum()) if self.pe_dpe_busy is not None else 0.0,
            "se": self.se_busy,
            "mlu": float(self.pe_mlu_busy.sum()) if self.pe_mlu_busy is not None else 0.0,
        }
        return {u: {"busy_cycles": b, "utilization": b / cap} for u, b in busy.items()}

    def dpe(self) -> Dict[str, float]:
        """The matrix engine: busy (streaming) PE-cycles, useful MACs, and their utilization: the MACs over what
        the busy cycles could have done at the type's peak, and over what the waves' PE-cycles could have."""
        busy = float(self.pe_dpe_busy.sum()) if self.pe_dpe_busy is not None else 0.0
        need = float(self.pe_dpe_min.sum()) if self.pe_dpe_min is not None else 0.0
        return {"busy_cycles": busy, "macs": self.dpe_macs, "flops": self.dpe_flops,
                "utilization_busy": need / busy if busy else 0.0,
                "utilization_peak": need / max(self.pe_cycles, 1.0)}

    @property
    def se_busy(self) -> float:
        return float(self.pe_se_busy.sum()) if self.pe_se_busy is not None else 0.0

    @property
    def se_elements(self) -> float:
        return float(self.pe_se_elements.sum()) if self.pe_se_elements is not None else 0.0

    def stalls(self) -> Dict[str, float]:
        if self.pe_stalls is None:
            return dict.fromkeys(STALLS, 0.0)
        return {k: float(self.pe_stalls[k].sum()) for k in STALLS}

    def bounds(self) -> Dict[str, float]:
        """Seconds each resource alone needs for this run's work (the roofline terms)."""
        mc = self.machine
        lm = float(self.pe_lm_bytes.max()) if self.pe_lm_bytes is not None and self.pe_lm_bytes.size else 0.0
        vmin = float(self.pe_vector_min.max()) if self.pe_vector_min is not None and self.pe_vector_min.size else 0.0
        dmin = float(self.pe_dpe_min.max()) if self.pe_dpe_min is not None and self.pe_dpe_min.size else 0.0
        se = self.pe_se_elements
        smin = float(se.max()) / mc.get("se_rate", 32.0) if se is not None and se.size else 0.0
        return {
            "dram": self.dram_bytes / mc["dram_bw"],
            "sram": self.sram_bytes / mc["sram_bw"],
            "local_memory": lm / mc["lm_bw"],
            "vector": vmin / self.clock_hz,
            "dpe": dmin / self.clock_hz,
            "se": smin / self.clock_hz,
        }

    def roofline(self) -> Tuple[str, float, float]:
        """(bounding resource, the time it alone needs, that time / the simulated time)."""
        b = self.bounds()
        name = max(b, key=lambda k: b[k])
        t = b[name]
        return name, t, (t / self.time_s if self.time_s > 0 else 0.0)

    def balance(self) -> Dict[str, float]:
        if self.pe_finish is None or not self.pe_finish.size:
            return {}
        used = self.pe_programs > 0
        f = self.pe_finish[used]
        return {"pes_used": int(used.sum()), "busy_min_cycles": float(f.min()), "busy_mean_cycles": float(f.mean()),
                "busy_max_cycles": float(f.max()), "imbalance": float(f.max() / f.mean()) if f.mean() > 0 else 1.0,
                "programs_min": int(self.pe_programs[used].min()), "programs_max": int(self.pe_programs[used].max())}

    # -------------------------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        bound, roof_s, frac = self.roofline()
        t = self.time_s
        return {
            "cycles": self.cycles, "time_s": t, "clock_hz": self.clock_hz, "launch_cycles": self.launch_cycles,
            "grid": list(self.grid), "programs": self.programs, "waves": self.waves,
            "wave_cycles": list(self.wave_cycles), "instructions": self.instructions,
            "instructions_by_unit": dict(self.by_unit), "instructions_by_timing_class": dict(self.by_timing_class),
            "dram_bytes": self.dram_bytes, "sram_bytes": self.sram_bytes, "local_memory_bytes": self.lm_bytes,
            "dma_bytes_in": self.dma_bytes_in, "dma_bytes_out": self.dma_bytes_out,
            "dma_transfers": self.dma_transfers,
            "dram_bw_bytes_per_s": self.dram_bytes / t if t else 0.0,
            "sram_bw_bytes_per_s": self.sram_bytes / t if t else 0.0,
            "flops": self.flops, "vector_flops": self.vector_flops, "flops_per_s": self.flops / t if t else 0.0,
            "dpe": self.dpe(),
            "se": {"busy_cycles": self.se_busy, "elements": self.se_elements},
            "atomics": {"count": self.atomics, "round_trip_cycles": self.atomic_round_trip,
                        "contention_cycles": self.atomic_contention},
            "bound": bound, "roofline_s": roof_s, "roofline_fraction": frac, "bounds_s": self.bounds(),
            "units": self.units(), "stalls_pe_cycles": self.stalls(), "pe_cycles": self.pe_cycles,
            "balance": self.balance(), "wall_seconds": self.wall_seconds,
        }


def _si(x: float, unit: str) -> str:
    for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= f:
            return f"{x / f:,.2f} {p}{unit}"
    return f"{x:,.2f} {unit}"


def render(stats: Stats, console) -> None:
    """The ``--stats`` tables."""
    from rich.table import Table

    s = stats
    t = Table(title="mtiasim", show_header=True)
    t.add_column("statistic")
    t.add_column("value", justify="right")
    t.add_column("", justify="right")
    gx, gy, gz = s.grid
    t.add_row("grid", f"{gx} x {gy} x {gz}", "")
    t.add_row("programs run", f"{s.programs:,}", f"{s.waves:,} waves")
    t.add_row("instructions retired", f"{s.instructions:,}", "")
    for unit in sorted(s.by_unit):
        t.add_row(f"  {unit}", f"{s.by_unit[unit]:,}", "")
    t.add_row("simulated cycles", f"{s.cycles:,}", f"{s.time_us:,.3f} us at {s.clock_hz / 1e9:g} GHz")
    t.add_row("  of which job launch", f"{s.launch_cycles:,}", "")
    tt = s.time_s or 1.0
    t.add_row("DRAM bytes", f"{s.dram_bytes:,}", _si(s.dram_bytes / tt, "B/s"))
    t.add_row("SRAM bytes", f"{s.sram_bytes:,}", _si(s.sram_bytes / tt, "B/s"))
    t.add_row("local-memory bytes", f"{s.lm_bytes:,}", _si(s.lm_bytes / tt, "B/s"))
    t.add_row("  DMA in / out", f"{s.dma_bytes_in:,} / {s.dma_bytes_out:,}", f"{s.dma_transfers:,} transfers")
    t.add_row("FLOPs", f"{s.flops:,.0f}", _si(s.flops / tt, "FLOP/s"))
    if s.dpe_macs:
        e = s.dpe()
        t.add_row("  matrix engine (DPE)", f"{s.dpe_flops:,.0f}", _si(s.dpe_flops / tt, "FLOP/s"))
        t.add_row("DPE busy cycles", f"{e['busy_cycles']:,.0f}", f"{s.dpe_macs:,.0f} MACs")
        t.add_row("  DPE utilization while busy", f"{100 * e['utilization_busy']:.1f} %", "useful MACs / busy peak")
        t.add_row("  DPE utilization of peak", f"{100 * e['utilization_peak']:.1f} %", "useful MACs / run peak")
    if s.se_elements:
        t.add_row("SE busy cycles", f"{s.se_busy:,.0f}", f"{s.se_elements:,.0f} elements (mtia.se.*)")
    if s.atomics:
        n = s.atomics
        t.add_row("atomics", f"{n:,}", f"{s.atomic_round_trip / n:,.1f} cycles per round trip")
        t.add_row("  waiting for their address", f"{s.atomic_contention:,.0f} cycles",
                  f"{s.atomic_contention / n:,.1f} per atomic")
    bound, roof, frac = s.roofline()
    t.add_row("roofline bound", bound, f"{roof * 1e6:,.3f} us")
    t.add_row("  % of the bound reached", f"{100 * frac:.1f} %", "")
    for name, v in s.bounds().items():
        t.add_row(f"  {name} alone", f"{v * 1e6:,.3f} us", "")
    t.add_row("host time", f"{s.wall_seconds:.3f} s", "")
    console.print(t)

    u = Table(title="units (busy PE-cycles)", show_header=True)
    u.add_column("unit")
    u.add_column("busy", justify="right")
    u.add_column("utilization", justify="right")
    for name, d in s.units().items():
        u.add_row(name, f"{d['busy_cycles']:,.0f}", f"{100 * d['utilization']:.1f} %")
    console.print(u)

    st = Table(title="stalls (PE-cycles)", show_header=True)
    st.add_column("kind")
    st.add_column("PE-cycles", justify="right")
    st.add_column("share", justify="right")
    cap = max(s.pe_cycles, 1.0)
    for k, v in s.stalls().items():
        st.add_row(k, f"{v:,.0f}", f"{100 * v / cap:.1f} %")
    console.print(st)

    b = s.balance()
    if b:
        bt = Table(title="per-PE balance", show_header=True)
        bt.add_column("PEs used")
        bt.add_column("programs / PE", justify="right")
        bt.add_column("busy cycles min / mean / max", justify="right")
        bt.add_column("max / mean", justify="right")
        bt.add_row(str(b["pes_used"]), f"{b['programs_min']}..{b['programs_max']}",
                   f"{b['busy_min_cycles']:,.0f} / {b['busy_mean_cycles']:,.0f} / {b['busy_max_cycles']:,.0f}",
                   f"{b['imbalance']:.3f}")
        console.print(bt)
