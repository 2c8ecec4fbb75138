"""A bf16 block meeting an integer block computed in bf16 (the integer converted to bf16, rounding it); Triton's
`computation_type_impl` gives f32 for bf16 with anything but bf16.  Found by the random-kernel tests when they
began mixing dtypes (seed 50015: `x_bf16 * y_u16`)."""
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mtiacc
import mtiasim
from tests.language.harness import HEADER

SRC = '''
@triton.jit
def k(X, Y, O):
    x = tl.load(X + tl.arange(0, 8))
    y = tl.load(Y + tl.arange(0, 8))
    tl.store(O + tl.arange(0, 8), {expr})
    tl.static_assert({check})
'''


@pytest.mark.parametrize("ity,sig", [(np.uint16, "u16"), (np.int32, "i32"), (np.int8, "i8")])
@pytest.mark.parametrize("expr,check,f", [
    ("x * y", "(x * y).dtype == tl.float32", lambda x, y: x * y),
    ("y - x", "(y - x).dtype == tl.float32", lambda x, y: y - x),
    ("tl.where(x < 0, x, y)", "tl.where(x < 0, x, y).dtype == tl.float32", lambda x, y: np.where(x < 0, x, y)),
])
def test_bf16_with_an_integer_computes_in_f32(ity, sig, expr, check, f):
    bits = np.array([0x3FC0, 0xC020, 0x4000, 0x3F80, 0xBF00, 0x4100, 0x3E80, 0xC2C8], np.uint16)  # 1.5, -2.5, ...
    x = (bits.astype(np.uint32) << 16).view(np.float32)
    y = np.array([62848, 257, 3, 1, 100, 7, 12345, 4099], np.int64).astype(ity)
    path = Path(tempfile.mkdtemp(prefix="mtiacc-bf16i-")) / "k.py"
    path.write_text(HEADER + SRC.format(expr=expr, check=check))
    for level in (0, 3):
        comp = mtiacc.compile(str(path), "k", signature=f"*bf16,*{sig},*fp32", opt_level=level)
        out = mtiasim.run(comp.binary, {"X": bits, "Y": y, "O": np.zeros(8, np.float32)},
                          grid=(1,)).outputs["O"]
        np.testing.assert_array_equal(out, f(x, y.astype(np.float32)).astype(np.float32))
