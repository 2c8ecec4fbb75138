"""PyTorch's OpInfo database through ``torch.compile(fn, backend="mtia", fullgraph=True)``, against eager.

    python benchmarks/opinfo.py [--ops add,relu] [--dtypes float32,...] [--limit-samples N] [--jobs N]
        [--executor local|ray] [--timeout S] [--json build/opinfo.json] [--md docs/opinfo.md] [--resume]
        [--extra build/opinfo-more.json]

Every entry of ``torch.testing._internal.common_methods_invocations.op_db`` (or those of ``--ops``: names, or
``name.variant`` for one variant), every dtype it supports on the CPU among ``--dtypes`` (default: float32,
float16, bfloat16, int32, int64, bool), every sample input (or the first ``--limit-samples``): each sample is
compiled and run on the simulator, and its result compared with eager at OpInfo's tolerances
(``benchmarks/opinfo_run.py`` says how, and what each status means).  Entries run in chunks, each chunk in a
fresh process of its own, ``--jobs`` chunks at once through an executor of :mod:`mtiacc.sweep.executors`; an entry
that takes longer than ``--timeout`` seconds is stopped and counted as an error.

The results go to ``--json`` (rewritten after each chunk; ``--resume`` keeps the entries it already has, when it
was run with the same dtypes and sample limit) and a table to ``--md``: totals by entry and by sample, the top
causes of host work, errors and uncapturable samples, a row per entry, and the distinct ATen ops the captured
graphs call (each captured sample records the overloads dynamo's graph calls): an op is on the chip when every
sample that calls it ran wholly on the chip.  ``--extra`` adds the section of a further run (other dtypes, more
samples, on a subset of the entries) from its own JSON.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import re
import shlex
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import opinfo_run  # noqa: E402

STATUSES = ("chip", "host", "wrong", "error", "uncapturable", "skipped")


def select(keys, wanted):
    """The keys of op_db chosen by ``--ops`` (a name selects all its variants), in op_db's order."""
    if not wanted:
        return list(keys)
    want = [w.strip() for w in wanted.split(",") if w.strip()]
    out = [k for k in keys if k in want or k.split(".", 1)[0] in want and k not in want]
    missing = [w for w in want if not any(k == w or k.split(".", 1)[0] == w for k in keys)]
    if missing:
        raise SystemExit(f"opinfo: error: no OpInfo entry named {', '.join(missing)}")
    return list(dict.fromkeys(out))


def op_status(res) -> str:
    """An entry's status from its samples': the worst of wrong, error, host, then chip, uncapturable, skipped."""
    if "error" in res:
        return "error"
    seen = {r["status"] for rows in res["dtypes"].values() for r in rows}
    for s in ("wrong", "error", "host", "chip", "uncapturable"):
        if s in seen:
            return s
    return "skipped"


def _norm(detail: str) -> str:
    """An error's first line with numbers, shapes and names of generated files folded, to count causes."""
    d = re.sub(r"/tmp/\S+|/root/\S+", "<path>", detail)
    d = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", d)
    return d[:160]


def aten_ops(results: dict) -> dict:
    """The distinct ATen overloads the captured samples' graphs call, each with its samples by status, its entries,
    and its own status: ``chip`` when every sample that calls it ran wholly on the chip, else the worst of its
    samples' (wrong, error, host).  Samples dynamo did not capture, and entries whose process died, call none."""
    ops = {}
    for key, res in results.items():
        for rows in res.get("dtypes", {}).values():
            for r in rows:
                for name in r.get("aten", ()):
                    e = ops.setdefault(name, {"samples": collections.Counter(), "entries": []})
                    e["samples"][r["status"]] += 1
                    if key not in e["entries"]:
                        e["entries"].append(key)
    out = {}
    for name in sorted(ops):
        e = ops[name]
        status = next((s for s in ("wrong", "error", "host") if e["samples"][s]), "chip")
        out[name] = {"status": status, "samples": dict(e["samples"]), "entries": e["entries"]}
    return out


def summarize(results: dict) -> dict:
    by_op = collections.Counter()
    by_sample = collections.Counter()
    causes = {s: collections.Counter() for s in ("host", "wrong", "error", "uncapturable", "skipped")}
    for res in results.values():
        by_op[op_status(res)] += 1
        if "error" in res:
            by_sample["error"] += 1
            causes["error"][_norm(res["error"])] += 1
            continue
        for rows in res["dtypes"].values():
            for r in rows:
                by_sample[r["status"]] += 1
                if r["status"] == "host":
                    for h in r["host"]:
                        causes["host"][_norm(h)] += 1
                elif r["status"] in causes:
                    causes[r["status"]][_norm(r.get("detail", ""))] += 1
    judged = collections.Counter(key for key, res in results.items() for rows in res.get("dtypes", {}).values()
                                 for r in rows if r.get("reference"))
    processed = collections.Counter(key for key, res in results.items() for rows in res.get("dtypes", {}).values()
                                    for r in rows if r.get("processed"))
    captured = sum(by_sample[s] for s in ("chip", "host", "wrong", "error"))
    no_dtype = sum(1 for r in results.values() if "error" not in r and not r["dtypes"])
    aten = aten_ops(results)
    aten_status = collections.Counter(e["status"] for e in aten.values())
    return {"aten_ops": {"distinct": len(aten), "by_status": {s: aten_status[s] for s in ("chip", "host", "wrong",
                                                                                          "error")},
                         "ops": aten},
            "ops": len(results), "ops_without_chosen_dtype": no_dtype, "by_op": {s: by_op[s] for s in STATUSES},
            "by_sample": {s: by_sample[s] for s in STATUSES}, "samples": sum(by_sample.values()),
            "captured_samples_on_chip": (by_sample["chip"] / captured) if captured else None,
            "judged_by_reference": {"samples": sum(judged.values()), "entries": sorted(judged)},
            "judged_processed": {"samples": sum(processed.values()), "entries": sorted(processed)},
            "causes": {k: c.most_common() for k, c in causes.items()}}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _note(res) -> str:
    if "error" in res:
        return res["error"]
    for want in ("wrong", "error", "host", "uncapturable", "skipped"):
        for dname, rows in res["dtypes"].items():
            for r in rows:
                if r["status"] == want:
                    what = ", ".join(r["host"]) if want == "host" else r.get("detail", "")
                    return f"{dname}: {what}"
    return ""


def markdown(meta: dict, results: dict, summary: dict) -> str:
    L = ["# OpInfo through `torch.compile(backend=\"mtia\")`", "",
         "PyTorch's OpInfo database (`op_db` of torch " + meta["torch"] + ") through `torch.compile(fn, backend=\"mtia\", "
         "fullgraph=True)` on the simulator, each sample compared with eager at OpInfo's tolerances "
         "(`benchmarks/opinfo_run.py` defines each status).", "",
         f"Command: `{meta['command']}`  ", f"Date: {meta['date']}; dtypes: {', '.join(meta['dtypes'])}; samples per "
         f"dtype: {meta['limit_samples'] or 'all'}; entries run: {summary['ops']} of {meta['op_db']}.", "",
         "- **chip**: matches eager, every kernel ran on the simulator and nothing on the host;",
         "- **host**: matches, but some work ran on the host (aten calls Inductor left to aten, or kernels mtiacc could "
         "not compile);",
         "- **wrong**: differs from eager beyond the tolerances (in float16 and bfloat16: and is further from the op "
         "computed in float64 from the same inputs than eager's result, beyond one rounding of the dtype); "
         "**error**: compiling or running raised;",
         "- **uncapturable**: dynamo cannot capture it as one graph (counted apart); **skipped**: eager raises on "
         "the sample, or the op is random.", "",
         "An entry's status is its worst sample's (wrong, error, host, then chip).", "",
         "| | " + " | ".join(STATUSES) + " | total |", "|---|" + "---:|" * (len(STATUSES) + 1)]
    for what, key, total in (("entries", "by_op", summary["ops"]), ("samples", "by_sample", summary["samples"])):
        L.append(f"| {what} | " + " | ".join(str(summary[key][s]) for s in STATUSES) + f" | {total} |")
    frac = summary["captured_samples_on_chip"]
    L += ["", f"Samples dynamo captured that ran wholly on the chip: "
          f"{'-' if frac is None else f'{100 * frac:.1f}%'}. Entries that support none of the chosen dtypes "
          f"(counted as skipped): {summary['ops_without_chosen_dtype']}.", ""]
    L += _judged(summary)
    at = summary.get("aten_ops")
    if at:
        L += [f"Distinct ATen ops the captured graphs call (overloads, as dynamo's graphs reach the dispatcher): "
              f"{at['distinct']}; wholly on the chip (every sample that calls the op ran wholly on the chip): "
              f"**{at['by_status']['chip']}**; partly on the host: {at['by_status']['host']}; wrong: "
              f"{at['by_status']['wrong']}; error: {at['by_status']['error']}. The table under "
              f"[ATen ops](#aten-ops) lists each.", ""]
    titles = {"host": "Host work (aten calls and kernels on the host, by samples)", "wrong": "Wrong results",
              "error": "Errors", "uncapturable": "Not capturable by dynamo", "skipped": "Skipped samples"}
    for k, title in titles.items():
        rows = summary["causes"][k]
        if not rows:
            continue
        L += [f"## {title}", "", "| samples | cause |", "|---:|---|"]
        L += [f"| {n} | {_cell(c)} |" for c, n in rows[:25]]
        if len(rows) > 25:
            L.append(f"| {sum(n for _, n in rows[25:])} | ({len(rows) - 25} other causes) |")
        L.append("")
    L += ["## Entries", "", "| entry | status | dtypes | " + " | ".join(STATUSES) + " | first non-chip sample |",
          "|---|---|---|" + "---:|" * len(STATUSES) + "---|"]
    for key, res in results.items():
        c = collections.Counter(r["status"] for rows in res.get("dtypes", {}).values() for r in rows)
        L.append(f"| `{key}` | {op_status(res)} | {', '.join(res.get('dtypes', {}))} | "
                 + " | ".join(str(c[s]) for s in STATUSES) + f" | {_cell(_note(res))[:200]} |")
    if at:
        L += ["", "## ATen ops", "", "Each ATen overload the captured graphs call: its status (`chip` when every "
              "sample calling it ran wholly on the chip, else its worst sample's), its samples by status, and the "
              "entries that call it (the first five).", "",
              "| ATen op | status | samples | chip | host | wrong | error | entries |", "|---|---|---:|---:|---:|---:|---:|---|"]
        for name, e in at["ops"].items():
            n = e["samples"]
            more = f" (+{len(e['entries']) - 5})" if len(e["entries"]) > 5 else ""
            L.append(f"| `{name}` | {e['status']} | {sum(n.values())} | "
                     + " | ".join(str(n.get(s, 0)) for s in ("chip", "host", "wrong", "error"))
                     + " | " + ", ".join(f"`{k}`" for k in e["entries"][:5]) + more + " |")
    return "\n".join(L) + "\n"


def _judged(summary: dict) -> list:
    """The sentences on samples judged other than by eager's raw outputs: half precision as close to the float64
    result as eager's, and outputs compared through the sample's ``output_process_fn_grad``."""
    j = summary.get("judged_by_reference") or {"samples": 0}
    out = []
    if j["samples"]:
        out += [f"Half-precision samples that differ from eager beyond the tolerances but are no further from the "
                f"op computed in float64 than eager's result (within one rounding; counted as chip or host): "
                f"{j['samples']}, in " + ", ".join(f"`{k}`" for k in j["entries"]) + ".", ""]
    p = summary.get("judged_processed") or {"samples": 0}
    if p["samples"]:
        out += [f"Samples whose outputs are defined only up to a choice (eigenvectors' signs) that differ from "
                f"eager's but match once both go through the sample's `output_process_fn_grad`, as OpInfo's "
                f"`test_compare_cpu` compares two implementations (counted as chip or host): {p['samples']}, in "
                + ", ".join(f"`{k}`" for k in p["entries"]) + ".", ""]
    return out


def extra_section(meta: dict, results: dict, summary: dict) -> str:
    """A further run's section (``--extra``: other dtypes or more samples, on a subset of entries): its totals by
    entry, by sample and by dtype, its distinct ATen ops, and the entries that did not run wholly on the chip."""
    limit = meta["limit_samples"] or "all"
    L = [f"## Further run: {', '.join(meta['dtypes'])}, {limit} samples per dtype", "",
         f"Command: `{meta['command']}`  ", f"Date: {meta['date']}; entries run: {summary['ops']}.", "",
         "| | " + " | ".join(STATUSES) + " | total |", "|---|" + "---:|" * (len(STATUSES) + 1)]
    for what, key, total in (("entries", "by_op", summary["ops"]), ("samples", "by_sample", summary["samples"])):
        L.append(f"| {what} | " + " | ".join(str(summary[key][s]) for s in STATUSES) + f" | {total} |")
    for dname in meta["dtypes"]:
        c = collections.Counter(r["status"] for res in results.values() for r in res.get("dtypes", {}).get(dname, ()))
        L.append(f"| {dname} samples | " + " | ".join(str(c[s]) for s in STATUSES) + f" | {sum(c.values())} |")
    frac, at = summary["captured_samples_on_chip"], summary["aten_ops"]
    L += ["", f"Samples dynamo captured that ran wholly on the chip: {'-' if frac is None else f'{100 * frac:.1f}%'}. "
          f"Distinct ATen ops called: {at['distinct']}; wholly on the chip: **{at['by_status']['chip']}**; partly on "
          f"the host: {at['by_status']['host']}; wrong: {at['by_status']['wrong']}; error: {at['by_status']['error']}"
          + (" (" + ", ".join(f"`{k}`" for k, e in at["ops"].items() if e["status"] in ("wrong", "error")) + ")"
             if at["by_status"]["wrong"] + at["by_status"]["error"] else "") + ".", ""]
    L += _judged(summary)
    rows = [(k, res) for k, res in results.items() if op_status(res) not in ("chip", "skipped")]
    if rows:
        L += ["| entry | status | dtypes | first non-chip sample |", "|---|---|---|---|"]
        L += [f"| `{k}` | {op_status(res)} | {', '.join(res.get('dtypes', {}))} | {_cell(_note(res))[:200]} |"
              for k, res in rows]
        L.append("")
    return "\n".join(L)


def render(meta: dict, results: dict, summary: dict, extras=()) -> str:
    """The doc: this run's tables, a section per further run (``--extra`` JSONs), then the rows by entry and by
    ATen op."""
    head, sep, tail = markdown(meta, results, summary).partition("## Entries\n")
    for path in extras:
        with open(path, encoding="utf-8") as f:
            x = json.load(f)
        head += extra_section(x["meta"], x["results"], summarize(x["results"])) + "\n"
    return head + sep + tail


def write(path, text) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


class Inline:
    """``--executor inline``: the chunks one after the other in this process (tests, debugging)."""

    def run(self, fn, args):
        for i, row in enumerate(args):
            yield i, fn(*row)

    def close(self) -> None:
        pass


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", help="entries to run: names (all their variants) or name.variant, comma-separated")
    p.add_argument("--dtypes", default=",".join(opinfo_run.DTYPES))
    p.add_argument("--limit-samples", type=int, default=None, help="at most N samples per dtype")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--executor", default="local", help="local or ray (mtiacc.sweep.executors), or inline: in this process")
    p.add_argument("--chunk", type=int, default=8, help="entries per process")
    p.add_argument("--timeout", type=float, default=600, help="seconds an entry may take")
    p.add_argument("--json", default="build/opinfo.json")
    p.add_argument("--md", default=None, help="the markdown table (docs/opinfo.md)")
    p.add_argument("--resume", action="store_true", help="keep the entries --json already has")
    p.add_argument("--redo", default="", help="with --resume: run again the entries of these statuses (error,wrong) or keys")
    p.add_argument("--report-only", action="store_true", help="write --md from --json without running anything")
    p.add_argument("--extra", action="append", default=[],
                   help="a further run's JSON (other dtypes or samples) whose section --md ends with")
    a = p.parse_args(argv)
    dtypes = [d.strip() for d in a.dtypes.split(",") if d.strip()]
    bad = [d for d in dtypes if d not in opinfo_run.DTYPES]
    if bad:
        raise SystemExit(f"opinfo: error: --dtypes takes {', '.join(opinfo_run.DTYPES)}; got {', '.join(bad)}")

    if a.report_only:
        with open(a.json, encoding="utf-8") as f:
            old = json.load(f)
        write(a.md or "docs/opinfo.md", render(old["meta"], old["results"], summarize(old["results"]), a.extra))
        return 0
    import torch
    keys = [opinfo_run.op_key(op) for op in opinfo_run._load_op_db()]
    chosen = select(keys, a.ops)
    meta = {"torch": torch.__version__.split("+")[0], "op_db": len(keys), "dtypes": dtypes,
            "limit_samples": a.limit_samples, "command": "python benchmarks/opinfo.py " + shlex.join(
                (argv if argv is not None else sys.argv[1:])),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    results = {}
    if a.resume and os.path.exists(a.json):
        with open(a.json, encoding="utf-8") as f:
            old = json.load(f)
        if old["meta"]["dtypes"] != dtypes or old["meta"]["limit_samples"] != a.limit_samples:
            raise SystemExit(f"opinfo: error: --resume: {a.json} was run with other --dtypes or --limit-samples")
        meta["command"] = old["meta"]["command"] + "; then " + meta["command"]
        redo = {x for x in a.redo.split(",") if x}
        results = {k: v for k, v in old["results"].items() if k in chosen and op_status(v) not in redo and k not in redo}
    todo = [k for k in chosen if k not in results]

    def save():
        ordered = {k: results[k] for k in chosen if k in results}
        summary = summarize(ordered)
        write(a.json, json.dumps({"meta": meta, "summary": summary, "results": ordered}, indent=1) + "\n")
        if a.md:
            write(a.md, render(meta, ordered, summary, a.extra))
        return summary

    from mtiacc.sweep.executors import Lost, make_executor
    chunks = [todo[i:i + a.chunk] for i in range(0, len(todo), a.chunk)]
    if a.executor != "inline":   # the executor's workers import opinfo_run
        os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")])
    ex = Inline() if a.executor == "inline" else make_executor(a.executor, a.jobs)
    job = opinfo_run.run_inline if a.executor == "inline" else opinfo_run.run_chunk
    t0 = time.time()
    try:
        for i, out in ex.run(job,
                             [(c, dtypes, a.limit_samples, a.timeout) for c in chunks]):
            if isinstance(out, Lost):
                out = [{"op": k, "error": out.reason} for k in chunks[i]]
            for res in out:
                results[res["op"]] = res
            done = sum(1 for k in chosen if k in results)
            print(f"opinfo: {done}/{len(chosen)} entries ({time.time() - t0:.0f} s): "
                  + ", ".join(f"{r['op']} {op_status(r)}" for r in out), flush=True)
            save()
    finally:
        ex.close()
    summary = save()
    print(json.dumps({"ops": summary["ops"], "by_op": summary["by_op"], "by_sample": summary["by_sample"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
