"""Rules of the timing model (mtiasim/timing.py) that the per-class pins of test_timing_classes.py do not reach,
each pinned to exact cycles in both of the model's forms (scalars while the programs agree, per-program arrays)."""
import numpy as np

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
