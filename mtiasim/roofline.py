"""``mtiasim roofline``: the run placed on the chip's roofline (text; a chart with matplotlib if installed).

Roofs (whole chip, from the machine YAML): vector-unit peak FLOP/s for the run's element width
(2 x datapath_bits / SEW per PE per cycle: an FMA per lane), the matrix engines' fp16 / bf16 peak (2 x
``dpe.macs_per_cycle`` per PE per cycle: 177 TFLOP/s) and the bandwidths of DRAM and SRAM.  The run's
arithmetic intensity is its FLOPs per byte moved at each level; the point is its achieved FLOP/s.
"""
from __future__ import annotations

from mtiacc.diagnostics import UserError


def peaks(cfg) -> dict:
    per = cfg.clock_hz * cfg.n_pes
    return {"vector_fp32_flops": 2 * cfg.datapath_bits / 32 * per, "vector_fp16_flops": 2 * cfg.datapath_bits / 16 * per,
            "dram_bw": cfg.dram_bw_bytes_per_s, "sram_bw": cfg.sram_bw_bytes_per_s,
            "lm_bw": cfg.local_memory_bw_bytes_per_s * cfg.n_pes,
            "dpe_flops": 2 * cfg.dpe.peak_macs * per}


def summary(stats, cfg) -> str:
    pk = peaks(cfg)
    t = stats.time_s
    bound, roof, frac = stats.roofline()
    lines = [f"run: {stats.cycles:,} cycles = {t * 1e6:,.3f} us; bound by {bound}: {roof * 1e6:,.3f} us alone, "
             f"{100 * frac:.1f} % of that bound reached", ""]
    lines.append(f"{'resource':<14} {'work':>18} {'peak':>16} {'time alone (us)':>16} {'achieved':>16} {'% peak':>7}")
    rows = [("dram", stats.dram_bytes, "B", pk["dram_bw"]), ("sram", stats.sram_bytes, "B", pk["sram_bw"]),
            ("vector", stats.vector_flops, "FLOP", pk["vector_fp32_flops"]),
            ("dpe", stats.dpe_flops, "FLOP", pk["dpe_flops"])]
    b = stats.bounds()
    for name, work, unit, peak in rows:
        ach = work / t if t else 0.0
        lines.append(f"{name:<14} {work:>16,.0f} {unit:<2}{_g(peak, unit + '/s'):>15} {b[name] * 1e6:>16,.3f} "
                     f"{_g(ach, unit + '/s'):>16} {100 * ach / peak:>6.1f}%")
    lines.append(f"{'local_memory':<14} {'(max PE)':>18} {_g(cfg.local_memory_bw_bytes_per_s, 'B/s'):>16} "
                 f"{b['local_memory'] * 1e6:>16,.3f}")
    for lvl, nbytes in (("DRAM", stats.dram_bytes), ("SRAM", stats.sram_bytes)):
        if nbytes:
            ai = stats.flops / nbytes
            ridge = pk["vector_fp32_flops"] / (pk["dram_bw"] if lvl == "DRAM" else pk["sram_bw"])
            lines.append(f"arithmetic intensity vs {lvl}: {ai:.4g} FLOP/B (ridge point {ridge:.3g} FLOP/B: "
                         f"{'memory' if ai < ridge else 'compute'} bound)")
    return "\n".join(lines)


def _g(x: float, unit: str) -> str:
    for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= f:
            return f"{x / f:.3g} {p}{unit}"
    return f"{x:.3g} {unit}"


def plot(stats, cfg, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError("--plot needs matplotlib, which is not installed: pip install 'mtiacc[plot]' "
                        "(the text summary works without it)") from None
    pk = peaks(cfg)
    fig, ax = plt.subplots(figsize=(7, 5))
    xs = [2.0 ** k for k in range(-8, 13)]
    for name, bw, style in (("DRAM", pk["dram_bw"], "-"), ("SRAM", pk["sram_bw"], "--")):
        ax.plot(xs, [min(pk["vector_fp32_flops"], x * bw) for x in xs], style, label=f"{name} {bw / 1e9:g} GB/s")
    ax.axhline(pk["vector_fp32_flops"], color="grey", lw=0.5)
    t = stats.time_s
    for lvl, nbytes, marker in (("DRAM", stats.dram_bytes, "o"), ("SRAM", stats.sram_bytes, "s")):
        if nbytes and t:
            ai = max(stats.flops / nbytes, xs[0])
            ax.plot([ai], [max(stats.flops / t, 1.0)], marker, ms=9, label=f"this run vs {lvl}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte)")
    ax.set_ylabel("FLOP/s")
    ax.set_title(f"roofline ({cfg.name}, vector fp32 peak {pk['vector_fp32_flops'] / 1e12:.2f} TFLOP/s)")
    ax.legend(loc="lower right")
    try:
        fig.savefig(path, dpi=100)
    except OSError as e:
        raise UserError(f"cannot write '{path}': {e.strerror}") from None
    finally:
        plt.close(fig)
