"""Python's ``+`` and ``*`` on lists and tuples known at compile time, in a kernel (shapes such as
``[2] * (RANK - 2) + [32, 32]``), and the error for other operators."""
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.ir.text.printer import print_ir


@pytest.mark.parametrize("expr, message", [
    ("[2] + 3", "`+` between the list or tuple [2] and the constant 3 is not supported"),
    ("[2] * 1.5", "`*` between the list or tuple [2] and the constant 1.5 is not supported"),
    ("[2] - [3]", "`-` between the list or tuple [2] and the list or tuple [3] is not supported: a list or tuple "
                  "takes `+` with another and `*` with a constant integer"),
])
def test_list_arithmetic_errors(kernels, expr, message):
    with pytest.raises(CompileError) as info:
        kernels.compile(f"@triton.jit\ndef k(X):\n    s = {expr}\n    tl.store(X, 1.0)\n", signature="*fp32")
    assert message in str(info.value) and (info.value.loc.line, info.value.loc.col) == (7, 9)   # after the header


def test_list_arithmetic_builds_shapes(kernels):
    module = kernels.compile("""
@triton.jit
def k(X, R: tl.constexpr):
    x = tl.load(X + tl.arange(0, 64)).reshape(2 * [2] + [4] * (R - 1) + (4,))
    tl.store(X + tl.arange(0, 64), tl.trans(x).reshape([64]))
""", signature="*fp32", defines={"R": "2"}).module
    assert "-> tensor<2x2x4x4xf32>" in print_ir(module) and "tt.trans" in print_ir(module)
