"""Fused loops versioned on a whole chunk (codegen/tensor/fused.py): where every prefix mask ``off + arange(n) < N``
is whole, the loop runs with the masks known true (a select is its chosen operand, ``and`` / ``or`` fold), else
the masked loop.  Against numpy, bit for bit, for row lengths with whole chunks only, a partial last chunk, and a
partial chunk only (tests/filecheck/norm_vector_asm.py pins the instructions)."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from tests.language.harness import launch

SRC = '''
import triton
import triton.language as tl


@triton.jit
def k(X, Y, Z, F, S, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(X + cols, mask=m, other=0.)
        pos = m & (x > 0)
        neg = (x < -1.0) | m
        acc += tl.where(m, x * x, 0.) + tl.where(pos, 1.0, 0.) - tl.where(m, 0., 2.0)
        tl.store(Y + cols, tl.where(pos, x, -x) + tl.where(neg, 0.5, 0.25), mask=m)
        tl.store(Z + cols, (m & (x < 0.5)).to(tl.int32) + pos.to(tl.int32) * 2, mask=m)
        tl.store(F + cols, m.to(tl.float32) * x, mask=m)
    tl.store(S + tl.arange(0, BLOCK), acc)
'''
SIG = "*fp32,*fp32,*i32,*fp32,*fp32,i32"


@pytest.mark.parametrize("n", [256, 200, 64])
def test_whole_and_partial_chunks_match_numpy(n):
    block = 64 if n != 64 else 128
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32) * 2
    data = {"X": x, "Y": np.zeros(n, np.float32), "Z": np.zeros(n, np.int32), "F": np.zeros(n, np.float32),
            "S": np.zeros(block, np.float32), "N": np.array(n, np.int32)}
    out = launch(SRC, SIG, data, defines=(("BLOCK", str(block)),)).outputs
    pos, neg = x > 0, (x < -1) | True
    np.testing.assert_array_equal(out["Y"], np.where(pos, x, -x) + np.where(neg, np.float32(0.5), np.float32(0.25)))
    np.testing.assert_array_equal(out["Z"], (x < 0.5).astype(np.int32) + pos.astype(np.int32) * 2)
    np.testing.assert_array_equal(out["F"], x)
    want = np.zeros(block, np.float32)
    for off in range(0, n, block):
        cols = off + np.arange(block)
        m = cols < n
        xv = np.where(m, np.pad(x, (0, block))[cols], np.float32(0))
        want = want + ((np.where(m, xv * xv, np.float32(0)) + np.where(m & (xv > 0), np.float32(1), np.float32(0)))
                       - np.where(m, np.float32(0), np.float32(2)))
    np.testing.assert_array_equal(out["S"], want)


def test_the_whole_chunks_loop_has_no_mask_instructions(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(SRC)
    asm = compile_kernel(str(path), Options(signature=SIG, defines={"BLOCK": "64"}), stop_after="asm").asm_text
    whole = [seg.split("bnez", 1)[0] for seg in asm.split("its masks whole")[1:]]
    assert whole, "no loop versioned on a whole chunk"
    for body in whole:
        assert "vid.v" not in body and "vmslt" not in body, body
