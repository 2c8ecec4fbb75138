"""``tl.dot`` over blocks of rank 4 to 6 (a batch of products over every leading dimension, folded into
one batch dimension for ``tt.dot``), ``tl.trans`` without dims on a batch (the last two axes swapped), and
shapes written as list arithmetic (``[2] * (RANK - 2) + [32, 32]``): compiled and run on the simulator
against numpy, with seeded small-integer inputs (exact in f16 and in the f32 accumulator)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.language.harness import launch

SRC = """
@triton.jit
def k(X, Y, Z, RANK: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr):
    x = tl.load(X + tl.arange(0, 64 << RANK)).reshape([2] * (RANK - 2) + [16, 16])
    y = tl.load(Y + tl.arange(0, 64 << RANK)).reshape([2] * (RANK - 2) + [16, 16])
    if TRANS_A:
        x = tl.trans(x)
    if TRANS_B:
        y = tl.trans(y)
    z = tl.dot(x, y)
    tl.store(Z + tl.arange(0, 64 << RANK), z.reshape([64 << RANK]))
"""


@pytest.mark.parametrize("rank, trans_a, trans_b", [(2, 1, 0), (3, 0, 1), (4, 0, 0), (5, 1, 1), (6, 0, 0)])
def test_batched_dot_matches_numpy(rank, trans_a, trans_b):
    shape = (2,) * (rank - 2) + (16, 16)
    rng = np.random.default_rng(rank)
    a = rng.integers(-4, 5, shape).astype(np.float16)
    b = rng.integers(-4, 5, shape).astype(np.float16)
    out = launch(SRC, "*fp16,*fp16,*fp32", {"X": a.ravel(), "Y": b.ravel(), "Z": np.zeros(a.size, np.float32)},
                 defines=(("RANK", str(rank)), ("TRANS_A", str(trans_a)), ("TRANS_B", str(trans_b)))).outputs["Z"]
    ta = np.swapaxes(a, -1, -2) if trans_a else a
    tb = np.swapaxes(b, -1, -2) if trans_b else b
    want = np.matmul(ta.astype(np.float32), tb.astype(np.float32))
    np.testing.assert_array_equal(out.reshape(shape), want)
