"""End to end: kernels with loops, branches, early returns and helpers, compiled from source and
run on the simulator against numpy (at -O0 and -O2)."""
import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.conftest import EXAMPLES

HEADER = "import triton\nimport triton.language as tl\n\n"


def build(tmp_path, source, signature, kernel=None, level=2, defines=None, name="k.py"):
    path = tmp_path / name
    path.write_text(HEADER + source)
    c = compile_kernel(str(path), Options(kernel=kernel, signature=signature, opt_level=level,
                                          defines=defines or {}))
    out = tmp_path / f"{name}.{level}.bin"
    out.write_bytes(c.binary)
    return str(out)


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("m, n", [(3, 1), (4, 100), (2, 257)])
def test_row_sum_example(tmp_path, level, m, n):
    c = compile_kernel(str(EXAMPLES / "row_sum.py"), Options(signature="*fp32,*fp32,i32,i32", opt_level=level))
    binary = tmp_path / "row_sum.bin"
    binary.write_bytes(c.binary)
    x = np.random.default_rng(m * 1000 + n).standard_normal((m, n)).astype(np.float32)
    y = np.full(m, -1.0, np.float32)
    out = run(str(binary), {"X": x.ravel(), "Y": y, "M": np.array(m, np.int32), "N": np.array(n, np.int32)},
              grid=(m + 2,)).outputs["Y"]  # two programs past M return early
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


LOOPS = '''
@triton.jit
def pair(a, b, scale: tl.constexpr = 1.0):
    return a * scale + b, a - b


@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr = 32):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    acc = tl.zeros([BLOCK], tl.float32)
    count = 0
    for i in tl.range(N - 1, -1, -1):          # runtime bounds, constexpr negative step
        acc, diff = pair(acc, x * i, scale=0.5)
        count += 1
    j = 0
    while j < N:                                # a while loop carrying a scalar and a block
        acc = acc + 1.0
        j += 2
    for s in tl.static_range(3):               # unrolled; s is a constexpr
        acc = acc + s
    if pid == 1:                               # runtime if/elif/else on the program id
        acc = acc * 2.0
    elif pid == 2:
        acc = -acc
    else:
        acc = acc + count
    t = 10.0 if pid > 0 else 20.0              # conditional expression on a scalar
    acc = acc + t
    tl.store(Y + pid * BLOCK + offs, acc)
'''


def loops_reference(x, n, pid):
    acc = np.zeros_like(x)
    count = 0
    for i in range(n - 1, -1, -1):
        acc = acc * np.float32(0.5) + x * np.float32(i)
        count += 1
    acc = acc + np.float32(len(range(0, n, 2)))
    acc = acc + np.float32(3)
    acc = acc * 2 if pid == 1 else -acc if pid == 2 else acc + np.float32(count)
    return acc + np.float32(10.0 if pid > 0 else 20.0)


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_loops_branches_helpers(tmp_path, level, n):
    binary = build(tmp_path, LOOPS, "*fp32,*fp32,i32", kernel="k", level=level)
    x = np.random.default_rng(n).standard_normal(32).astype(np.float32)
    y = np.zeros(4 * 32, np.float32)
    out = run(binary, {"X": x, "Y": y, "N": np.array(n, np.int32)}, grid=(4,)).outputs["Y"].reshape(4, 32)
    for pid in range(4):
        np.testing.assert_allclose(out[pid], loops_reference(x, n, pid), rtol=1e-5, atol=1e-5)


GLOBALS = '''
from mylib import shift as sh
import mylib

BLOCK: tl.constexpr = 16
TWICE = BLOCK * 2


@triton.jit
def k(X, Y):
    tl.static_assert(TWICE == 32, "TWICE changed")
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = sh(x) + mylib.scaled(x, k=mylib.FACTOR)
    tl.store(Y + offs, y)
'''

MYLIB = '''import triton
import triton.language as tl

FACTOR = 3


@triton.jit
def shift(x, by: tl.constexpr = 1.0):
    return x + by


@triton.jit
def scaled(x, k):
    return x * k
'''


def test_imported_helpers_and_constexpr_globals(tmp_path):
    (tmp_path / "mylib.py").write_text(MYLIB)
    binary = build(tmp_path, GLOBALS, "*fp32,*fp32")
    x = np.arange(16, dtype=np.float32)
    out = run(binary, {"X": x, "Y": np.zeros(16, np.float32)}, grid=(1,)).outputs["Y"]
    np.testing.assert_array_equal(out, x + 1 + x * 3)


def test_static_assert_failure_location(tmp_path):
    src = GLOBALS.replace("TWICE == 32", "TWICE == 33")
    (tmp_path / "mylib.py").write_text(MYLIB)
    with pytest.raises(CompileError) as e:
        build(tmp_path, src, "*fp32,*fp32")
    err = e.value
    assert err.message == "static assertion failed: TWICE changed"
    line = (HEADER + src).splitlines().index('    tl.static_assert(TWICE == 33, "TWICE changed")') + 1
    assert (err.loc.line, err.loc.col) == (line, 5)
    assert "^~~~" in err.render()


@pytest.mark.parametrize("body, message", [
    ("acc = 0\n    for i in range(4):\n        acc = acc + 1.5",
     "loop-carried variable `acc` has type i32 before the loop but f32 at the end of the loop body"),
    ("for i in range(4):\n        return", "`return` inside a loop is not supported yet"),
    ("for i in [1, 2]:\n        pass", "a `for` loop must iterate over range(...), tl.range(...) or tl.static_range(...)"),
])
def test_loop_errors(tmp_path, body, message):
    with pytest.raises(CompileError) as e:
        build(tmp_path, f"@triton.jit\ndef k(X):\n    {body}\n", "*fp32")
    assert message in e.value.message
    assert e.value.loc is not None and e.value.loc.line >= 5
