"""Rules of the timing model (mtiasim/timing.py) that the per-class pins of test_timing_classes.py do not reach,
each pinned to exact cycles in both of the model's forms (scalars while the programs agree, per-program arrays)."""
import numpy as np
import pytest

from mtiacc.asm.isa import BY_NAME
from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from tests.sim.helpers import P, build
from tests.sim.test_timing_classes import PINNED, RET, VSETUP_CYCLES, cycles

CFG = load_config()
NO_LLC = {"memory.sram.llc_bytes": 0}      # the DRAM level's timing, whatever the LLC's default size
VSET8 = "    li t0, 8\n    vsetvli t1, t0, e32, m1, ta, ma\n"


def test_float_and_vector_registers_of_one_number_are_not_one_register():
    # f3 is not v3: a float add reading f3 does not wait for a vector divide writing v3 (latency 20), and a
    # vector add reading v3 does not wait for a float divide writing f3 (latency 16)
    vdiv = "kernel:\n" + VSET8 + "    vfdiv.vv v3, v1, v2\n    fadd.s f4, f3, f3\n    ret\n"
    assert cycles(vdiv) == VSETUP_CYCLES + PINNED["VFDiv"][0] + PINNED["FPU"][0] + RET
    fdiv = "kernel:\n    fdiv.s f3, f1, f2\n" + VSET8 + "    vadd.vv v4, v3, v3\n    ret\n"
    assert cycles(fdiv) == PINNED["FDiv"][0] + VSETUP_CYCLES + PINNED["VALU"][0] + RET


DMA_IN = "kernel:\n    ld s0, 0(zero)\n    li t1, 4096\n    li a1, 8192\n    mtia.dma.in a1, s0, t1\n{wait}    ret\n"


def _dma_cycles(wait):
    r = run(build(DMA_IN.format(wait=wait), params=[P("A", "*u8")]), {"A": np.zeros(4096, np.uint8)}, grid=(1,),
            overrides=NO_LLC)
    return r.stats.wave_cycles[0]


def test_a_transfer_still_in_flight_at_the_end_counts_in_the_program_s_cycles():
    # issued at 3 (ld's latency), the 4 KB transfer completes after the setup, 4096 bytes at the PE's port and the
    # DRAM latency; the program's cycles end there, with or without a wait for it
    issued = PINNED["Load"][1]
    done = issued + CFG.dma_setup_cycles + 4096 / CFG.dma_pe_bytes_per_cycle + CFG.ns_to_cycles(CFG.dram_latency_ns)
    assert _dma_cycles("") == done
    assert _dma_cycles("    mtia.dma.wait\n") == done + PINNED["DMA"][0] + RET


# Program 1 sets vl = 9 where program 0 sets 8: the next vector instruction switches the model from scalars to
# per-program arrays (at these vl, every occupancy is one cycle, so both programs still take the same time).
SWITCH = """kernel:
    li t0, 128
    vsetvli t1, t0, e16, m8, ta, ma
    mtia.pid t2, 0
    addi t3, t2, 8
    {before}
    vsetvli t1, t3, e16, m8, ta, ma
    vadd.vv v24, v24, v24
    {after}
    ret
"""


@pytest.mark.parametrize("before, after", [
    ("div a0, t0, t0", "addi a1, a0, 1"),                        # an integer register's ready cycle
    ("fdiv.s f1, f2, f2", "fadd.s f3, f1, f1"),                  # a float register's
    ("vadd.vv v8, v16, v16", "vadd.vv v16, v8, v8"),             # the vector unit's free cycle
    ("vfdiv.vv v8, v16, v16", "vadd.vv v16, v8, v8"),            # a vector group's ready cycle (latency 20)
    ("mtia.se.exp.v v8, v16", "mtia.se.exp.v v16, v16"),         # the SE's free cycle
], ids=["x", "f", "vector-unit", "v", "se"])
def test_the_switch_to_per_program_arrays_keeps_the_timing_state(before, after):
    # what was in flight when the programs parted still holds them up after: each of the two programs takes
    # exactly the cycles (and stalls) of the one program alone, which never leaves the scalars
    asm = SWITCH.format(before=before, after=after)
    one = run(build(asm), {}, grid=(1,)).stats
    two = run(build(asm), {}, grid=(2,)).stats
    assert list(two.wave_cycles) == list(one.wave_cycles)
    assert two.stalls() == {k: 2 * v for k, v in one.stalls().items()}
    assert max(one.stalls().values()) > 0


# reads each register file early and writes it late, with long latencies
LATE_WRITES = """kernel:
    fadd.s f2, f1, f1
    addi a1, a0, 1
    li t0, 8
    vsetvli t1, t0, e32, m1, ta, ma
    vadd.vv v2, v1, v1
    div a0, a1, a1
    fdiv.s f1, f2, f2
    vfdiv.vv v1, v2, v2
    ret
"""
# the matrix engine busy until the end: one mm of 100 rows and the wait for it
ENGINE = """kernel:
    mtia.dpe.cfg zero, 0
    li a0, 4096
    li a1, 32
    li a3, 8192
    li a4, 100
    mtia.dpe.ldw a0, a1
    mtia.dpe.mm zero, a3, a4
    mtia.dpe.wait
    ret
"""


@pytest.mark.parametrize("asm", [LATE_WRITES, ENGINE], ids=["registers", "engine"])
def test_each_wave_starts_from_a_clear_timing_state(asm):
    # the second wave of programs (one more per PE) owes nothing to what the first left in flight
    both = run(build(asm), {}, grid=(2 * CFG.n_pes,)).stats
    alone = run(build(asm), {}, grid=(1,)).stats
    assert list(both.wave_cycles) == [alone.wave_cycles[0]] * 2
    # and its counters start from zero: every program stalls and computes what the one alone does
    assert both.stalls() == {k: 2 * CFG.n_pes * v for k, v in alone.stalls().items()}
    assert both.flops == 2 * CFG.n_pes * alone.flops


def test_a_rule_times_only_the_programs_that_run_the_instruction():
    # after the switch to arrays, program 0 alone runs a divide and a reader of it (IntDiv's latency): its cycles
    # grow by that much, program 1's do not
    asm = SWITCH.format(before="", after="bnez t2, skip\n    div a0, t0, t0\n    addi a1, a0, 1\nskip:")
    s = run(build(asm), {}, grid=(2,)).stats
    issue, lat = PINNED["IntDiv"]
    assert s.pe_finish[0] - s.pe_finish[1] == lat + PINNED["IntALU"][0]


@pytest.mark.parametrize("insn, width", [
    ("lb a0, 64(zero)", 1), ("lbu a0, 64(zero)", 1), ("lh a0, 64(zero)", 2), ("lhu a0, 64(zero)", 2),
    ("lw a0, 64(zero)", 4), ("lwu a0, 64(zero)", 4), ("ld a0, 64(zero)", 8), ("sb a0, 64(zero)", 1),
    ("sh a0, 64(zero)", 2), ("sw a0, 64(zero)", 4), ("sd a0, 64(zero)", 8), ("flw f0, 64(zero)", 4),
    ("fsw f0, 64(zero)", 4)], ids=lambda v: v.split()[0] if isinstance(v, str) else None)
def test_a_scalar_load_or_store_counts_its_width_in_local_memory_bytes(insn, width):
    s = run(build(f"kernel:\n    {insn}\n    {insn}\n    ret\n"), {}, grid=(1,)).stats
    assert list(s.pe_lm_bytes) == [2 * width]


@pytest.mark.parametrize("insn, flops", [
    ("vfadd.vv v3, v1, v2", 1), ("vfmin.vv v3, v1, v2", 1), ("vfsgnj.vv v3, v1, v2", 0), ("vfmacc.vv v3, v1, v2", 2),
    ("vfredusum.vs v3, v1, v2", 1), ("vfsqrt.v v3, v1", 1), ("vadd.vv v3, v1, v2", 0),
    ("fadd.s f3, f1, f2", 1), ("fsgnj.s f3, f1, f2", 0), ("fsqrt.s f3, f1", 1),
    ("fmadd.s f3, f1, f2, f4", 0)],          # (three sources: the model's gap, see _bind_scalar)
    ids=lambda v: v.split()[0] if isinstance(v, str) else None)
def test_flops_per_element_of_each_float_family(insn, flops):
    # at vl = 8: a vector instruction counts its FLOPs per element, a scalar one per instruction
    s = run(build("kernel:\n" + VSET8 + f"    {insn}\n    ret\n"), {}, grid=(1,)).stats
    assert s.flops == (8 if insn.startswith("v") else 1) * flops


# at e32, m8, vl = 64 (2048 bits, VLEN 512): a result fills the group's first four registers
GROUP = """kernel:
    li t0, 64
    vsetvli t1, t0, e32, m8, ta, ma
    {write}
    li t0, 8
    vsetvli t1, t0, e32, m1, ta, ma
    vadd.vv v1, v{r}, v{r}
    ret
"""


def _stalls(asm, grid=(1,)):
    s = run(build(asm), {}, grid=grid).stats
    return s.stalls()["dependence"], s.stalls()["structural"]


def test_a_result_makes_the_registers_it_fills_wait_and_no_others():
    # vfdiv.vv v8 begins at 2 and occupies the unit 8 cycles: v8..v11 are ready 8 - 1 + 20 cycles later; the m1 add
    # (at 2 + 4 + 2 = 8) reading v11 waits for that, reading v12 only for the unit
    vissue, vlat = PINNED["VFDiv"]
    at = VSETUP_CYCLES + vissue + VSETUP_CYCLES
    assert VSETUP_CYCLES + 8 - 1 + vlat - at == 21
    assert _stalls(GROUP.format(write="vfdiv.vv v8, v16, v16", r=11)) == (21, 0)
    assert _stalls(GROUP.format(write="vfdiv.vv v8, v16, v16", r=12)) == (0, VSETUP_CYCLES + 8 - at)


def test_a_compare_writes_one_mask_register_whatever_the_group():
    # vmflt.vv at m8 writes only v1 (a mask): a reader of v2 does not wait for it, a reader of v1 does
    issue, lat = PINNED[BY_NAME["vmflt.vv"].timing]
    at = VSETUP_CYCLES + issue + VSETUP_CYCLES
    assert _stalls(GROUP.format(write="vmflt.vv v1, v8, v16", r=2))[0] == 0
    assert _stalls(GROUP.format(write="vmflt.vv v1, v8, v16", r=1))[0] == VSETUP_CYCLES + 8 - 1 + lat - at


def test_a_stall_is_billed_to_the_programs_that_took_it():
    # the even programs (an index-array group, not a slice) run a divide and its reader: each stalls the divide's
    # latency less its issue; the odd ones do not stall
    asm = ("kernel:\n    mtia.pid t2, 0\n    andi t4, t2, 1\n" + VSET8 +
           "    bnez t4, skip\n    div a0, t0, t0\n    addi a1, a0, 1\nskip:\n    ret\n")
    s = run(build(asm), {}, grid=(4,)).stats
    issue, lat = PINNED["IntDiv"]
    assert list(s.pe_stalls["dependence"]) == [lat - issue, 0, lat - issue, 0]


def test_a_transfer_waits_for_its_address_register_as_a_dependence_stall():
    # the DRAM address comes from a load issued just before: the transfer waits out the load's latency
    asm = "kernel:\n    li t1, 4096\n    li a1, 8192\n    ld s0, 0(zero)\n    mtia.dma.in a1, s0, t1\n    ret\n"
    s = run(build(asm, params=[P("A", "*u8")]), {"A": np.zeros(4096, np.uint8)}, grid=(1,), overrides=NO_LLC).stats
    assert s.stalls()["dependence"] == PINNED["Load"][1] - PINNED["Load"][0]


def test_an_engine_command_waits_for_its_row_count_register_as_a_dependence_stall():
    # the row count comes from a multiply issued just before the mm: the command waits out its latency
    asm = ENGINE.replace("    li a4, 100\n", "").replace("    mtia.dpe.mm", "    li a4, 10\n    mul a4, a4, a4\n"
                                                           "    mtia.dpe.mm")
    assert "mul a4, a4, a4\n    mtia.dpe.mm zero, a3, a4" in asm
    issue, lat = PINNED["IntMul"]
    assert _stalls(asm)[0] == lat - issue


def _dma2d_start(rows, ls, la):
    from tests.sim.test_dpe_timing import dma_starts
    cfg = "".join(f"    li t2, {v}\n    mtia.dma.cfg t2, {k}\n" for k, v in enumerate((rows, 128, ls)))
    dma, dpe, _ = dma_starts(cfg + f"    li t0, {la}\n    mtia.dma.in2d t0, s0, a5\n")
    (_, engine_done), = dpe
    return dma[0], engine_done


def test_a_2d_transfer_into_bytes_the_engine_still_reads_waits_for_the_reads():
    # the mm reads local bytes 8192 .. 24576; a 2-D transfer of 128-byte rows waits for it exactly when one of its
    # rows lands there, whichever way its local stride runs (every address here takes two instructions to load)
    elsewhere, engine_done = _dma2d_start(4, 128, 60000)
    assert elsewhere < engine_done
    assert _dma2d_start(4, -2000, 30000) == (engine_done, engine_done)    # rows at 30000 .. 24000: the last inside
    assert _dma2d_start(4, -1000, 30000)[0] == elsewhere                   # rows at 30000 .. 27000
    assert _dma2d_start(4, 2000, 2048)[0] == elsewhere                     # rows at 2048 .. 8048 (8176 < 8192)
    assert _dma2d_start(5, 2000, 2048) == (engine_done, engine_done)       # the fifth at 10048



def test_a_timing_class_missing_from_the_machine_description_is_a_clean_error():
    import dataclasses

    from mtiacc.diagnostics import UserError
    timing = {k: v for k, v in CFG.timing.items() if k != "IntMul"}
    config = dataclasses.replace(CFG, timing=timing)
    with pytest.raises(UserError, match=r"timing class 'IntMul' \(of instruction 'mul'\) is not in the 'timing:'"):
        run(build("kernel:\n    mul a0, a0, a0\n    ret\n"), {}, grid=(1,), config=config)


def test_a_slide_down_occupies_the_vector_unit_as_its_group_and_its_reader_waits_its_permutation_latency():
    # vslidedown.vi (class VPerm) at vl 64 e32 m4: 64 x 32 / 256 = 8 cycles of the unit; two back to back 16; the
    # fused row sum's reduction reading the slid group starts VPerm's latency after the slide's last cycle begins
    issue, lat = PINNED["VPerm"]
    assert issue == 1
    head = "kernel:\n    li t0, 64\n    vsetvli t1, t0, e32, m4, ta, ma\n"
    assert cycles(head + "    vslidedown.vi v8, v16, 1\n    ret\n") == VSETUP_CYCLES + 8
    assert cycles(head + "    vslidedown.vi v8, v16, 1\n    vslidedown.vi v12, v20, 1\n    ret\n") == VSETUP_CYCLES + 16
    assert cycles(head + "    vslidedown.vi v8, v16, 1\n    vfredusum.vs v1, v8, v16\n    ret\n") \
        == VSETUP_CYCLES + 8 - 1 + lat + 8
