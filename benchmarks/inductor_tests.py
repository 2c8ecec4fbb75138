"""PyTorch's Inductor tests (``test/inductor/test_torchinductor.py``) on the ``mtia`` backend, the CPU device's
tests, as PyTorch's own Triton-CPU target runs them (docs/inductor-tests.md).

    python benchmarks/inductor_tests.py --tests /work/inductor-tests [-k EXPR] [--jobs 2] [--case-timeout S]
        [--budget S] [--every N] [--results build/inductor-tests] [--md docs/inductor-tests.md] [--fallback]

``--tests`` is the test file or a folder holding it (``test_torchinductor.py`` or
``test/inductor/test_torchinductor.py`` under it); it lives outside the project, like Triton's tests.  PyTorch's
Triton-CPU target (``test/inductor/test_triton_cpu_backend.py``) makes a test class of the file's
``CommonTemplate`` with ``copy_tests(CommonTemplate, CpuTritonTests, "cpu")``, its ``common`` the file's
``check_model`` and ``config.cpu_backend="triton"`` patched over the class.  This does the same, in a module
written next to the results (``test_mtia_inductor.py``), with every compile the tests ask for routed to
``torch.compile(backend="mtia")``'s compiler (:func:`mtiacc.torch_backend.backend.compile_graph`):

- the file's own ``compile_fx`` (``check_model`` compiles through it),
- ``torch.compile(backend="inductor")`` (``torch._TorchCompileInductorWrapper``) and the backend named
  ``"inductor"`` (``torch._dynamo.optimize("inductor")``),

each with the test's config patches over the backend's.  A compile that passes Inductor's own hooks
(``inner_compile=``, ``decompositions=``, ...) keeps them and gets the backend's config patches only (not
its own lowerings, which its inner compiler installs).  Compiles the tests start below dynamo (``compile_fx_inner``,
``torch._inductor.compile``) still generate Triton for the CPU (the class's ``cpu_backend="triton"``), which
mtiacc compiles for the simulator.  Per-kernel fallback to the host is off (``MTIACC_FALLBACK=0``) unless
``--fallback``: a kernel mtiacc cannot compile fails its test.

Each test case has ``--case-timeout`` seconds (then it fails with ``TimeoutError``; benchmarks'
conformance_timeout.py); the whole run has ``--budget`` seconds (then pytest is interrupted and the cases that
finished are reported: each outcome is written as its test finishes).  Results: the junit report (of a run
that finished), ``junit.jsonl`` (each test's outcome) and ``results.json`` in ``--results``, and the markdown table
(``--md``): passed / failed / skipped, the failures grouped by the first line of their error.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Optional

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
FILE = "test_torchinductor.py"
SHIM = "test_mtia_inductor.py"
CLASS = "MtiaCpuTests"
# PyTorch marks the CommonTemplate tests its Triton-CPU target is known to fail with this attribute
XFAIL_PROP = "_expected_failure_triton_cpu"


# ---------------------------------------------------------------------------------------------------------
# In the pytest process: the routing and the test class


def routed_compile_fx(model, example_inputs, *, config_patches: Optional[Dict[str, Any]] = None, **kwargs):
    """``compile_fx`` as the ``mtia`` backend: the graph compiled by the backend's compiler with
    ``config_patches`` over its own; with Inductor's hooks (``inner_compile=`` ...) Inductor's ``compile_fx``
    with the backend's config patches under the test's."""
    from torch._inductor import compile_fx as cfx
    from mtiacc.torch_backend import backend
    kwargs.pop("compile_region_name", None)
    if not kwargs:
        return backend.compile_graph(model, example_inputs, options=config_patches)
    patches = dict(backend.config_patches(None, None), **(config_patches or {}))
    return cfx.compile_fx(model, example_inputs, config_patches=patches, **kwargs)


def route(module) -> None:
    """Every compile the test module asks for goes to the ``mtia`` backend (see the module's docstring)."""
    import torch
    from torch._dynamo.backends import registry

    module.compile_fx = routed_compile_fx

    def inductor_wrapper_call(self, model_, inputs_, *, config_patches=None):
        return routed_compile_fx(model_, inputs_, config_patches={**self.config, **(config_patches or {})})

    torch._TorchCompileInductorWrapper.__call__ = inductor_wrapper_call
    registry.lookup_backend("inductor")          # registers Inductor's entry first, then it is replaced
    registry._COMPILER_FNS["inductor"] = routed_compile_fx


class Missing:
    """A name the test file imports that the installed torch lacks (the file is of another revision): a test
    that uses it is skipped with that reason.  Used as a decorator, it marks the decorated test so."""

    def __init__(self, where: str):
        self.where = where

    def _skip(self):
        import unittest
        import torch
        raise unittest.SkipTest(f"{self.where} is not in torch {torch.__version__} (the test file is of "
                                f"another revision)")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], type):
            import functools

            @functools.wraps(args[0])
            def skipped(*a, **k):
                self._skip()
            return skipped
        self._skip()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Missing(f"{self.where}.{name}")


def supply_missing(test_file: Path) -> list:
    """Each ``from torch... import NAME`` at the top of the test file whose NAME the installed torch lacks gets
    a :class:`Missing` in its place, so the file imports and only the tests that use it are skipped."""
    import ast
    import importlib
    supplied = []
    for node in ast.parse(test_file.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and node.module.split(".")[0] == "torch"):
            continue
        try:
            mod = importlib.import_module(node.module)
        except ImportError:
            continue
        for alias in node.names:
            if hasattr(mod, alias.name):
                continue
            try:
                importlib.import_module(f"{node.module}.{alias.name}")
            except ImportError:
                setattr(mod, alias.name, Missing(f"{node.module}.{alias.name}"))
                supplied.append(f"{node.module}.{alias.name}")
    return supplied


REFERENCE = "MTIACC_INDUCTOR_TESTS_REFERENCE"     # set: the shim makes the stock CPU class, nothing routed


def make_class(module, reference: bool = False):
    """The CPU test class of the module's ``CommonTemplate``, as PyTorch's Triton-CPU target makes it; with
    ``reference``, as PyTorch's own CPU tests make it (Inductor's C++ backend)."""
    from torch._inductor import config

    cls = type(CLASS, (module.TestCase,), {"common": module.check_model, "device": "cpu"})
    module.copy_tests(module.CommonTemplate, cls, "cpu", xfail_prop=None if reference else XFAIL_PROP)
    return cls if reference else config.patch(cpu_backend="triton")(cls)


SHIM_TEXT = '''\
"""Written by benchmarks/inductor_tests.py: the CPU tests of {file} on the mtia backend."""
import sys
sys.path[:0] = [{tests!r}, {root!r}, {here!r}]
import inductor_tests as _harness
_harness.supply_missing(_harness.Path({file!r}))
import {module} as _tests
_reference = bool(_harness.os.environ.get(_harness.REFERENCE))
if not _reference:
    _harness.route(_tests)
{cls} = _harness.make_class(_tests, reference=_reference)
'''


def write_shim(test_file: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    shim = out_dir / SHIM
    (out_dir / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")     # not the project's settings
    shim.write_text(SHIM_TEXT.format(file=str(test_file), tests=str(test_file.parent), root=str(ROOT),
                                     here=str(HERE), module=test_file.stem, cls=CLASS), encoding="utf-8")
    return shim


# ---------------------------------------------------------------------------------------------------------
# The driver


def locate(path: Path) -> Path:
    """The test file: ``path`` itself, or ``test_torchinductor.py`` in it or in its ``test/inductor``."""
    for cand in (path, path / FILE, path / "test" / "inductor" / FILE):
        if cand.is_file():
            return cand.resolve()
    raise SystemExit(
        f"inductor-tests: no {FILE} at {path}\n"
        f"  PyTorch's test/inductor/{FILE} (of the installed torch's revision: python -c \"import torch; "
        f"print(torch.version.git_version)\") goes there, outside the project's sources, e.g.\n"
        f"  git --git-dir=PYTORCH_GIT show REV:test/inductor/{FILE} > {path / FILE}")


def runner_cmd(shim: Path, report: Path, k: Optional[str], jobs: int, case_timeout: float,
               nodes: Optional[list] = None) -> list:
    cmd = [sys.executable, "-m", "pytest"] + (nodes or [str(shim)]) + [
        "-q", "-p", "no:cacheprovider", "-p", "conformance_timeout", "--case-timeout", str(case_timeout),
        "-p", "inductor_tests", f"--outcomes={report.with_suffix('.jsonl')}",
        "-W", "ignore", f"--junitxml={report}", "-o", "junit_logging=no", "-o", "junit_family=xunit1",
        "-c", str(shim.parent / "pytest.ini")]
    if k:
        cmd += ["-k", k]
    if jobs > 1:
        cmd += ["-n", str(jobs)]
    else:
        cmd += ["-p", "no:xdist"]
    return cmd


def collect(shim: Path, k: Optional[str], env: dict) -> list:
    """The node ids of the class's tests that ``-k`` selects."""
    cmd = [sys.executable, "-m", "pytest", str(shim), "--collect-only", "-q", "-p", "no:cacheprovider",
           "-p", "no:xdist", "-W", "ignore", "-c", str(shim.parent / "pytest.ini")]
    if k:
        cmd += ["-k", k]
    out = subprocess.run(cmd, cwd=shim.parent, env=env, capture_output=True, text=True)
    nodes = [ln.strip() for ln in out.stdout.splitlines() if "::" in ln and ln.strip().split("::")[0].endswith(SHIM)]
    if not nodes:
        sys.stderr.write(out.stdout[-3000:] + out.stderr[-3000:])
        raise SystemExit("inductor-tests: no test collected (the module's import failed, or -k selects none)")
    return nodes


def environment(fallback: bool) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), str(HERE), env.get("PYTHONPATH", "")] if p)
    env.setdefault("MTIACC_QUIET", "1")
    if not fallback:
        env["MTIACC_FALLBACK"] = "0"
    return env


def run(cmd: list, cwd: Path, env: dict, budget: float, log: Path) -> bool:
    """One pytest process; at ``budget`` seconds it is interrupted and still writes its report of what
    finished.  Returns whether it finished by itself."""
    import signal
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            proc.wait(timeout=max(budget, 1.0))
            return True
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return False


def signature(message: str) -> str:
    """A failure's cause: the first line of its error with hex, paths, numbers and long quoted values made
    generic, so that the same cause in different tests falls in one group."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    line = lines[0] if lines else "(no message)"
    if len(lines) > 1 and line.endswith(("!", ":")) and not lines[1].startswith("To execute"):
        line += " " + lines[1]          # torch's assertEqual: what differs is on the next line
    line = re.sub(r"0x[0-9a-fA-F]+", "<hex>", line)
    line = re.sub(r"(?<![\w.])/[^\s:'\"]+", "<path>", line)
    line = re.sub(r"(?<![A-Za-z_0-9])-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    line = re.sub(r"'[^']{40,}'", "'...'", line)
    return line[:200]


def summarize(results: Dict[str, tuple], reference: Optional[Dict[str, tuple]] = None) -> dict:
    """Counts, and the failures (and skips) grouped by their cause's signature, largest group first; with the
    ``reference`` run's outcomes (stock Inductor on the failures), which failures it shares."""
    counts = collections.Counter(outcome for outcome, _ in results.values())
    reference = reference or {}
    shared = sorted(n for n, (o, _) in results.items()
                    if o in ("failed", "xfailed") and reference.get(n, ("",))[0] in ("failed", "xfailed"))
    groups: Dict[str, Dict[str, list]] = {"failed": collections.defaultdict(list),
                                          "skipped": collections.defaultdict(list)}
    for name, (outcome, message) in sorted(results.items()):
        if outcome in groups:
            groups[outcome][signature(message)].append(name)
    ordered = {kind: sorted(g.items(), key=lambda kv: (-len(kv[1]), kv[0])) for kind, g in groups.items()}
    # an expected failure (PyTorch's Triton-CPU xfail) counts as what it did: xpassed passes, xfailed fails
    good = counts["passed"] + counts["xpassed"]
    ran = good + counts["failed"] + counts["xfailed"]
    return {"counts": dict(counts), "total": len(results), "pass_rate": good / ran if ran else 0.0,
            "failed": ordered["failed"], "skipped": ordered["skipped"],
            "reference": {n: list(v) for n, v in sorted(reference.items())}, "shared": shared,
            "pass_rate_own": (good / (ran - len(shared))) if ran - len(shared) else 0.0}


def write_md(out: Path, summary: dict, meta: dict) -> None:
    c = summary["counts"]
    lines = ["# PyTorch's Inductor tests on the mtia backend", "",
             "PyTorch's `test/inductor/test_torchinductor.py`, the CPU device's tests (its `CommonTemplate` copied",
             "into a CPU test class with `common = check_model` and `config.cpu_backend=\"triton\"`, as PyTorch's",
             "Triton-CPU target does), with every compile the tests ask for routed to `torch.compile(backend=\"mtia\")`'s",
             "compiler, the kernels compiled by mtiacc and run on the simulator (per-kernel fallback to the host "
             + ("on" if meta.get("fallback") else "off") + ").",
             "How it runs: `benchmarks/inductor_tests.py` (its docstring).", "",
             "Reproduce:", "", "```", meta["command"], "```", "",
             f"- test file: `{meta['file']}` ({meta.get('provenance', 'provenance not given')})",
             f"- torch {meta['torch']} ({meta['torch_git']}), mtiacc {meta['commit']}",
             f"- selection: {meta['selection']}",
             f"- per-case timeout {meta['case_timeout']:.0f} s; "
             f"{'the run finished' if meta['complete'] else 'the run was cut off by its budget'} in "
             f"{meta['seconds']:.0f} s with {meta['jobs']} worker(s)", "",
             "| tests run | passed | failed | skipped | xfailed | xpassed | pass rate (of the non-skipped) |",
             "|---:|---:|---:|---:|---:|---:|---:|",
             f"| {summary['total']} | {c.get('passed', 0)} | {c.get('failed', 0)} | {c.get('skipped', 0)} | "
             f"{c.get('xfailed', 0)} | {c.get('xpassed', 0)} | {100 * summary['pass_rate']:.1f}% |", "",
             "xfailed / xpassed: tests PyTorch marks as expected to fail on its Triton-CPU target "
             f"(`{XFAIL_PROP}`) that failed / passed here; the pass rate counts them as failed / passed.", ""]
    ref, shared = summary.get("reference") or {}, set(summary.get("shared") or [])
    if ref:
        lines += [f"The failures run again as PyTorch's own CPU tests run them (stock Inductor, its C++ backend, "
                  f"nothing routed: `--reference`): {len(shared)} of the {len(ref)} fail there too, a cause "
                  f"the mtia backend does not add (the test file's revision or adaptation, or the host; the "
                  f"table's column, the messages in results.json). Without them the pass rate is "
                  f"{100 * summary['pass_rate_own']:.1f}%.", ""]
    for kind, title in (("failed", "Failures by cause"), ("skipped", "Skips by reason")):
        if not summary[kind]:
            continue
        also = kind == "failed" and ref
        lines += [f"## {title}", "", "| tests | first line of the error |"
                  + (" fail with stock Inductor too |" if also else "") + " tests (up to 6) |",
                  "|---:|---|" + ("---:|" if also else "") + "---|"]
        for sig, names in summary[kind]:
            shown = ", ".join(f"`{n}`" for n in names[:6]) + (" ..." if len(names) > 6 else "")
            col = ""
            if also:
                rerun = [n for n in names if n in ref]
                col = f" {sum(n in shared for n in rerun)} of {len(rerun)} |" if rerun else " not rerun |"
            lines.append(f"| {len(names)} | {sig.replace('|', '/')} |{col} {shown} |")
        lines.append("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------
# The pytest plugin (``-p inductor_tests``): each test's outcome appended to a JSON-lines file as it finishes,
# in the process that reports (xdist's controller), so a run cut off by its budget keeps what finished


def pytest_addoption(parser):
    parser.addoption("--outcomes", default=None, help="append each test's outcome to this JSON-lines file")


def _message(report) -> str:
    if report.outcome == "passed":
        return ""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:      # a skip: (file, line, reason)
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return (getattr(report, "longreprtext", "") or "")[-2000:]


def pytest_runtest_logreport(report):
    path = _OUTCOMES.get("path")
    if not path or (report.when != "call" and report.outcome == "passed"):
        return
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if outcome == "skipped" else "xpassed"
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"name": report.nodeid.split("::")[-1], "when": report.when, "outcome": outcome,
                            "message": _message(report)}) + "\n")


_OUTCOMES: Dict[str, str] = {}


def pytest_configure(config):
    if not hasattr(config, "workerinput"):          # xdist's workers hand their reports to the controller
        _OUTCOMES["path"] = config.getoption("--outcomes")


def outcomes(path: Path) -> Dict[str, tuple]:
    """test name -> (outcome, message): a test's worst report (a failed teardown after a passed call fails)."""
    rank = {"failed": 4, "xpassed": 3, "passed": 1, "xfailed": 2, "skipped": 2}
    out: Dict[str, tuple] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if not r["name"].startswith("test_"):
            continue
        if r["outcome"] == "failed" and "Unexpected success" in r["message"][:40]:
            r["outcome"] = "xpassed"    # unittest's expectedFailure (PyTorch's Triton-CPU xfail) that passed
        prev = out.get(r["name"])
        if prev is None or rank[r["outcome"]] > rank[prev[0]]:
            out[r["name"]] = (r["outcome"], r["message"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", required=True, help=f"{FILE} or a folder holding it")
    ap.add_argument("-k", dest="k", default=None, help="pytest's -k expression over the CPU class's tests")
    ap.add_argument("--every", type=int, default=1, help="run every N-th selected test (a spread-out slice)")
    ap.add_argument("--jobs", type=int, default=2, help="pytest-xdist workers (1: in one process)")
    ap.add_argument("--case-timeout", type=float, default=180, help="seconds per test case (then: failed)")
    ap.add_argument("--budget", type=float, default=3600, help="seconds for the whole run (then: cut off)")
    ap.add_argument("--results", default=str(ROOT / "build" / "inductor-tests"), help="junit, JSON, log")
    ap.add_argument("--md", default=None, help="the markdown table (e.g. docs/inductor-tests.md)")
    ap.add_argument("--provenance", default=None, help="where the test file came from (said in the table)")
    ap.add_argument("--fallback", action="store_true", help="let kernels mtiacc cannot compile run on the host")
    ap.add_argument("--reference", action="store_true",
                    help="run the failures again as PyTorch's own CPU tests (stock Inductor, C++), to tell "
                         "which the test file causes")
    ap.add_argument("--report-only", action="store_true",
                    help="no run: the results and the table again from the last run's outcomes")
    a = ap.parse_args(argv)

    import torch
    test_file = locate(Path(a.tests))
    res = Path(a.results)
    if a.report_only:
        meta = json.loads((res / "results.json").read_text(encoding="utf-8"))["meta"]
        if a.provenance:
            meta["provenance"] = a.provenance
        if a.reference:
            rerun_reference(write_shim(test_file, res), res, a, environment(a.fallback))
        return write_results(res, meta, a.md)
    shim = write_shim(test_file, res)
    env = environment(a.fallback)
    nodes = None
    selection = f"-k {a.k!r}" if a.k else "every test of the class"
    if a.every > 1:
        picked = collect(shim, a.k, env)
        nodes = picked[::a.every]
        selection += f", every {a.every}th: {len(nodes)} of {len(picked)}"
    report = res / "junit.xml"
    report.unlink(missing_ok=True)
    report.with_suffix(".jsonl").unlink(missing_ok=True)
    (res / "reference.jsonl").unlink(missing_ok=True)
    cmd = runner_cmd(shim, report, a.k, a.jobs, a.case_timeout, nodes)
    t0 = time.time()
    complete = run(cmd, res, env, a.budget, res / "pytest.log")
    seconds = time.time() - t0
    if a.reference:
        rerun_reference(shim, res, a, env)
    shown = " ".join(["make inductor-tests", f"INDUCTOR_TESTS={a.tests}"] + ([f"K='{a.k}'"] if a.k else []) +
                     [f"JOBS={a.jobs}"] + ([f"EVERY={a.every}"] if a.every > 1 else []) +
                     [f"CASE_TIMEOUT={a.case_timeout:g}"] + (["REFERENCE=1"] if a.reference else []))
    meta = {"file": str(test_file), "provenance": a.provenance, "torch": torch.__version__,
            "torch_git": torch.version.git_version[:12], "commit": _commit(), "selection": selection,
            "case_timeout": a.case_timeout, "complete": complete, "seconds": seconds, "jobs": a.jobs,
            "fallback": a.fallback, "command": shown}
    return write_results(res, meta, a.md)


def rerun_reference(shim: Path, res: Path, a, env: dict) -> None:
    """The run's failures again, as PyTorch's own CPU test class runs them (outcomes: reference.jsonl)."""
    failed = sorted(n for n, (o, _) in outcomes(res / "junit.jsonl").items() if o in ("failed", "xfailed"))
    out = res / "reference.jsonl"
    out.unlink(missing_ok=True)
    if not failed:
        return
    nodes = [f"{shim}::{CLASS}::{n}" for n in failed]
    cmd = runner_cmd(shim, res / "reference.xml", None, a.jobs, a.case_timeout, nodes)
    cmd = [c if not c.startswith("--outcomes=") else f"--outcomes={out}" for c in cmd]
    run(cmd, res, dict(env, **{REFERENCE: "1"}), a.budget, res / "reference.log")


def write_results(res: Path, meta: dict, md: Optional[str]) -> int:
    """results.json and the markdown table from the run's outcomes (junit.jsonl in ``res``)."""
    results = outcomes(res / "junit.jsonl")
    summary = summarize(results, outcomes(res / "reference.jsonl") or None)
    complete = meta["complete"]
    (res / "results.json").write_text(json.dumps(
        {"meta": meta, "summary": summary, "results": {n: list(v) for n, v in sorted(results.items())}},
        indent=1), encoding="utf-8")
    if md:
        write_md(Path(md), summary, meta)
    c = summary["counts"]
    print(f"inductor-tests: {summary['total']} run: {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
          f"{c.get('skipped', 0)} skipped, {c.get('xfailed', 0)} xfailed, {c.get('xpassed', 0)} xpassed ({100 * summary['pass_rate']:.1f}% of "
          f"the non-skipped pass){'' if complete else '; cut off by the budget'}; {res / 'results.json'}")
    if summary["reference"]:
        print(f"  stock Inductor fails {len(summary['shared'])} of the {len(summary['reference'])} failures too; "
              f"without them {100 * summary['pass_rate_own']:.1f}% pass")
    for sig, names in summary["failed"][:15]:
        print(f"  {len(names):4d}  {sig}")
    return 0


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
