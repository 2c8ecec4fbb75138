"""`s[None]` on a scalar (a loaded element, a reduction's result) is a block of one in Triton (its
`expand_dims` splats a scalar); mtiacc refused it with "indexing and slicing (`x[...]`) are not supported yet",
and `tl.expand_dims` of a reduction's scalar result failed in codegen ("'tt.expand_dims' is not supported").
Found by the random-kernel tests (seed 2016, size 5); `s[0]` stays an error (tests/frontend/test_errors.py)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(X, S, O, C: tl.constexpr):
    x = tl.load(X + tl.arange(0, C))
    s = tl.load(S + 2)
    tl.store(O + tl.arange(0, C), {expr})
'''


@pytest.mark.parametrize("expr,f", [
    ("x * s[None]", lambda x, s: x * s),
    ("x - tl.sum(x, axis=0)[None]", lambda x, s: x - x.sum()),
    ("tl.reshape(x[:, None] + s[None, None], (C,))", lambda x, s: x + s),
    ("x - tl.expand_dims(tl.sum(x, axis=0), 0)", lambda x, s: x - x.sum()),
    ("tl.reshape(x[None, :] * tl.expand_dims(tl.max(x, axis=0), (0, 1)), (C,))", lambda x, s: x * x.max()),
])
def test_a_scalar_indexed_by_none_is_a_block_of_one(expr, f):
    x = np.arange(1, 9, dtype=np.int32)
    s = np.array([5, 6, 7, 8], np.int32)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-sidx-")) / "k.py"
    path.write_text(HEADER + SRC.format(expr=expr))
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature="*i32,*i32,*i32", constexprs={"C": 8}, opt_level=level)
        out = mtiasim.run(comp.binary, {"X": x, "S": s, "O": np.zeros(8, np.int32)}, grid=(1,)).outputs["O"]
        np.testing.assert_array_equal(out, f(x, s[2]))
