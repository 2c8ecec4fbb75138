"""Pointer blocks indexed by a reshaped affine block (``tl.arange(0, N).reshape(...)``, a row-major tile
merged into one row, a run-time stride split over three axes, a transposed tile that stays a gather) load
and store the right elements, against numpy; and Triton's chained-reductions pattern, a 5-D block loaded
through a reshaped arange, permuted and summed over three axes, at a size whose pointer block would not
fit in local memory if it were materialized (test_chained_reductions' 4x32x32x4x2)."""
import numpy as np
import pytest

from tests.language.harness import launch

KERNEL = """
@triton.jit
def k(X, Y, S):
    idx = (tl.arange(0, 64) * S).reshape(4, 4, 4)
    cube = tl.load(X + idx)
    tl.store(Y + tl.arange(0, 64).reshape(4, 4, 4), cube)
    rows = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    flat = tl.load(X + rows.reshape(32))
    tl.store(Y + 64 + tl.arange(0, 32), flat)
    cols = tl.arange(0, 4)[:, None] + tl.arange(0, 8)[None, :] * 4
    twisted = tl.load(X + cols.reshape(32))
    tl.store(Y + 96 + tl.arange(0, 32), twisted)
"""


@pytest.mark.parametrize("s", [1, 3])
def test_reshaped_pointer_blocks(s):
    x = np.random.default_rng(s).standard_normal(64 * 3).astype(np.float32)
    y = launch(KERNEL, "*fp32,*fp32,i32", {"X": x, "Y": np.zeros(128, np.float32), "S": np.array(s, np.int32)}
               ).outputs["Y"]
    np.testing.assert_array_equal(y[:64], x[np.arange(64) * s])
    np.testing.assert_array_equal(y[64:96], x[:32])
    cols = (np.arange(4)[:, None] + np.arange(8)[None, :] * 4).reshape(32)
    np.testing.assert_array_equal(y[96:], x[cols])


CHAINED = """
@triton.jit
def chained(In, Out, D0: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr, D3: tl.constexpr, D4: tl.constexpr):
    idx = tl.arange(0, D0 * D1 * D2 * D3 * D4).reshape(D0, D1, D2, D3, D4)
    vals = tl.permute(tl.load(In + idx), [2, 1, 0, 3, 4])
    r = tl.sum(tl.sum(tl.sum(vals, 3), 1), 0)
    tl.store(Out + tl.arange(0, r.shape[0] * r.shape[1]).reshape(r.shape), r)
"""


def test_chained_reductions_over_a_reshaped_arange():
    shape = (4, 32, 32, 4, 2)
    x = np.random.default_rng(0).integers(0, 1000, shape).astype(np.int32)
    out = launch(CHAINED, "*i32,*i32", {"In": x.reshape(-1), "Out": np.zeros(8, np.int32)},
                 defines=tuple((f"D{i}", str(d)) for i, d in enumerate(shape))).outputs["Out"]
    want = x.transpose(2, 1, 0, 3, 4).sum(3).sum(1).sum(0)
    np.testing.assert_array_equal(out.reshape(4, 2), want)
