"""One grammar for launch-grid expressions: what ``mtiacc --grid`` accepts is what the simulator evaluates."""
import types

import pytest

from mtiacc.asm.gridexpr import GridError, evaluate, parse
from mtiacc.diagnostics import UsageError, UserError
from mtiacc.driver import parse_grid
from mtiacc.ir.types import PointerType, i32

FE = types.SimpleNamespace(params=[
    types.SimpleNamespace(name="X", constexpr=False, type=PointerType(i32)),
    types.SimpleNamespace(name="N", constexpr=False, type=i32),
    types.SimpleNamespace(name="B", constexpr=True, type=i32),
])
ENV, SHAPES = {"N": 1000, "B": 256}, {"X": (1000,)}


@pytest.mark.parametrize("text, value", [
    ("cdiv(N, B)", 4), ("triton.cdiv(N, B) * 2 - 1", 7), ("tl.cdiv(N, B)", 4), ("max(1, min(N // B, 3))", 3),
    ("N / B", 3), ("-N / B", -3), ("N % 7 + +1", 1000 % 7 + 1), ("cdiv(X.shape[0], B)", 4),
])
def test_the_compiler_stores_what_the_simulator_evaluates(text, value):
    (axis,) = parse_grid(text, FE)
    assert evaluate(axis, ENV, SHAPES) == evaluate(text, ENV, SHAPES) == value


@pytest.mark.parametrize("text, reason", [
    ("2**N", "'**' is not allowed in a grid expression"),
    ("N << 2", "'<<' is not allowed"),
    ("__import__('os')", "unknown function in '__import__('os')'"),
    ("max(N)", "max takes two or more arguments"),
    ("cdiv(N)", "cdiv takes two arguments"),
    ("N * 1.5", "only integer constants are allowed, got 1.5"),
    ("N.real", "'N.real' is not allowed in a grid expression"),
    ("cdiv(N,", "cannot parse 'cdiv(N,'"),
])
def test_both_sides_reject_what_the_grammar_does_not_have(text, reason):
    with pytest.raises(GridError, match=reason.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        parse(text)
    with pytest.raises(UsageError) as e:
        parse_grid(text, FE)
    assert e.value.message.startswith(f"--grid: {reason}")
    with pytest.raises(UserError) as e:
        evaluate(text, ENV, SHAPES)
    assert e.value.message.startswith(f"grid expression '{text}': {reason}")


def test_names_are_checked_against_the_kernel_by_the_compiler_and_bound_by_the_simulator():
    with pytest.raises(UsageError, match=r"--grid: unknown name 'M' \(parameters: B, N, X\)"):
        parse_grid("cdiv(M, B)", FE)
    with pytest.raises(UsageError, match=r"--grid: 'N.shape\[0\]' is not allowed .* a pointer parameter: X"):
        parse_grid("N.shape[0]", FE)
    with pytest.raises(UserError, match="uses 'M', which is not a scalar parameter"):
        evaluate("cdiv(M, B)", ENV, SHAPES)
