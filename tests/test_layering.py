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
    "mtiasim": {"mtiacc.diagnostics", "mtiacc.asm"},
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
