"""The fuzz reference's error bounds where float64 results fall below the normal range.

Random kernel 321 (``python -m tests.fuzz.gen --seed 321 --count 1``) bitcasts small int64 values to float64
(subnormals of a few units of 2**-1074) and multiplies them in a ``tl.dot``.  The reference called the dot exact
(bound 0) and the simulator's answer, one unit away, a mismatch.  Two faults of the reference, neither of the tools:
``tiny("float64")``, ``2**-1022 * 2**-53 * 4``, rounded to 0 at its first product (2**-1075 is half the smallest
subnormal), so no float64 bound had any absolute slack; and a float64 product was called exact when its operands'
significant bits fit in 53, though a product below 2**-1074 rounds whatever its bits.  The chip's dot accumulates
with fused multiply-adds in order, rounding every partial sum to the subnormal grid, so it may differ from the
correctly rounded sum by a few units; that is what the bound must allow, and what these tests check exactly.
"""
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.fuzz.gen import emit
from tests.fuzz.gen import model as m
from tests.fuzz.gen.evaluate import evaluate, product_exact, tiny
from tests.fuzz.gen.runner import compare

SUB = 2.0 ** -1074       # the smallest float64 subnormal


def round_f64(q: Fraction) -> float:
    """``q`` rounded to the nearest float64, ties to even (exact: the candidates are neighbours of float(q))."""
    f = float(q)
    lo, hi = (np.nextafter(f, -np.inf), f) if Fraction(f) > q else (f, np.nextafter(f, np.inf))
    dl, dh = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dl != dh:
        return float(lo if dl < dh else hi)
    return float(lo if (np.float64(lo).view(np.int64) & 1) == 0 else hi)


def fma_in_order(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x @ y`` as a chain of fused multiply-adds along k, each partial sum rounded once to float64."""
    out = np.zeros((x.shape[0], y.shape[1]))
    for i in range(x.shape[0]):
        for j in range(y.shape[1]):
            acc = 0.0
            for kk in range(x.shape[1]):
                acc = round_f64(Fraction(float(x[i, kk])) * Fraction(float(y[kk, j])) + Fraction(acc))
            out[i, j] = acc
    return out


def test_tiny_is_two_float64_subnormals():
    """2**-1073, not 0 (and the narrower formats' values, which never underflowed, unchanged)."""
    assert tiny("float64") == 2 * SUB
    assert [tiny(t) for t in ("float16", "bfloat16", "float32")] == [2.0 ** -23, 2.0 ** -132, 2.0 ** -148]


def test_a_product_below_the_smallest_subnormal_is_not_exact():
    # 3 units * 3.75 = 11.25 units rounds; 4 units * 0.25 = 1 unit and 1.5 * 2.0 do not; 2**-600 squared underflows
    x = np.array([3 * SUB, 4 * SUB, 1.5, 2.0 ** -600, 0.0, 3 * SUB])
    y = np.array([3.75, 0.25, 2.0, 2.0 ** -600, 3 * SUB, 2.0])
    assert product_exact(x, y).tolist() == [False, True, True, False, True, True]


def _elementwise(op: str, lit: float) -> m.Kernel:
    """``bitcast(int64 X0 -> float64) op lit`` stored to O1 (A = 8 elements)."""
    i64, f64 = m.Ty("int64", ("A",)), m.Ty("float64", ("A",))
    x = m.Cast(f64, m.Load(i64, "X0", m.Access(shape=("A",))), True)
    return m.Kernel(dims={"A": 8}, grid=1, buffers=(m.Buffer("X0", "int64", "in"), m.Buffer("O1", "float64", "out")),
                    args=(), body=(m.Store("O1", m.Access(shape=("A",)), m.BinLit(f64, op, x, lit)),))


@pytest.mark.parametrize("op,lit", [("*", 0.375), ("/", 1.5)], ids=["mul", "div"])
def test_a_subnormal_product_or_quotient_that_rounds_has_a_bound(op, lit):
    """1..8 units times 0.375, or divided by 1.5 (2 units / 1.5 = 1.33 rounds to 1 unit, and 1 unit * 1.5 rounds
    back to 2 units, which made the old check call the quotient exact): where the exact value is off the subnormal
    grid, the bound covers a unit; where it is on the grid, the value is exact."""
    k = _elementwise(op, lit)
    x = np.arange(1, 9, dtype=np.int64)
    want, err, _ = evaluate(k, {"X0": x, "O1": np.zeros(8)})["O1"]
    exact = [Fraction(int(n)) * Fraction(SUB) * Fraction(lit) if op == "*" else
             Fraction(int(n)) * Fraction(SUB) / Fraction(lit) for n in x]
    on_grid = np.array([(q / Fraction(SUB)).denominator == 1 for q in exact])
    assert not on_grid.all() and on_grid.any()
    assert (err[~on_grid] >= SUB).all()
    assert (err[on_grid] == 0).all()
    assert (want == [round_f64(q) for q in exact]).all()


def _dot_kernel() -> m.Kernel:
    """``bitcast(int64 X0 -> float64) @ X1`` (16 x 16) stored to O2: rows of subnormals times small dyadics."""
    i64, f64 = m.Ty("int64", ("P", "P")), m.Ty("float64", ("P", "P"))
    a = m.Cast(f64, m.Load(i64, "X0", m.Access(shape=("P", "P"))), True)
    b = m.Load(f64, "X1", m.Access(shape=("P", "P")))
    return m.Kernel(dims={"P": 16}, grid=1, buffers=(m.Buffer("X0", "int64", "in"), m.Buffer("X1", "float64", "in"),
                                                      m.Buffer("O2", "float64", "out")),
                    args=(), body=(m.Store("O2", m.Access(shape=("P", "P")), m.Dot(f64, a, b)),), seed=321)


def _dot_inputs():
    rng = np.random.default_rng(321)
    return {"X0": rng.integers(1, 8, 256).astype(np.int64), "X1": rng.integers(-48, 49, 256) / 8.0,
            "O2": np.zeros(256)}


def test_the_bound_of_a_subnormal_dot_covers_fused_multiply_adds_in_order():
    k, inputs = _dot_kernel(), _dot_inputs()
    x, y = inputs["X0"].view(np.float64).reshape(16, 16), inputs["X1"].reshape(16, 16)
    chained = fma_in_order(x, y).reshape(-1)
    exp = evaluate(k, inputs)
    # the test can fail: the chain differs from the correctly rounded sum (the reference's value) somewhere
    assert (chained != exp["O2"][0]).any()
    assert compare(k, exp, {"O2": chained}) is None
    # and the bound is no wider than needed: a few dozen units, not a normal number's
    assert exp["O2"][1].max() < 2.0 ** -1060


@pytest.mark.parametrize("level", [0, 3])
def test_a_subnormal_dot_on_the_simulator_is_within_the_bound(level):
    """Differential: the compiled dot against the numpy reference (the bound checked above)."""
    k, inputs = _dot_kernel(), _dot_inputs()
    path = Path(tempfile.mkdtemp(prefix="mtiafuzz-sub-")) / "k.py"
    path.write_text(emit.source(k))
    comp = mtiacc.compile(str(path), k.name, signature=emit.signature(k), constexprs=emit.constexprs(k),
                          opt_level=level)
    out = mtiasim.run(comp.binary, {n: a.copy() for n, a in inputs.items()}, grid=(1,)).outputs
    assert compare(k, evaluate(k, inputs), out) is None


def _f32_dot_kernel() -> m.Kernel:
    """``X1 @ bitcast(int32 X0 -> float32)`` (16 x 16, fp32, the default tf32 precision) stored to O2: small
    dyadics times f32 subnormals of a few units of 2**-149 (random kernel 1498's shape)."""
    i32, f32 = m.Ty("int32", ("P", "P")), m.Ty("float32", ("P", "P"))
    a = m.Load(f32, "X1", m.Access(shape=("P", "P")))
    b = m.Cast(f32, m.Load(i32, "X0", m.Access(shape=("P", "P"))), True)
    return m.Kernel(dims={"P": 16}, grid=1, buffers=(m.Buffer("X0", "int32", "in"), m.Buffer("X1", "float32", "in"),
                                                      m.Buffer("O2", "float32", "out")),
                    args=(), body=(m.Store("O2", m.Access(shape=("P", "P")), m.Dot(f32, a, b)),), seed=1498)


def test_an_f32_dot_of_operands_below_bf16_s_grid_on_the_simulator_is_within_the_bound():
    """Random kernel 1498: the engine takes f32 operands as bf16 parts, and bf16's subnormals are 2**-133 apart,
    so an f32 subnormal of a few units of 2**-149 becomes 0 (the simulator's products are 0). The reference
    called the exact products' sum a mismatch (bound 4.5e-44); the bound now allows half of bf16's smallest
    subnormal per operand, and stays far below a normal number's."""
    k = _f32_dot_kernel()
    rng = np.random.default_rng(1498)
    inputs = {"X0": rng.integers(1, 8, 256).astype(np.int32), "X1": (rng.integers(-48, 49, 256) / 8.0)
              .astype(np.float32), "O2": np.zeros(256, np.float32)}
    path = Path(tempfile.mkdtemp(prefix="mtiafuzz-sub32-")) / "k.py"
    path.write_text(emit.source(k))
    comp = mtiacc.compile(str(path), k.name, signature=emit.signature(k), constexprs=emit.constexprs(k),
                          opt_level=0)
    out = mtiasim.run(comp.binary, {n: a.copy() for n, a in inputs.items()}, grid=(1,)).outputs
    exp = evaluate(k, inputs)
    assert (out["O2"] != exp["O2"][0]).any()        # the engine's products of the sub-grid operands are 0
    assert compare(k, exp, out) is None
    assert exp["O2"][1].max() < 2.0 ** -126
