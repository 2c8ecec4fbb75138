"""A u32 scalar constant of 2**31 or more (`-tl.full((), 5, tl.uint32)` folded at -O3) was loaded zero-extended
while u32 values live sign-extended in registers (the RV64 convention, as `lw` and `subw` leave them), so an
unsigned comparison with it gave the wrong answer.  Found by the random-kernel tests (seed 20025)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(X, O):
    x = tl.load(X + tl.program_id(0))
    big = tl.full((), 4294967291, tl.uint32)
    tl.store(O + tl.program_id(0) * 4 + 0, (-x >= -tl.full((), 5, tl.uint32)).to(tl.uint32))
    tl.store(O + tl.program_id(0) * 4 + 1, (x < big).to(tl.uint32))
    tl.store(O + tl.program_id(0) * 4 + 2, tl.maximum(x, tl.full((), 3000000000, tl.uint32)))
    tl.store(O + tl.program_id(0) * 4 + 3, tl.where(x == big, x, big - x))
'''


@pytest.mark.parametrize("level", [0, 3])
def test_u32_scalar_constants_above_2_31_compare_as_unsigned(level):
    x = np.array([8, 3, 4294967290, 4294967291, 2147483648, 4294967295, 0], np.uint32)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-u32c-")) / "k.py"
    path.write_text(HEADER + SRC)
    comp = mtiacc.compile(str(path), "k", signature="*u32,*u32", opt_level=level)
    out = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(4 * len(x), np.uint32)}, grid=(len(x),)).outputs["O"]
    big = np.uint32(4294967291)
    with np.errstate(over="ignore"):
        want = np.stack([(-x >= -np.uint32(5)), x < big, np.maximum(x, np.uint32(3000000000)),
                         np.where(x == big, x, big - x)], axis=1).astype(np.uint32)
    np.testing.assert_array_equal(out.reshape(-1, 4), want)
