"""Mutation testing: plant one small bug at a time in the compiler's and simulator's decision code and check that
some test fails.  ``make mutate [MODULES='mtiacc/opt/licm.py ...'] [MAX=N] [LIST=1]`` (docs/mutation.md).

Each mutant is one edit of the module's syntax tree:

* ``binop``: ``+`` <-> ``-``, ``*`` <-> ``//``, ``&`` <-> ``|``, ``<<`` <-> ``>>``, ``%`` -> ``//``;
* ``compare``: the boundary flips ``<`` <-> ``<=`` and ``>`` <-> ``>=``, and ``==`` <-> ``!=``, ``is`` <->
  ``is not``, ``in`` <-> ``not in``;
* ``const``: an integer literal ``n`` -> ``n + 1`` and ``n - 1``, ``True`` <-> ``False``;
* ``not``: ``not x`` -> ``x``; ``boolop``: ``and`` <-> ``or``;
* ``drop``: a statement (an assignment, an augmented assignment, a call, ``continue`` / ``break`` / ``raise``)
  replaced by ``pass``.

Docstrings, ``__all__``, annotations and ``assert`` statements are not mutated.  The mutants run in a scratch copy
of the checkout (``build/mutate/tree``, refreshed from the working tree at each start), never in the checkout
itself, one at a time, each against the tests of its module (``TESTS``: the tests that exercise it, targeted ones
first, with ``-x``, so a killed mutant stops at its first failing test).  A mutant that passes them is run once more
against its room's wide subset (``ROOM_TESTS``, every test that goes through the room), after all the module's
mutants have had their module tests (``--no-room-check`` leaves that for a later run).  A mutant is *killed* when a
subset fails (or runs over ``--timeout-factor`` times the unmutated run's time), *survives* when both pass.

Results go to ``build/mutate/results.json``, keyed by the module's source hash and the mutant's key (its
function, the text before and after, and the occurrence in that function): a run resumes where the last one
stopped, a module that changed is run again, and ``--rerun-survivors`` runs the survivors again after tests were
added to kill them.  A survivor that no test can kill (the same behaviour by another
path) is recorded as *equivalent* in the table of docs/mutation.md (module, key, reason); the score is
killed / (mutants - equivalent), per module.
"""
from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mutate"
DOC = ROOT / "docs" / "mutation.md"

# the rooms where a wrong decision miscompiles or mistimes (``make mutate`` with no MODULES runs them all)
ROOMS = ["mtiacc/opt", "mtiacc/ir/analysis", "mtiacc/codegen/memory", "mtiacc/codegen/tensor", "mtiasim/timing.py",
         "mtiasim/semantics"]

# module (or folder prefix) -> the tests that judge each of its mutants, targeted ones first; the longest matching
# prefix wins.  A module without an entry of its own is judged by its room's wide subset (ROOM_TESTS) at once.
TESTS: Dict[str, List[str]] = {
    "mtiacc/opt/licm.py": ["tests/filecheck/test_filecheck.py::test_filecheck[licm.mlir]",
                           "tests/filecheck/test_filecheck.py::test_filecheck[licm_loads.py]",
                           "tests/filecheck/test_filecheck.py::test_filecheck[licm_mtia_ops.py]",
                           "tests/filecheck/test_filecheck.py::test_filecheck[licm_region_ops.py]",
                           "tests/fuzz/regressions/test_zero_trip_loop_invariant_load.py",
                           "tests/filecheck/test_filecheck.py::test_filecheck[atomics_ir.py]",
                           "tests/filecheck/test_filecheck.py::test_filecheck[dot_read_back.py]",
                           "tests/opt/test_reuse_loads.py", "tests/opt/test_keep_invariant.py",
                           "tests/opt/test_differential.py"],
    "mtiacc/ir/analysis/affine.py": ["tests/ir/analysis/test_affine_semantics.py", "tests/ir/analysis/test_affine.py",
                                     "tests/fuzz/regressions/test_mask_spellings.py",
                                     "tests/ir/analysis/test_access_plan.py",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[access_contiguous.py]",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[access_plan.mlir]",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[access_runs.py]",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[access_tiles_prefix.py]",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[access_elements.py]",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[access_reshaped.py]",
                                     "tests/filecheck/test_filecheck.py::test_filecheck[carry_pointer_offsets.py]",
                                     "tests/language/test_reshape_affine.py"],
    "mtiasim/timing.py": ["tests/sim/test_timing_rules.py", "tests/sim/test_timing_classes.py",
                          "tests/sim/test_timing.py", "tests/sim/test_dpe_timing.py", "tests/sim/test_profile_waits.py"],
}

# room -> the wide subset: every test that goes through the room.  It judges the modules without targeted tests,
# and is the final check of a mutant that survived its module's targeted tests.
ROOM_TESTS: Dict[str, List[str]] = {
    "mtiacc/opt": ["tests/opt", "tests/filecheck", "tests/fuzz/regressions"],
    "mtiacc/ir/analysis": ["tests/ir/analysis", "tests/fuzz/regressions", "tests/codegen/memory", "tests/filecheck"],
    "mtiacc/codegen/memory": ["tests/codegen/memory", "tests/fuzz/regressions", "tests/filecheck",
                              "tests/kernels/test_examples_memory.py"],
    "mtiacc/codegen/tensor": ["tests/codegen/tensor", "tests/fuzz/regressions", "tests/language"],
    "mtiasim/timing.py": ["tests/sim", "tests/asm/test_rv64d_sim.py"],
    "mtiasim/semantics": ["tests/sim", "tests/asm/test_isa_float.py", "tests/asm/test_rv64d_sim.py"],
}

BINOPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.BitAnd: ast.BitOr,
          ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift, ast.RShift: ast.LShift, ast.Mod: ast.FloorDiv}
CMPOPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
          ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
DROPPABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Continue, ast.Break, ast.Raise)


@dataclass
class Mutant:
    module: str
    index: int              # position among the module's mutants (the order of ast.walk)
    kind: str
    line: int
    key: str                # stable across edits elsewhere: function / before -> after / occurrence
    before: str
    after: str


# ------------------------------------------------------------------ finding and applying mutants

def _skipped(tree: ast.AST) -> set:
    """ids of nodes never mutated: docstrings, ``__all__``, annotations, asserts and everything inside them."""
    out = set()

    def mark(n):
        out.update(id(x) for x in ast.walk(n))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            mark(body[0])
        if isinstance(node, ast.Assert):
            mark(node)
        if isinstance(node, (ast.AnnAssign, ast.arg)) and node.annotation is not None:
            mark(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            mark(node.returns)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            mark(node)
    return out


def _owners(tree: ast.AST) -> Dict[int, str]:
    """id(node) -> the qualified name of the function or class it is in ('<module>' at the top)."""
    out: Dict[int, str] = {}

    def visit(node, name):
        for child in ast.iter_child_nodes(node):
            sub = name
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                sub = child.name if name == "<module>" else f"{name}.{child.name}"
            out[id(child)] = sub
            visit(child, sub)
    visit(tree, "<module>")
    return out


def _edits(node: ast.AST) -> Iterator[Tuple[str, str]]:
    """(kind, label) of every mutation of ``node`` itself; ``_apply`` performs the one with that label."""
    if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
        yield "binop", BINOPS[type(node.op)].__name__
    elif isinstance(node, ast.AugAssign) and type(node.op) in BINOPS:
        yield "binop", BINOPS[type(node.op)].__name__
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in CMPOPS:
                yield "compare", f"{i}:{CMPOPS[type(op)].__name__}"
    if isinstance(node, ast.Constant) and type(node.value) is int:
        yield "const", "+1"
        yield "const", "-1"
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        yield "const", "flip"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not", "drop"
    if isinstance(node, ast.BoolOp):
        yield "boolop", "swap"
    if isinstance(node, DROPPABLE) and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
        yield "drop", "pass"


def _apply(node: ast.AST, label: str) -> Optional[ast.AST]:
    """``node`` mutated by ``label`` (a new node to put in its place, or ``node`` changed in place)."""
    if label == "pass":
        return ast.copy_location(ast.Pass(), node)
    if label in ("+1", "-1"):
        return ast.copy_location(ast.Constant(node.value + (1 if label == "+1" else -1)), node)
    if label == "flip":
        return ast.copy_location(ast.Constant(not node.value), node)
    if label == "drop" and isinstance(node, ast.UnaryOp):
        return node.operand
    if label == "swap":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return node
    if ":" in label:
        i, name = label.split(":")
        node.ops[int(i)] = getattr(ast, name)()
        return node
    node.op = getattr(ast, label)()
    return node


def _text(node: ast.AST) -> str:
    t = ast.unparse(node).splitlines()[0] if not isinstance(node, ast.Pass) else "pass"
    return t if len(t) <= 100 else t[:97] + "..."


def _replace(tree: ast.AST, target: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, v in enumerate(value):
                    if v is target:
                        value[i] = new
                        return


def _targets(source: str):
    """(tree, node, kind, label) of every mutant of ``source``, numbered by their order here (a fresh parse)."""
    tree = ast.parse(source)
    skip = _skipped(tree)
    for node in ast.walk(tree):
        if id(node) not in skip:
            for kind, label in _edits(node):
                yield tree, node, kind, label


def mutated(source: str, index: int):
    """(tree, new node) of mutant ``index`` of ``source``."""
    for i, (tree, node, _, label) in enumerate(_targets(source)):
        if i == index:
            new = _apply(node, label)
            if new is not node:
                _replace(tree, node, new)
            return tree, new
    raise IndexError(index)


def mutated_source(source: str, index: int) -> str:
    return ast.unparse(ast.fix_missing_locations(mutated(source, index)[0])) + "\n"


def mutants(module: str, source: str) -> List[Mutant]:
    base = ast.unparse(ast.parse(source))
    out: List[Mutant] = []
    seen: Dict[str, int] = {}
    owners = None
    for i, (tree, node, kind, _) in enumerate(_targets(source)):
        if owners is None:
            owners = _owners(tree)
        before, line, owner = _text(node), getattr(node, "lineno", 0), owners.get(id(node), "<module>")
        new_tree, new_node = mutated(source, i)
        if ast.unparse(new_tree) == base:
            continue
        stem = f"{owner}: {before} -> {_text(new_node)}"
        seen[stem] = seen.get(stem, 0) + 1
        key = stem + (f" #{seen[stem]}" if seen[stem] > 1 else "")
        out.append(Mutant(module, i, kind, line, key, before, _text(new_node)))
    return out


# ------------------------------------------------------------------ running

def modules_of(paths: List[str]) -> List[str]:
    out = []
    for p in paths:
        path = ROOT / p
        if path.is_dir():
            out += sorted(str(f.relative_to(ROOT)) for f in path.rglob("*.py") if f.name != "__init__.py")
        else:
            out.append(p)
    return out


def _longest(table: Dict[str, List[str]], module: str) -> Optional[List[str]]:
    best = max((k for k in table if module == k or module.startswith(k.rstrip("/") + "/")), key=len, default=None)
    return None if best is None else table[best]


def room_tests_for(module: str) -> List[str]:
    """The wide subset of ``module``'s room."""
    tests = _longest(ROOM_TESTS, module)
    if tests is None:
        raise SystemExit(f"error: {module} is in no room (benchmarks/mutate.py ROOM_TESTS)")
    return tests


def tests_for(module: str) -> List[str]:
    """The tests each mutant of ``module`` runs first: its targeted ones, else its room's wide subset."""
    return _longest(TESTS, module) or room_tests_for(module)


def final_tests_for(module: str) -> Optional[List[str]]:
    """The final check of a mutant that passed ``tests_for(module)``: the room's wide subset, or None when that
    is what it already ran."""
    room = room_tests_for(module)
    return None if tests_for(module) == room else room


def scratch_tree(mods: List[str]) -> Path:
    """A copy of the checkout's tracked and new files (not ignored ones) under build/mutate/tree-<modules> (runs
    over different modules can go side by side)."""
    tree = BUILD / ("tree-" + hashlib.sha256(" ".join(mods).encode()).hexdigest()[:8])
    if tree.exists():
        shutil.rmtree(tree)
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    for f in files:
        src = ROOT / f
        if src.is_file() and not f.startswith(("build/", "fuzz-out/")):
            dst = tree / f
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    return tree


def run_tests(tree: Path, tests: List[str], timeout: Optional[float]) -> Tuple[str, float]:
    """("pass" | "fail" | "timeout", seconds) of the test subset in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "-p", "no:cacheprovider", "-p", "no:randomly",
           "-W", "ignore", *tests]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - t0
    return ("pass" if r.returncode == 0 else "fail"), time.monotonic() - t0


def load_results(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def save(path: Path, mod: str, rec: dict) -> None:
    """Write ``mod``'s record into the results file, keeping the other modules' (another run may write them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    results = load_results(path)
    results[mod] = rec
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(results, indent=1, sort_keys=True))
    tmp.replace(path)


def equivalents() -> Dict[Tuple[str, str], str]:
    """(module, key) -> reason, from the table of docs/mutation.md (rows ``| module | `key` | reason |``)."""
    out = {}
    if not DOC.exists():
        return out
    text = DOC.read_text()
    for line in text[text.find("## Equivalent mutants"):].splitlines():
        m = re.match(r"^\|\s*`?([\w/.]+\.py)`?\s*\|\s*`(.+)`\s*\|\s*(.+?)\s*\|\s*$", line)
        if m:
            out[(m.group(1), m.group(2).replace("\\|", "|"))] = m.group(3)
    return out


def report(mods: List[str], results: dict) -> int:
    eq = equivalents()
    total_k = total_n = 0
    lines = [f"{'module':40} {'mutants':>8} {'killed':>7} {'equiv':>6} {'survived':>9} {'score':>7}"]
    survivors = []
    for mod in mods:
        rec = results.get(mod, {})
        got = rec.get("mutants", {})
        k = sum(1 for r in got.values() if r["status"] in ("fail", "timeout"))
        e = sum(1 for key, r in got.items() if r["status"] in ("pass", "equivalent") and (mod, key) in eq)
        s = [(key, r) for key, r in got.items() if r["status"] == "pass" and (mod, key) not in eq]
        n = len(got)
        survivors += [(mod, key, r) for key, r in s]
        score = 100.0 * k / (n - e) if n - e else 100.0
        total_k, total_n = total_k + k, total_n + n - e
        wait = sum(1 for key, r in s if _pending(r))
        done = "" if rec.get("complete") else f"  (partial: {n} of {rec.get('count', '?')}" + \
            (f", {wait} awaiting the room-wide check)" if wait else ")")
        lines.append(f"{mod:40} {n:8} {k:7} {e:6} {len(s):9} {score:6.1f}%{done}")
    lines.append(f"{'all':40} {'':8} {total_k:7} {'':6} {'':9} {100.0 * total_k / max(total_n, 1):6.1f}%")
    print("\n".join(lines))
    if survivors:
        print("\nsurvivors (kill with a test, or record as equivalent in docs/mutation.md):")
        for mod, key, r in survivors:
            print(f"  {mod}:{r['line']}  `{key}`" + ("  (room-wide check pending)" if _pending(r) else ""))
    return 0


def _pending(r: Optional[dict]) -> bool:
    """A mutant that passed its module's targeted tests and awaits the room-wide check."""
    return r is not None and r["status"] == "pass" and r.get("checked") == "module"


def _stage(tree: Path, mod: str, source: str, rec: dict, todo: List[Mutant], tests: List[str], checked: str, opts,
           budget: list, results_path: Path) -> bool:
    """Run each mutant of ``todo`` against ``tests`` (``checked``: "module" for the targeted tests, "room" for the
    room-wide subset); False when the tests fail unmutated."""
    if not todo or (budget[0] is not None and budget[0] <= 0):
        return True
    status, base = run_tests(tree, tests, None)
    if status != "pass":
        print(f"error: the tests of {mod} fail before any mutation: {' '.join(tests)}", file=sys.stderr)
        return False
    what = "its tests" if checked == "module" or final_tests_for(mod) is None else "the room-wide check"
    print(f"{mod}: {len(todo)} mutants to run against {what}, which take {base:.0f} s unmutated", flush=True)
    target = tree / mod
    try:
        for mu in todo:
            if budget[0] is not None and budget[0] <= 0:
                break
            target.write_text(mutated_source(source, mu.index))
            for pyc in (target.parent / "__pycache__").glob(target.stem + ".*.pyc"):
                pyc.unlink()
            status, secs = run_tests(tree, tests, max(60.0, opts.timeout_factor * base))
            old = rec["mutants"].get(mu.key, {})
            rec["mutants"][mu.key] = {"status": status, "line": mu.line, "kind": mu.kind,
                                      "secs": round(secs + old.get("secs", 0), 1), "checked": checked}
            save(results_path, mod, rec)
            shown = "killed" if status != "pass" else "passed" if checked == "module" else "SURVIVED"
            print(f"  {shown:8} {mod}:{mu.line} `{mu.key}` ({secs:.0f} s)", flush=True)
            if budget[0] is not None:
                budget[0] -= 1
    finally:
        target.write_text(source)
    return True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/mutate.py", description=__doc__.split("\n\n")[0])
    p.add_argument("modules", nargs="*", help="modules or folders (default: the rooms, ROOMS)")
    p.add_argument("--results", default=str(BUILD / "results.json"))
    p.add_argument("--max", type=int, default=0, help="stop after this many new mutants (0: no limit)")
    p.add_argument("--list", action="store_true", help="list the mutants and stop")
    p.add_argument("--report", action="store_true", help="only print the score and survivors of the results")
    p.add_argument("--timeout-factor", type=float, default=4.0)
    p.add_argument("--rerun-survivors", action="store_true",
                   help="run the survivors of the results again (after adding tests that should kill them)")
    p.add_argument("--no-room-check", action="store_true",
                   help="run only the modules' targeted tests; the room-wide check of their survivors waits")
    opts = p.parse_args(argv)
    mods = modules_of(opts.modules or ROOMS)
    results_path = Path(opts.results)
    results = load_results(results_path)
    if opts.list:
        for mod in mods:
            for mu in mutants(mod, (ROOT / mod).read_text()):
                print(f"{mod}:{mu.line}  [{mu.kind}] `{mu.key}`")
        return 0
    if opts.report:
        return report(mods, results)
    tree = scratch_tree(mods)
    budget = [opts.max or None]
    for mod in mods:
        source = (ROOT / mod).read_text()
        digest = hashlib.sha256(source.encode()).hexdigest()[:16]
        rec = results.get(mod)
        if not rec or rec.get("source") != digest:
            rec = results[mod] = {"source": digest, "mutants": {}}
        if opts.rerun_survivors:
            rec["mutants"] = {key: r for key, r in rec["mutants"].items() if r["status"] not in ("pass", "equivalent")}
        eq = equivalents()
        every = mutants(mod, source)
        for mu in every:     # recorded as equivalent: not run again
            if (mod, mu.key) in eq and mu.key not in rec["mutants"]:
                rec["mutants"][mu.key] = {"status": "equivalent", "line": mu.line, "kind": mu.kind, "secs": 0}
        final = final_tests_for(mod)
        todo = [mu for mu in every if mu.key not in rec["mutants"]]
        rec["count"] = len(rec["mutants"]) + len(todo)
        if not _stage(tree, mod, source, rec, todo, tests_for(mod), "module" if final else "room", opts, budget,
                      results_path):
            return 1
        if final and not opts.no_room_check:
            pending = [mu for mu in every if _pending(rec["mutants"].get(mu.key))]
            if not _stage(tree, mod, source, rec, pending, final, "room", opts, budget, results_path):
                return 1
        rec["complete"] = len(rec["mutants"]) == rec["count"] and \
            not any(_pending(r) for r in rec["mutants"].values())
        save(results_path, mod, rec)
    return report(mods, load_results(results_path))


if __name__ == "__main__":
    sys.exit(main())
