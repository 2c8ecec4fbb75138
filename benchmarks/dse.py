"""Design-space exploration over real models (``make dse CORPUS=../shared/corpus [MODELS=...]``, ``make dse-zoo``).

A model's latency on the chip is the sum of its kernels' simulated times.  The models are either

* a corpus of TorchInductor kernels (``--corpus``: ``NAME.py`` / ``NAME.json`` / ``NAME.npz``, grouped by
  ``model`` in the JSON), each kernel a ``mtiacc sweep`` of its own; or
* zoo models' recorded launches (``--zoo bert,gpt2,...``: every simulator launch of the model's inference under
  ``torch.compile(backend="mtia")``, kept by ``python -m benchmarks.zoo.launches record MODEL`` in
  ``--launches DIR/MODEL``), run by :func:`mtiacc.sweep.workload.run_workload`: one job per launch and machine,
  kernels compiled again where the compiler's view of the machine changes (the local-memory size), results
  cached by content.  A model's latency is what the zoo's report counts: each launch's time, times the
  launches it stands for (a launch the launcher replayed from memory counts again, an autotuning candidate's
  run not at all).

For each model this sweeps one machine parameter at a time (every other parameter at mtia2i's value):

* DRAM bandwidth, buffers in DRAM (the default placement);
* SRAM bandwidth, every buffer placed in SRAM (``mtiasim run --place NAME=sram``);
* the PEs' local-memory size, buffers in DRAM (the code is compiled for each size).

It writes ``OUT/dse.json`` (per model, parameter and value: the latency and the kernels that ran) and
``OUT/dse.png`` (latency against each parameter, one line per model, relative to mtia2i), and prints the table.
``--executor ray`` runs the simulations on a Ray cluster (``--address``), as ``mtiacc sweep`` does.  ``--factors``
chooses the multiples of mtia2i's values (default ``0.25,0.5,1,2,4``), ``--parameters`` which of the three are
swept (``dram,sram,lmem``); ``--no-merge`` simulates every zoo launch on its own bytes, even those of a kernel
whose cycles are shown not to depend on values (:mod:`mtiacc.sweep.independence`).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mtiacc.machine import load  # noqa: E402
from mtiacc.sweep import run_sweep  # noqa: E402

SCALARS = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
           "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "fp16": np.float16, "fp32": np.float32,
           "fp64": np.float64}
FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
# parameter -> (machine key, how a value is written, buffers in SRAM)
PARAMETERS = {
    "DRAM bandwidth": ("memory.dram.bw_bytes_per_s", float, False),
    "SRAM bandwidth": ("memory.sram.bw_bytes_per_s", float, True),
    "local memory": ("pe.local_memory_bytes", int, False),
}
SHORT = {"dram": "DRAM bandwidth", "sram": "SRAM bandwidth", "lmem": "local memory"}


def kernels_of(corpus: Path, models):
    """(model, kernel json) for every kernel of the chosen models, by model."""
    out = defaultdict(list)
    for path in sorted(corpus.glob("*.json")):
        meta = json.loads(path.read_text())
        if not isinstance(meta, dict) or "kernel" not in meta:
            continue
        model = meta.get("model") or path.stem.split("__")[0]
        if models and model not in models:
            continue
        out[model].append((path, meta))
    return out


def write_case(path: Path, meta: dict, work: Path, key: str, values, sram: bool) -> Path:
    """The inputs archive and the sweep spec of one kernel over one parameter's values."""
    data = np.load(path.with_suffix(".npz"))
    params = meta["params"]
    inputs = {}
    for p in params:
        ty = meta["signature"][p]
        inputs[p] = data["in__" + p] if ty.startswith("*") else np.array(meta["scalars"][p], SCALARS.get(ty, np.int64))
    folder = work / path.stem
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / "in.npz", **inputs)
    defines = dict(meta.get("config", {}))
    for k, v in meta.get("constants", {}).items():
        if k in meta["arg_names"] and k not in params and isinstance(v, (int, float, bool)):
            defines[k] = int(v) if isinstance(v, bool) else v
    pointers = [p for p in params if meta["signature"][p].startswith("*")]
    spec = {
        "kernel": str(path.with_suffix(".py").resolve()),
        "kernel_name": meta["kernel"],
        "signature": ",".join(meta["signature"][p] for p in params),
        "grid": ", ".join(str(g) for g in meta["grid"]),
        "inputs": "in.npz",
        "defines": defines,
        "set": {key: list(values)},
        **({"place": {p: "sram" for p in pointers}} if sram else {}),
    }
    spec_path = folder / f"{key}.json"     # JSON is YAML: the sweep reads it as a spec
    spec_path.write_text(json.dumps(spec, indent=1))
    return spec_path


def corpus_table(a, base, factors):
    """parameter -> value -> model -> [latency s, kernels ok, kernels failed], over a corpus's kernels."""
    models = None if a.models == "all" else set(a.models.split(","))
    by_model = kernels_of(Path(a.corpus), models)
    if not by_model:
        sys.exit(f"no kernels of models {a.models} in {a.corpus}")
    work = Path(a.out) / "work"
    table = {name: defaultdict(lambda: defaultdict(lambda: [0.0, 0, 0])) for name in PARAMETERS}
    for name, (key, kind, sram) in PARAMETERS.items():
        values = [kind(base[key] * f) for f in factors]
        for model, kernels in sorted(by_model.items()):
            for path, meta in kernels:
                spec = write_case(path, meta, work, key, values, sram)
                rows_path = spec.with_suffix(".jsonl")
                run_sweep(str(spec), str(rows_path), executor=a.executor, jobs=a.jobs, address=a.address)
                for line in rows_path.read_text().splitlines():
                    row = json.loads(line)
                    cell = table[name][row["point"]["set"][key]][model]
                    if row["status"] == "ok":
                        cell[0] += row["time_s"]
                        cell[1] += 1
                    else:
                        cell[2] += 1
            print(f"{name}: {model} done ({len(kernels)} kernels)", file=sys.stderr)
    return table, sorted(by_model), {}


def zoo_table(a, base, factors):
    """The same table over zoo models' recorded launches, run as one workload (every launch on every machine),
    and what ran: per model, its launches, the kernels whose code changed at each point, the errors, and each
    kernel's share of the latency (seconds, its launches summed) at each point."""
    from mtiacc.sweep.workload import MachinePoint, load_recording, run_workload
    models = a.zoo.split(",")
    recs, owner = [], []     # the launches that count (weight > 0), and (model, weight, kernel) of each
    for model in models:
        folder = Path(a.launches) / model
        index = folder / "index.json"
        if not index.is_file():
            sys.exit(f"dse: error: no recorded launches of {model} in {folder} "
                     f"(python -m benchmarks.zoo.launches record {model} --dir {a.launches})")
        for launch in json.loads(index.read_text())["launches"]:
            if launch["weight"]:
                recs.append(load_recording(folder / launch["file"]))
                owner.append((model, launch["weight"], launch["kernel"] or launch["file"]))
    points, where = [], []
    for name, (key, kind, sram) in PARAMETERS.items():
        for f in factors:
            points.append(MachinePoint(set=((key, kind(base[key] * f)),), sram=sram))
            where.append((name, kind(base[key] * f)))
    total = len(recs) * len(points)
    step = max(1, total // 20)

    def progress(done, total):
        if done % step == 0 or done == total:
            print(f"dse: {done}/{total} launches x machines", file=sys.stderr, flush=True)

    out, stats = run_workload(recs, points, executor=a.executor, jobs=a.jobs, address=a.address,
                              progress=progress, merge=not a.no_merge)
    print(f"dse: {stats.launches} launches x {len(points)} machines: {stats.simulated} simulated, "
          f"{stats.cached} from the cache, {stats.merged} the same simulation as another, {stats.merged_by_layout} "
          f"merged by layout ({stats.independent} launches' cycles shown value-independent), {stats.compiled} "
          f"compiles ({stats.compile_cached} binaries from the cache), {stats.failed} failed", file=sys.stderr)
    table = {name: defaultdict(lambda: defaultdict(lambda: [0.0, 0, 0])) for name in PARAMETERS}
    detail = {m: {"launches": sum(w for mm, w, _k in owner if mm == m), "recompiled": {}, "errors": {},
                  "kernels": defaultdict(dict)} for m in models}
    base_j = {name: where.index((name, kind(base[key]))) for name, (key, kind, _s) in PARAMETERS.items()}
    for i, (model, weight, kernel) in enumerate(owner):
        for j, (name, value) in enumerate(where):
            r = out[i][j]
            cell = table[name][value][model]
            if r["status"] == "ok":
                cell[0] += weight * r["time_s"]
                cell[1] += weight
                per = detail[model]["kernels"][kernel]
                per[f"{name}={value}"] = per.get(f"{name}={value}", 0.0) + weight * r["time_s"]
            else:
                cell[2] += weight
                detail[model]["errors"].setdefault(f"{name}={value}", []).append(f"{kernel}: {r['error']}")
            if r["binary"] != out[i][base_j[name]]["binary"]:
                detail[model]["recompiled"].setdefault(f"{name}={value}", []).append(kernel)
    detail["_run"] = dataclasses.asdict(stats)
    return table, models, detail


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--corpus", help="a folder of Inductor kernels (NAME.py, NAME.json, NAME.npz)")
    src.add_argument("--zoo", help="comma-separated zoo models whose launches are recorded in --launches")
    ap.add_argument("--launches", default="build/zoo-launches",
                    help="--zoo: the recordings' folder, one subfolder per model (default: %(default)s)")
    ap.add_argument("--models", default="bert_tiny,dlrm,mlp_fp16,resnet18",
                    help="--corpus: comma-separated models of the corpus (default: %(default)s; 'all' for every one)")
    ap.add_argument("--no-merge", action="store_true",
                    help="--zoo: simulate every launch on its own bytes, even where its kernel's cycles are shown "
                         "not to depend on its buffers' values (mtiacc/sweep/independence.py)")
    ap.add_argument("--factors", default=",".join(f"{f:g}" for f in FACTORS),
                    help="multiples of mtia2i's value swept for each parameter (default: %(default)s)")
    ap.add_argument("--parameters", default=",".join(SHORT),
                    help="the parameters swept, of %(default)s (DRAM bandwidth, SRAM bandwidth, local memory)")
    ap.add_argument("--out", default="build/dse")
    ap.add_argument("--executor", default="local", choices=("local", "ray"))
    ap.add_argument("--address")
    ap.add_argument("--jobs", type=int)
    a = ap.parse_args()
    base = load()
    factors = tuple(float(f) for f in a.factors.split(","))
    if 1.0 not in factors:
        sys.exit("dse: error: --factors must include 1 (mtia2i, the plot's reference)")
    unknown = [x for x in a.parameters.split(",") if x not in SHORT]
    if unknown:
        sys.exit(f"dse: error: unknown parameter {unknown[0]} (of {', '.join(SHORT)})")
    for short, name in SHORT.items():
        if short not in a.parameters.split(","):
            del PARAMETERS[name]
    table, models, detail = (zoo_table if a.zoo else corpus_table)(a, base, factors)
    out = Path(a.out)
    report = {name: {str(v): {m: {"latency_s": c[0], ("launches_ok" if a.zoo else "kernels_ok"): c[1],
                                  ("launches_failed" if a.zoo else "kernels_failed"): c[2]}
                              for m, c in cells.items()} for v, cells in by_value.items()}
              for name, by_value in table.items()}
    out.mkdir(parents=True, exist_ok=True)
    doc = {"machine": base.digest, "factors": factors, "results": report}
    if detail:
        doc["models"] = detail
    (out / "dse.json").write_text(json.dumps(doc, indent=1))
    print(f"{'parameter':<16} {'model':<12} " + " ".join(f"{'x' + format(f, 'g'):>10}" for f in factors)
          + "   (latency, us; x1 is mtia2i)")
    for name, (key, kind, _s) in PARAMETERS.items():
        values = [kind(base[key] * f) for f in factors]
        for model in models:
            cells = [table[name][v][model] for v in values]
            print(f"{name:<16} {model:<12} " + " ".join(
                f"{c[0] * 1e6:>10.1f}" if not c[2] else f"{'(' + str(c[2]) + ' fail)':>10}" for c in cells))
    plot(table, models, base, factors, out / "dse.png")
    print(f"wrote {out / 'dse.json'} and {out / 'dse.png'}", file=sys.stderr)


def plot(table, models, base, factors, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(PARAMETERS), figsize=(5 * len(PARAMETERS), 4), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, (name, (key, kind, sram)) in zip(axes, PARAMETERS.items()):
        values = [kind(base[key] * f) for f in factors]
        for model in models:
            lat = [table[name][v][model][0] if not table[name][v][model][2] else float("nan") for v in values]
            ref = table[name][kind(base[key])][model][0] or 1.0
            ax.plot(factors, [x / ref for x in lat], marker="o", label=model)
        ax.set_xscale("log", base=2)
        ax.set_xticks(factors, [f"x{f:g}" for f in factors])
        ax.set_title(f"{name}{' (buffers in SRAM)' if sram else ''}")
        ax.set_xlabel(f"{key} relative to mtia2i")
        ax.axvline(1.0, color="grey", lw=0.5)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("model latency relative to mtia2i")
    axes[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
