"""A constant block (`tl.full`) first stored inside an `if` and again after it: at -O3 its value was loaded into a
register at the first use, inside the branch, and the store after the `if` read that register when the branch
was not taken (0).  Found by the random-kernel tests (seed 120024)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(X, O1, O2, B: tl.constexpr):
    v = tl.full((B, 1), 2, tl.{ty})
    if tl.load(X) > 0:
        tl.store(O1 + tl.arange(0, B)[:, None], v)
    tl.store(O2 + tl.arange(0, B)[:, None], v)
'''


@pytest.mark.parametrize("ty,np_t,sig", [("uint64", np.uint64, "u64"), ("float32", np.float32, "fp32")])
@pytest.mark.parametrize("taken", [0, 1])
def test_a_constant_block_used_in_a_branch_and_after_it(ty, np_t, sig, taken):
    path = Path(tempfile.mkdtemp(prefix="mtiacc-cbr-")) / "k.py"
    path.write_text(HEADER + SRC.format(ty=ty))
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature=f"*i32,*{sig},*{sig}", constexprs={"B": 1}, opt_level=level)
        out = mtiasim.run(comp.binary, {"X": np.array([taken], np.int32), "O1": np.zeros(1, np_t),
                                        "O2": np.zeros(1, np_t)}, grid=(1,)).outputs
        assert out["O2"][0] == 2 and out["O1"][0] == (2 if taken else 0), f"-O{level}"
