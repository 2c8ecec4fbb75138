"""Micro-benchmarks of the simulated machine: achieved against configured peak (``make bench-micro``).

Each benchmark is an assembly program in this folder, assembled with ``mtiacc.asm.assembler`` and wrapped into a
kernel ELF with ``mtiacc.asm.elf.build_elf``, then run by ``mtiasim.runner.run`` on the default machine.
Achieved rates are over the whole simulated run, job launch included.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from mtiacc.asm.assembler import assemble  # noqa: E402
from mtiacc.asm.elf import build_elf  # noqa: E402
from mtiacc.machine.simulator import load_config  # noqa: E402
from mtiasim.runner import run  # noqa: E402


def build(name: str, params) -> bytes:
    prog = assemble((HERE / f"{name}.s").read_text(), f"{name}.s")
    meta = {"format_version": 1, "kernel": "kernel", "target": "mtia2i", "params": params, "constexprs": {},
            "grid": None, "args_base": 0, "source_file": f"{name}.s", "source": {}}
    return build_elf(prog.code, entry_symbol="kernel", symbols=prog.symbols, meta=meta, lines=prog.lines)


def dma_stream(level: str, count: int, cfg):
    pes = cfg.n_pes
    per = count << 14
    binary = build("dma_stream", [{"name": "A", "type": "*u8"}, {"name": "COUNT", "type": "i32"}])
    r = run(binary, {"A": np.zeros(pes * per, np.uint8), "COUNT": np.array(count, np.int32)}, grid=(pes,),
            place={"A": level})
    s = r.stats
    moved = s.dram_bytes if level == "dram" else s.sram_bytes
    assert moved == pes * per
    peak = cfg.dram_bw_bytes_per_s if level == "dram" else cfg.sram_bw_bytes_per_s
    return {"name": f"DMA stream from {level.upper()} ({pes} PEs, {moved >> 20} MB)", "achieved": moved / s.time_s,
            "peak": peak, "unit": "B/s", "stats": s, "streaming": True}


def vfma(cfg, trips=2000):
    pes = cfg.n_pes
    r = run(build("vfma", []), {}, grid=(pes,))
    s = r.stats
    assert s.vector_flops == pes * trips * 2 * 128 * 2
    peak = 2 * cfg.datapath_bits / 32 * cfg.clock_hz * pes
    return {"name": f"vector FMA loop, fp32 ({pes} PEs)", "achieved": s.vector_flops / s.time_s, "peak": peak,
            "unit": "FLOP/s", "stats": s, "streaming": True}


def dpe_mm(cfg, ty="fp16", pes=4):
    """Matrix engines streaming rows through alternating weight tiles: MACs per cycle per PE.  The engines do not
    share anything, so a few PEs give the per-PE rate (the simulator's cost grows with the PEs' MACs)."""
    code = {"fp16": 0, "bf16": 1, "int8": 2, "uint8": 3}[ty]
    trips = 32 if ty in ("fp16", "bf16") else 64     # 64K (fp16) / 128K (int8) rows a PE: launch is < 3 %
    r = run(build("dpe_mm", [{"name": "TYPE", "type": "i32"}, {"name": "TRIPS", "type": "i32"}]),
            {"TYPE": np.array(code, np.int32), "TRIPS": np.array(trips, np.int32)}, grid=(pes,))
    s = r.stats
    assert s.dpe_macs == pes * trips * 2 * 1024 * 32 * 32
    per_cycle = s.dpe_macs / (s.cycles * pes)
    peak = cfg.dpe.macs(ty)
    return {"name": f"matrix engine mm loop, {ty} ({pes} PEs)", "achieved": s.dpe_macs / s.time_s,
            "peak": peak * cfg.clock_hz * pes, "unit": "MAC/s", "stats": s, "streaming": True,
            "detail": f"{per_cycle:.1f} MACs/cycle/PE of {peak:g}"}


def latency_chain(cfg, links=2000):
    r = run(build("latency_chain", []), {}, grid=(1,))
    s = r.stats
    per_link = s.wave_cycles[0] / links
    lat = cfg.timing["IntMul"][1]
    # as a rate (links per cycle) so that "achieved / peak" reads like the others
    return {"name": "dependent IntMul chain (1 PE)", "achieved": 1 / per_link, "peak": 1 / lat, "unit": "links/cycle",
            "stats": s, "streaming": False, "detail": f"{per_link:.3f} cycles per link, configured latency {lat:g}"}


def measure(cfg=None, dpe_pes=4):
    """All the micro-benchmarks on ``cfg``; ``dpe_pes`` is how many PEs run the matrix-engine loops (their rate is
    per PE, so fewer PEs give the same fraction of peak in less simulation time)."""
    cfg = cfg or load_config()
    return [dma_stream("dram", 32, cfg), dma_stream("sram", 128, cfg), vfma(cfg), dpe_mm(cfg, "fp16", dpe_pes),
            dpe_mm(cfg, "int8", dpe_pes), latency_chain(cfg)]


def _fmt(x, unit):
    for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if x >= f:
            return f"{x / f:.4g} {p}{unit}"
    return f"{x:.4g} {unit}"


def main(argv=None):
    argparse.ArgumentParser(description=__doc__).parse_args(argv)
    rows = measure()
    w = max(len(r["name"]) for r in rows)
    print(f"{'micro-benchmark':<{w}}  {'achieved':>18}  {'configured peak':>18}  {'% of peak':>9}  cycles")
    for r in rows:
        pct = 100 * r["achieved"] / r["peak"]
        print(f"{r['name']:<{w}}  {_fmt(r['achieved'], r['unit']):>18}  {_fmt(r['peak'], r['unit']):>18}  "
              f"{pct:>8.1f}%  {r['stats'].cycles:,}" + (f"  ({r['detail']})" if r.get("detail") else ""))


if __name__ == "__main__":
    main()
