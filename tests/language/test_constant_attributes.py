"""A number assigned to a name is a scalar of its literal's type when a tensor attribute is asked of it,
as Triton lifts it: ``value = 1; value.dtype`` is int32, ``acc = 0; acc = acc.to(tl.int64)`` an i64
accumulator (a loop over 64-bit bounds sums without wrapping).  Run on the simulator against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from tests.language.harness import launch

SRC = """
@triton.jit
def k(Y, Out, lo, hi, n, BLOCK: tl.constexpr, STEP: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    value = 1
    half = 0.5
    y = tl.full([BLOCK], value=value, dtype=value.dtype) + tl.full([BLOCK], 2, half.dtype)
    tl.store(Y + offs, y.to(tl.float32), mask=offs < n)
    acc = 0
    acc = acc.to(tl.int64)
    for i in range(lo, hi, STEP):
        acc += i
    tl.store(Out, acc)
"""


@pytest.mark.parametrize("lo, hi, step", [(2 ** 35, 2 ** 35 + 20, 3), (15, -16, -2)])
def test_number_attributes_match_triton(lo, hi, step):
    res = launch(SRC, "*fp32,*i64,i64,i64,i32", {"Y": np.zeros(16, np.float32), "Out": np.zeros(1, np.int64),
                                                  "lo": np.int64(lo), "hi": np.int64(hi), "n": np.int32(13)},
                 defines=(("BLOCK", "16"), ("STEP", str(step))))
    # value.dtype is int32, half.dtype float32: 1 + 2.0 in f32
    np.testing.assert_array_equal(res.outputs["Y"], np.where(np.arange(16) < 13, 3.0, 0.0).astype(np.float32))
    assert int(res.outputs["Out"][0]) == sum(range(lo, hi, step))
