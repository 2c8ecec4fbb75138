"""A multiply by a bool cast to float runs as a multiply by 0.0 under the inverted mask (codegen/vector/masks.py): the
results are the IEEE products bit for bit (``0.0 * x`` is ``-0.0`` for a negative ``x`` and NaN for an infinite
or NaN one; ``1.0 * x`` is ``x``), and a compare read only as a mask writes v0 itself."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.numerics import fma

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(R, X, Y, N, KIND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    r = tl.load(R + offs, m)
    x = tl.load(X + offs, m)
    if KIND == 0:      # a float compare: no exact inverse predicate
        y = (r > 0.25).to(tl.float32) * x
    elif KIND == 1:    # an unsigned compare on the bits (dropout's keep decision after canonicalize)
        y = x * (r.to(tl.uint32, bitcast=True) > 1048576000).to(tl.float32) * 1.5 + r
    elif KIND == 2:    # a compare read by a select, into v0
        y = tl.where(r < 0.5, x, r) * 2.0
    else:              # the mask also read elsewhere: it stays in a group
        c = r > 0.25
        y = c.to(tl.float32) * x + tl.where(c, 1.0, 0.0)
    tl.store(Y + offs, y, m)
"""


def _inputs(n):
    rng = np.random.default_rng(n)
    r = rng.uniform(-1, 1, n).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    x[::7] = -x[::7] * 0.0 - 1.0          # negative values: -0.0 where dropped
    x[3::11] = np.inf
    x[5::13] = -np.inf
    r[2::17] = np.nan                     # NaN compares false
    return r, x


def _want(kind, r, x):
    with np.errstate(invalid="ignore"):
        if kind == 0:
            return (r > np.float32(0.25)).astype(np.float32) * x
        if kind == 1:
            return fma(x * (r.view(np.uint32) > 1048576000).astype(np.float32), np.float32(1.5), r)   # contract-fma
        if kind == 2:
            return np.where(r < np.float32(0.5), x, r) * np.float32(2.0)
        c = r > np.float32(0.25)
        return c.astype(np.float32) * x + np.where(c, np.float32(1), np.float32(0))


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
@pytest.mark.parametrize("n", [64, 1000])
def test_masked_multiply_is_the_ieee_product(tmp_path, kind, n):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    binary = compile_kernel(str(src), Options(signature="*fp32,*fp32,*fp32,i32",
                                              defines={"KIND": str(kind), "BLOCK": "256"})).binary
    r, x = _inputs(n)
    out = run(binary, {"R": r, "X": x, "Y": np.zeros(n, np.float32), "N": np.array(n, np.int32)},
              grid=(-(-n // 256),)).outputs["Y"]
    want = _want(kind, r, x)
    same = (out.view(np.uint32) == want.view(np.uint32)) | (np.isnan(out) & np.isnan(want))
    assert same.all(), (np.flatnonzero(~same)[:8], out[~same][:8], want[~same][:8])


def test_the_masked_forms_are_chosen(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)

    def asm(kind):
        return compile_kernel(str(src), Options(signature="*fp32,*fp32,*fp32,i32",
                                                defines={"KIND": str(kind), "BLOCK": "256"}), stop_after="asm").asm_text
    one = asm(1)
    assert "vmsleu.vx\tv0," in one and "vmnand" not in one and ", v0.t" in one   # ugt inverted: ule
    assert "vmerge" not in one and "ta, mu" in one
    two = asm(2)
    assert "vmflt.vf\tv0," in two and "vmand.mm\tv0" not in two and "ta, ma" in two
    three = asm(3)
    assert "vmnand.mm\tv0, v" in three and "vmnand.mm\tv0, v0, v0" not in three
