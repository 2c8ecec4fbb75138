"""The timing model: in-order issue, register dependences, the vector unit, DMA queues, shared bandwidth."""
import numpy as np
import pytest
import yaml

from mtiacc.machine import MACHINE_DIR
from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from tests.sim.helpers import P, build

CFG = load_config()


def cycles(asm, grid=(1,), inputs=None, params=None, **kw):
    r = run(build(asm, params=params), inputs or {}, grid=grid, **kw)
    return r.stats.wave_cycles[0], r.stats


def loop(n, body="addi a0, a0, 1"):
    return f"kernel:\n    li t0, {n}\nagain:\n    {body}\n    addi t0, t0, -1\n    bnez t0, again\n    ret\n"


def test_more_work_takes_more_cycles_and_launch_is_charged():
    c1, s1 = cycles(loop(10))
    c2, s2 = cycles(loop(100))
    assert c2 > c1
    assert c2 - c1 == 90 * 3          # three single-issue IntALU/Branch instructions per trip
    assert s1.cycles == s1.launch_cycles + c1 and s1.launch_cycles == CFG.job_launch_cycles == 1350


def test_dependent_chains_wait_for_latency():
    dep = "kernel:\n" + "    mul a0, a0, a0\n" * 10 + "    ret\n"
    ind = "kernel:\n" + "".join(f"    mul a{i % 6 + 1}, a0, a0\n" for i in range(10)) + "    ret\n"
    cd, _ = cycles(dep)
    ci, _ = cycles(ind)
    assert cd - ci == 9 * (CFG.timing["IntMul"][1] - CFG.timing["IntMul"][0])


def vec(n, body, count):
    return (f"kernel:\n    li t0, {n}\n    vsetvli t1, t0, e32, m8, ta, ma\n" + f"    {body}\n" * count + "    ret\n")


def test_vector_unit_occupancy_grows_with_vl_and_back_to_back_ops_wait_for_the_unit():
    c_small, s_small = cycles(vec(8, "vadd.vv v8, v16, v24", 20))
    c_big, s_big = cycles(vec(128, "vadd.vv v8, v16, v24", 20))
    occ = 128 * 32 // CFG.datapath_bits      # 16 cycles per instruction on a 256-bit datapath
    assert s_big.units()["vector"]["busy_cycles"] == 20 * occ
    assert s_small.units()["vector"]["busy_cycles"] == 20
    assert s_big.stalls()["structural"] == 19 * (occ - 1)      # each waits for the one before to leave the unit
    assert s_small.stalls()["structural"] == 0
    assert c_big >= 20 * occ and c_big - c_small >= 20 * (occ - 1) - 2


def test_scalar_core_runs_ahead_of_the_vector_unit():
    vector_only, _ = cycles(vec(128, "vadd.vv v8, v16, v24", 1))
    k = ("kernel:\n    li t0, 128\n    vsetvli t1, t0, e32, m8, ta, ma\n    vadd.vv v8, v16, v24\n"
         + "    addi a0, a0, 1\n" * 10 + "    ret\n")
    both, _ = cycles(k)
    assert both == vector_only      # ten scalar instructions hide under the 16 cycles of the vector unit


def test_dependent_vector_op_waits_for_the_latency_after_the_last_occupancy_cycle():
    dep, _ = cycles(vec(128, "vadd.vv v8, v8, v24", 2))
    ind, _ = cycles(vec(128, "vadd.vv v8, v16, v24", 2))
    assert dep - ind == CFG.timing["VALU"][1] - 1


def test_vector_flops_and_local_memory_bytes_are_counted():
    k = ("kernel:\n    li t0, 64\n    vsetvli t1, t0, e32, m8, ta, ma\n    vle32.v v8, (zero)\n"
         "    vfmacc.vv v16, v8, v8\n    vfadd.vv v24, v8, v8\n    vse32.v v24, (zero)\n    ret\n")
    _, s = cycles(k, grid=(3,))
    assert s.flops == 3 * 64 * 3 and s.vector_flops == s.flops
    assert list(s.pe_lm_bytes) == [2 * 64 * 4] * 3


DMA = """
kernel:
    ld s0, 0(zero)
    mtia.pid t0, 0
    li t1, 65536
    mul t2, t0, t1
    add s0, s0, t2
    li a1, 8192
    mtia.dma.in a1, s0, t1
    {before}
    {work}
    {after}
    ret
"""


def dma_cycles(before, after, programs=1, work="addi a0, a0, 1\n    " * 50, **kw):
    data = np.zeros(programs * 65536, np.uint8)
    c, s = cycles(DMA.format(before=before, after=after, work=work), grid=(programs,),
                  inputs={"A": data}, params=[P("A", "*u8")], **kw)
    return c, s


LAT_DRAM = CFG.ns_to_cycles(CFG.dram_latency_ns)
# the DRAM level's timing, uncached: these kernels read the same DRAM bytes again, which the LLC would serve
NO_LLC = {"memory.sram.llc_bytes": 0}
LAT_SRAM = CFG.ns_to_cycles(CFG.sram_latency_ns)


def test_dma_wait_stalls_exactly_until_completion_and_work_overlaps_transfers():
    waited_first, s = dma_cycles("mtia.dma.wait", "")
    overlapped, s2 = dma_cycles("", "mtia.dma.wait")
    assert waited_first - overlapped == 50          # the 50 instructions hide under the transfer
    # one PE alone is limited by its port, not by DRAM
    transfer = CFG.dma_setup_cycles + 65536 / min(CFG.dma_pe_bytes_per_cycle, CFG.dram_bytes_per_cycle)
    issue_cost = CFG.timing["DMA"][0]
    assert s.stalls()["dma_wait"] == pytest.approx(transfer + LAT_DRAM - issue_cost)
    assert s2.stalls()["dma_wait"] == pytest.approx(transfer + LAT_DRAM - issue_cost - 50)
    assert s.dram_bytes == s.dma_bytes_in == 65536 and s.sram_bytes == 0


def test_dram_bandwidth_is_shared_by_all_pes_transferring():
    many, s = dma_cycles("mtia.dma.wait", "", programs=64)
    stall = s.pe_stalls["dma_wait"]
    share = 64 * 65536 / CFG.dram_bytes_per_cycle
    assert stall.min() == stall.max() == pytest.approx(CFG.dma_setup_cycles + share + LAT_DRAM - CFG.timing["DMA"][0])
    assert s.dram_bytes == 64 * 65536
    assert s.time_s >= s.dram_bytes / CFG.dram_bw_bytes_per_s


def test_sram_placement_uses_sram_bandwidth():
    _, d = dma_cycles("mtia.dma.wait", "", programs=64)
    _, s = dma_cycles("mtia.dma.wait", "", programs=64, place={"A": "sram"})
    assert s.sram_bytes == 64 * 65536 and s.dram_bytes == 0
    share = 64 * 65536 / min(CFG.sram_bytes_per_cycle, 64 * CFG.dma_pe_bytes_per_cycle)
    assert s.pe_stalls["dma_wait"].max() == pytest.approx(CFG.dma_setup_cycles + share + LAT_SRAM - 4)
    assert d.cycles > 5 * s.cycles


COUNTED = """
kernel:
    ld s0, 0(zero)
    li t1, 65536
    li t2, {second}
    li a1, 8192
    mtia.dma.in a1, s0, t1
    {issue}
    {wait}
    ret
"""


def counted_stall(issue, wait, second=64, programs=1):
    _, s = cycles(COUNTED.format(issue=issue, wait=wait, second=second), grid=(programs,),
                  inputs={"A": np.zeros(65536, np.uint8)}, params=[P("A", "*u8")], overrides=NO_LLC)
    return s.stalls()["dma_wait"]


def test_a_counted_dma_wait_leaves_the_transfers_issued_last_in_flight():
    issue_cost = CFG.timing["DMA"][0]
    big = counted_stall("", "mtia.dma.wait")
    assert big > LAT_DRAM
    second = "mtia.dma.in zero, s0, t2"
    # `wait 1` after the 64 KB transfer and a small one: the 64 KB one only (one issue later than alone)
    waited = counted_stall(second, "mtia.dma.wait 1")
    assert waited == pytest.approx(big - issue_cost)
    assert counted_stall(second, "mtia.dma.wait") > waited    # every transfer: the small one after it too
    assert counted_stall(second, "mtia.dma.wait 2") == 0 == counted_stall("", "mtia.dma.wait 1")
    # a transfer of zero bytes counts as issued: `wait 1` still waits for the one before it
    assert counted_stall(second, "mtia.dma.wait 1", second=0) == pytest.approx(big - issue_cost)
    assert counted_stall(second, "mtia.dma.wait 2", second=0) == 0


SOME = """
kernel:
    ld s0, 0(zero)
    mtia.pid t0, 0
    li t1, 65536
    mul t2, t0, t1
    add s0, s0, t2
    li a1, 8192
    li t3, {k}
    bge t0, t3, skip
    {size}
    mtia.dma.in a1, s0, t1
skip:
    mtia.dma.wait
    ret
"""


def some_run(k, size="", programs=64):
    data = np.zeros(programs * 65536, np.uint8)
    return run(build(SOME.format(k=k, size=size), params=[P("A", "*u8")]), {"A": data}, grid=(programs,), trace=True)


def dma_spans(r):
    return {e["pid"]: e for e in r.trace if e.get("cat") == "dma"}


def test_contention_counts_only_the_pes_that_transfer():
    r = some_run(4)
    spans = dma_spans(r)
    assert sorted(spans) == [0, 1, 2, 3]
    us = 1e6 / CFG.clock_hz
    for e in spans.values():   # four PEs share DRAM: each gets a quarter, not a 64th
        assert e["dur"] / us == pytest.approx(4 * 65536 / CFG.dram_bytes_per_cycle)
    assert r.stats.dram_bytes == 4 * 65536


def test_shares_grow_when_transfers_end_and_the_level_stays_busy():
    # PEs 0-3 move 64 KB, PEs 4-7 32 KB: all eight share DRAM until the short ones end, then four share it
    r = some_run(8, size="andi t4, t0, 4\n    srli t4, t4, 2\n    srl t1, t1, t4", programs=8)
    spans = dma_spans(r)
    us = 1e6 / CFG.clock_hz
    bpc = CFG.dram_bytes_per_cycle
    short = 8 * 32768 / bpc
    for p in range(4, 8):
        assert spans[p]["dur"] / us == pytest.approx(short)
    for p in range(4):
        assert spans[p]["dur"] / us == pytest.approx(short + 4 * 32768 / bpc)
    # work-conserving: the level was never idle while bytes were left
    assert spans[0]["dur"] / us == pytest.approx((4 * 65536 + 4 * 32768) / bpc)


def test_a_full_dma_queue_stalls_issue():
    few = "kernel:\n    ld s0, 0(zero)\n    li t1, 64\n" + "    mtia.dma.in zero, s0, t1\n" * CFG.dma_max_outstanding
    many = few + "    mtia.dma.in zero, s0, t1\n"
    inputs = {"A": np.zeros(64, np.uint8)}
    _, s1 = cycles(few + "    ret\n", inputs=inputs, params=[P("A", "*u8")], overrides=NO_LLC)
    _, s2 = cycles(many + "    ret\n", inputs=inputs, params=[P("A", "*u8")], overrides=NO_LLC)
    assert s1.stalls()["structural"] == 0
    assert s2.stalls()["structural"] > LAT_DRAM      # the extra one waits for the first to complete


def test_timing_classes_come_from_the_machine_description(tmp_path):
    raw = yaml.safe_load(open(MACHINE_DIR / "mtia2i.yaml"))
    raw["timing"]["IntALU"] = {"issue": 2, "latency": 2}
    raw["timing"]["Branch"] = {"issue": 3, "latency": 1}
    path = tmp_path / "slow.yaml"
    path.write_text(yaml.safe_dump(raw))
    c1, _ = cycles(loop(100))
    c2, _ = cycles(loop(100), config_path=str(path))
    assert c2 - c1 == 100 * (1 + 1 + 2) + 1   # per trip two IntALU one cycle slower, the branch two; and li


def test_scalar_fast_path_agrees_with_the_per_program_arrays(monkeypatch):
    """While all programs agree the model keeps scalars; forcing the array path must give the same cycles."""
    from mtiasim import timing
    kernels = [
        (loop(50), (64,), {}, None),
        (DMA.format(before="mtia.dma.wait", after="", work="addi a0, a0, 1"), (8,),
         {"A": np.zeros(8 * 65536, np.uint8)}, [P("A", "*u8")]),
        (COUNTED.format(issue="mtia.dma.in zero, s0, t2", wait="mtia.dma.wait 1", second=64), (8,),
         {"A": np.zeros(65536, np.uint8)}, [P("A", "*u8")]),
        ("kernel:\n    li t0, 100\n    vsetvli t1, t0, e32, m8, ta, ma\n    vadd.vv v8, v16, v24\n"
         "    vfmul.vv v16, v8, v8\n    vredsum.vs v1, v8, v16\n    vmv.x.s a0, v1\n    add a1, a0, a0\n    ret\n",
         (3,), {}, None),
    ]
    fast = [run(build(k, params=p), i, grid=g).stats.wave_cycles for k, g, i, p in kernels]
    orig = timing.UniformTiming.reset

    def reset_off(self):
        orig(self)
        self.materialize()
    monkeypatch.setattr(timing.UniformTiming, "reset", reset_off)
    slow = [run(build(k, params=p), i, grid=g).stats.wave_cycles for k, g, i, p in kernels]
    assert fast == slow
