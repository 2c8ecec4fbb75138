"""The SIMD engine's own loads and stores (``mtia.se.vle<E>.v`` / ``mtia.se.vse<E>.v``): the values of RVV's
``vle`` / ``vse`` (masks, tails, EEW 16 and 32), timed on the SE (``ceil(vl / 32)`` cycles, beside the vector
unit), and local memory in program order between the two units and before the engine and the DMA."""
import numpy as np
import pytest

from mtiacc.machine.simulator import load_config
from tests.sim.helpers import run_asm
from tests.sim.vhelpers import UT, expected, vlmax, vrun

CFG = load_config()


@pytest.mark.parametrize("sew,lmul", [(32, 4), (32, 1), (16, 2)])
@pytest.mark.parametrize("masked", [False, True])
def test_load_and_store_are_rvvs_with_masks_and_tails(sew, lmul, masked):
    rng = np.random.default_rng(sew + lmul + masked)
    progs, vm = 3, vlmax(sew, lmul)
    A, B, C = (rng.integers(0, 1 << sew, (progs, vm), dtype=np.uint64).astype(UT[sew]) for _ in range(3))
    M = rng.integers(0, 2, (progs, vm)).astype(UT[sew]) if masked else None
    N = [vm, vm - 3, 1]
    mk = ", v0.t" if masked else ""
    got, _ = vrun(sew, lmul, f"mtia.se.vle{sew}.v v24, (a1){mk}", A, B, C, M=M, N=N)
    np.testing.assert_array_equal(got, expected(C, A, M, N, masked))
    # the store writes the active body elements of v8 (A) over C in local memory, which the vector unit reads back
    body = f"mtia.se.vse{sew}.v v8, (a3){mk}\nvsetvli t0, zero, e{sew}, m{lmul}, ta, ma\nvle{sew}.v v24, (a3)"
    got, _ = vrun(sew, lmul, body, A, B, C, M=M, N=N)
    np.testing.assert_array_equal(got, expected(C, A, M, N, masked))


def _run(body, vl=64, lmul=4):
    return run_asm(f"""
    li t0, {vl}
    vsetvli t1, t0, e32, m{lmul}, ta, ma
    li a0, 4096
    li a1, 8192
    li a2, 12288
    vmv.v.i v8, 1
    vmv.v.i v12, 1
    {body}
    ret
    """).stats


def test_occupancy_bytes_and_overlap_with_the_vector_unit():
    base = _run("")
    loads = _run("\n".join(f"mtia.se.vle32.v v{16 + 4 * (k % 4)}, (a0)" for k in range(6)))
    # 64 fp32 at 32 elements a cycle: 2 SE cycles each; no SE elements computed; 256 bytes of local memory each
    assert loads.se_busy == 6 * 2 and loads.se_elements == 0
    assert loads.lm_bytes - base.lm_bytes == 6 * 256
    # 8 SE loads (2 cycles each) beside 8 vector adds (8 cycles each): hidden behind the vector unit
    vec = "\n".join(f"vfadd.vv v{24 + 4 * (k % 2)}, v12, v12" for k in range(8))
    both = "\n".join(f"mtia.se.vle32.v v{16 + 4 * (k % 2)}, (a0)\nvfadd.vv v{24 + 4 * (k % 2)}, v12, v12"
                     for k in range(8))
    assert _run(both).cycles == _run(vec).cycles
    # the same loads on the vector unit take its 8 cycles each (less the one cycle by which v12's latency, after
    # vmv.v.i's 8 cycles, delays the first add: the first load covers it)
    vload = "\n".join(f"vle32.v v{16 + 4 * (k % 2)}, (a0)\nvfadd.vv v{24 + 4 * (k % 2)}, v12, v12" for k in range(8))
    assert _run(vload).cycles - _run(both).cycles == 8 * 8 - 1


def test_a_reader_of_an_se_load_waits_its_latency_and_the_load_its_address():
    issue, lat = CFG.timing["SEMem"]
    wait = "li t2, 1\n" * 8
    dep = _run(wait + "mtia.se.vle32.v v16, (a0)\nvfadd.vv v24, v16, v16", vl=8, lmul=1)
    indep = _run(wait + "mtia.se.vle32.v v16, (a0)\nvfadd.vv v24, v12, v12", vl=8, lmul=1)
    assert dep.cycles - indep.cycles == lat - issue
    mul_issue, mul_lat = CFG.timing["IntMul"]
    # the address from a multiply (4 x 1024 = a0): the load waits for its latency
    addr = _run(wait + "li t3, 4\nli t5, 1024\nmul t4, t3, t5\nmtia.se.vle32.v v16, (t4)", vl=8, lmul=1)
    free = _run(wait + "li t3, 4\nli t5, 1024\nmul t4, t3, t5\nmtia.se.vle32.v v16, (a0)", vl=8, lmul=1)
    assert addr.cycles - free.cycles == mul_lat - mul_issue


def test_local_memory_keeps_program_order_between_the_units():
    """A vector load after an SE store starts once the store has finished, and an SE load after a vector store
    once that store has finished: each waits for the other unit, and the program ends with the later one."""
    se_busy = "\n".join(f"mtia.se.exp.v v{16 + 4 * (k % 2)}, v8" for k in range(8))
    store = _run(se_busy + "\nmtia.se.vse32.v v12, (a1)")
    after = _run(se_busy + "\nmtia.se.vse32.v v12, (a1)\nvle32.v v24, (a2)")
    assert after.cycles == store.cycles + 8          # the load's 8 cycles (64 fp32, 32 bytes a cycle) after it
    v_busy = "\n".join(f"vle32.v v{16 + 4 * (k % 2)}, (a0)" for k in range(8))
    vstore = _run(v_busy + "\nvse32.v v12, (a1)")
    later = _run(v_busy + "\nvse32.v v12, (a1)\nmtia.se.vle32.v v24, (a2)")
    assert later.cycles == vstore.cycles + 2         # the SE load's 2 cycles after the vector store


def test_an_engine_command_waits_for_the_se_stores():
    """An engine command issued after an SE store starts once the store has finished (it may read what the store
    wrote); an SE computation writes no memory and is not waited for."""
    big = "li t5, 256\nvsetvli t6, t5, e16, m8, ta, ma\n"        # 256 fp16: 8 SE cycles
    cmd = "li t3, 0\nli t4, 4\nmtia.dpe.zero t3, t4\nmtia.dpe.wait"
    alone = _run(big + "mtia.se.vse16.v v16, (a1)")
    stored = _run(big + "mtia.se.vse16.v v16, (a1)\n" + cmd)
    computed = _run(big + "mtia.se.exp.v v24, v16\n" + cmd)
    # the zero's 4 cycles (4 rows of 128 bytes at 128 a cycle) after the store, then the wait's and ret's issue
    assert stored.cycles == alone.cycles + 4 + 2
    assert computed.cycles < stored.cycles
