"""User errors: each points at the construct (file:line:col), says what is wrong, and underlines it."""
import ast

import pytest

from mtiacc.frontend import compile_file
from mtiacc.frontend.visitor import expressions

from .conftest import line_of


def check(err, line_text: str, col: int, message: str, caret: str):
    """The rendered diagnostic: location, message, the source line, and the caret run under it."""
    line = line_of(err.path, line_text)
    rendered = err.render().splitlines()
    assert rendered[0] == f"{err.path}:{line}:{col}: error: {message}"
    assert rendered[1] == open(err.path, encoding="utf-8").read().splitlines()[line - 1]
    assert rendered[2] == caret
    assert "Traceback" not in err.render() and "mtiacc/" not in err.render()


def test_missing_constexpr_value(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X, BLOCK_SIZE: tl.constexpr):
            tl.store(X + tl.arange(0, BLOCK_SIZE), 1.0)
        """)
    check(err, "def k(", 10, "constexpr 'BLOCK_SIZE' has no value; pass it with -D BLOCK_SIZE=<value>",
          "         ^~~~~~~~~~~~~~~~~~~~~~~~")


def test_unknown_kernel_lists_the_available_ones(kernels):
    path = kernels.write("""
        @triton.jit
        def first(X):
            pass

        @triton.jit
        def second(X):
            pass
        """)
    with pytest.raises(Exception) as info:
        compile_file(path, kernel="third")
    assert info.value.message == f"{path} has no @triton.jit function 'third'; available: first, second"


def test_several_kernels_need_kernel_option(kernels):
    err = kernels.error("""
        @triton.jit
        def first(X):
            pass

        def helper():  # not a kernel
            pass

        @triton.jit
        def second(X):
            pass
        """)
    assert "several @triton.jit functions (first, second); choose one with --kernel" in err.message


def test_the_kernel_beside_its_helpers_is_chosen(kernels):
    result = kernels.compile("""
        @triton.jit
        def add_one(x):
            return x + 1

        @triton.jit
        def combine(a, b):
            return a + b

        @triton.jit
        def kernel(X):
            x = tl.load(X + tl.arange(0, 4))
            tl.store(X + tl.arange(0, 4), add_one(x))
            tl.store(X, tl.reduce(x, 0, combine))
        """, signature="*fp32")
    assert result.kernel == "kernel"


def test_several_kernels_beside_a_shared_helper_are_listed(kernels):
    err = kernels.error("""
        @triton.jit
        def helper(x):
            return x * 2

        @triton.jit
        def first(X):
            tl.store(X, helper(tl.load(X)))

        @triton.jit
        def second(X):
            tl.store(X, helper(tl.load(X)))
        """)
    assert "several @triton.jit functions (first, second); choose one with --kernel" in err.message


def test_no_kernel_at_all(kernels):
    err = kernels.error("def f():\n    pass\n")
    assert "no @triton.jit function found" in err.message


def test_syntax_error(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            x = tl.load(X +* 1)
        """)
    check(err, "x = tl.load", 20, "invalid Python syntax: invalid syntax", "                   ^")


def test_unsupported_statement(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X, N):
            for i in range(N):
                tl.store(X + i, 0.0)
                continue
        """)
    check(err, "continue", 9, "`continue` is not supported yet (Triton does not support it either); "
          "use a `while` loop with a condition", "        ^~~~~~~~")


def test_while_and_runtime_if(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X, N):
            if tl.arange(0, 4) > 0:
                tl.store(X, 1.0)
        """)
    assert err.message.startswith("the condition of `if` must be a scalar, got a block (tensor<4xi1>)")
    assert err.loc.line == line_of(err.path, "if tl") and err.loc.col == 5


def test_unsupported_tl_function(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            offs = tl.arange(0, 16)
            x = tl.load(X + offs)
            y = tl.inline_asm_elementwise(X + offs, x)
        """)
    check(err, "tl.inline_asm_elementwise", 9, "`tl.inline_asm_elementwise` is not supported yet",
          "        ^" + "~" * (len("tl.inline_asm_elementwise") - 1))


def test_undefined_name(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            tl.store(X, foo + 1.0)
        """)
    check(err, "foo", 17, "undefined name 'foo'", "                ^~~")


def test_columns_are_characters_not_bytes(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            é = tl.void
        """)
    check(err, "é =", 9, "`tl.void` is not supported yet", "        ^~~~~~~")


def test_type_error_points_at_the_expression(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            x = tl.load(X + tl.arange(0, 8))
            y = x // 2.0
        """)
    check(err, "y = x", 9, "`//` needs integer operands, got f32", "        ^~~~~~~~")


def test_signature_count_mismatch(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X, Y, N, BLOCK: tl.constexpr = 4):
            pass
        """, signature="*fp32, i32")
    assert err.message == ("the signature has 2 entries but kernel 'k' has 3 non-constexpr parameters "
                           "(X, Y, N)")


def test_signature_unknown_type(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X, N):
            pass
        """, signature="*fp33, i32")
    assert err.message.startswith("signature entry 1 ('*fp33') for parameter 'X': unknown type 'fp33'")


def test_bad_define(kernels):
    body = """
        @triton.jit
        def k(X, B: tl.constexpr):
            pass
        """
    assert kernels.error(body, defines={"B": "abc"}).message == \
        "-D B=abc: expected an int, float, bool or string literal, a tuple of those, or a type (tl.float16, fp16); " \
        "a string is quoted: -D B='\"abc\"'"
    err = kernels.error(body, defines={"B": "4", "C": "1"})
    assert err.message == "-D C: kernel 'k' has no constexpr parameter 'C' (its constexpr parameters: B)"


@pytest.mark.parametrize("code, message", [
    ("return 1", "a kernel cannot return a value"),
    ("x = N and N", "`and` on run-time values needs booleans (i1), got a value of type i32; compare it first "
                    "(`x != 0`)"),
    ("x = helper(N, 1)", "helper() takes 1 positional arguments but 2 were given"),
    ("x = plain(N)", "'plain' is a plain Python function; a kernel can only call triton.language functions"),
    ("x = int(N)", "the Python builtin `int` needs a compile-time constant, got a value of type i32"),
    ("x = sorted(N)", "the Python builtin `sorted` is not supported in a kernel yet"),
    ("x = len(N)", "len() needs a tuple known at compile time (blocks have no len() in Triton; use x.shape[0]), "
                   "got a value of type i32"),
    ("x = np.zeros(3)", "module 'numpy' cannot be used inside a kernel"),
    ("x = SHAPE + 1", "global 'SHAPE' is not a compile-time constant; a kernel may only use constant globals"),
    ("x = tl.arange(0, 10)", "tl.arange's length (end - start) must be a power of two, got 10"),
    ("x = tl.arange(0, N)", "tl.arange's end must be a constexpr integer, got a value of type i32"),
    ("x = tl.program_id(3)", "the axis must be 0, 1 or 2, got 3"),
    ("x = tl.load(X, mask=N)", "the mask must be a boolean (i1) value, got i32"),
    ("x = tl.load(X, other=0.0)", "`other` cannot be provided without `mask`"),
    ("x = tl.load(N)", "tl.load needs a pointer or a block of pointers, got a value of type i32"),
    ("x = tl.load(X, foo=1)", "tl.load(): got an unexpected keyword argument 'foo'"),
    ("x = X * 2", "`*` is not defined for pointers"),
    ("x = X + X", "cannot add two pointers"),
    ("x = N[0]", "indexing and slicing (`x[...]`) are not supported yet"),
    ("x = [i for i in N]", "list comprehensions are not supported yet"),
    ("x = N.T", "`N.T` is not supported yet (values have no attribute 'T' here)"),
    ("x = 1 // 0", "division by zero in a constant expression"),
    ("x = tl.full((3,), 0, tl.float32)", "block dimensions must be powers of two, got 3"),
    ("x = tl.arange(0, 4) + tl.arange(0, 8)", "incompatible shapes [4] and [8]"),
    ("x = N < N < N", "chained comparisons on run-time values are not supported yet; combine single "
                      "comparisons with `&`"),
    ("x = N if tl.arange(0, 4) else 0", "the condition of a conditional expression must be a scalar, got a "
                                        "block (tensor<4xi32>); use tl.where for blocks"),
    ("x = tl.store(X, tl.arange(0, 4))", "the stored value cannot be a block when the pointer is a scalar"),
    ("while N:\n                break", "`break` is not supported yet (Triton does not support it either); "
                                      "use a `while` loop with a condition"),
    ("with N:\n                pass", "`with` statements are not supported yet"),
    ("assert N", "`assert` statements are not supported yet"),
    ("x = (3).to(tl.int8)", "the constant 3 has no attribute 'to'"),
    ("x = tl.float32(3)", "`tl.float32` is a data type, which cannot be called"),
])
def test_error_messages(kernels, code, message):
    header = "import numpy as np\nimport triton\nimport triton.language as tl\nSHAPE = np.zeros(3)\n\n\n"
    err = kernels.error(f"""
        @triton.jit
        def helper(x):
            return x

        def plain(x):
            return x

        @triton.jit
        def k(X: tl.pointer_type(tl.float32), N: tl.int32):
            {code}
        """, header=header, kernel="k")
    assert err.message == message
    assert err.loc is not None and err.loc.line >= line_of(err.path, "def k(") + 1


def test_internal_errors_are_reported_at_the_users_code(kernels, monkeypatch):
    def broken(ctx, node):
        raise KeyError("oops")
    monkeypatch.setitem(__import__("mtiacc.frontend.visitor.lowering", fromlist=["HANDLERS"]).HANDLERS,
                        ast.BinOp, broken)
    err = kernels.error("""
        @triton.jit
        def k(X):
            tl.store(X, 1.0 + 2.0)
        """)
    check(err, "1.0 + 2.0", 17, "internal compiler error: KeyError: 'oops'", "                ^~~~~~~~~")
    assert expressions.HANDLERS[ast.BinOp] is expressions.binop  # the patch touched only the table
