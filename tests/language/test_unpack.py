"""``*`` and ``**`` unpacking in calls (``f(*args)``, ``tl.join(*pair)``, ``helper(*t, k=1)``,
``tl.store(Y + o, v, **{"mask": m})``), tuple displays with ``*``, ``len`` of tuples, and tuples of
run-time values passed to and returned from ``@triton.jit`` helpers (Triton 3's tuples), against
numpy; and the errors for unpacking a run-time value, at its location."""
from __future__ import annotations

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from tests.language.harness import HEADER, launch

N = 16

KERNEL = """
@triton.jit
def two(x):
    return x + 1, x * 2


@triton.jit
def mix(a, b, c, k: tl.constexpr = 0):
    return a * 3 + b - c + k


@triton.jit
def pair_sum(p, scale: tl.constexpr):
    return (p[0] + p[1]) * scale


@triton.jit
def nested(q):
    (a, b), c = q
    return ((a - b, c), len(q))


@triton.jit
def k(X, Y, Z, W, V, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    t = two(x)                                   # a tuple returned by a helper
    y = mix(*t, x, k=1)                          # helper(*t, k=1): 3(x+1) + 2x - x + 1
    dest = (Y + offs, y)
    tl.store(*dest)                              # a tl.* builtin
    j = tl.join(*two(x))                         # tl.join(*pair), pair from a helper call
    s = tl.maximum(*tl.split(j))                 # a tuple from tl.split
    tl.store(Z + offs, s, **{"mask": offs < N - 2})   # ** with a dict display
    m = max(*t, x)                               # Python builtins
    n = len(t) + len((*x.shape, 1))              # 2 + 2
    shape = (N,)
    w = tl.full(*(shape, 0.5, tl.float32)) + pair_sum((x, m), 2) + n
    tl.store(W + offs, w)
    r, c = nested(((x, y), m))                   # a nested tuple in and out
    acc = tl.zeros((N,), tl.float32)
    for i in range(*(0, 3)):
        acc += r[0] * i
    tl.store(V + offs, acc + r[1] * 100 + c * 1000 + c * 0)
"""


def test_unpacking_differential():
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, N).astype(np.float32)
    sig = ",".join(["*fp32"] * 5)
    z0 = np.full(N, 7, np.float32)
    out = launch(KERNEL, sig, {"X": x, "Y": np.zeros(N, np.float32), "Z": z0.copy(), "W": np.zeros(N, np.float32),
                               "V": np.zeros(N, np.float32)}, defines=(("N", str(N)),), kernel="k").outputs
    a, b = x + 1, x * 2
    y = 3 * a + b - x + 1
    np.testing.assert_array_equal(out["Y"], y)
    np.testing.assert_array_equal(out["Z"], np.where(np.arange(N) < N - 2, np.maximum(a, b), z0))
    m = np.maximum(np.maximum(a, b), x)
    np.testing.assert_array_equal(out["W"], 0.5 + (x + m) * 2 + 4)
    r0 = x - y
    np.testing.assert_array_equal(out["V"], r0 * 3 + m * 100 + 2000)


def _compile(tmp_path, body: str):
    src = tmp_path / "k.py"
    src.write_text(HEADER + "@triton.jit\ndef k(X, N: tl.constexpr):\n"
                   "    x = tl.load(X + tl.arange(0, N))\n" + body)
    return compile_kernel(str(src), Options(defines={"N": "8"}, signature="*fp32"))


ERRORS = [
    ("    tl.store(X + tl.arange(0, N), *x)\n", "`*` unpacking needs a tuple known at compile time, got a value "
     "of type tensor<8xf32>", "*x"),
    ("    y = tl.maximum(**x)\n", "`**` unpacking needs a dict with string keys known at compile time, got a "
     "value of type tensor<8xf32>", "x)"),
    ("    t = (1, *x)\n", "`*` unpacking needs a tuple known at compile time, got a value of type tensor<8xf32>", "*x"),
    ("    n = len(x)\n", "len() needs a tuple known at compile time", "len(x)"),
    ("    tl.store(X, x, mask=None, **{'mask': None})\n", "got multiple values for keyword argument 'mask'",
     "**{'mask': None}"),
]


@pytest.mark.parametrize("body,message,underlined", ERRORS)
def test_unpacking_errors(tmp_path, body, message, underlined):
    with pytest.raises(CompileError) as e:
        _compile(tmp_path, body)
    err = e.value
    assert message in str(err)
    assert err.loc.line == HEADER.count("\n") + 4
    col = body.index(underlined) + 1
    assert err.loc.col == col, (err.loc, col)
