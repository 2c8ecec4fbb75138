"""A fused loop run two rows an iteration sums each row of a value whose one reader is ``tl.sum(., 1)`` beside
computing it (codegen/tensor/fused.py, "row sums"): the block is never stored, and the sums are the ones the
reduction of the stored block gives (its first element plus the unordered sum of the rest), bit for bit.  Rows of
16, 32 and 64 f32 (the longest a register group holds at LMUL 4), rows of 128 left to the reduction (a row at a
time, in chunks), and a value also stored (two readers: not fused)."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(X, M, P, L, s, R: tl.constexpr, C: tl.constexpr, STORE_P: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(X + r[:, None] * C + c[None, :])
    m = tl.load(M + r)
    p = tl.math.exp2(x * s - m[:, None])
    tl.store(L + r, tl.sum(p, 1))
    tl.store(P + r[:, None] * C + c[None, :], p.to(tl.float16))
    if STORE_P:
        tl.store(L + R + r[:, None] * C + c[None, :], p)
"""


def _run(tmp_path, R, C, store_p):
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    comp = compile_kernel(str(src), Options(signature="*fp32,*fp32,*fp16,*fp32,fp32", opt_level=3,
                                            defines={"R": str(R), "C": str(C), "STORE_P": str(store_p)}))
    asm = compile_kernel(str(src), Options(signature="*fp32,*fp32,*fp16,*fp32,fp32", opt_level=3,
                                           defines={"R": str(R), "C": str(C), "STORE_P": str(store_p)}),
                         stop_after="asm").asm_text
    rng = np.random.default_rng(R * 100 + C)
    x = rng.standard_normal((R, C)).astype(np.float32)
    m = rng.standard_normal(R).astype(np.float32)
    out = run(comp.binary, {"X": x, "M": m, "P": np.zeros((R, C), np.float16),
                            "L": np.zeros(R + R * C, np.float32), "s": np.array(np.float32(0.75))}, grid=(1,)).outputs
    return asm, out["P"].reshape(R, C), out["L"][:R], out["L"][R:].reshape(R, C)


@pytest.mark.parametrize("R, C", [(8, 16), (4, 32), (32, 64)])
@pytest.mark.parametrize("store_p", [False, True])
def test_row_sums_are_the_reduction_s(tmp_path, R, C, store_p):
    asm, p16, l, p = _run(tmp_path, R, C, store_p)
    assert ("row sums fused" in asm) == (not store_p)
    # the row slid down one by the SE (stored, read back from its second element) from 64 elements on, else by
    # the vector unit (vslidedown.vi)
    assert ("its elements after the first" in asm) == (not store_p and C >= 64)
    assert ("vslidedown.vi" in asm) == (not store_p and C < 64)
    # p as the simulator computes it: the fp16 copy is p rounded, the stored f32 p exact (when stored)
    if store_p:
        want_p = p
    else:       # the reference's p: recomputed from the fp16-free path by the same kernel with p stored
        _, _, _, want_p = _run(tmp_path, R, C, True)
    np.testing.assert_array_equal(p16, want_p.astype(np.float16))
    want_l = np.array([want_p[i, 0] + np.add.reduce(want_p[i, 1:], dtype=np.float32) for i in range(R)],
                      np.float32)
    assert l.tobytes() == want_l.tobytes()


def test_rows_longer_than_a_group_keep_the_reduction(tmp_path):
    asm, _, l, _ = _run(tmp_path, 4, 128, False)
    assert "row sums fused" not in asm and "vslidedown.vi" not in asm
    _, _, _, p = _run(tmp_path, 4, 128, True)
    want_l = np.array([p[i, 0] + np.add.reduce(p[i, 1:], dtype=np.float32) for i in range(4)], np.float32)
    assert l.tobytes() == want_l.tobytes()
