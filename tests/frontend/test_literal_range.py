"""A Python integer meeting a run-time integer must fit the computation type (Triton 3.9's check in
binary_op_type_checking_impl), and a negative one cannot meet an unsigned type; the error points at the
expression.  Bit patterns that fit (``x_u32 & 0xFFFFFFFF``, ``x_i32 * 2147483647``) are accepted, and
``-b`` of an int1 block stays int1 (Triton subtracts from a 0 of the operand's type)."""
import pytest

from mtiacc.frontend import compile_file

from .conftest import line_of
from .test_errors import check

KERNEL = """
@triton.jit
def k(X, Out):
    offs = tl.arange(0, 4)
    x = tl.load(X + offs)
    tl.store(Out + offs, {expr})
"""


@pytest.mark.parametrize("ptr, expr, message", [
    ("*i32", "x * 3000000000", "constant 3000000000 is out of range for i32"),
    ("*i32", "x + -2147483649", "constant -2147483649 is out of range for i32"),
    ("*i64", "x - 9223372036854775808", "constant 9223372036854775808 is out of range for i64"),
    ("*i8", "x < 200", "constant 200 is out of range for i8"),
    ("*u16", "tl.where(x > 1, x, 70000)", "constant 70000 is out of range for u16"),
    ("*u8", "tl.maximum(x, -1)", "cannot combine the negative constant -1 with an unsigned u8 value"),
    ("*u32", "x & -1", "cannot combine the negative constant -1 with an unsigned u32 value"),
])
def test_literal_out_of_range(kernels, ptr, expr, message):
    err = kernels.error(KERNEL.format(expr=expr), signature=f"{ptr},{ptr}")
    line = line_of(err.path, expr)
    col = open(err.path).read().splitlines()[line - 1].index(expr) + 1
    rendered = err.render().splitlines()
    assert rendered[0].startswith(f"{err.path}:{line}:{col}: error: {message}")
    assert rendered[2].strip().startswith("^") and "Traceback" not in err.render()


def test_augmented_assignment_is_checked(kernels):
    err = kernels.error("""
        @triton.jit
        def k(X):
            x = tl.load(X)
            x += 300
            tl.store(X, x)
        """, signature="*i8")
    check(err, "x += 300", 5, "constant 300 is out of range for i8", "    ^~~~~~~~")


@pytest.mark.parametrize("ptr, expr", [("*u32", "x & 4294967295"), ("*i32", "x * 2147483647"),
                                       ("*i32", "x + -2147483648"), ("*u8", "x + 255"), ("*u64", "x | 2**64 - 1")])
def test_literals_that_fit_are_accepted(kernels, ptr, expr):
    kernels.compile(KERNEL.format(expr=expr), signature=f"{ptr},{ptr}")


def test_negating_a_bool_block_keeps_int1(kernels):
    kernels.compile("""
        @triton.jit
        def k(X, Out):
            m = tl.load(X + tl.arange(0, 4)) > 0
            tl.static_assert((-m).dtype == tl.int1)
            tl.store(Out + tl.arange(0, 4), (-m).to(tl.int32))
        """, signature="*fp32,*i32")
