"""A loop that runs zero times around an invariant load that would fault: loop-invariant code motion may hoist a
load out of a loop only when the loop is known to run at least once (``licm._runs_once``); hoisting it out of
``range(0, K)`` with ``K = 0`` or out of ``range(5, 5)`` executes a load the program never makes, out of range
here, and the simulator faults.  With a loop that runs (``K = 3``, ``range(5, 6)``) the load is hoisted and the
results are the numpy ones.

At -O3 ``loop-unroll`` deletes a constant zero-trip loop before ``licm`` sees it, so the -O3 cases also run with
``--disable-pass=loop-unroll`` ("3-no-unroll"), where -O3's two ``licm`` runs meet the loop."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiasim
from mtiacc.driver import Options, compile_kernel
from tests.language.harness import HEADER

B = 8
# X + FAR is far past the end of X's buffer: any access there faults
FAR = 1 << 28

SRC_K = '''
@triton.jit
def k(X, O, K: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, B)
    acc = tl.load(X + offs)
    for i in range(0, K):
        acc += tl.load(X + {far} + offs)
    tl.store(O + offs, acc)
'''.format(far=FAR)

SRC_RANGE = '''
@triton.jit
def k(X, O, B: tl.constexpr):
    offs = tl.arange(0, B)
    acc = tl.load(X + offs)
    for i in range({lo}, {hi}):
        acc += tl.load(X + {far} + offs)
    tl.store(O + offs, acc)
'''


LEVELS = [0, 2, 3, "3-no-unroll"]


def _run(src, level, **constexprs):
    path = Path(tempfile.mkdtemp(prefix="mtiacc-ztl-")) / "k.py"
    path.write_text(HEADER + src)
    x = np.random.default_rng(33).standard_normal(B).astype(np.float32)
    defines = {k: str(v) for k, v in dict(constexprs, B=B).items()}
    opts = Options(kernel="k", defines=defines, signature="*fp32,*fp32", opt_level=int(str(level)[0]),
                   disabled_passes=("loop-unroll",) if str(level).endswith("no-unroll") else ())
    comp = compile_kernel(str(path), opts)
    out = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(B, np.float32)}, grid=(1,)).outputs
    return x, out["O"]


@pytest.mark.parametrize("level", LEVELS)
def test_zero_trip_range_0_K_with_K_0_does_not_hoist_a_faulting_invariant_load(level):
    x, got = _run(SRC_K, level, K=0)
    np.testing.assert_array_equal(got, x)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("lo,hi", [(5, 5), (7, 3)])
def test_zero_trip_constant_range_does_not_hoist_a_faulting_invariant_load(level, lo, hi):
    x, got = _run(SRC_RANGE.format(lo=lo, hi=hi, far=FAR), level)
    np.testing.assert_array_equal(got, x)


@pytest.mark.parametrize("level", LEVELS[1:])
def test_a_loop_that_runs_still_adds_each_trip(level):
    """The positive control: the same kernels with in-range loads and loops that run give numpy's sums."""
    src = SRC_K.replace("X + {} + offs".format(FAR), "X + offs")
    x, got = _run(src, level, K=3)
    np.testing.assert_allclose(got, x * 4, rtol=1e-6)
    x, got = _run(SRC_RANGE.format(lo=5, hi=6, far=0), level)
    np.testing.assert_allclose(got, x * 2, rtol=1e-6)
