"""Design-space exploration over real models' kernels (``make dse CORPUS=../shared/corpus [MODELS=...]``).

A model's latency on the chip is the sum of its kernels' simulated times.  For each model of a corpus of
TorchInductor kernels (``NAME.py`` / ``NAME.json`` / ``NAME.npz``, grouped by ``model`` in the JSON), this sweeps
one machine parameter at a time with ``mtiacc sweep``'s engine (every other parameter at mtia2i's value):

* DRAM bandwidth, buffers in DRAM (the default placement);
* SRAM bandwidth, every buffer placed in SRAM (``mtiasim run --place NAME=sram``);
* the PEs' local-memory size, buffers in DRAM (the code is compiled for each size).

It writes ``OUT/dse.json`` (per model, parameter and value: the latency and the kernels that ran) and
``OUT/dse.png`` (latency against each parameter, one line per model, relative to mtia2i), and prints the table.
``--executor ray`` runs the simulations on a Ray cluster (``--address``), as ``mtiacc sweep`` does.
"""
from __future__ import annotations

import argparse
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, help="a folder of Inductor kernels (NAME.py, NAME.json, NAME.npz)")
    ap.add_argument("--models", default="bert_tiny,dlrm,mlp_fp16,resnet18",
                    help="comma-separated models of the corpus (default: %(default)s; 'all' for every one)")
    ap.add_argument("--out", default="build/dse")
    ap.add_argument("--executor", default="local", choices=("local", "ray"))
    ap.add_argument("--address")
    ap.add_argument("--jobs", type=int)
    a = ap.parse_args()
    base = load()
    models = None if a.models == "all" else set(a.models.split(","))
    by_model = kernels_of(Path(a.corpus), models)
    if not by_model:
        sys.exit(f"no kernels of models {a.models} in {a.corpus}")
    out = Path(a.out)
    work = out / "work"
    # parameter -> value -> model -> [latency s, kernels ok, kernels failed]
    table = {name: defaultdict(lambda: defaultdict(lambda: [0.0, 0, 0])) for name in PARAMETERS}
    for name, (key, kind, sram) in PARAMETERS.items():
        values = [kind(base[key] * f) for f in FACTORS]
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
    report = {name: {str(v): {m: {"latency_s": c[0], "kernels_ok": c[1], "kernels_failed": c[2]}
                              for m, c in cells.items()} for v, cells in by_value.items()}
              for name, by_value in table.items()}
    out.mkdir(parents=True, exist_ok=True)
    (out / "dse.json").write_text(json.dumps({"machine": base.digest, "factors": FACTORS, "results": report},
                                             indent=1))
    print(f"{'parameter':<16} {'model':<12} " + " ".join(f"{'x' + str(f):>10}" for f in FACTORS)
          + "   (latency, us; x1 is mtia2i)")
    for name, (key, kind, _s) in PARAMETERS.items():
        values = [kind(base[key] * f) for f in FACTORS]
        for model in sorted(by_model):
            cells = [table[name][v][model] for v in values]
            print(f"{name:<16} {model:<12} " + " ".join(
                f"{c[0] * 1e6:>10.1f}" if not c[2] else f"{'(' + str(c[2]) + ' fail)':>10}" for c in cells))
    plot(table, by_model, base, out / "dse.png")
    print(f"wrote {out / 'dse.json'} and {out / 'dse.png'}", file=sys.stderr)


def plot(table, by_model, base, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(PARAMETERS), figsize=(5 * len(PARAMETERS), 4), sharey=True)
    for ax, (name, (key, kind, sram)) in zip(axes, PARAMETERS.items()):
        values = [kind(base[key] * f) for f in FACTORS]
        for model in sorted(by_model):
            lat = [table[name][v][model][0] for v in values]
            ref = table[name][kind(base[key])][model][0] or 1.0
            ax.plot(FACTORS, [x / ref for x in lat], marker="o", label=model)
        ax.set_xscale("log", base=2)
        ax.set_xticks(FACTORS, [f"x{f:g}" for f in FACTORS])
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
