"""A `tl.reduce` / `tl.associative_scan` with a combine function whose result nothing uses compiled at -O0
(no dead-code elimination) to "internal: block value ... was not materialized": the combine lowering ran for
an unused result and read its operand, which nothing had materialized.  Found by the random-kernel tests."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

COMBINE = '''
@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.jit
def k(X, O, C: tl.constexpr):
    x = tl.load(X + tl.arange(0, C) * 2)
    y = {call}
    tl.store(O + tl.arange(0, C), tl.load(X + tl.arange(0, C) * 2 + 1))
'''


@pytest.mark.parametrize("call", ["tl.associative_scan(x, 0, _max)", "tl.reduce(x, 0, _max)",
                                  "tl.associative_scan(x, 0, _max, reverse=True)"])
@pytest.mark.parametrize("c", [1, 4])
def test_unused_combine_result_compiles_at_O0(call, c):
    src = COMBINE.format(call=call)
    x = np.arange(2 * c, dtype=np.float32)
    for level in (0, 3):
        out = _run(src, x, c, level)
        np.testing.assert_array_equal(out, x[1::2])


def _run(src, x, c, level):
    path = Path(tempfile.mkdtemp(prefix="mtiacc-dead-")) / "k.py"
    path.write_text(HEADER + src)
    comp = mtiacc.compile(str(path), "k", signature="*fp32,*fp32", constexprs={"C": c}, opt_level=level)
    res = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(c, np.float32)}, grid=(1,))
    return res.outputs["O"]

