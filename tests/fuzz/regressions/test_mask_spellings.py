"""Masks written in every spelling, on loads and stores: ``offs < N``, ``offs <= N - 1``, ``N > offs``,
``N - 1 >= offs``, ``N >= offs + 1``, ``offs + 1 <= N`` and the ``&`` of two bounds.  A mask that is a prefix of
the block (``affine.prefix_count``) moves as one DMA of ``count`` elements; for ``<=`` and ``>=`` the count is
one more than the bound, and losing that ``+ 1`` drops the last element (element N - 1 here).  Checked
elementwise against numpy with N not a multiple of the block, a grid one program larger than ``cdiv(N, B)`` (a
program wholly past N), a one-element block, at -O0, -O2 and -O3."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SPELLINGS = {
    "lt": "offs < N",
    "le": "offs <= N - 1",
    "gt-reversed": "N > offs",
    "ge-reversed": "N - 1 >= offs",
    "ge-plus-one": "N >= offs + 1",
    "le-plus-one": "offs + 1 <= N",
    "and-of-two": "(offs >= 0) & (offs <= N - 1)",
}

SRC = '''
@triton.jit
def k(X, O, N, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    x = tl.load(X + offs, mask={load}, other=-7.0)
    tl.store(O + offs, x + 1.0, mask={store})
'''

SENTINEL = 99.0


def _run(load, store, n, block, level):
    path = Path(tempfile.mkdtemp(prefix="mtiacc-mask-")) / "k.py"
    path.write_text(HEADER + SRC.format(load=load, store=store))
    grid = -(-n // block) + 1                       # one program more than needed: it is wholly past N
    cap = grid * block                              # the buffers hold every lane, so a wrong mask is seen, not faulted
    x = np.random.default_rng(n).standard_normal(cap).astype(np.float32)
    comp = mtiacc.compile(str(path), "k", signature="*fp32,*fp32,i32", constexprs={"B": block}, opt_level=level)
    out = mtiasim.run(comp.binary, {"X": x, "O": np.full(cap, SENTINEL, np.float32), "N": np.int32(n)},
                      grid=(grid,)).outputs["O"]
    want = np.full(cap, SENTINEL, np.float32)
    want[:n] = x[:n] + np.float32(1.0)
    return out, want


@pytest.mark.parametrize("level", [0, 2, 3])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_load_and_store_mask_in_each_spelling(spelling, level):
    out, want = _run(SPELLINGS[spelling], SPELLINGS[spelling], 37, 16, level)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("load,store", [("le", "lt"), ("lt", "ge-reversed"), ("ge-plus-one", "le-plus-one")])
def test_load_and_store_masks_spelled_differently(load, store):
    out, want = _run(SPELLINGS[load], SPELLINGS[store], 21, 8, 2)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("spelling", ["le", "ge-reversed"])
def test_a_loaded_lane_past_the_mask_reads_other(spelling):
    """The load alone: lanes at and past N read ``other``, lanes before it read X (the store is unmasked)."""
    src = SRC.replace("mask={store}", "").format(load=SPELLINGS[spelling], store="")
    path = Path(tempfile.mkdtemp(prefix="mtiacc-mask-")) / "k.py"
    path.write_text(HEADER + src)
    x = np.arange(16, dtype=np.float32)
    comp = mtiacc.compile(str(path), "k", signature="*fp32,*fp32,i32", constexprs={"B": 16}, opt_level=2)
    out = mtiasim.run(comp.binary, {"X": x, "O": np.zeros(16, np.float32), "N": np.int32(11)},
                      grid=(1,)).outputs["O"]
    np.testing.assert_array_equal(out, np.where(np.arange(16) < 11, x, np.float32(-7.0)) + 1)


@pytest.mark.parametrize("spelling", ["le", "ge-plus-one"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_one_element_blocks(spelling, n):
    out, want = _run(SPELLINGS[spelling], SPELLINGS[spelling], n, 1, 2)
    np.testing.assert_array_equal(out, want)
