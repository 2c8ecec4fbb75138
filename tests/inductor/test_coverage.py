"""What the installed torch's Inductor can put in a kernel, against what mtiacc implements and tests:
every function of torch/_inductor/runtime/triton_helpers.py, and every ``libdevice.*`` / ``tl_math.*``
name its Triton code generator emits.  torch's files are read as text (never imported); without
torch these are skipped.  After a torch upgrade a failure lists what is new."""
import ast
import importlib.util
import re
from pathlib import Path

import pytest

from mtiacc.frontend.inductor.runtime import MODULES, PACKAGE
from mtiacc.frontend.language import math as tl_math
from mtiacc.frontend.values import HelperRef
from mtiacc.frontend.visitor.imports import Importer
from tests.inductor.test_math import CASES

HERE = Path(__file__).resolve().parent
_spec = importlib.util.find_spec("torch")
TORCH = Path(_spec.origin).parent if _spec is not None and _spec.origin else None
pytestmark = pytest.mark.skipif(TORCH is None or not (TORCH / "_inductor").is_dir(), reason="torch is not installed")


def _torch_helpers():
    """{name: how torch defines it}: "jit" (@triton.jit), "builtin" (@triton_builtin, evaluated while
    compiling) or "host" (plain Python)."""
    tree = ast.parse((TORCH / "_inductor/runtime/triton_helpers.py").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            decos = {ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
            out[node.name] = "jit" if decos & {"triton.jit", "jit"} else \
                "builtin" if "triton_builtin" in decos else "host"
    return out


def _emitted_math_names():
    """{"libdevice.exp", "tl_math.abs", ...}: the calls the code generator writes, and the float64 ops it
    routes to libdevice (lowering.py's register_pointwise_numeric_ldf64; sigmoid is decomposed instead)."""
    names = set()
    for f in (TORCH / "_inductor/codegen").glob("*.py"):
        names |= {f"{m}.{n}" for m, n in re.findall(r"\b(libdevice|tl_math)\.([a-z_0-9]+)\(", f.read_text())}
    fp64 = re.findall(r"register_pointwise_numeric_ldf64\(aten\.([a-z_0-9]+)\)",
                      (TORCH / "_inductor/lowering.py").read_text())
    return names | {f"libdevice.{n}" for n in fp64 if n != "sigmoid"}


def test_every_triton_helpers_function_is_ours():
    ours = Importer(str(HERE)).find(f"{PACKAGE}.triton_helpers")
    assert ours is not None and ours.path == MODULES[f"{PACKAGE}.triton_helpers"]
    missing, not_jit = [], []
    for name, kind in _torch_helpers().items():
        v = ours.member(name)
        if v is None:
            missing.append(name)
        elif kind != "host" and not isinstance(v, HelperRef):
            not_jit.append(name)
    assert not missing, f"triton_helpers functions mtiacc lacks: {missing}"
    assert not not_jit, f"triton_helpers functions a kernel calls, not @triton.jit in mtiacc's: {not_jit}"


def test_every_public_triton_helpers_function_is_tested():
    tests = "\n".join(p.read_text() for p in HERE.parent.rglob("*.py"))
    untested = [n for n, kind in _torch_helpers().items()
                if kind != "host" and not n.startswith("_") and f"triton_helpers.{n}(" not in tests]
    assert not untested, f"triton_helpers functions no test kernel calls: {untested}"


def test_every_emitted_math_name_is_implemented_and_tested():
    emitted = _emitted_math_names()
    assert "libdevice.exp" in emitted and "tl_math.abs" in emitted      # the scan itself works
    tables = {"libdevice": tl_math.LIBDEVICE, "tl_math": tl_math.MATH}
    missing = sorted(n for n in emitted if n.split(".")[1] not in tables[n.split(".")[0]])
    assert not missing, f"math names Inductor emits that mtiacc lacks: {missing}"
    untested = sorted(n for n in emitted if (n.split(".")[1] if n.startswith("libdevice.") else n) not in CASES)
    assert not untested, f"math names Inductor emits with no differential test in test_math.py: {untested}"
