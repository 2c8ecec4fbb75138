"""docs/language.md's table of triton.language names agrees with the frontend."""
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiacc.frontend.language import tl_names
from mtiacc.frontend.language import LANGUAGE
from mtiacc.frontend.language.dot import NOT_ON_THIS_TARGET

ALL = [n for names in tl_names.TL_NAMES.values() for n in names]
UNSUPPORTED = [n for n in ALL if not tl_names.supported(n)]


def test_document_is_current():
    text = tl_names.DOC.read_text()
    assert tl_names.updated(text) == text, "run: python -m mtiacc.frontend.language.tl_names --write"


def test_names_are_listed_once():
    assert len(ALL) == len(set(ALL))


@pytest.mark.parametrize("name", [n for n in ALL if tl_names.supported(n)])
def test_supported_names_have_a_meaning(name):
    assert LANGUAGE[name] is not None


@pytest.mark.parametrize("name", UNSUPPORTED)
def test_unsupported_names_are_reported_where_used(tmp_path, name):
    src = tmp_path / "k.py"
    src.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(X):\n"
                   f"    y = tl.{name}\n")
    with pytest.raises(CompileError) as e:
        compile_kernel(str(src), Options(signature="*fp32"))
    if name in NOT_ON_THIS_TARGET:   # a name this target will never support says why
        assert str(e.value).startswith(f"`tl.{name}`") and "is not supported on this target" in str(e.value)
    else:
        assert f"`tl.{name}` is not supported yet" in str(e.value)
    assert e.value.loc is not None and e.value.loc.line == 7 and e.value.loc.col == 9


def test_libdevice_aliases_resolve_without_imports(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import triton\nimport triton.language as tl\n"
                   "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\n\n\n"
                   "@triton.jit\ndef k(X):\n    x = tl.load(X + tl.arange(0, 16))\n"
                   "    tl.store(X + tl.arange(0, 16), libdevice.jn(tl_math.exp(x)))\n")
    with pytest.raises(CompileError) as e:
        compile_kernel(str(src), Options(signature="*fp32"))
    assert "`libdevice.jn` is not supported yet" in str(e.value)
    assert e.value.loc.line == 9
