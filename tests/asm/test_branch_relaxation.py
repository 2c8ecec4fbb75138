"""Conditional branches to targets beyond +-4 KiB are relaxed, as GNU as does: ``b<cond> ..., far`` becomes
``b<cond> ..., .+8; j .+8; j far`` (the condition is kept, so pseudo-branches relax alike), and pass 1
repeats while relaxing pushes other branches out of range.  Checked on the encodings and by running them."""
import numpy as np
import pytest

from mtiacc.asm.assembler import assemble
from mtiacc.asm.encoding import decode_all
from tests.sim.helpers import P, run_asm


def decoded(text):
    return [str(d) for d in decode_all(assemble(text).code)]


def test_a_near_branch_stays_one_word():
    assert decoded("  beq a0, a1, near\n  nop\nnear: nop")[0] == "beq a0, a1, .+8"


def test_a_far_forward_branch_becomes_three_words():
    words = decoded("  bnez a0, far\n" + "  nop\n" * 1100 + "far: nop")
    assert words[:3] == ["bne a0, zero, .+8", "jal zero, .+8", f"jal zero, .+{1100 * 4 + 4}"]
    assert len(words) == 1100 + 4


def test_a_far_backward_branch():
    words = decoded("top: nop\n" + "  nop\n" * 1100 + "  blt a0, a1, top\n  nop")
    assert words[1101:1104] == ["blt a0, a1, .+8", "jal zero, .+8", f"jal zero, .-{1101 * 4 + 8}"]


def test_relaxing_one_branch_pushes_another_out_of_range():
    # A's target is 4092 bytes away until B, between them, grows by 8 bytes.
    text = "  beq a0, a1, end\n  bne a0, a1, far\n" + "  nop\n" * 1021 + "end: nop\n" + "  nop\n" * 200 + \
        "far: nop"
    assert decoded(text.replace("far", "end", 1))[0] == "beq a0, a1, .+4092"      # without B relaxed: near
    words = decoded(text.replace("  bne a0, a1, far\n", "  bne a0, a1, far2\n") + "\n" + "  nop\n" * 900 +
                    "far2: nop")
    assert words[0] == "beq a0, a1, .+8" and words[3] == "bne a0, a1, .+8"


@pytest.mark.parametrize("a, b", [(1, 2), (5, 5)])
def test_relaxed_branches_run_correctly(a, b):
    """out[0] = 1 when a != b (the far bnez taken), else 2; a far backward loop runs 3 times: out[1] = 3."""
    pad = "    nop\n" * 1100
    asm = f"""
kernel:
    ld s0, 0(zero)
    ld t0, 8(zero)
    ld t1, 16(zero)
    li a2, 0
    bne t0, t1, taken
{pad}
    li a0, 2
    j loop_init
taken:
    li a0, 1
loop_init:
    li t2, 3
loop:
    addi a2, a2, 1
    addi t2, t2, -1
{pad}
    bnez t2, loop
    li t3, 1024
    sd a0, 0(t3)
    sd a2, 8(t3)
    li t4, 16
    mtia.dma.out s0, t3, t4
    mtia.dma.wait
    ret
"""
    out = run_asm(asm, {"Out": np.zeros(2, np.int64), "a": np.array(a, np.int64), "b": np.array(b, np.int64)},
                  params=[P("Out", "*i64"), P("a", "i64"), P("b", "i64")]).outputs["Out"]
    assert out.tolist() == [1 if a != b else 2, 3]


POW_LOOP = """
from triton.language.extra import libdevice


@triton.jit
def k(X, Y, n):
    acc = tl.load(X).to(tl.float64)
    for i in range(n):
        acc = libdevice.pow(acc, 1.0001) + libdevice.pow(acc + 1.0, 0.5) * 0.001
    tl.store(Y, acc)
"""


def test_a_loop_around_long_straight_line_code_compiles_and_runs():
    """Two float64 pows make the loop body longer than a branch reaches (was: 'branch target out of range:
    offset 5776' from the assembler, on the loop's exit branch)."""
    from tests.language.harness import launch
    out = launch(POW_LOOP, "*fp64,*fp64,i32", {"X": np.array([1.7]), "Y": np.zeros(1),
                                                "n": np.array(5, np.int32)}).outputs["Y"]
    acc = 1.7
    for _ in range(5):
        acc = acc ** 1.0001 + (acc + 1.0) ** 0.5 * 0.001
    np.testing.assert_allclose(out[0], acc, rtol=1e-15)
