"""``and`` / ``or`` on run-time booleans (scalars in an ``if``, blocks as a mask) and a conditional expression
over two calls that return nothing, run over a grid against numpy; ``and`` on a run-time integer is an error
at that operand (Triton rejects it too: it bitcasts each operand to int1).  (Were "`and` on run-time values
is not supported yet", in Triton's test_if and test_short_circuiting.)"""
import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from tests.language.harness import build, launch

KERNEL = """
@triton.jit
def k(X, Out, n, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    r = 0
    if x > 2 and x < 7 and pid != 5:
        r += 1
    if FLAG and (x == 0 or pid == 1):
        r += 2
    if not FLAG or x > 8:
        r += 4
    if (FLAG is not None) and hasattr(X, "dtype") and isinstance(X.dtype, tl.pointer_type) and (x > 4):
        r += 8
    tl.store(Out + pid, r + 16) if x % 2 == 0 else tl.store(Out + pid, r)
    offs = tl.arange(0, 8)
    tl.store(Out + n + pid * 8 + offs, 1, mask=(offs < x) and (offs != pid) or (offs == 7))
"""


@pytest.mark.parametrize("flag", [0, 1])
def test_and_or_differential(flag):
    n = 8
    x = np.random.default_rng(13).permutation(10)[:n].astype(np.int32)
    out = launch(KERNEL, "*i32,*i32,i32", {"X": x, "Out": np.zeros(n + n * 8, np.int32), "n": np.array(n, np.int32)},
                 grid=(n,), defines=(("FLAG", str(flag)),)).outputs["Out"]
    pid = np.arange(n)
    want = ((x > 2) & (x < 7) & (pid != 5)) * 1 + (flag & ((x == 0) | (pid == 1))) * 2 \
        + ((not flag) | (x > 8)) * 4 + (x > 4) * 8 + (x % 2 == 0) * 16
    np.testing.assert_array_equal(out[:n], want)
    offs = np.arange(8)
    mask = ((offs[None, :] < x[:, None]) & (offs[None, :] != pid[:, None])) | (offs[None, :] == 7)
    np.testing.assert_array_equal(out[n:].reshape(n, 8), mask.astype(np.int32))


def test_and_on_integer_is_an_error():
    src = """
@triton.jit
def k(X, n):
    if n > 0 and n:
        tl.store(X, 1)
"""
    with pytest.raises(CompileError) as e:
        build(src, "*i32,i32")
    err = e.value
    assert err.message == "`and` on run-time values needs booleans (i1), got a value of type i32; compare it " \
                          "first (`x != 0`)"
    assert (err.loc.line, err.loc.col) == (9, 18)   # the second operand, after the harness's header
