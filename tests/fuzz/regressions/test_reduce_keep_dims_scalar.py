"""`tl.reduce(x, 0, fn, keep_dims=True)` of a 1-D block (and `axis=None` of any block) reduces to a scalar, which
keep_dims made a block of one with `tt.expand_dims` of a scalar: "'tt.expand_dims' is not supported by codegen
yet".  It is a splat now, as `tl.sum`'s keep_dims does.  Found by the random-kernel tests (seed 100019)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def k(X, O, R: tl.constexpr, C: tl.constexpr):
    x = tl.load(X + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    {body}
'''


@pytest.mark.parametrize("body,f", [
    ("tl.store(O + tl.arange(0, C), tl.load(X + tl.arange(0, C)) | tl.reduce(tl.load(X + tl.arange(0, C)), 0, _add, "
     "keep_dims=True))", lambda x: x[0] | x[0].sum()),
    ("tl.store(O + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :], x - tl.reduce(x, None, _add, "
     "keep_dims=True))", lambda x: x - x.sum()),
])
def test_a_combine_reduction_to_a_scalar_keeps_its_dims(body, f):
    x = np.arange(1, 9, dtype=np.int32).reshape(2, 4)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-rkd-")) / "k.py"
    path.write_text(HEADER + SRC.format(body=body))
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature="*i32,*i32", constexprs={"R": 2, "C": 4}, opt_level=level)
        out = mtiasim.run(comp.binary, {"X": x.reshape(-1), "O": np.zeros(8, np.int32)}, grid=(1,)).outputs["O"]
        want = f(x).reshape(-1)
        np.testing.assert_array_equal(out[:want.size], want)
