"""Found by the random-kernel tests (seed 120088): at -O3, `(x_u16 - tl.full((N,), 4, tl.uint16))` converted to
bf16 gave garbage (32768.0, 6.6e34, ...), while -O0 was right: the fused elementwise loop converted u16 -> bf16
with the same-width shortcut `vfcvt.f.xu.v` at SEW 16, which makes f16.  Casts to or from bf16 are no longer
fused (fuse_elementwise.is_candidate); they go through f32."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.fuzz.gen.evaluate import bf16_round
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(X, O, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(O + tl.arange(0, N), (x - tl.full((N,), 4, tl.uint16)).to(tl.bfloat16).to(tl.float32))
'''


@pytest.mark.parametrize("level", [0, 3])
def test_u16_difference_converted_to_bf16(level):
    x = np.array([11, 43409, 62761, 7, 3, 10, 4, 14, 12580, 14524, 6, 8, 13, 2, 15, 57471], np.uint16)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-u16bf-")) / "k.py"
    path.write_text(HEADER + SRC)
    comp = mtiacc.compile(str(path), "k", signature="*u16,*fp32", constexprs={"N": 16}, opt_level=level)
    out = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(16, np.float32)}, grid=(1,)).outputs["O"]
    np.testing.assert_array_equal(out, bf16_round((x - np.uint16(4)).astype(np.float32)))
