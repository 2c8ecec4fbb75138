"""Triton's tutorial 04 (low-memory dropout): its `_seeded_dropout` kernel compiled as the tutorial writes it, run
on the simulator, against a numpy dropout drawing the same Philox stream (reference.py), bit for bit."""
import numpy as np
import pytest

from tests.language.harness import launch
from tests.language.random import reference as ref

# The kernel below is `_seeded_dropout` from Triton's python/tutorials/04-low-memory-dropout.py, unmodified, used
# here as a test input only.  Triton's license:
#
#   Copyright 2018-2020 Philippe Tillet
#   Copyright 2020-2022 OpenAI
#
#   Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
#   documentation files (the "Software"), to deal in the Software without restriction, including without limitation
#   the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and
#   to permit persons to whom the Software is furnished to do so, subject to the following conditions:
#
#   The above copyright notice and this permission notice shall be included in all copies or substantial portions
#   of the Software.
#
#   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED
#   TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
#   THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF
#   CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
#   DEALINGS IN THE SOFTWARE.
SEEDED_DROPOUT = '''
@triton.jit
def _seeded_dropout(
    x_ptr,
    output_ptr,
    n_elements,
    p,
    seed,
    BLOCK_SIZE: tl.constexpr,
):
    # compute memory offsets of elements handled by this instance
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # load data from x
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # randomly prune it
    random = tl.rand(seed, offsets)
    x_keep = random > p
    # write-back
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)
'''


def dropout(x: np.ndarray, p: np.float32, seed: int) -> np.ndarray:
    keep = ref.uint_to_uniform_float(ref.randint4x(seed, np.arange(len(x), dtype=np.int32))[0]) > p
    return np.where(keep, x / (np.float32(1) - p), np.float32(0))


@pytest.mark.parametrize("p, seeds", [(0.5, [123, 512]), (0.1, [0, -1])])
def test_seeded_dropout(p, seeds):
    """The tutorial's launch: BLOCK_SIZE=1024, a ragged last block; the same seed gives the same mask, another
    seed another one."""
    n = 2500
    x = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    p = np.float32(p)
    outs = []
    for seed in seeds:
        y = launch(SEEDED_DROPOUT, "*fp32,*fp32,i32,fp32,i32",
                   {"x_ptr": x, "output_ptr": np.full(n, 7, np.float32), "n_elements": np.array(n, np.int32),
                    "p": np.array(p, np.float32), "seed": np.array(seed, np.int32)},
                   grid=(-(-n // 1024),), defines=(("BLOCK_SIZE", "1024"),)).outputs["output_ptr"]
        want = dropout(x, p, seed)
        np.testing.assert_array_equal(y.view(np.uint32), want.view(np.uint32))
        assert abs((y == 0).mean() - p) < 0.05
        outs.append(y)
    assert ((outs[0] == 0) != (outs[1] == 0)).any()
