"""The matrix engine's timing: streaming occupancy, weight loads overlapping the other array, the queue, the wait,
DMA hazards with the engine's reads and writes, statistics, the trace track, and the scalar / array agreement."""
import dataclasses

import numpy as np
import pytest

from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from tests.sim.helpers import build

CFG = load_config()
E = CFG.dpe
WLC, LAT, SW = E.weight_load_cycles, E.latency_cycles, E.switch_cycles


def sim(asm, grid=(1,), config=None, **kw):
    return run(build(asm), {}, grid=grid, config=config, **kw)


def single_mm(R, ty=0):
    # cfg at 1 (2 cycles), five li, ldw issues at 8, mm at 10, the wait at 12
    return f"""
kernel:
    li a7, {ty}
    mtia.dpe.cfg a7, 0
    li a0, 4096
    li a1, 32
    li a2, 0
    li a3, 8192
    li a4, {R}
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm a2, a3, a4
    mtia.dpe.wait
    ret
"""


@pytest.mark.parametrize("R", [1, 100, 256])
def test_a_single_mm_streams_one_row_per_cycle(R):
    s = sim(single_mm(R)).stats
    # the ldw starts at 8 and loads for weight_load_cycles; the mm streams R rows; results land after latency
    done = 8 + WLC + R + LAT
    assert s.wave_cycles[0] == done + 2                       # the wait's issue cycle and ret
    assert s.stalls()["dpe_wait"] == done - 12
    e = s.dpe()
    assert e["busy_cycles"] == R and e["macs"] == R * 32 * 32
    assert s.lm_bytes == 32 * 32 * 2 + R * 32 * 2          # the tile and the rows the engine read
    assert e["utilization_busy"] == 1.0
    assert e["utilization_peak"] == pytest.approx(R / s.wave_cycles[0])


@pytest.mark.parametrize("R", [1, 99, 256])
def test_int8_streams_two_rows_per_cycle(R):
    s = sim(single_mm(R, ty=2)).stats
    occ = -(-R * 1024 // int(E.macs("int8")))
    assert s.wave_cycles[0] == 8 + WLC + occ + LAT + 2
    assert s.dpe()["busy_cycles"] == occ and s.dpe()["macs"] == R * 1024


def test_partial_tiles_waste_macs():
    asm = single_mm(64).replace("li a1, 32", "li a1, 16").replace("    li a7, 0\n",
                                                                    "    li a7, 8\n    mtia.dpe.cfg a7, 4\n    li a7, 0\n")
    s = sim(asm).stats
    assert s.dpe()["busy_cycles"] == 64 and s.dpe()["macs"] == 64 * 16 * 8
    assert s.dpe()["utilization_busy"] == pytest.approx(16 * 8 / 1024)


def pairs(n, R, ty=0):
    """``n`` (ldw, mm) pairs, each a new weight tile, rows from the same place."""
    return f"""
kernel:
    li a7, {ty}
    mtia.dpe.cfg a7, 0
    li s1, {n}
    li a0, 4096
    li a1, 32
    li a2, 0
    li a3, 8192
    li a4, {R}
loop:
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm a2, a3, a4
    addi s1, s1, -1
    bnez s1, loop
    mtia.dpe.wait
    ret
"""


def test_weight_loads_hide_behind_the_other_arrays_stream():
    n, R = 20, 256
    s = sim(pairs(n, R)).stats
    # the first ldw issues at 9; afterwards each tile costs its rows plus the switch
    assert s.wave_cycles[0] == 9 + WLC + n * R + (n - 1) * SW + LAT + 2
    assert s.dpe()["busy_cycles"] == n * R


def test_short_streams_are_bound_by_the_weight_loads():
    n, R = 20, 8
    s = sim(pairs(n, R)).stats
    # tile k loads while tile k-1 streams: the loads follow each other, then the last tile streams
    assert s.wave_cycles[0] == 9 + n * WLC + R + LAT + 2


def test_a_full_queue_stalls_the_core():
    n, R = 40, 256
    deep = dataclasses.replace(CFG, dpe=dataclasses.replace(E, queue_depth=1000))
    s = sim(pairs(n, R)).stats
    d = sim(pairs(n, R), config=deep).stats
    assert s.wave_cycles == d.wave_cycles                     # the engine bounds both
    assert d.stalls()["structural"] == 0
    st = s.stalls()
    assert st["structural"] > 0
    assert st["structural"] + st["dpe_wait"] == d.stalls()["dpe_wait"]
    # with 2 commands a trip, the core issues the trip's ldw once the command queue_depth before it has started
    few = sim(pairs(E.queue_depth // 2, R)).stats
    assert few.stalls()["structural"] == 0


def test_the_engine_starts_after_earlier_vector_work():
    vec = "    li t0, 128\n    vsetvli t1, t0, e32, m8, ta, ma\n" + "    vadd.vv v8, v16, v24\n" * 8
    base = sim(single_mm(16)).stats.wave_cycles[0]
    asm = single_mm(16).replace("kernel:\n", "kernel:\n" + vec)
    s = sim(asm).stats
    occ = 128 * 32 // CFG.datapath_bits
    # the vector unit is busy until 2 + 8 * occ; the ldw (issued earlier than that) starts then
    assert s.wave_cycles[0] == 2 + 8 * occ + WLC + 16 + LAT + 2
    assert s.wave_cycles[0] > base


def test_wait_without_engine_work_costs_its_issue_and_the_wave_waits_for_the_engine():
    s = sim("kernel:\n    mtia.dpe.wait\n    ret\n").stats
    assert s.wave_cycles[0] == 2 and s.stalls()["dpe_wait"] == 0
    s = sim(single_mm(256).replace("    mtia.dpe.wait\n", "")).stats
    assert s.wave_cycles[0] == 8 + WLC + 256 + LAT          # no wait: the program ends when the engine does


# DMA hazards ------------------------------------------------------------------------------------------------
def hazard_kernel(tail):
    return f"""
kernel:
    ld s0, 0(zero)
    li a6, 64
    mtia.dpe.cfg a6, 1
    mtia.dpe.cfg a6, 2
    li a0, 4096
    li a1, 32
    li a2, 0
    li a3, 8192
    li a4, 256
    li a5, 128
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm a2, a3, a4
{tail}
    mtia.dma.wait
    mtia.dpe.wait
    ret
"""


def dma_starts(tail, config=None):
    from tests.sim.helpers import P
    r = run(build(hazard_kernel(tail), params=[P("A", "*u8")]), {"A": np.zeros(1 << 16, np.uint8)}, grid=(1,),
            trace=True, config=config)
    us = CFG.clock_hz / 1e6
    launch = CFG.job_launch_cycles
    dma = [e["ts"] * us - launch for e in r.trace if e.get("cat") == "dma"]
    dpe = [(e["ts"] * us - launch, (e["ts"] + e["dur"]) * us - launch) for e in r.trace if e.get("cat") == "dpe"]
    return dma, dpe, r.stats


def test_dma_into_bytes_the_engine_still_reads_waits_for_the_reads():
    # the mm reads 8192 .. 8192 + 256 * 64; a DMA into 9000 must wait for the last streamed row
    dma, dpe, _ = dma_starts("    li t0, 24000\n    mtia.dma.in t0, s0, a5\n")
    (s0, e0), = dpe
    assert s0 == pytest.approx(12 + WLC) and e0 == pytest.approx(s0 + 256)     # the ldw issued at 12
    assert dma[0] == pytest.approx(e0)
    # elsewhere (past 8192 + 255 * 64 + 64) it starts setup_cycles after its issue (the mm issued at 14)
    dma, dpe, _ = dma_starts("    li t0, 24576\n    mtia.dma.in t0, s0, a5\n")
    assert dma[0] == pytest.approx(14 + 2 + 1 + CFG.dma_setup_cycles)
    # into the weight tile (4096 .. 4096 + 32 * 64): after the load (issued at 18; without setup to hide it)
    nosetup = dataclasses.replace(CFG, dma_setup_cycles=0.0)
    dma, dpe, _ = dma_starts("    li t0, 6000\n    mtia.dma.in t0, s0, a5\n", nosetup)
    assert dma[0] == pytest.approx(12 + WLC)
    dma, dpe, _ = dma_starts("    li t0, 7000\n    mtia.dma.in t0, s0, a5\n", nosetup)
    assert dma[0] == pytest.approx(18)


def test_dma_out_waits_for_an_earlier_acc_st_to_the_same_bytes_only():
    st = "    li t1, 100000\n    mtia.dpe.acc.st t1, a2, a4\n"
    # acc.st of 256 rows x 128 B once the mm's results landed (LAT after its last row) at 128 B a cycle
    dma, dpe, _ = dma_starts(st + "    li t0, 100000\n    mtia.dma.out s0, t0, a5\n")
    (m0, m1), (a0, a1) = dpe
    assert a0 == pytest.approx(m1 + LAT) and a1 == pytest.approx(a0 + 256 * 128 / E.acc_bytes_per_cycle)
    acc_end = a1
    assert dma[0] == pytest.approx(acc_end)
    dma, dpe, _ = dma_starts(st + "    li t0, 8192\n    mtia.dma.out s0, t0, a5\n")     # reads do not block
    assert dma[0] < 100
    dma, dpe, _ = dma_starts(st + "    li t0, 100000\n    mtia.dma.in t0, s0, a5\n")     # nor does a DMA in wait
    assert dma[0] == pytest.approx(acc_end)                                              # ... after the write


# statistics, roofline, trace ---------------------------------------------------------------------------------
def test_stats_roofline_and_trace_of_an_engine_bound_run():
    n, R = 64, 256
    r = run(build(pairs(n, R)), {}, grid=(64,), trace=True)
    s = r.stats
    e = s.dpe()
    assert e["busy_cycles"] == 64 * n * R and e["macs"] == 64 * n * R * 1024
    assert s.dpe_flops == 2 * e["macs"] and s.flops == s.dpe_flops
    assert 0.95 < e["utilization_busy"] <= 1.0 and 0.9 < e["utilization_peak"] <= 1.0
    bound, t, frac = s.roofline()
    assert bound == "dpe" and 0.9 < frac <= 1.0
    assert t == pytest.approx(n * R / CFG.clock_hz)
    assert s.time_s >= s.dpe_flops / s.machine["dpe_peak_flops"]
    assert s.units()["dpe"]["utilization"] <= 1.0
    names = {(ev["pid"], ev["args"]["name"]) for ev in r.trace if ev["ph"] == "M" and ev["name"] == "thread_name"}
    assert all((p, "dpe") in names for p in range(64))
    spans = [ev for ev in r.trace if ev.get("cat") == "dpe"]
    assert sum(ev["args"]["busy_cycles"] for ev in spans) == e["busy_cycles"]
    waits = [ev for ev in r.trace if ev.get("cat") == "dpe_wait"]
    assert sum(ev["args"]["stall_cycles"] for ev in waits) == pytest.approx(s.stalls()["dpe_wait"])


def test_int8_utilization_counts_at_the_int8_rate_and_the_roofline_stays_honest():
    s = run(build(pairs(8, 256, ty=2)), {}, grid=(4,)).stats
    assert s.dpe()["busy_cycles"] == 4 * 8 * 128
    assert 0.95 < s.dpe()["utilization_busy"] <= 1.0
    assert s.roofline()[2] <= 1.0


def test_stats_table_and_profile_show_the_engine():
    from rich.console import Console

    from mtiasim.profile import attribute, render_profile
    from mtiasim.stats import render
    r = run(build(pairs(4, 256)), {}, grid=(2,), profile=True)
    con = Console(record=True, width=160)
    render(r.stats, con)
    text = con.export_text()
    assert "DPE busy cycles" in text and "DPE utilization while busy" in text and "dpe_wait" in text
    prof = render_profile(attribute(r))
    assert "matrix engine busy" in prof and f"{2 * 4 * 256:,}" in prof


def test_scalar_fast_path_agrees_with_the_arrays(monkeypatch):
    from mtiasim import timing
    diverge = pairs(6, 256).replace("    li a4, 256\n", "    mtia.pid t0, 0\n    slli a4, t0, 5\n    addi a4, a4, 64\n")
    kernels = [pairs(24, 256), pairs(10, 8), diverge, hazard_kernel("    li t0, 9000\n    mtia.dma.in t0, s0, a5\n")]

    def stats_of(asm):
        from tests.sim.helpers import P
        return run(build(asm, params=[P("A", "*u8")]), {"A": np.zeros(1 << 16, np.uint8)}, grid=(3,)).stats
    fast = [stats_of(k) for k in kernels]
    orig = timing.UniformTiming.reset

    def reset_off(self):
        orig(self)
        self.materialize()
    monkeypatch.setattr(timing.UniformTiming, "reset", reset_off)
    slow = [stats_of(k) for k in kernels]
    for f, s in zip(fast, slow):
        assert f.wave_cycles == s.wave_cycles
        assert f.stalls() == pytest.approx(s.stalls())
        assert f.dpe() == pytest.approx(s.dpe())
    assert fast[2].dpe()["busy_cycles"] == 6 * (64 + 96 + 128)


def two_mms(R1, R2, keep):
    # cfg at 1, six li, ldw at 9, mm at 11, ldw at 13 (the other array), mm at 15, mtia.dpe.wait keep at 17
    return f"""
kernel:
    li a7, 0
    mtia.dpe.cfg a7, 0
    li a0, 4096
    li a1, 32
    li a2, 0
    li a3, 8192
    li a4, {R1}
    li a5, {R2}
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm a2, a3, a4
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm a2, a3, a5
    mtia.dpe.wait {keep}
    mtia.dpe.wait
    ret
"""


@pytest.mark.parametrize("R1,R2", [(100, 200), (40, 300)])
def test_a_wait_that_keeps_commands_waits_for_the_earlier_ones_only(R1, R2):
    # `mtia.dpe.wait 2` leaves the second ldw and mm running: the core goes on when the first mm's results land
    first = 9 + WLC + R1 + LAT
    s = sim(two_mms(R1, R2, 2)).stats
    second = 9 + WLC + R1 + SW + R2 + LAT        # the second array's tile loaded meanwhile; the switch
    assert s.stalls()["dpe_wait"] == (first - 17) + (second - (first + 1))
    assert s.wave_cycles[0] == second + 2
    # keeping 3 leaves the first mm too: only the cfg and the first ldw are waited for (done at 9 + WLC)
    s3 = sim(two_mms(R1, R2, 3)).stats
    assert s3.stalls()["dpe_wait"] == (9 + WLC - 17) + (second - (9 + WLC + 1))
    # keeping more commands than were issued waits for none; 0 is the plain wait
    assert sim(two_mms(R1, R2, 9)).stats.stalls()["dpe_wait"] == second - 18
    assert sim(two_mms(R1, R2, 0)).stats.stalls()["dpe_wait"] == second - 17


def test_a_wait_keeps_at_most_255_commands():
    from mtiacc.asm.assembler import assemble
    assemble("kernel:\n    mtia.dpe.wait 255\n    ret\n")
    with pytest.raises(Exception, match="255"):
        assemble("kernel:\n    mtia.dpe.wait 256\n    ret\n")
