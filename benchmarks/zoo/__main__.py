"""The model zoo through ``torch.compile(model, backend="mtia")``: every model's outputs against eager, its layers
and estimated time on the chip.

    python -m benchmarks.zoo [--size tiny|real] [--train] [--models a,b] [--jobs N] [--executor local|ray]
                             [--timeout S] [--resume] [--out build/zoo]

writes the table on stdout, ``build/zoo.json`` (one row per model, written again as each finishes, so
``--resume`` keeps the finished rows and runs the rest) and ``build/zoo.html`` (the table and its plots).
Models run in worker processes (``--jobs``), locally or as Ray tasks; a model not finished within ``--timeout``
seconds is a row saying so.  Exit status 1 when a model does not match eager or fails.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from benchmarks.zoo import page
from benchmarks.zoo.run import families, run_model


def _key(row):
    return (row["model"], row["size"], bool(row["train"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=("tiny", "real"), default=os.environ.get("SIZE") or "tiny")
    ap.add_argument("--train", action="store_true", help="a training step (forward and backward) instead of inference")
    ap.add_argument("--models", help="comma-separated names (default: all; --list names them)")
    ap.add_argument("--list", action="store_true", help="name the models and their families, and stop")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS") or 1), help="models run at once")
    ap.add_argument("--executor", choices=("local", "ray"), default=os.environ.get("EXECUTOR") or "local")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds a model may take (default: 900 tiny, 3600 real; 0: no limit)")
    ap.add_argument("--resume", action="store_true", help="keep the rows of OUT.json and run only the others")
    ap.add_argument("--mode", default=None, help="torch.compile's mode (default: the default mode)")
    ap.add_argument("--out", default="build/zoo", help="OUT.json and OUT.html are written (default: build/zoo)")
    args = ap.parse_args(argv)

    fam = families()
    if args.list:
        for name, f in fam.items():
            print(f"{name:20s} {f}")
        return 0
    names = args.models.split(",") if args.models else list(fam)
    unknown = [n for n in names if n not in fam]
    if unknown:
        print(f"zoo: error: unknown model(s) {', '.join(unknown)} (--list names them)", file=sys.stderr)
        return 2
    timeout = args.timeout if args.timeout is not None else (900 if args.size == "tiny" else 3600)
    json_path, html_path = args.out + ".json", args.out + ".html"
    os.makedirs(os.path.dirname(json_path) or ".", exist_ok=True)

    rows = {}
    if args.resume and os.path.exists(json_path):
        with open(json_path, encoding="utf-8") as f:
            rows = {_key(r): r for r in json.load(f)["rows"]}
    todo = [n for n in names if (n, args.size, args.train) not in rows]
    command = "python -m benchmarks.zoo " + " ".join(argv if argv is not None else sys.argv[1:])

    def save():
        doc = {"command": command.strip(), "rows": sorted(rows.values(), key=lambda r: names.index(r["model"])
                                                          if r["model"] in names else len(names))}
        page.write_json(json_path, doc)

    if todo:
        from mtiacc.sweep.executors import Lost, make_executor
        if args.jobs > 1:
            os.environ.setdefault("MTIACC_QUIET", "1")      # one progress line per model, not interleaved bars
        executor = make_executor(args.executor, args.jobs)
        jobs = [(n, args.size, args.train, timeout, args.mode) for n in todo]
        try:
            for done, (i, outcome) in enumerate(executor.run(run_model, jobs), 1):
                n = todo[i]
                if isinstance(outcome, Lost):
                    outcome = {"model": n, "family": fam[n], "size": args.size, "train": args.train,
                               "status": "error", "message": outcome.reason}
                rows[_key(outcome)] = outcome
                print(f"zoo: [{done}/{len(todo)}] {page.line(outcome)}", file=sys.stderr, flush=True)
                save()
        finally:
            executor.close()
    save()
    selected = [rows[(n, args.size, args.train)] for n in names]
    print(page.table(selected))
    page.write_html(html_path, selected, command.strip())
    print(f"zoo: wrote {json_path} and {html_path}", file=sys.stderr)
    return 0 if all(r["status"] == "ok" for r in selected) else 1


if __name__ == "__main__":
    sys.exit(main())
