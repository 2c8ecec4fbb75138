"""Data flows one way: each layer imports only the layers below it (checked on the source)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# layer -> packages it may import (besides itself, the standard library and third-party packages)
ALLOWED = {
    "mtiacc.ir": {"mtiacc.diagnostics"},
    "mtiacc.frontend": {"mtiacc.diagnostics", "mtiacc.ir"},
    "mtiacc.opt": {"mtiacc.diagnostics", "mtiacc.ir"},
    "mtiacc.codegen": {"mtiacc.diagnostics", "mtiacc.ir", "mtiacc.target"},
    "mtiacc.asm": {"mtiacc.diagnostics"},
    "mtiasim": {"mtiacc.diagnostics", "mtiacc.files", "mtiacc.asm"},
    # the Python API sits above the compiler and the simulator
    "mtiacc.runtime": {"mtiacc.diagnostics", "mtiacc.driver", "mtiacc.frontend", "mtiasim"},
    # the Triton backend (loaded by Triton through its entry point) sits on top of everything
    "mtiacc.triton_backend": {"mtiacc.runtime", "mtiacc.driver", "mtiacc.diagnostics", "mtiasim"},
    # torch.compile's backend (loaded by torch through its entry point) drives Inductor onto the Triton backend
    "mtiacc.torch_backend": {"mtiacc.triton_backend", "mtiacc.runtime", "mtiasim"},
}


def imports_of(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
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


def import_graph():
    """module -> the project modules it imports, function-local imports included.

    ``from pkg import name`` counts as importing ``pkg.name`` when that is a module, else ``pkg``;
    a package's ``__init__`` is the module named after the package."""
    files = {_module_name(p): p for top in ("mtiacc", "mtiasim") for p in (ROOT / top).rglob("*.py")}
    graph = {}
    for mod, path in files.items():
        is_pkg = path.name == "__init__.py"
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
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


def test_no_folder_over_15_modules():
    folders = {p.parent for p in _source_files()}
    big = [f"{d.relative_to(ROOT)}: {n} modules" for d in sorted(folders)
           if (n := len([p for p in d.glob("*.py") if p.name not in ("__init__.py", "__main__.py")])) > 15]
    assert not big, "\n".join(big)


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
