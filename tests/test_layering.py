"""Data flows one way: each layer imports only the layers below it (checked on the source)."""
import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# layer -> packages it may import (besides itself, the standard library and third-party packages)
ALLOWED = {
    # the machine description (schema, loader, YAML files) sits at the bottom beside the ISA table: its timing
    # classes and SE functions are the ISA's
    "mtiacc.machine": {"mtiacc.diagnostics", "mtiacc.asm"},
    "mtiacc.ir": {"mtiacc.diagnostics"},
    "mtiacc.frontend": {"mtiacc.diagnostics", "mtiacc.ir"},
    "mtiacc.opt": {"mtiacc.diagnostics", "mtiacc.ir", "mtiacc.target"},
    "mtiacc.codegen": {"mtiacc.diagnostics", "mtiacc.ir", "mtiacc.target"},
    "mtiacc.asm": {"mtiacc.diagnostics"},
    "mtiasim": {"mtiacc.diagnostics", "mtiacc.files", "mtiacc.asm", "mtiacc.machine"},
    # the Python API sits above the compiler and the simulator
    "mtiacc.runtime": {"mtiacc.diagnostics", "mtiacc.driver", "mtiacc.frontend", "mtiacc.machine", "mtiasim"},
    # sweeps compile and simulate many points: above the compiler and the simulator, beside the Python API
    "mtiacc.sweep": {"mtiacc.diagnostics", "mtiacc.driver", "mtiacc.files", "mtiacc.machine", "mtiacc.runtime",
                     "mtiacc.target", "mtiasim"},
    # the Triton backend (loaded by Triton through its entry point) sits on top of everything
    "mtiacc.triton_backend": {"mtiacc.runtime", "mtiacc.driver", "mtiacc.diagnostics", "mtiacc.machine", "mtiasim",
                              "mtiacc.sweep"},
    # torch.compile's backend (loaded by torch through its entry point) drives Inductor onto the Triton backend
    "mtiacc.torch_backend": {"mtiacc.triton_backend", "mtiacc.runtime", "mtiacc.diagnostics", "mtiacc.machine",
                             "mtiasim"},
}


@functools.lru_cache(maxsize=None)
def _parsed(text: str):
    tree = ast.parse(text)
    return tree, tuple(ast.walk(tree))


def _nodes(path: Path):
    """``path``'s syntax tree and every node of it in ``ast.walk``'s order, parsed once a process for each text
    (the checks below read the same ~300 files)."""
    return _parsed(path.read_text(encoding="utf-8"))


def imports_of(path: Path):
    for node in _nodes(path)[1]:
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, node.lineno


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_lower_layers(layer):
    folder = ROOT.joinpath(*layer.split("."))
    ours = ("mtiacc", "mtiasim")
    bad = []
    for path in sorted(folder.rglob("*.py")):
        for mod, line in imports_of(path):
            if not mod.split(".")[0] in ours or mod == layer or mod.startswith(layer + "."):
                continue
            if not any(mod == a or mod.startswith(a + ".") for a in ALLOWED[layer]):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {mod}")
    assert not bad, "\n".join(bad)


def test_nothing_imports_the_triton_backend():
    """Only Triton loads ``mtiacc.triton_backend`` (its entry point), and torch's backend over it reads what ran
    where: the rest of the project never imports it."""
    bad = []
    for path in _source_files():
        if "triton_backend" in path.parts or "torch_backend" in path.parts:
            continue
        for mod, line in imports_of(path):
            if mod == "mtiacc.triton_backend" or mod.startswith("mtiacc.triton_backend."):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {mod}")
    assert not bad, "\n".join(bad)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.lru_cache(maxsize=None)
def import_graph():
    """module -> the project modules it imports, function-local imports included.

    ``from pkg import name`` counts as importing ``pkg.name`` when that is a module, else ``pkg``;
    a package's ``__init__`` is the module named after the package."""
    files = {_module_name(p): p for top in ("mtiacc", "mtiasim") for p in (ROOT / top).rglob("*.py")}
    graph = {}
    for mod, path in files.items():
        is_pkg = path.name == "__init__.py"
        deps = set()
        for node in _nodes(path)[1]:
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    pkg = ".".join(base + ([node.module] if node.module else []))
                else:
                    pkg = node.module or ""
                targets = [f"{pkg}.{a.name}" if f"{pkg}.{a.name}" in files else pkg for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in files:
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    deps.add(t)
        graph[mod] = deps
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:        # restored: a raised limit lets tests/cli's "nested too deeply" inputs through the parser
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_no_import_cycles():
    """No module reaches itself through imports, function-local ones included (a package's
    ``__init__`` importing its own submodules is the package, not a cycle, unless they import it back)."""
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_checker_finds_a_cycle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]


def _source_files():
    return [p for top in ("mtiacc", "mtiasim") for p in sorted((ROOT / top).rglob("*.py"))]


def test_no_file_over_800_lines():
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in _source_files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800]
    assert not long, "\n".join(long)


def folders_over(files, root: Path = ROOT, limit: int = 15):
    """The folders holding ``files`` with more than ``limit`` modules directly in them (every ``*.py`` but the
    package's ``__init__.py``; a ``__main__.py`` is a module too), as "folder: N modules", relative to ``root``."""
    folders = {p.parent for p in files}
    return [f"{d.relative_to(root)}: {n} modules" for d in sorted(folders)
            if (n := len([p for p in d.glob("*.py") if p.name != "__init__.py"])) > limit]


def test_no_folder_over_15_modules():
    big = folders_over(_source_files())
    assert not big, "\n".join(big)


def test_the_folder_check_counts_every_module(tmp_path):
    """15 modules and an ``__init__`` pass; a ``__main__`` makes 16, one too many; subfolders count apart."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for name in ["__init__"] + [f"m{i}" for i in range(15)] + ["sub/a", "sub/b"]:
        (pkg / f"{name}.py").write_text("")
    files = sorted(pkg.rglob("*.py"))
    assert folders_over(files, tmp_path) == []
    (pkg / "__main__.py").write_text("")
    assert folders_over(sorted(pkg.rglob("*.py")), tmp_path) == ["pkg: 16 modules"]


# Folders of strategies (one leaf per plan kind or per family of ops): a leaf imports the folder's shared
# helpers and lower layers, never another leaf; the folder's __init__ is the hub that wires them.
LEAF_FOLDERS = {"mtiacc.codegen.memory": {"common"}, "mtiacc.codegen.tensor": {"axes"}}


@pytest.mark.parametrize("folder", sorted(LEAF_FOLDERS))
def test_strategies_never_import_each_other(folder):
    graph = import_graph()
    helpers = {f"{folder}.{h}" for h in LEAF_FOLDERS[folder]}
    bad = [f"{m} imports {d}" for m in sorted(graph) if m.startswith(folder + ".") and m not in helpers
           for d in sorted(graph[m]) if d.startswith(folder + ".") and d not in helpers]
    assert not bad, "\n".join(bad)


# --- one machine description ------------------------------------------------------------------------------------

MACHINE_PACKAGE = ROOT / "mtiacc" / "machine"


def _outside_machine_package():
    return [p for p in _source_files() if MACHINE_PACKAGE not in p.parents]


def yaml_reads(path: Path):
    """(line, what) of each use of the YAML library in ``path``: importing it or reaching into it."""
    for node in _nodes(path)[1]:
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "yaml" for a in node.names):
            yield node.lineno, "import yaml"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "yaml":
            yield node.lineno, f"from {node.module} import"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "yaml":
            yield node.lineno, f"yaml.{node.attr}"


def test_only_the_machine_package_reads_yaml():
    """The machine is read in one place (mtiacc/machine/), against one schema: nothing else parses YAML."""
    bad = [f"{p.relative_to(ROOT)}:{line}: {what}" for p in _outside_machine_package() for line, what in yaml_reads(p)]
    assert not bad, "\n".join(bad)


def machine_file_names(path: Path):
    """(line, text) of each string in ``path`` (docstrings aside) naming a YAML file."""
    import re
    nodes = _nodes(path)[1]
    docs = {id(n.body[0].value) for n in nodes
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and re.search(r"\w\.ya?ml\b|configs/", node.value):
            yield node.lineno, node.value


def test_machine_files_live_in_the_machine_package():
    """The YAML files are in mtiacc/machine/ and only its code names them (the rest asks mtiacc.machine)."""
    stray = [str(p.relative_to(ROOT)) for top in ("mtiacc", "mtiasim") for p in (ROOT / top).rglob("*.y*ml")
             if MACHINE_PACKAGE not in p.parents]
    assert not stray, "machine files outside mtiacc/machine/: " + ", ".join(stray)
    bad = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p in _outside_machine_package()
           for line, text in machine_file_names(p)]
    assert not bad, "\n".join(bad)


def test_the_yaml_checks_find_a_reader(tmp_path):
    """The two checks above fail on the readers this project had (an ad hoc read of the simulator's file)."""
    f = tmp_path / "driver.py"
    f.write_text('"""Reads mtia2i.yaml."""\nimport yaml\ncfg = yaml.safe_load(open("configs/mtia2i.yaml"))\n')
    assert [w for _, w in yaml_reads(f)] == ["import yaml", "yaml.safe_load"]
    assert [t for _, t in machine_file_names(f)] == ["configs/mtia2i.yaml"]


def _size_literals(path: Path):
    """(line, name, value) for a local-memory size written into a pass: an integer of at least 4096 that is a
    multiple of 1024, assigned (or given as a field's default) to a name about local memory or a budget."""
    words = ("lmem", "budget", "local_memory", "local_mem")
    for node in _nodes(path)[1]:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.keyword) and node.arg:
            targets, value = [ast.Name(node.arg)], node.value
        else:
            continue
        names = [t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else "" for t in targets]
        ints = [n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and type(n.value) is int]
        for name in names:
            if any(w in name.lower() for w in words):
                for v in ints:
                    if v >= 4096 and v % 1024 == 0:
                        yield node.lineno, name, v


def test_no_local_memory_size_written_into_a_pass():
    """Passes ask the local-memory plan (mtiacc/opt/memory/plan.py, sized from the target) what fits."""
    bad = [f"{path.relative_to(ROOT)}:{line}: {name} = {value}"
           for path in sorted((ROOT / "mtiacc" / "opt").rglob("*.py")) for line, name, value in _size_literals(path)]
    assert not bad, "\n".join(bad)


def test_the_size_check_finds_a_budget_literal(tmp_path):
    f = tmp_path / "p.py"
    f.write_text("class P:\n    budget: int = 65536\n    lmem_bytes = 3 * 65536\n    rows: int = 8192\n"
                 "    step = 4096\n    budget_share = 3\n")
    assert [(n, v) for _, n, v in _size_literals(f)] == [("budget", 65536), ("lmem_bytes", 65536)]


GRID_GRAMMAR = ROOT / "mtiacc" / "asm" / "gridexpr.py"


def grid_grammar_words(path: Path):
    """(line, text) of each string in ``path`` (docstrings aside) naming a grid function (``cdiv``, ``min``,
    ``max``), when the module parses text (imports ``ast`` or ``re``): the marks of a grid-expression parser."""
    import re
    nodes = _nodes(path)[1]
    parses = any(isinstance(n, ast.Import) and any(a.name in ("ast", "re") for a in n.names) for n in nodes)
    if not parses:
        return
    docs = {id(n.body[0].value) for n in nodes
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and re.fullmatch(r"(?:\w+\.)?cdiv", node.value):
            yield node.lineno, node.value


def test_one_grid_expression_parser():
    """The compiler's --grid check and the simulator's evaluation share mtiacc/asm/gridexpr.py (where mtiasim may
    import it); no other module of either parses the grammar. The frontend's ``triton.cdiv`` is Triton's language
    function inside a kernel, not a grid."""
    frontend = ROOT / "mtiacc" / "frontend"
    bad = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p in _source_files()
           if p != GRID_GRAMMAR and frontend not in p.parents for line, text in grid_grammar_words(p)]
    assert not bad, "\n".join(bad)
    assert list(grid_grammar_words(GRID_GRAMMAR))
    for user in (ROOT / "mtiacc" / "driver.py", ROOT / "mtiasim" / "runner.py", ROOT / "mtiasim" / "cli.py"):
        assert "mtiacc.asm.gridexpr" in {m for m, _ in imports_of(user)}, user


def test_the_grid_check_finds_a_second_parser(tmp_path):
    """The simulator's own evaluator this project had (mtiasim/gridexpr.py) is found."""
    f = tmp_path / "gridexpr.py"
    f.write_text('"""Evaluates cdiv(n, BLOCK)."""\nimport ast\n\n\ndef _cdiv(a, b):\n    return -(-a // b)\n\n\n'
                 '_FUNCS = {"cdiv": _cdiv, "min": min, "max": max}\n')
    assert list(grid_grammar_words(f)) == [(9, "cdiv")]
