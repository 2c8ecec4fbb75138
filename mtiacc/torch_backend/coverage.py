"""The coverage report: what of a model ran on the chip.

- **Kernels**: every Triton kernel Inductor generated and launched, on the chip (with its simulated time and the
  fraction of its roofline reached) or fallen back to the host (with mtiacc's reason).
- **Roofline**: a kernel on the chip needs at least ``roofline_s = max(bytes / DRAM bandwidth, FLOPs / the
  matrix engines' peak)`` (the machine description's peaks: :func:`mtiasim.roofline.peaks`), its bytes those of
  the tensors its launches were given (each tensor once a launch; no more than the DRAM bytes the simulator saw
  it move, for a kernel that reads part of a tensor), its FLOPs its matrix-engine FLOPs, both summed over its
  launches.  ``roofline_fraction`` is that over its simulated time; the model's ``roofline_s`` is the sum over
  its kernels on the chip and its ``roofline_fraction`` that over their simulated time (1.0: every kernel at its
  roofline).  Vector and SIMD-engine work is not in it: a kernel they bound shows below 1, with ``bound``, the
  busiest resource in the simulator's statistics.
- **Aten operations**: what Inductor left to aten (attention the chip's kernels do not take (:mod:`.attention`),
  a GEMM or convolution with no chip template, and any operation it has no kernel for), with their FLOPs and
  bytes.
- **Layers**: the source nodes of the graphs (dynamo's names for the model's operations), from the comments
  Inductor puts before each call: every source node a kernel computes, and the one an aten call computes (the
  last of its list).  A layer ran on the chip when every call computing it is a kernel that ran on the chip;
  views and other operations no call computes are not layers.  Every layer left on the host is listed with the
  reason (``host_layers``, :func:`host_reason`): the first call computing it that did not run on the chip, a
  kernel that fell back (mtiacc's reason) or an aten operation (why Inductor left it to aten).
- **Time**: kernels on the chip count with their simulated time; work on the host (fallen-back kernels, aten
  operations) is priced at the chip's roofline for it: the bytes of its tensors at DRAM bandwidth, and for a
  GEMM its FLOPs at the matrix engines' peak if that takes longer.  Those prices are lower bounds, so the shares
  on the chip are upper bounds for the host work as it stands, and what a perfect kernel for it would leave.
  GEMM time is the aten GEMMs' and Inductor's GEMM/convolution templates' (``triton_tem_*``); the rest is
  non-GEMM time.  What autotuning ran (``mode="max-autotune"``: the GEMM and convolution template candidates,
  and the configs a pointwise or reduction kernel times at its first call) is counted apart, not as the model's.

``MTIACC_REPORT=1`` prints the report when the process exits (as tables on a terminal; as Markdown tables, names
whole, when standard error is a file or a pipe); ``MTIACC_REPORT=path.md`` writes the Markdown there,
``MTIACC_REPORT=path.json`` the JSON; :func:`report` returns it from Python.
"""
from __future__ import annotations

import atexit
import dataclasses
import json
import os
import threading
from typing import Dict, List, Optional

from mtiacc.torch_backend import graphs
from mtiacc.torch_backend.offchip import OpStat

ENV = "MTIACC_REPORT"
# Inductor's names for its GEMM and convolution template kernels
_TEMPLATES = ("triton_tem_", "triton_mm", "triton_bmm", "triton_conv")

_lock = threading.Lock()
_graphs: List["GraphRecord"] = []
_exit_hook = False


@dataclasses.dataclass
class GraphRecord:
    """One compiled graph: what its wrapper calls, and the aten operations its runs did on the host."""

    index: int
    backward: bool
    inference: bool
    code: graphs.WrapperCode
    ops: Dict[str, OpStat] = dataclasses.field(default_factory=dict)
    runs: int = 0

    def add_op(self, name: str, gemm: bool, flops: float, nbytes: float) -> None:
        st = self.ops.get(name)
        if st is None:
            st = self.ops[name] = OpStat(name, gemm)
        st.calls += 1
        st.flops += flops
        st.bytes += nbytes

    @property
    def label(self) -> str:
        return f"graph {self.index} ({'backward' if self.backward else 'inference' if self.inference else 'forward'})"


def add_graph(code: str, backward: bool, inference: bool) -> GraphRecord:
    with _lock:
        g = GraphRecord(len(_graphs), backward, inference, graphs.parse(code))
        _graphs.append(g)
        return g


def reset() -> None:
    """Forget the graphs and kernels seen so far (a new model's report starts here)."""
    from mtiacc.triton_backend import records
    with _lock:
        _graphs.clear()
    records.reset()


def _peaks() -> Dict[str, float]:
    from mtiacc.machine.simulator import load_config
    from mtiasim.roofline import peaks
    return peaks(load_config())


def report() -> dict:
    """The coverage report of everything compiled with ``backend="mtia"`` since the start (or :func:`reset`)."""
    from mtiacc.triton_backend import records
    pk = _peaks()
    with _lock:
        gs = list(_graphs)
    recs = {(r.path, r.name): r for r in records.kernels()}
    by_name = {}
    for r in recs.values():
        by_name.setdefault(r.name, r)

    kernels, seen = [], set()
    layers_total = layers_on = 0
    host_layers: List[dict] = []
    for g in gs:
        layer_ok: Dict[str, bool] = {}
        why: Dict[str, str] = {}
        for c in g.code.calls:
            if c.kind == "kernel":
                r = recs.get((c.path, c.name)) or by_name.get(c.name)
                ok = r is not None and r.on_chip and r.launches > 0
                if r is not None and (r.path, r.name) not in seen:
                    seen.add((r.path, r.name))
                    kernels.append(_kernel_entry(r, c.nodes, pk))
            else:
                ok = False
            # a call's comment lists, topologically sorted, the source nodes of everything it depends on that
            # was fused on the way; an aten call computes only the last of them
            for n in (c.nodes if c.kind == "kernel" else c.nodes[-1:]):
                key = ("bw:" if g.backward else "") + n
                layer_ok[key] = layer_ok.get(key, True) and ok
                if not ok and key not in why:
                    why[key] = host_reason(c, r if c.kind == "kernel" else None)
        layers_total += len(layer_ok)
        layers_on += sum(layer_ok.values())
        host_layers += [{"layer": key, "graph": g.label, "reason": why[key]}
                        for key, ok in layer_ok.items() if not ok]
    # kernels launched outside the graphs' calls: the candidates autotuning tried
    tuning = [r for r in recs.values() if (r.path, r.name) not in seen]

    ops: Dict[str, dict] = {}
    for g in gs:
        for st in g.ops.values():
            e = ops.setdefault(st.name, {"name": st.name, "gemm": st.gemm, "calls": 0, "flops": 0.0, "bytes": 0.0})
            e["calls"] += st.calls
            e["flops"] += st.flops
            e["bytes"] += st.bytes
    for e in ops.values():
        mem = e["bytes"] / pk["dram_bw"]
        e["estimated_s"] = max(mem, e["flops"] / pk["dpe_flops"]) if e["gemm"] else mem

    roofline_s = sum(k["roofline_s"] for k in kernels if k["on_chip"])
    chip_gemm = sum(k["simulated_s"] for k in kernels if k["on_chip"] and k["gemm"])
    chip_other = sum(k["simulated_s"] for k in kernels if k["on_chip"] and not k["gemm"])
    host_kernels = sum(k["estimated_s"] for k in kernels if not k["on_chip"])
    host_gemm = sum(e["estimated_s"] for e in ops.values() if e["gemm"])
    host_other = sum(e["estimated_s"] for e in ops.values() if not e["gemm"])
    nongemm = chip_other + host_kernels + host_other
    total = nongemm + chip_gemm + host_gemm
    return {
        "graphs": len(gs),
        "kernels_total": len(kernels),
        "kernels_on_chip": sum(1 for k in kernels if k["on_chip"]),
        "layers_total": layers_total,
        "layers_on_chip": layers_on,
        "layer_coverage": layers_on / layers_total if layers_total else None,
        "nongemm_time_share": chip_other / nongemm if nongemm else None,
        "total_time_share": (chip_other + chip_gemm) / total if total else None,
        "simulated_s": chip_gemm + chip_other,
        # the kernels on the chip at their rooflines (the module's docstring), and that over their simulated time
        "roofline_s": roofline_s,
        "roofline_fraction": roofline_s / (chip_gemm + chip_other) if chip_gemm + chip_other else None,
        "host_estimated_s": host_kernels + host_gemm + host_other,
        "kernels": kernels,
        "aten_ops": sorted(ops.values(), key=lambda e: -e["estimated_s"]),
        "fallbacks": [{"name": k["name"], "reason": k["reason"]} for k in kernels if not k["on_chip"]],
        # every layer left on the host, with the reason (host_reason)
        "host_layers": host_layers,
        # GEMM template candidates (launched outside the graphs' calls), and the configs of pointwise and
        # reduction kernels timed at their first call
        "autotuning": {"kernels": len(tuning) + sum(1 for r in recs.values() if r.tuning_launches),
                       "launches": sum(r.launches + r.tuning_launches for r in tuning)
                       + sum(r.tuning_launches for r in recs.values() if (r.path, r.name) in seen),
                       "simulated_s": sum(r.simulated_s + r.tuning_s for r in tuning)
                       + sum(r.tuning_s for r in recs.values() if (r.path, r.name) in seen)},
    }


# why an aten operation Inductor left in a graph runs on the host, by the operation's name in the wrapper
ATEN_REASONS: Dict[str, str] = {
    "mm": "GEMM left to aten: no chip template for it (dtype, a zero or unbacked size, or out_dtype)",
    "addmm": "GEMM left to aten: no chip template for it (dtype, a zero or unbacked size)",
    "bmm": "GEMM left to aten: no chip template for it (dtype, a zero or unbacked size)",
    "baddbmm": "GEMM left to aten: no chip template for it (dtype, a zero or unbacked size)",
    "_int_mm": "int8 GEMM left to aten (no chip template in the default mode)",
    "_mm_plus_mm": "mm + mm (Inductor's pattern when GEMM templates are on) left to aten: no chip variant of "
                   "its template",
    "convolution": "convolution left to aten: no chip template for it (dtype, or a zero size)",
    "_convolution": "convolution left to aten: no chip template for it (dtype, or a zero size)",
    "convolution_backward": "convolution's gradient left to aten: no chip template for it (dtype, or a zero size)",
    "_scaled_dot_product_flash_attention_for_cpu": "attention left to aten: the chip's kernels do not take it "
                                                   "(attention.unsupported: dropout inside the fused operation, "
                                                   "head dimension above 256, or its dtypes)",
    "_scaled_dot_product_flash_attention_for_cpu_backward": "attention backward left to aten: the chip's kernels "
                                                            "do not take it (attention.unsupported)",
    "_scaled_dot_product_efficient_attention": "attention: no chip template",
    "embedding": "embedding: Inductor keeps it as an aten fallback",
    "_embedding_bag": "embedding_bag left to aten: its dtype or mode has no chip kernel, or its sizes are dynamic",
    "_embedding_bag_backward": "embedding_bag's gradient left to aten: sparse, scale_grad_by_freq, its dtype, or "
                               "dynamic sizes",
    "_embedding_bag_forward_only": "embedding_bag left to aten: its dtype or mode has no chip kernel",
}


def host_reason(call, record) -> str:
    """Why a call of a graph did not run on the chip: a kernel that fell back (mtiacc's reason) or was never
    launched, or an aten operation (:data:`ATEN_REASONS`, else Inductor's fallback for an operation it has no
    kernel for)."""
    if call.kind == "kernel":
        if record is None or record.launches == 0:
            return f"kernel {call.name} was not launched"
        return f"kernel {call.name} fell back to the host: {record.reason or 'no reason recorded'}"
    return ATEN_REASONS.get(call.name, f"aten.{call.name}: Inductor has no Triton kernel for it (an aten fallback)")


def kernel_roofline(tensor_bytes: float, dram_bytes: float, flops: float, pk: Dict[str, float]) -> float:
    """The time a kernel on the chip needs at least: its bytes (its tensors', at most what it moved) at DRAM
    bandwidth or its matrix-engine FLOPs at the engines' peak, whichever is longer."""
    return max(min(tensor_bytes, dram_bytes) / pk["dram_bw"], flops / pk["dpe_flops"])


def _kernel_entry(r, nodes, pk) -> dict:
    e = {"name": r.name, "on_chip": r.on_chip, "reason": r.reason, "launches": r.launches,
         "simulated_s": r.simulated_s if r.on_chip else None,
         "estimated_s": None if r.on_chip else r.host_bytes / pk["dram_bw"],
         "bytes": min(r.tensor_bytes, r.dram_bytes) if r.on_chip else r.host_bytes,
         "dpe_flops": r.dpe_flops if r.on_chip else None, "roofline_s": None, "roofline_fraction": None,
         "bound": r.bound or None, "gemm": r.name.startswith(_TEMPLATES), "source_nodes": list(nodes),
         "path": r.path}
    if r.on_chip:
        e["roofline_s"] = kernel_roofline(r.tensor_bytes, r.dram_bytes, r.dpe_flops, pk)
        e["roofline_fraction"] = e["roofline_s"] / r.simulated_s if r.simulated_s > 0 else None
    return e


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _us(x: Optional[float]) -> str:
    return "-" if x is None else f"{x * 1e6:,.2f}"


def _rows(rep: dict):
    """The report's three tables as (title, columns, right-aligned columns, rows) of text."""
    summary = ("", ["kernels on chip", "layers on chip", "non-GEMM time on chip", "total time on chip",
                    "simulated (us)", "at roofline (us)", "of roofline", "host work at roofline (us)"],
               set(range(8)),
               [[f"{rep['kernels_on_chip']} / {rep['kernels_total']}",
                 f"{rep['layers_on_chip']} / {rep['layers_total']} ({_pct(rep['layer_coverage'])})",
                 _pct(rep["nongemm_time_share"]), _pct(rep["total_time_share"]), _us(rep["simulated_s"]),
                 _us(rep.get("roofline_s")), _pct(rep.get("roofline_fraction")), _us(rep["host_estimated_s"])]])
    kernels = ("kernels", ["kernel", "where", "launches", "simulated (us)", "at roofline (us)", "of roofline",
                           "bound / reason"], {2, 3, 4, 5},
               [[e["name"], "chip" if e["on_chip"] else "host", str(e["launches"]), _us(e["simulated_s"]),
                 _us(e.get("roofline_s")), _pct(e["roofline_fraction"]),
                 (e["bound"] or "") if e["on_chip"] else (e["reason"] or "")]
                for e in rep["kernels"]])
    tables = [summary, kernels]
    if rep["aten_ops"]:
        tables.append(("left to aten (on the host)", ["operation", "calls", "GEMM", "GFLOP", "MB",
                                                      "at roofline (us)"], {1, 3, 4, 5},
                       [[e["name"], str(e["calls"]), "yes" if e["gemm"] else "", f"{e['flops'] / 1e9:.3f}",
                         f"{e['bytes'] / 1e6:.3f}", _us(e["estimated_s"])] for e in rep["aten_ops"]]))
    return tables


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render_markdown(rep: Optional[dict] = None, title: str = "mtiacc: what ran on the chip") -> str:
    """The report as Markdown tables: every name and reason whole, on one line (any width, any reader)."""
    rep = report() if rep is None else rep
    out = [f"# {title}", ""]
    for name, cols, right, rows in _rows(rep):
        if name:
            out += [f"## {name}", ""]
        body = [[_cell(c) for c in cols]] + [[_cell(c) for c in r] for r in rows]
        widths = [max(len(r[i]) for r in body) for i in range(len(cols))]
        rule = ["-" * (w - 1) + ":" if i in right else "-" * w for i, w in enumerate(widths)]

        def line(cells):
            return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                     for i, (c, w) in enumerate(zip(cells, widths))) + " |"
        out += [line(body[0]), line(rule)] + [line(r) for r in body[1:]] + [""]
    return "\n".join(out)


def print_report(rep: Optional[dict] = None, title: str = "mtiacc: what ran on the chip", console=None) -> None:
    """The report on standard error: rich tables on a terminal (or on ``console``), else Markdown tables, so that
    a log or a pipe gets whole names rather than names folded at 80 columns."""
    import sys
    rep = report() if rep is None else rep
    if console is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        sys.stderr.write(render_markdown(rep, title))
        sys.stderr.flush()
        return
    from rich.console import Console
    from rich.table import Table
    console = console or Console(stderr=True)
    for name, cols, right, rows in _rows(rep):
        t = Table(title=name or title)
        for col in cols:     # the kernels' names and reasons fold at the terminal's width
            if name == "kernels":
                t.add_column(col, overflow="fold")
            else:
                t.add_column(col, justify="right")
        for r in rows:
            t.add_row(*r)
        console.print(t)


def write_markdown(path: str, rep: Optional[dict] = None) -> None:
    """The report as Markdown at ``path``, written whole or not at all."""
    text = render_markdown(report() if rep is None else rep)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_json(path: str, rep: Optional[dict] = None) -> None:
    """The report as JSON at ``path``, written whole or not at all."""
    rep = report() if rep is None else rep
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def _at_exit() -> None:
    target = os.environ.get(ENV, "")
    try:
        if target == "1":
            print_report()
        elif target.lower().endswith(".md"):
            write_markdown(target)
        elif target:
            write_json(target)
    except Exception as e:          # never a traceback at exit
        print(f"mtiacc: error: the coverage report could not be written: {e}")


def enable_from_env() -> None:
    """With ``MTIACC_REPORT`` set, the report is printed or written when the process exits."""
    global _exit_hook
    if os.environ.get(ENV) and not _exit_hook:
        _exit_hook = True
        atexit.register(_at_exit)
