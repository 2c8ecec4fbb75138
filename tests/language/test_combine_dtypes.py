"""tl.reduce / tl.associative_scan with @triton.jit combine functions over every element type, against numpy.

Inputs are ragged (a ``ROWS x COLS`` matrix inside an ``M x N`` block, loaded with a mask and ``other``) and
reduced along axis 0, axis 1 and None.  Integer sums wrap at the type's width.  f16/bf16 are computed in f32
and rounded to the storage type after every op (Triton's rule); since mtiacc combines strictly in order (see
mtiacc/codegen/tensor/reduce_region.py), the float-sum reference is the in-order fold over the padded block with that
rounding, and the other combiners (max, argmax) do not depend on the order.  Combine functions use run-time
``if``/``elif``/``else``, early returns, an ``if`` assigning variables before one return, conditional
expressions and nested helper calls, all of which Triton's interpreter accepts.
"""
import functools
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.language import dtypes as D
from tests.language.dtypes import bf16_to_f32, f32_to_bf16

DTYPES = {**D.DTYPES, "float64": ("fp64", np.float64)}


def is_float(t: str) -> bool:
    return t == "float64" or D.is_float(t)


def inputs(t: str, n: int, rng, lo=None, hi=None):
    if t == "float64":
        return rng.uniform(lo, hi, n)
    return D.inputs(t, n, rng, lo=lo, hi=hi)
from tests.language.harness import HEADER

_DIR = Path(tempfile.mkdtemp(prefix="mtiacc-combine-"))

M, N, ROWS, COLS = 8, 16, 5, 13      # the block, and the ragged data inside it
SEED = 0

COMBINE = """
@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _max_if(a, b):
    if a > b:
        return a
    else:
        return b


@triton.jit
def _pick(a, ia, b, ib):
    # nested helper with an `if` and an early return
    if a == b:
        return tl.minimum(ia, ib)
    return ia if a > b else ib


@triton.jit
def _argmax(a, ia, b, ib):
    # the larger value; on a tie the smaller index
    if a > b:
        return a, ia
    elif a < b:
        return b, ib
    return a, _pick(a, ia, b, ib)


@triton.jit
def _argmin_assign(a, ia, b, ib):
    # an `if` assigning variables, then one return
    v = a
    i = ia
    if b < a:
        v = b
        i = ib
    if b == a:
        i = tl.minimum(ia, ib)
    return v, i


@triton.jit
def _max_cond(a, b):
    return a if a > b else b
"""

GRID = COMBINE + """
@triton.jit
def grid(X, S0, S1, SA, X0, X1, XA, C0, C1, A0, I0, A1, I1, AA, IA, LOW: tl.constexpr, M: tl.constexpr,
         N: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    inside = (r < ROWS) & (c < COLS)
    x = tl.load(X + r * COLS + c, mask=inside, other=0)
    lo = tl.load(X + r * COLS + c, mask=inside, other=LOW)
    cm = tl.arange(0, N) < COLS
    rm = tl.arange(0, M) < ROWS
    tl.store(S0 + tl.arange(0, N), tl.reduce(x, 0, _add), mask=cm)
    tl.store(S1 + tl.arange(0, M), tl.reduce(x, 1, _add), mask=rm)
    tl.store(SA, tl.reduce(x, None, _add))
    tl.store(X0 + tl.arange(0, N), tl.reduce(lo, 0, _max_if), mask=cm)
    tl.store(X1 + tl.arange(0, M), tl.reduce(lo, 1, _max_cond), mask=rm)
    tl.store(XA, tl.reduce(lo, None, _max_if))
    tl.store(C0 + r * COLS + c, tl.associative_scan(x, 0, _add), mask=inside)
    tl.store(C1 + r * COLS + c, tl.associative_scan(x, 1, _add, reverse=True), mask=inside)
    flat = r * N + c
    v, i = tl.reduce((lo, flat), 0, _argmax)
    tl.store(A0 + tl.arange(0, N), v, mask=cm)
    tl.store(I0 + tl.arange(0, N), i, mask=cm)
    v, i = tl.reduce((lo, flat), 1, _argmax)
    tl.store(A1 + tl.arange(0, M), v, mask=rm)
    tl.store(I1 + tl.arange(0, M), i, mask=rm)
    v, i = tl.reduce((lo, flat), None, _argmax)
    tl.store(AA, v)
    tl.store(IA, i)
"""

def launch(source: str, kernel: str, signature: str, inputs: dict, defines=(), opt: int = 2) -> dict:
    """Compile ``kernel`` of ``source`` and run it on one program; the output arrays."""
    key = abs(hash((source, kernel, signature, defines, opt)))
    src = _DIR / f"k{key}.py"
    src.write_text(HEADER + source)
    opts = Options(kernel=kernel, signature=signature, defines=dict(defines), opt_level=opt)
    binary = _DIR / f"k{key}.bin"
    binary.write_bytes(compile_kernel(str(src), opts).binary)
    return run(str(binary), inputs, grid=(1,)).outputs


TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "bfloat16", "float32", "float64"]


def _low(t: str):
    if is_float(t):
        return -1000.0
    return int(np.iinfo(DTYPES[t][1]).min)


def _decode(a: np.ndarray, t: str) -> np.ndarray:
    """Comparable values: bf16 bit patterns as f32, everything else as stored."""
    return bf16_to_f32(a) if t == "bfloat16" else a


def _add_fn(t: str):
    """``a + b`` in type ``t``: wrapping integers, halves through f32 and rounded back."""
    st = DTYPES[t][1]
    if t == "bfloat16":
        return lambda a, b: f32_to_bf16(bf16_to_f32(np.asarray(a)) + bf16_to_f32(np.asarray(b)))
    if t == "float16":
        return lambda a, b: (np.asarray(a, np.float32) + np.asarray(b, np.float32)).astype(np.float16)
    return lambda a, b: np.asarray(a).astype(st) + np.asarray(b).astype(st)   # numpy wraps


def _fold(a: np.ndarray, axis: int, f, reverse=False, scan=False) -> np.ndarray:
    """In-order fold (or inclusive scan) of ``a`` along ``axis`` with ``f``."""
    a = np.moveaxis(a, axis, 0)
    idx = range(a.shape[0] - 1, -1, -1) if reverse else range(a.shape[0])
    out, acc = np.empty_like(a), None
    for k in idx:
        acc = a[k].copy() if acc is None else f(acc, a[k])
        out[k] = acc
    return np.moveaxis(out, 0, axis) if scan else acc


def _padded(x: np.ndarray, fill, st) -> np.ndarray:
    p = np.full((M, N), fill).astype(st)
    p[:ROWS, :COLS] = x
    return p


@functools.lru_cache(maxsize=None)
def _grid(t: str, opt: int):
    sig_t, st = DTYPES[t]
    rng = np.random.default_rng(TYPES.index(t) + SEED)
    x = inputs(t, ROWS * COLS, rng, lo=-8 if is_float(t) else None, hi=8 if is_float(t) else None)
    x[7] = x[20] = x[33]          # ties for argmax
    ptr = f"*{sig_t}"
    sig = ",".join([ptr] * 10 + ["*i32", ptr, "*i32", ptr, "*i32"])
    z = lambda n: np.zeros(n, st)  # noqa: E731
    data = {"X": x, "S0": z(N), "S1": z(M), "SA": z(1), "X0": z(N), "X1": z(M), "XA": z(1),
            "C0": z(ROWS * COLS), "C1": z(ROWS * COLS), "A0": z(N), "I0": np.zeros(N, np.int32), "A1": z(M),
            "I1": np.zeros(M, np.int32), "AA": z(1), "IA": np.zeros(1, np.int32)}
    defines = (("LOW", repr(_low(t))), ("M", str(M)), ("N", str(N)), ("ROWS", str(ROWS)), ("COLS", str(COLS)))
    out = launch(GRID, "grid", sig, data, defines, opt)
    return x.reshape(ROWS, COLS), out


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("t", TYPES)
def test_sum_all_axes(t, opt):
    x, out = _grid(t, opt)
    st, add = DTYPES[t][1], _add_fn(t)
    p = _padded(x, 0, st)
    np.testing.assert_array_equal(_decode(out["S0"][:COLS], t), _decode(_fold(p, 0, add), t)[:COLS])
    np.testing.assert_array_equal(_decode(out["S1"][:ROWS], t), _decode(_fold(p, 1, add), t)[:ROWS])
    np.testing.assert_array_equal(_decode(out["SA"], t), _decode(_fold(p.ravel(), 0, add), t).reshape(1))
    if is_float(t):   # in-order with per-op rounding, and close to the exact sum
        exact = _decode(x, t).astype(np.float64).sum(1)
        np.testing.assert_allclose(_decode(out["S1"][:ROWS], t), exact, rtol=0.02, atol=0.25)


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("t", TYPES)
def test_max_with_if_and_conditional_expression(t, opt):
    x, out = _grid(t, opt)
    v = _decode(x, t)
    np.testing.assert_array_equal(_decode(out["X0"][:COLS], t), v.max(0))
    np.testing.assert_array_equal(_decode(out["X1"][:ROWS], t), v.max(1))
    np.testing.assert_array_equal(_decode(out["XA"], t), [v.max()])


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("t", TYPES)
def test_scan_forward_and_reverse(t, opt):
    x, out = _grid(t, opt)
    add = _add_fn(t)
    c0 = _fold(x, 0, add, scan=True)
    c1 = _fold(x, 1, add, reverse=True, scan=True)
    np.testing.assert_array_equal(_decode(out["C0"].reshape(ROWS, COLS), t), _decode(c0, t))
    np.testing.assert_array_equal(_decode(out["C1"].reshape(ROWS, COLS), t), _decode(c1, t))


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("t", TYPES)
def test_argmax_tuple_with_early_returns(t, opt):
    x, out = _grid(t, opt)
    v = _decode(_padded(x, _low(t), DTYPES[t][1]), t)
    flat = np.arange(M * N).reshape(M, N)
    i0 = v.argmax(0)
    np.testing.assert_array_equal(_decode(out["A0"], t)[:COLS], v.max(0)[:COLS])
    np.testing.assert_array_equal(out["I0"][:COLS], flat[i0, np.arange(N)][:COLS])
    i1 = v.argmax(1)
    np.testing.assert_array_equal(_decode(out["A1"], t)[:ROWS], v.max(1)[:ROWS])
    np.testing.assert_array_equal(out["I1"][:ROWS], flat[np.arange(M), i1][:ROWS])
    np.testing.assert_array_equal(_decode(out["AA"], t), [v.max()])
    assert out["IA"][0] == v.argmax()


EXTRA = COMBINE + """
@triton.jit
def _any(a, b):
    if a:
        return a
    return b


@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def bools(X, ANY, XOR, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(X + r * N + c)
    tl.store(ANY + tl.arange(0, M), tl.reduce(x, 1, _any))
    tl.store(XOR + r * N + c, tl.associative_scan(x, 0, _xor))


@triton.jit
def _lse(a, b):
    m = tl.maximum(a, b)
    return m + tl.log(tl.exp(a - m) + tl.exp(b - m))


@triton.jit
def lse_rows(X, Y, M: tl.constexpr, N: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(X + r * COLS + c, mask=(r < ROWS) & (c < COLS), other=float("-inf"))
    tl.store(Y + tl.arange(0, M), tl.reduce(x, 1, _lse), mask=tl.arange(0, M) < ROWS)


@triton.jit
def _welford(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    if n_b == 0.0:
        return mean_a, m2_a, n_a
    if n_a == 0.0:
        return mean_b, m2_b, n_b
    delta = mean_b - mean_a
    frac = n_b / n
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * n_a * frac, n


@triton.jit
def welford(X, MEAN, VAR, M: tl.constexpr, N: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    inside = (r < ROWS) & (c < COLS)
    x = tl.load(X + r * COLS + c, mask=inside, other=0.0).to(tl.float32)
    mean, m2, n = tl.reduce((x, tl.zeros_like(x), inside.to(tl.float32)), 0, _welford)
    tl.store(MEAN + tl.arange(0, N), mean, mask=tl.arange(0, N) < COLS)
    tl.store(VAR + tl.arange(0, N), m2 / n, mask=tl.arange(0, N) < COLS)
"""
SIZES = (("M", str(M)), ("N", str(N)), ("ROWS", str(ROWS)), ("COLS", str(COLS)))


@pytest.mark.parametrize("opt", [0, 2])
def test_int1_any_with_early_return_and_xor_scan(opt):
    x = np.random.default_rng(11).random((M, N)) < 0.08
    x[0] = False
    out = launch(EXTRA, "bools", "*i1,*i1,*i1", {"X": x.ravel(), "ANY": np.zeros(M, bool),
                                                  "XOR": np.zeros(M * N, bool)}, SIZES[:2], opt)
    np.testing.assert_array_equal(out["ANY"], x.any(1))
    np.testing.assert_array_equal(out["XOR"].reshape(M, N), np.cumsum(x, 0) % 2 == 1)


@pytest.mark.parametrize("t", ["float16", "bfloat16", "float32"])
def test_logsumexp_with_math_calls(t):
    rng = np.random.default_rng(12)
    x = inputs(t, ROWS * COLS, rng, lo=-4, hi=4)
    sig = DTYPES[t][0]
    out = launch(EXTRA, "lse_rows", f"*{sig},*{sig}", {"X": x, "Y": np.zeros(M, DTYPES[t][1])}, SIZES)
    v = _decode(x, t).astype(np.float64).reshape(ROWS, COLS)
    want = np.log(np.exp(v).sum(1))
    tol = {"float16": 8e-3, "bfloat16": 4e-2, "float32": 1e-5}[t]
    np.testing.assert_allclose(_decode(out["Y"][:ROWS], t), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("t", ["float16", "float32"])
def test_welford_three_fp32_operands_with_early_returns(t):
    """(mean, m2, count) over the columns of a ragged block: masked elements have count 0 and are skipped."""
    x = inputs(t, ROWS * COLS, np.random.default_rng(13), lo=-3, hi=3)
    sig = DTYPES[t][0]
    out = launch(EXTRA, "welford", f"*{sig},*fp32,*fp32", {"X": x, "MEAN": np.zeros(N, np.float32),
                                                             "VAR": np.zeros(N, np.float32)}, SIZES)
    v = x.astype(np.float64).reshape(ROWS, COLS)
    np.testing.assert_allclose(out["MEAN"][:COLS], v.mean(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["VAR"][:COLS], v.var(0), rtol=1e-4, atol=1e-5)


LOOPS = """
@triton.jit
def _add_by_steps(a, b):
    # a + b for b >= 0, one at a time; an `if` inside the loop body
    s = a
    for k in range(b):
        if k >= 0:
            s = s + 1
    return s


@triton.jit
def _max_by_while(a, b):
    while a < b:
        a = a + 1
    return a


@triton.jit
def loops(X, S, MX, C, N: tl.constexpr, COLS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs, mask=offs < COLS, other=0)
    tl.store(S, tl.reduce(x, 0, _add_by_steps))
    tl.store(MX, tl.reduce(x, 0, _max_by_while))
    tl.store(C + offs, tl.associative_scan(x, 0, _add_by_steps), mask=offs < COLS)
"""


@pytest.mark.parametrize("t", ["int8", "int32", "int64"])
def test_for_and_while_loops_inside_the_combine_function(t):
    x = np.random.default_rng(14).integers(0, 9, COLS).astype(DTYPES[t][1])
    sig = DTYPES[t][0]
    out = launch(LOOPS, "loops", f"*{sig},*{sig},*{sig},*{sig}",
                 {"X": x, "S": np.zeros(1, x.dtype), "MX": np.zeros(1, x.dtype), "C": np.zeros(N, x.dtype)},
                 (("N", str(N)), ("COLS", str(COLS))))
    assert out["S"][0] == x.sum()
    assert out["MX"][0] == x.max()
    np.testing.assert_array_equal(out["C"][:COLS], np.cumsum(x).astype(x.dtype))
