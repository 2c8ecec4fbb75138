"""Vector loads and stores: unit-stride (per-program addresses), strided, indexed, masked; only active elements
are touched."""
import numpy as np
import pytest

from tests.sim.helpers import P, run_asm

# A (input) and C (output) are DMAed whole into local memory at 4096 / 65536; per program a different window.
KERNEL = """
kernel:
    ld s0, 0(zero)
    ld s2, 8(zero)
    ld s5, 16(zero)
    li a1, 4096
    li a3, 65536
    mtia.dma.in a1, s0, s5
    mtia.dma.in a3, s2, s5
    mtia.dma.wait
    mtia.pid t0, 0
    ld s6, 24(zero)
    mul t1, t0, s6
    add a1, a1, t1
    add a3, a3, t1
    vsetvli t0, zero, e{sew}, m{lmul}, ta, ma
    {body}
    li a3, 65536
    mtia.dma.out s2, a3, s5
    mtia.dma.wait
    ret
"""
UT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def run_mem(sew, lmul, body, A, C, step_bytes, progs, scalars=None):
    params = [P("A", "*u%d" % sew), P("C", "*u%d" % sew), P("NB", "i64"), P("STEP", "i64")]
    inputs = {"A": A, "C": C.copy(), "NB": np.array(A.nbytes, np.int64), "STEP": np.array(step_bytes, np.int64)}
    return run_asm(KERNEL.format(sew=sew, lmul=lmul, body=body), inputs, params=params, grid=(progs,)).outputs["C"]


@pytest.mark.parametrize("sew,lmul", [(8, 1), (16, 4), (32, 8), (64, 2)])
def test_unit_stride_with_different_addresses_per_program(sew, lmul):
    vl = 512 // sew * lmul
    esz = sew // 8
    A = np.arange(4 * vl + 8).astype(UT[sew])
    C = np.zeros_like(A)
    out = run_mem(sew, lmul, f"vle{sew}.v v8, (a1)\n    vse{sew}.v v8, (a3)", A, C, step_bytes=esz * 3, progs=4)
    exp = C.copy()
    p = 3   # every program writes the whole C back; the last one's DMA lands last
    exp[3 * p:3 * p + vl] = A[3 * p:3 * p + vl]
    np.testing.assert_array_equal(out, exp)


@pytest.mark.parametrize("sew", [8, 16, 32, 64])
def test_strided_load_and_store(sew):
    lmul = 1
    vl = 512 // sew
    A = np.arange(vl * 4).astype(UT[sew])
    C = np.zeros_like(A)
    esz = sew // 8
    body = f"""li t2, {3 * esz}
    vlse{sew}.v v8, (a1), t2
    li t3, {2 * esz}
    vsse{sew}.v v8, (a3), t3"""
    n = min(vl, (len(A) - 1) // 3 + 1, (len(A) - 1) // 2 + 1)
    body = body.replace("vsetvli", "vsetvli")
    out = run_mem(sew, lmul, f"li t4, {n}\n    vsetvli t0, t4, e{sew}, m1, ta, ma\n    " + body, A, C, 0, 1)
    exp = C.copy()
    exp[0:2 * n:2] = A[0:3 * n:3][:n]
    np.testing.assert_array_equal(out, exp)


def test_negative_and_zero_strides():
    A = np.arange(64).astype(np.uint32)
    C = np.zeros_like(A)
    body = """li t4, 8
    vsetvli t0, t4, e32, m1, ta, ma
    addi a1, a1, 124
    li t2, -4
    vlse32.v v8, (a1), t2
    vse32.v v8, (a3)
    addi a3, a3, 64
    vlse32.v v9, (a1), zero
    vse32.v v9, (a3)"""
    out = run_mem(32, 1, body, A, C, 0, 1)
    np.testing.assert_array_equal(out[:8], A[31:23:-1])
    np.testing.assert_array_equal(out[16:24], np.full(8, 31))


@pytest.mark.parametrize("idx_eew", [8, 16, 32, 64])
def test_indexed_gather_and_scatter(idx_eew):
    """vluxei: byte offsets from an index vector (of its own EEW); vsuxei scatters."""
    sew, lmul = 32, 2
    vl = 512 // sew * lmul
    rng = np.random.default_rng(idx_eew)
    perm = rng.permutation(vl).astype(np.int64)
    offs = (perm * 4).astype(UT[idx_eew])
    A = np.concatenate([rng.integers(0, 1 << 30, vl).astype(np.uint32),
                        offs.view(np.uint8).view(np.uint32) if offs.nbytes % 4 == 0 else np.zeros(0, np.uint32)])
    A = np.concatenate([A, np.zeros(64, np.uint32)])
    C = np.zeros_like(A)
    idx_bytes = vl * 4
    body = f"""addi t5, a1, {idx_bytes}
    vsetvli t0, zero, e{idx_eew}, m{max(1, idx_eew * lmul // sew) if idx_eew >= sew else 1}, ta, ma
    vle{idx_eew}.v v16, (t5)
    vsetvli t0, zero, e32, m2, ta, ma
    vluxei{idx_eew}.v v8, (a1), v16
    vse32.v v8, (a3)
    li t6, {idx_bytes * 2}
    add t6, a3, t6
    vsuxei{idx_eew}.v v8, (t6), v16"""
    if offs.nbytes % 4:
        pytest.skip("index vector does not fill whole words")
    out = run_mem(sew, lmul, body, A, C, 0, 1)
    np.testing.assert_array_equal(out[:vl], A[:vl][perm])
    back = out[2 * vl:3 * vl]
    np.testing.assert_array_equal(back[perm], A[:vl][perm])


def test_masked_loads_and_stores_touch_only_active_elements():
    """A masked load leaves inactive destination elements alone; a masked store does not write them, and an
    inactive element may even point outside local memory."""
    A = np.arange(1, 65).astype(np.uint32)
    C = np.full(64, 7, np.uint32)
    body = """li t4, 16
    vsetvli t0, t4, e32, m1, ta, ma
    vid.v v2
    vand.vi v3, v2, 1
    vmseq.vi v0, v3, 0
    vmv.v.i v8, 0
    vle32.v v8, (a1), v0.t
    vse32.v v8, (a3)
    addi t6, a3, 64
    vse32.v v8, (t6), v0.t
    li t2, 0x7fff0000
    vmsne.vi v0, v3, 0
    vlse32.v v9, (t2), zero, v0.t
    vmnand.mm v0, v0, v0
    vsse32.v v8, (t2), t2, v0.t"""
    body = body.replace("vmsne.vi v0, v3, 0\n    vlse32.v v9, (t2), zero, v0.t\n    vmnand.mm v0, v0, v0\n    "
                        "vsse32.v v8, (t2), t2, v0.t", "vmxor.mm v0, v0, v0\n    vlse32.v v9, (t2), t2, v0.t\n"
                        "    vsse32.v v8, (t2), t2, v0.t")
    out = run_mem(32, 1, body, A, C, 0, 1)
    even = np.arange(16) % 2 == 0
    np.testing.assert_array_equal(out[:16], np.where(even, A[:16], 0))
    np.testing.assert_array_equal(out[16:32], np.where(even, A[:16], 7))
    np.testing.assert_array_equal(out[32:], 7)


def test_vsetvli_rules():
    """vl = min(AVL, VLMAX); rs1 = x0 with rd != x0 -> VLMAX; rd = x0, rs1 = x0 keeps vl; vsetivli."""
    body = """li t4, 1000
    vsetvli s7, t4, e32, m2, ta, ma
    sd s7, 64(a3)
    li t4, 5
    vsetvli s7, t4, e16, m1, ta, ma
    sd s7, 72(a3)
    vsetvli s7, zero, e8, m4, ta, ma
    sd s7, 80(a3)
    vsetivli s7, 17, e64, m8, ta, ma
    sd s7, 88(a3)
    li t4, 3
    vsetvli zero, t4, e32, m1, ta, ma
    vsetvli zero, zero, e32, m1, ta, ma
    csrr_placeholder
    vsetvli s7, zero, e64, m1, ta, ma
    sd s7, 40(a3)"""
    body = body.replace("    csrr_placeholder\n", "    vmv.v.i v1, 0\n    vmv.v.i v1, 9\n"
                        "    vsetvli s8, zero, e32, m1, ta, ma\n    vse32.v v1, (a3)\n")
    A = np.zeros(16, np.uint64)
    out = run_mem(64, 1, body, A, np.zeros(16, np.uint64), 0, 1)
    # the vse32 of 16 elements after the keep-vl sequence overwrote the first 64 bytes: 3 nines, 13 zeros
    words = out[:8].view(np.uint32)
    np.testing.assert_array_equal(words[:3], 9)
    np.testing.assert_array_equal(words[3:10], 0)
    assert [int(v) for v in out[8:12]] == [32, 5, 256, 17]
    assert int(out[5]) == 8


def test_programs_with_different_vtypes_run_the_same_instruction():
    """Diverged programs reconverge with different SEWs: the group is split by SEW."""
    k = """
    kernel:
        ld s0, 0(zero)
        mtia.pid t0, 0
        slli t2, t0, 6
        add s0, s0, t2
        andi t0, t0, 1
        bnez t0, odd
        vsetvli t1, zero, e32, m1, ta, ma
        j common
    odd:
        vsetvli t1, zero, e16, m1, ta, ma
    common:
        vid.v v8
        vadd.vv v8, v8, v8
        li a1, 4096
        vsetvli t1, zero, e8, m1, ta, ma
        vse8.v v8, (a1)
        li t3, 64
        mtia.dma.out s0, a1, t3
        ret
    """
    from tests.sim.helpers import build
    from mtiasim.runner import run
    out = run(build(k, params=[P("O", "*u8")]), {"O": np.zeros(4 * 64, np.uint8)}, grid=(4,)).outputs["O"]
    rows = out.reshape(4, 64)
    np.testing.assert_array_equal(rows[0].view(np.uint32), np.arange(16) * 2)
    np.testing.assert_array_equal(rows[1].view(np.uint16), np.arange(32) * 2)
    np.testing.assert_array_equal(rows[2].view(np.uint32), np.arange(16) * 2)
    np.testing.assert_array_equal(rows[3].view(np.uint16), np.arange(32) * 2)
