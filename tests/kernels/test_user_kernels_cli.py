"""Things kernel authors run into at the command line (found writing tests/kernels/user_kernels*.py):
string constexprs (`ACTIVATION: tl.constexpr = "leaky_relu"`, as Triton's matmul tutorial has them)."""
import numpy as np
import pytest

from mtiacc.cli import main
from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

ACT_KERNEL = '''import triton
import triton.language as tl


@triton.jit
def _act(x, ACT: tl.constexpr):
    if ACT == "leaky_relu":
        return tl.where(x >= 0, x, 0.01 * x)
    elif ACT == "relu":
        return tl.maximum(x, 0.0)
    return x


@triton.jit
def k(X, Y, ACTIVATION: tl.constexpr = "leaky_relu"):
    offs = tl.arange(0, 8)
    tl.store(Y + offs, _act(tl.load(X + offs), ACTIVATION))
'''


@pytest.mark.parametrize("define, want", [(None, "leaky_relu"), ('"relu"', "relu"), ("'none'", "none")])
def test_string_constexpr_default_and_define(tmp_path, define, want):
    src = tmp_path / "act.py"
    src.write_text(ACT_KERNEL)
    defines = {} if define is None else {"ACTIVATION": define}
    res = compile_kernel(str(src), Options(kernel="k", signature="*fp32,*fp32", defines=defines))
    (tmp_path / "k.bin").write_bytes(res.binary)
    x = np.linspace(-4, 3, 8).astype(np.float32)
    y = run(str(tmp_path / "k.bin"), {"X": x, "Y": np.zeros(8, np.float32)}, grid=(1,)).outputs["Y"]
    expect = {"leaky_relu": np.where(x >= 0, x, np.float32(0.01) * x), "relu": np.maximum(x, 0), "none": x}[want]
    np.testing.assert_array_equal(y, expect)


def test_unquoted_string_define_says_how_to_quote(tmp_path):
    src = tmp_path / "act.py"
    src.write_text(ACT_KERNEL)
    with pytest.raises(CompileError) as info:
        compile_kernel(str(src), Options(kernel="k", signature="*fp32,*fp32", defines={"ACTIVATION": "relu"}))
    assert info.value.message == ("-D ACTIVATION=relu: expected an int, float, bool or string literal, a tuple "
                                  "of those, or a type (tl.float16, fp16); a string is quoted: "
                                  "-D ACTIVATION='\"relu\"'")


def test_string_define_through_the_cli(tmp_path, capsys):
    src = tmp_path / "act.py"
    src.write_text(ACT_KERNEL)
    with pytest.raises(SystemExit) as e:
        main([str(src), "--kernel", "k", "--signature", "*fp32,*fp32", "-D", 'ACTIVATION="relu"', "--emit=ir"])
    out = capsys.readouterr().out
    assert e.value.code in (0, None)
    assert "arith.maxnumf" in out or "arith.maximumf" in out
    assert "arith.select" not in out


SCOPE_CASES = {
    "then": ("    if n > 3:\n        z = tl.load(X)\n    tl.store(Y, z)\n",
             "'z' is not defined here: it is assigned only in the then branch of the `if` at line 6; assign it "
             "before the `if` or in both branches", "z"),
    "else": ("    if n > 3:\n        pass\n    else:\n        z = tl.load(X)\n    tl.store(Y, z)\n",
             "'z' is not defined here: it is assigned only in the else branch of the `if` at line 6; assign it "
             "before the `if` or in both branches", "z"),
    "for": ("    for i in range(n):\n        z = tl.load(X + i)\n    tl.store(Y, z)\n",
            "'z' is not defined here: it is first assigned inside the loop at line 6, and a value a loop body "
            "creates is not visible after the loop; assign it before the loop", "z"),
    "while": ("    i = 0\n    while i < n:\n        z = tl.load(X + i)\n        i += 1\n    tl.store(Y, z)\n",
              "'z' is not defined here: it is first assigned inside the loop at line 7, and a value a loop body "
              "creates is not visible after the loop; assign it before the loop", "z"),
}


@pytest.mark.parametrize("case", sorted(SCOPE_CASES))
def test_name_bound_in_a_branch_or_loop_only(tmp_path, case):
    """The error names the `if` or loop that bound the name (it used to be a bare "undefined name")."""
    body, message, _ = SCOPE_CASES[case]
    src = tmp_path / "k.py"
    text = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(X, Y, n):\n" + body
    src.write_text(text)
    with pytest.raises(CompileError) as info:
        compile_kernel(str(src), Options(kernel="k", signature="*fp32,*fp32,i32"))
    lines = info.value.render().splitlines()
    last = text.splitlines()[-1]
    assert lines[0] == f"{src}:{len(text.splitlines())}:{last.index('z') + 1}: error: {message}"
    assert lines[1] == last


def test_name_rebound_after_a_branch_is_fine(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(X, Y, n):\n"
                   "    if n > 3:\n        z = tl.load(X)\n    z = 2.0\n    tl.store(Y, z)\n")
    res = compile_kernel(str(src), Options(kernel="k", signature="*fp32,*fp32,i32"))
    (tmp_path / "k.bin").write_bytes(res.binary)
    y = run(str(tmp_path / "k.bin"), {"X": np.ones(1, np.float32), "Y": np.zeros(1, np.float32),
                                      "n": np.array(5, np.int32)}, grid=(1,)).outputs["Y"]
    assert y[0] == 2.0


@pytest.mark.parametrize("with_init", [True, False])
def test_from_dot_import_module(tmp_path, with_init):
    """`from . import ops` and `from .pkg import ops as O` bind the module (a package with or without
    __init__.py); `O.f(x)` calls its @triton.jit function."""
    (tmp_path / "pkg").mkdir()
    if with_init:
        (tmp_path / "__init__.py").write_text("")
        (tmp_path / "pkg" / "__init__.py").write_text("")
    helper = "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef f(x, s=2.0):\n    return x * s\n"
    (tmp_path / "ops.py").write_text(helper)
    (tmp_path / "pkg" / "ops2.py").write_text(helper.replace("x * s", "x + s"))
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\nfrom . import ops\nfrom .pkg import ops2 as O\n\n\n"
        "@triton.jit\ndef k(X, Y):\n    offs = tl.arange(0, 8)\n"
        "    tl.store(Y + offs, O.f(ops.f(tl.load(X + offs)), s=0.5))\n")
    res = compile_kernel(str(tmp_path / "k.py"), Options(kernel="k", signature="*fp32,*fp32"))
    (tmp_path / "k.bin").write_bytes(res.binary)
    x = np.arange(8, dtype=np.float32)
    y = run(str(tmp_path / "k.bin"), {"X": x, "Y": np.zeros(8, np.float32)}, grid=(1,)).outputs["Y"]
    np.testing.assert_array_equal(y, x * 2 + 0.5)
