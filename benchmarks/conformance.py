"""Triton's language tests (test_core.py) against the ``cpu`` backend, and against Triton's interpreter, as a
table of pass counts per test function (docs/conformance.md).

    python benchmarks/conformance.py --tests ../shared/triton-tests [--results build/conformance] [--budget S]
        [--case-timeout S] [--only FN,FN] [--rerun] [--report-only] [--no-interpreter] [-- PYTEST_ARGS]

Ours runs with the backend active (MTIACC_TRITON=1), the interpreter's with TRITON_INTERPRET=1; each is
``python -m pytest language/test_core.py --device cpu`` in the tests' folder with a junit report.  The
interpreter runs the whole file at once.  Ours is much slower per case, so it runs in chunks of test functions
(node ids ``language/test_core.py::test_x``), each with its own report in the results folder; a chunk that
finished is not run again (``--rerun`` runs the chosen chunks again), so a run stopped by its ``--budget`` resumes
where it stopped.  A chunk cut off by the budget counts the cases that finished and is marked partial; a case
longer than ``--case-timeout`` fails (conformance_timeout.py).  The table says per function whether it ran
completely, partly or not at all.

With ``--executor local|ray`` the chunks run at once, ``--jobs`` at a time, as jobs of a sweep's executor
(:mod:`mtiacc.sweep.executors`): local processes, or Ray tasks (``--address``, else ``RAY_ADDRESS``, else a Ray of
its own on this machine).  Each job runs its chunk's pytest process (one core: pass no ``-n``) and hands back its
junit report, so a node of a cluster needs the project and the tests' folder at the same paths, not the results
folder.  Without ``--executor`` the chunks run one after another here.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
FILE = "language/test_core.py"
CHUNK_CASES = 250        # cases per chunk of ours (whole functions; a bigger function is a chunk of its own)
BIG = 500                # a chunk of more cases runs after all the others


def functions(tests: Path) -> list:
    """The module-level test functions of test_core.py, in file order."""
    tree = ast.parse((tests / FILE).read_text(encoding="utf-8"))
    return [n.name for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")]


def pytest_cmd(report: Path, nodes: list, case_timeout: float, extra: list) -> list:
    return ([sys.executable, "-m", "pytest"] + (nodes or [FILE]) +
            ["--device", "cpu", "-q", "-p", "no:cacheprovider", "-p", "conformance_timeout",
             "--case-timeout", str(case_timeout), "-W", "ignore", f"--junitxml={report}",
             "-o", "junit_logging=no"] + extra)


def run(tests: Path, cmd: list, env_extra: dict, timeout: float) -> tuple:
    """Runs one pytest process; returns (complete, seconds).  At the timeout pytest is interrupted (SIGINT) and
    still writes the report of what finished."""
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), env.get("PYTHONPATH", "")])
    t0 = time.time()
    complete = True
    proc = subprocess.Popen(cmd, cwd=tests, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=max(timeout, 1.0))
    except subprocess.TimeoutExpired:
        complete = False
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return complete, time.time() - t0


def run_chunk(tests: str, nodes: list, case_timeout: float, extra: list, env_extra: dict, deadline: float):
    """One chunk as an executor's job: ``{"complete", "seconds", "report"}`` (the junit report's text), or None
    when the budget's ``deadline`` (a wall-clock time) left it less than 30 s to run."""
    import tempfile
    left = deadline - time.time()
    if left < 30:
        return None
    fd, report = tempfile.mkstemp(prefix="conformance-", suffix=".xml")
    os.close(fd)
    try:
        done, secs = run(Path(tests), pytest_cmd(Path(report), nodes, case_timeout, extra), env_extra, left)
        text = Path(report).read_text(encoding="utf-8", errors="replace")
    finally:
        os.unlink(report)
    return {"complete": done, "seconds": secs, "report": text}


def cases(report: Path) -> dict:
    """test id -> (outcome, message) from one junit report."""
    out = {}
    try:
        root = ET.parse(report).getroot()
    except (ET.ParseError, OSError):
        return out
    for case in root.iter("testcase"):
        name = case.get("name", "")
        if not name.startswith("test_"):
            continue        # the interrupt of a stopped run, not a test
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, message = "failed", child.get("message", "") or (child.text or "")[:300]
            elif child.tag == "skipped" and outcome == "passed":
                outcome, message = "skipped", child.get("message", "")
        out[name] = (outcome, message)
    return out


def function_of(case_id: str) -> str:
    return re.sub(r"\[.*", "", case_id)


def counts(results: dict) -> dict:
    c = collections.defaultdict(collections.Counter)
    for cid, (outcome, _) in results.items():
        c[function_of(cid)][outcome] += 1
    return c


def plan(fns: list, sizes: dict) -> list:
    """Chunks of whole functions of about CHUNK_CASES cases (sizes: cases per function, from the interpreter's
    report; a function it did not list counts as 20)."""
    chunks, cur, n = [], [], 0
    for fn in fns:
        k = sizes.get(fn, 20)
        if cur and n + k > CHUNK_CASES:
            chunks.append(cur)
            cur, n = [], 0
        cur.append(fn)
        n += k
    if cur:
        chunks.append(cur)
    # the functions of many cases last, so that a run cut short by its budget has covered the most functions
    chunks.sort(key=lambda c: sum(sizes.get(fn, 20) for fn in c) > BIG)
    return [{"id": f"c{i:03d}-{c[0]}", "functions": c} for i, c in enumerate(chunks)]


def signature(message: str) -> str:
    """A failure's cause: its message's first line with numbers, hex, paths and quoted values made generic."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    line = lines[0] if lines else "(no message)"
    if len(lines) > 1 and re.fullmatch(r"\w*(Error|Exception):?", line):
        line += " " + lines[1]          # numpy's assertions: the kind of mismatch is on the next line
    line = re.sub(r"0x[0-9a-fA-F]+", "0x_", line)
    line = re.sub(r"(?<!\S)/\S+", "<path>", line)
    line = re.sub(r"__mtiacc_[0-9a-f]+", "__mtiacc_H", line)      # the name of a kernel's rewritten copy
    line = re.sub(r"(?<![A-Za-z_0-9])-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    line = re.sub(r"'[^']{30,}'", "'...'", line)
    return line[:160]


# The test functions that exercise only a GPU's hardware or its compiler (layouts, shared memory, warps, PTX,
# AMD or NVIDIA intrinsics); the interpreter skips them too.
GPU_SPECIFIC = re.compile(r"(^|\W)(cuda|hip|gpu|ptx|ttgir|ttg\.|warp|cta|shared memory|mma|wgmma|amd|nvidia|"
                          r"tma|hopper|blackwell|ampere|capability|cluster|layout)", re.I)


GPU_OUTPUT = re.compile(r"'(ttgir|ptx|llir|amdgcn|cubin|hsaco)'|CUDA|cuda", re.I)


def write_doc(out: Path, tests: Path, state: dict, ours: dict, theirs: dict, fns: list, shown: dict) -> None:
    status = {}
    for ch in state["chunks"]:
        rec = state["ours"].get(ch["id"])
        for fn in ch["functions"]:
            ran_any = any(function_of(cid) == fn for cid in ours)
            status[fn] = ("not run" if rec is None or (not rec["complete"] and not ran_any) else
                          f"every {rec['sample']}th case" if rec.get("sample") and rec["complete"] else
                          "complete" if rec["complete"] else "partial")
    oc, tc = counts(ours), counts(theirs)
    fmt = lambda c: f"{c['passed']} / {c['failed']} / {c['skipped']}" if c else "-"  # noqa: E731
    tot = lambda d, keep: sum((c for f, c in d.items() if keep(f)), collections.Counter())  # noqa: E731
    gpu = {}
    for f in fns:
        t = tc.get(f)
        if t and t["passed"] == 0 and t["failed"] == 0:
            reasons = {m for cid, (o, m) in theirs.items() if function_of(cid) == f and o == "skipped"}
            if any(GPU_SPECIFIC.search(r) for r in reasons):
                gpu[f] = sorted(reasons)[0][:100]
    # functions whose every failure of ours is on a GPU's compiler output or device (h.asm["ttgir"], CUDA):
    # checks the tests make only off the interpreter
    gpu_checks = {}
    for f in fns:
        msgs = [m for cid, (o, m) in ours.items() if function_of(cid) == f and o == "failed"]
        if msgs and f not in gpu and all(GPU_OUTPUT.search(signature(m)) for m in msgs):
            gpu_checks[f] = (len(msgs), signature(msgs[0]))
    regress = sorted(cid for cid, (o, _) in theirs.items()
                     if o == "passed" and cid in ours and ours[cid][0] == "failed")
    causes = collections.defaultdict(list)
    for cid, (o, m) in ours.items():
        if o == "failed":
            causes[signature(m)].append(cid)
    i_state = state.get("interpreter", {})
    lines = ["# Conformance: Triton's test_core.py on the `cpu` backend", "",
             "Made by `make conformance TRITON_TESTS=../shared/triton-tests` (`benchmarks/conformance.py`; the raw",
             "junit reports stay in `build/conformance/`). Ours runs chunks of test functions, each",
             "", f"    MTIACC_TRITON=1 python {shown['ours']}", "",
             "in the tests' folder, with the project and `benchmarks/` (the per-case timeout's plugin) on",
             "`PYTHONPATH` and `MTIACC_FALLBACK=0` (no kernel runs on the host); the interpreter runs the whole",
             "file once, with the backend off:", "",
             f"    MTIACC_TRITON=0 TRITON_INTERPRET=1 python {shown['interpreter']}", "",
             "A chunk's counts are from its latest run (its commit is in `build/conformance/state.json`).", "",
             "Counts are test cases (parametrizations) per test function: passed / failed / skipped.  A case",
             f"longer than {state.get('case_timeout', 0):.0f} s counts as failed.", "",
             f"- test functions in test_core.py: {len(fns)}; run on ours: "
             f"{sum(1 for f in fns if status.get(f) == 'complete')} completely, "
             f"{sum(1 for f in fns if status.get(f) == 'partial')} partly, "
             f"{sum(1 for f in fns if status.get(f, '').startswith('every'))} by a sample of their cases, "
             f"{sum(1 for f in fns if status.get(f, 'not run') == 'not run')} not at all "
             f"({sum(r['seconds'] for r in state['ours'].values()):.0f} s of runs)",
             f"- interpreter: {'complete' if i_state.get('complete') else 'PARTIAL' if i_state else 'not run'}"
             f"{', %.0f s' % i_state['seconds'] if i_state else ''}",
             f"- ours on the cases it ran: {fmt(tot(oc, lambda f: True))}; the interpreter on the same cases: "
             f"{fmt(tot(counts({k: v for k, v in theirs.items() if k in ours}), lambda f: True))}; "
             f"on the whole file: {fmt(tot(tc, lambda f: True))}",
             f"- cases the interpreter passes and ours fails: {len(regress)}", ""]
    lines += ["| test function | ours | interpreter | ours ran |", "|---|---|---|---|"]
    for fn in fns:
        lines.append(f"| `{fn}` | {fmt(oc.get(fn))} | {fmt(tc.get(fn))} | {status.get(fn, 'not run')} |")
    lines.append(f"| **total** | {fmt(tot(oc, lambda f: True))} | {fmt(tot(tc, lambda f: True))} | |")
    lines += ["", "## Failures of ours by cause", "",
              "The first line of the error, numbers made generic; cases per cause (how many of them the interpreter",
              "passes), and the test functions they are in.", "", "| cases | interpreter passes | cause | in |", "|---|---|---|---|"]
    for sig, ids in sorted(causes.items(), key=lambda kv: -len(kv[1])):
        passes = sum(1 for c in ids if theirs.get(c, ("",))[0] == "passed")
        cell = sig.replace("|", "\\|").replace("`", "'")
        fns_of = collections.Counter(function_of(c) for c in ids)
        where = ", ".join(f"`{f}` {n}" for f, n in fns_of.most_common(4)) + (", ..." if len(fns_of) > 4 else "")
        lines.append(f"| {len(ids)} | {passes} | `{cell}` | {where} |")
    lines += ["", "## GPU-specific test functions", "",
              "Every case skipped by the interpreter, with a skip reason naming GPU hardware or its compiler (one",
              "reason shown):", ""]
    lines += [f"- `{f}`: {r}" for f, r in gpu.items()]
    lines += ["", "Run on ours, and failing only on a check of GPU compiler output or of a CUDA device, which the",
              "test makes only when not under the interpreter (`if not is_interpreter(): ... h.asm['ttgir']`):", ""]
    lines += [f"- `{f}`: {n} cases, `{m}`" for f, (n, m) in gpu_checks.items()]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", required=True, help="a folder holding language/test_core.py and conftest.py")
    ap.add_argument("--results", default=str(ROOT / "build" / "conformance"), help="junit reports and state")
    ap.add_argument("--budget", type=float, default=3600, help="seconds for this invocation's runs of ours")
    ap.add_argument("--case-timeout", type=float, default=300, help="seconds per test case (then: failed)")
    ap.add_argument("--only", default="", help="comma-separated test functions: run only their chunks")
    ap.add_argument("--rerun", action="store_true", help="run chosen chunks again even if they finished")
    ap.add_argument("--sample", type=int, default=0,
                    help=f"K: of a chunk of more than {BIG} cases run only every K-th case (the table says so)")
    ap.add_argument("--report-only", action="store_true", help="write the table from the reports, run nothing")
    ap.add_argument("--no-interpreter", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "docs" / "conformance.md"))
    ap.add_argument("--executor", choices=("local", "ray"), help="run the chunks at once on this executor")
    ap.add_argument("--jobs", type=int, default=None, help="chunks at once (default: the machine's cores)")
    ap.add_argument("--address", default=None, help="--executor ray: the cluster (auto, HOST:PORT)")
    ap.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --), e.g. -n 2")
    a = ap.parse_args()
    tests, res = Path(a.tests).resolve(), Path(a.results).resolve()
    res.mkdir(parents=True, exist_ok=True)
    state_path = res / "state.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {"ours": {}}
    state["case_timeout"] = a.case_timeout
    save = lambda: state_path.write_text(json.dumps(state, indent=1))  # noqa: E731
    fns = functions(tests)
    interp_xml = res / "interpreter.xml"
    i_cmd = pytest_cmd(interp_xml, [], 0, a.pytest_args)
    if not (a.report_only or a.no_interpreter or state.get("interpreter", {}).get("complete")):
        done, secs = run(tests, i_cmd, {"TRITON_INTERPRET": "1", "MTIACC_TRITON": "0"}, 3 * 3600)
        state["interpreter"] = {"complete": done, "seconds": secs}
        save()
    theirs = cases(interp_xml)
    for extra in sorted(res.glob("interpreter-*.xml")):    # functions run again (a run stopped early)
        theirs.update(cases(extra))
    if "chunks" not in state:
        state["chunks"] = plan(fns, counts_total(theirs) or collected(tests))
        save()
    only = set(filter(None, a.only.split(",")))
    sizes = counts_total(theirs)
    deadline = time.time() + a.budget
    todo = []
    for ch in ([] if a.report_only else state["chunks"]):
        if only and not only & set(ch["functions"]):
            continue
        rec = state["ours"].get(ch["id"])
        if rec and rec["complete"] and not a.rerun:
            continue
        nodes = [f"{FILE}::{f}" for f in ch["functions"]]
        sample = 0
        if a.sample > 1 and sum(sizes.get(f, 0) for f in ch["functions"]) > BIG:
            # every a.sample-th case of the interpreter's report (in its order), not the whole function
            sample = a.sample
            nodes = [f"{FILE}::{cid}" for cid in sorted(theirs) if function_of(cid) in ch["functions"]][::sample]
        todo.append((ch, nodes, sample))
    env_ours = {"MTIACC_TRITON": "1", "MTIACC_FALLBACK": "0"}

    def finished(ch, sample, done, secs):
        state["ours"][ch["id"]] = {"complete": done, "seconds": secs, "sample": sample, "commit": _commit(),
                                   "finished": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
        save()
        print(f"{ch['id']}: {'complete' if done else 'partial'}, {secs:.0f} s", flush=True)

    if a.executor:
        run_on_executor(a, tests, res, todo, env_ours, deadline, finished)
    for ch, nodes, sample in ([] if a.executor else todo):
        left = deadline - time.time()
        if left < 30:
            break
        done, secs = run(tests, pytest_cmd(res / f"{ch['id']}.xml", nodes, a.case_timeout, a.pytest_args),
                         env_ours, left)
        finished(ch, sample, done, secs)
    ours = {}
    for ch in state["chunks"]:
        if ch["id"] in state["ours"]:
            ours.update(cases(res / f"{ch['id']}.xml"))
    show = lambda cmd: " ".join(c if " " not in c else repr(c) for c in cmd[1:]  # noqa: E731
                                if not c.startswith("--junitxml"))
    shown = {"ours": show(pytest_cmd(Path("x"), [f"{FILE}::test_a", f"{FILE}::test_b", "..."], a.case_timeout,
                                     a.pytest_args)),
             "interpreter": show(i_cmd).replace(" -p conformance_timeout --case-timeout 0", "")}
    write_doc(Path(a.out), tests, state, ours, theirs, fns, shown)
    print(f"wrote {a.out}")


def run_on_executor(a, tests: Path, res: Path, todo: list, env_ours: dict, deadline: float, finished) -> None:
    """The chunks of ``todo`` as jobs of ``--executor`` (:func:`run_chunk`), each report written as it comes back."""
    sys.path.insert(0, str(ROOT))
    from mtiacc.sweep.executors import Lost, make_executor
    import conformance          # the job by its module's name (not __main__), which the workers import
    # the executor's workers find this module, and the project, on PYTHONPATH
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), os.environ.get("PYTHONPATH", "")])
    ex = make_executor(a.executor, a.jobs, a.address)
    if a.executor == "ray":     # the job's code travels with it: a node need not have benchmarks/ on its path
        import ray.cloudpickle
        ray.cloudpickle.register_pickle_by_value(conformance)
    try:
        args = [(str(tests), nodes, a.case_timeout, a.pytest_args, env_ours, deadline) for _ch, nodes, _s in todo]
        for i, out in ex.run(conformance.run_chunk, args):
            ch, _nodes, sample = todo[i]
            if isinstance(out, Lost):
                print(f"{ch['id']}: lost ({out.reason})", flush=True)
                continue
            if out is None:
                continue        # the budget ran out before it started
            (res / f"{ch['id']}.xml").write_text(out["report"], encoding="utf-8")
            finished(ch, sample, out["complete"], out["seconds"])
    finally:
        ex.close()


def _commit() -> str:
    """The project's commit a chunk ran at (``+`` when the work tree had changes)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return head + ("+" if dirty else "")
    except OSError:
        return ""


def counts_total(results: dict) -> dict:
    return {fn: sum(c.values()) for fn, c in counts(results).items()}


def collected(tests: Path) -> dict:
    """Cases per test function, from pytest's collection (when there is no interpreter report to count)."""
    out = subprocess.run([sys.executable, "-m", "pytest", FILE, "--device", "cpu", "-q", "-p", "no:cacheprovider",
                          "--collect-only"], cwd=tests, capture_output=True, text=True,
                         env=dict(os.environ, TRITON_INTERPRET="1")).stdout
    return collections.Counter(function_of(ln.split("::", 1)[1]) for ln in out.splitlines() if "::" in ln)


if __name__ == "__main__":
    main()
