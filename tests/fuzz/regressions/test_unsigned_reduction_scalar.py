"""A reduction of an 8- or 16-bit unsigned block to a scalar, then widened (random kernel 1843:
``tl.xor_sum`` of two uint8 values, 111 ^ 224 = 143, added to an fp32 scalar gave -113). The reduction's
``vmv.x.s`` sign-extends its element, while the register convention keeps a narrow unsigned scalar
zero-extended (as ``lbu`` and ``lhu`` load it); the conversion to float then read a negative number. Checked
against numpy for the xor, max and min reductions (tl.sum widens to int32 first) on values with the top bit set, at -O0 and -O3."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def k(X, F, I, B: tl.constexpr):
    offs = tl.arange(0, B)
    r = {reduce}
    tl.store(F, r + tl.load(F))
    tl.store(I, r.to(tl.int32))
'''

REDUCTIONS = {
    "xor_sum": ("tl.xor_sum(tl.load(X + offs), axis=0)", np.bitwise_xor.reduce),
    "max": ("tl.max(tl.load(X + offs), axis=0)", np.max),
    "min": ("tl.min(tl.load(X + offs), axis=0)", np.min),
    "reduce_xor": ("tl.reduce(tl.load(X + offs), 0, _xor)", np.bitwise_xor.reduce),
}


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_an_unsigned_reduction_widens_as_unsigned(name, dtype, level):
    src, ref = REDUCTIONS[name]
    path = Path(tempfile.mkdtemp(prefix="mtiacc-ured-")) / "k.py"
    path.write_text(HEADER + SRC.format(reduce=src))
    bits = np.dtype(dtype).itemsize * 8
    top = 1 << (bits - 1)
    low = 0x13 if "xor" in name else top | 0x13       # an odd number of top bits for the xors
    x = np.array([top | 0x5A, top | 0x21, low, top | 0x40], dtype)    # every result has its top bit set
    want = ref(x)
    assert int(want) & top
    sig = f"*u{bits},*fp32,*i32"
    comp = mtiacc.compile(str(path), "k", signature=sig, constexprs={"B": 4}, opt_level=level)
    out = mtiasim.run(comp.binary, {"X": x, "F": np.array([0.5], np.float32), "I": np.zeros(1, np.int32)},
                      grid=(1,)).outputs
    assert out["I"][0] == int(want)
    assert out["F"][0] == np.float32(int(want) + 0.5)
