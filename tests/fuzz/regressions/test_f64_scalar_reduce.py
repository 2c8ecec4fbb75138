"""An f64 `tl.sum` along an axis of one element (a 3-D load gathered through an index block, summed over its last
axis) failed to compile with "scalar f64 values are not supported yet": the element-at-a-time path that
reductions take read and wrote f32 and halves only.  Found by the random-kernel tests (seed 2008, size 5)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(I, X, O, B: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, B)[:, None, None] * C * C + tl.arange(0, C)[None, :, None] * C + tl.arange(0, C)[None, None, :]
    x = tl.load(X + tl.load(I + offs))
    tl.store(O + tl.arange(0, B)[:, None] * C + tl.arange(0, C)[None, :], {call}(x, axis=2))
'''


@pytest.mark.parametrize("call", ["tl.sum", "tl.max", "tl.min"])
@pytest.mark.parametrize("b,c", [(1, 1), (2, 1), (2, 2)])
def test_f64_reduction_of_a_gathered_block(call, b, c):
    rng = np.random.default_rng(b * 10 + c)
    n = b * c * c
    idx = rng.integers(0, 2 * n, n).astype(np.int32)
    x = rng.integers(-16, 16, 2 * n) / 4.0
    want = {"tl.sum": np.sum, "tl.max": np.max, "tl.min": np.min}[call](x[idx].reshape(b, c, c), axis=2)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-f64red-")) / "k.py"
    path.write_text(HEADER + SRC.format(call=call))
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature="*i32,*fp64,*fp64", constexprs={"B": b, "C": c},
                              opt_level=level)
        out = mtiasim.run(comp.binary, {"I": idx, "X": x, "O": np.zeros(b * c)}, grid=(1,)).outputs["O"]
        np.testing.assert_array_equal(out, want.reshape(-1))
