"""The zoo's results: a text table, JSON, and an HTML page with plots (matplotlib, embedded as PNG)."""
from __future__ import annotations

import base64
import html
import io
import json
import os
from typing import Dict, List


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _host(row) -> str:
    ops = row.get("host_ops") or {}
    causes = [f"{k} x{v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])]
    causes += [f"kernel: {k} x{v}" for k, v in (row.get("fallback_reasons") or {}).items()]
    return ", ".join(causes)


def line(row) -> str:
    """One row as a progress line."""
    if row["status"] in ("ok", "mismatch"):
        return (f"{row['model']}: {row['status']} (error {row['error']:.2g}), layers on chip "
                f"{row['layers_on_chip']}/{row['layers_total']}, time on chip {_pct(row['total_time_share'])}, "
                f"{row.get('wall_s', 0):.0f} s")
    return f"{row['model']}: {row['status']}: {row.get('message', '')}"


def summary(rows: List[dict]) -> Dict[str, object]:
    """The whole zoo: models run, how many match eager, the layers on the chip over all models, the host causes."""
    done = [r for r in rows if r["status"] in ("ok", "mismatch")]
    on, total = sum(r["layers_on_chip"] for r in done), sum(r["layers_total"] for r in done)
    causes: Dict[str, int] = {}
    why: Dict[str, int] = {}
    for r in done:
        for reason, n in (r.get("host_layer_reasons") or {}).items():
            why[reason] = why.get(reason, 0) + n
        for op, n in (r.get("host_ops") or {}).items():
            causes[op] = causes.get(op, 0) + n
        for reason, n in (r.get("fallback_reasons") or {}).items():
            causes["kernel: " + reason] = causes.get("kernel: " + reason, 0) + n
    return {"models": len(rows), "ran": len(done), "match": sum(r["status"] == "ok" for r in rows),
            "layers_on_chip": on, "layers_total": total, "layer_coverage": on / total if total else None,
            "host_causes": dict(sorted(causes.items(), key=lambda kv: -kv[1])),
            "host_layer_reasons": dict(sorted(why.items(), key=lambda kv: -kv[1]))}


def table(rows: List[dict]) -> str:
    """The rows as a Markdown table, and the summary under it."""
    out = ["| model | family | status | error (tol) | layers on chip | time on chip | roofline | wall (s) "
           "| left on the host |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] in ("ok", "mismatch"):
            out.append(f"| {r['model']} | {r['family']} | {r['status']} | {r['error']:.1e} ({r['tolerance']:g}) | "
                       f"{r['layers_on_chip']}/{r['layers_total']} ({_pct(r['layer_coverage'])}) | "
                       f"{_pct(r['total_time_share'])} | {_pct(r['roofline_fraction'])} | {r['wall_s']:.0f} | "
                       f"{_host(r)} |")
        else:
            msg = (r.get("message") or "").replace("|", "/")
            out.append(f"| {r['model']} | {r['family']} | {r['status']} | - | - | - | - | "
                       f"{r.get('wall_s', 0):.0f} | {msg} |")
    s = summary(rows)
    out.append("")
    out.append(f"{s['ran']} of {s['models']} models ran, {s['match']} match eager; layers on the chip: "
               f"{s['layers_on_chip']}/{s['layers_total']} ({_pct(s['layer_coverage'])}).")
    if s["host_causes"]:
        out.append("Left on the host (calls over all models): "
                   + ", ".join(f"{k} x{v}" for k, v in s["host_causes"].items()) + ".")
    if s["host_layer_reasons"]:
        out.append("")
        out.append("Layers left on the host, by reason (over all models):")
        out.append("")
        out += [f"- {n} layers: {reason}" for reason, n in s["host_layer_reasons"].items()]
    return "\n".join(out)


def write_json(path: str, doc: dict) -> None:
    """``doc`` (with its summary) at ``path``, written whole or not at all."""
    doc = {**doc, "summary": summary(doc["rows"])}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def _plot(rows: List[dict], key: str, title: str) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    done = [r for r in rows if r["status"] in ("ok", "mismatch")]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.28 * len(done)), 3.2))
    vals = [100 * (r.get(key) or 0) for r in done]
    ax.bar(range(len(done)), vals, color=["tab:green" if r["status"] == "ok" else "tab:red" for r in done])
    ax.set_xticks(range(len(done)), [r["model"] for r in done], rotation=90, fontsize=7)
    ax.set_ylim(0, 100)
    ax.set_ylabel("%")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def write_html(path: str, rows: List[dict], command: str) -> None:
    """The page: the command, the summary, the plots (layers, time and roofline per model), the table."""
    s = summary(rows)
    plots = [("layer_coverage", "layers on the chip"), ("total_time_share", "estimated time on the chip"),
             ("roofline_fraction", "the kernels on the chip at their roofline, over their simulated time")]
    imgs = "\n".join(f'<h3>{html.escape(t)}</h3><img alt="{html.escape(t)}" src="data:image/png;base64,'
                     f'{_plot(rows, k, t)}">' for k, t in plots)
    head = ("model", "family", "status", "error (tol)", "layers on chip", "time on chip", "roofline", "wall (s)",
            "left on the host")
    body = []
    for r in rows:
        if r["status"] in ("ok", "mismatch"):
            cells = (r["model"], r["family"], r["status"], f"{r['error']:.1e} ({r['tolerance']:g})",
                     f"{r['layers_on_chip']}/{r['layers_total']} ({_pct(r['layer_coverage'])})",
                     _pct(r["total_time_share"]), _pct(r["roofline_fraction"]), f"{r['wall_s']:.0f}", _host(r))
        else:
            cells = (r["model"], r["family"], r["status"], "-", "-", "-", "-", f"{r.get('wall_s', 0):.0f}",
                     r.get("message", ""))
        body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    doc = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>mtiacc model zoo</title>
<style>body{{font-family:sans-serif;margin:1.5em}} table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}</style></head><body>
<h1>Models through torch.compile(backend="mtia")</h1>
<p><code>{html.escape(command)}</code></p>
<p>{s['ran']} of {s['models']} models ran, {s['match']} match eager; layers on the chip:
{s['layers_on_chip']}/{s['layers_total']} ({_pct(s['layer_coverage'])}).</p>
{imgs}
<h3>models</h3>
<table><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr>
{chr(10).join(body)}
</table></body></html>
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc)
