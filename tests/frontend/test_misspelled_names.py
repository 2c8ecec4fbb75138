"""A name that does not exist says so, with the nearest names; a Triton name we lack is "not supported yet"; a
misspelled ``-D`` is named with its nearest constexpr parameter."""
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiacc.frontend.language.exports import TL_EXPORTS

KERNEL = """import triton
import triton.language as tl


@triton.jit
def k(X, BLOCK_SIZE: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK_SIZE))
    tl.store(X + tl.arange(0, BLOCK_SIZE), {expr})
"""


def _error(tmp_path, expr, defines=None):
    src = tmp_path / "k.py"
    src.write_text(KERNEL.format(expr=expr))
    with pytest.raises(CompileError) as e:
        compile_kernel(str(src), Options(signature="*fp32", defines=defines or {"BLOCK_SIZE": "16"}))
    return e.value, str(src)


@pytest.mark.parametrize("expr, message", [
    ("x + tl.arnge(0, BLOCK_SIZE)", "`tl.arnge` does not exist; did you mean `tl.arange`?"),
    ("tl.maximun(x, x)", "`tl.maximun` does not exist; did you mean `tl.maximum`?"),
    ("tl.sigmod(x)", "`tl.sigmod` does not exist; did you mean `tl.sigmoid`?"),
    ("tl.frobnicate(x)", "`tl.frobnicate` does not exist (`tl` has no such name)"),
    ("x + triton.cdvi(4, 2)", "`triton.cdvi` does not exist; did you mean `triton.cdiv`?"),
    ("x + tl.random.randnt(1, 0)", "`tl.random.randnt` does not exist; did you mean `tl.random.randint` or "
                                   "`tl.random.randn`?"),
])
def test_a_name_that_does_not_exist(tmp_path, expr, message):
    err, path = _error(tmp_path, expr)
    assert err.message == message
    spelled = message.split("`")[1]
    col = KERNEL.splitlines()[7].index("{expr}") + expr.index(spelled) + 1
    assert (err.loc.file, err.loc.line, err.loc.col) == (path, 8, col)
    assert err.render().splitlines()[0] == f"{path}:8:{col}: error: {message}"


def test_a_triton_name_we_lack_is_not_supported_yet(tmp_path):
    assert "bitonic_merge" in TL_EXPORTS
    err, _ = _error(tmp_path, "tl.bitonic_merge(x, 0, 1)")
    assert err.message.startswith("`tl.bitonic_merge` is not supported yet"), err.message
    assert "does not exist" not in err.message
    assert err.loc.line == 8


def test_a_misspelled_define_names_the_nearest_constexpr(tmp_path):
    err, path = _error(tmp_path, "x", defines={"BLOCKSIZE": "256"})
    assert err.message == ("-D BLOCKSIZE: kernel 'k' has no constexpr parameter 'BLOCKSIZE'; did you mean "
                           "`BLOCK_SIZE`? (-D BLOCK_SIZE=256)")
    assert (err.loc.line, err.loc.col) == (6, 10)       # the parameter it meant
    assert err.notes == ["its constexpr parameters: BLOCK_SIZE"]


def test_the_frontend_does_not_import_triton():
    import subprocess
    import sys
    code = ("import sys, mtiacc.frontend.language as L; from mtiacc.driver import compile_kernel; "
            "assert 'triton' not in sys.modules, sorted(m for m in sys.modules if m.startswith('triton'))")
    subprocess.run([sys.executable, "-c", code], check=True)
