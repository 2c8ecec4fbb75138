"""``getattr(x, NAME[, default])`` and ``hasattr(x, NAME)`` in a kernel: the attribute ``x.NAME`` with a
compile-time name (a string constant or a constexpr), and their errors at the call."""
import pytest

from mtiacc.ir.text.printer import print_ir


def test_getattr_names_language_functions_and_members(kernels):
    r = kernels.compile("""
        @triton.jit
        def k(X, F: tl.constexpr, MODE: tl.constexpr):
            x = tl.load(X)
            y = getattr(tl, F)(x, 2.0, propagate_nan=getattr(tl.PropagateNan, MODE))
            tl.store(X, y + getattr(x, "dtype", tl.int8).primitive_bitwidth + getattr(tl, "nothing", 1))
        """, defines={"F": "'maximum'", "MODE": "'ALL'"})
    text = print_ir(r.module)
    assert '"arith.maxnumf"' in text and '"arith.select"' in text   # maximum, then a NaN operand wins
    assert "{value = 32.0}" in text and "{value = 1.0}" in text   # f32's bitwidth; the default


@pytest.mark.parametrize("expr, value", [("hasattr(x, 'dtype')", "1"), ("hasattr(x, 'nothing')", "0"),
                                         ("hasattr(tl, 'minimum')", "1"), ("hasattr(tl, 'nothing')", "0")])
def test_hasattr_is_a_constant(kernels, expr, value):
    r = kernels.compile(f"""
        @triton.jit
        def k(X):
            x = tl.load(X)
            tl.store(X, x + tl.full([], {expr}, tl.int32).to(tl.float32))
        """)
    assert f"value = {value}}}" in print_ir(r.module)


@pytest.mark.parametrize("call, message", [
    ("getattr(x, 1)", "`getattr` needs the attribute's name as a compile-time string, got the constant 1"),
    ("getattr(x)", "`getattr` takes the object and the attribute's name (and a default) as positional arguments"),
    ("hasattr(x, 'a', 1)", "`hasattr` takes the object and the attribute's name as positional arguments"),
    ("getattr(tl.PropagateNan, 'SOME')", "tl.PropagateNan has no member 'SOME' (it has NONE and ALL)"),
    ("tl.minimum(x, x, propagate_nan=3)", "tl.minimum: propagate_nan must be tl.PropagateNan.NONE or "
                                          "tl.PropagateNan.ALL, got the constant 3"),
])
def test_errors(kernels, call, message):
    err = kernels.error(f"""
        @triton.jit
        def k(X):
            x = tl.load(X)
            y = {call}
            tl.store(X, x)
        """)
    assert err.message == message and (err.loc.line, err.loc.col) == (9, 9)
