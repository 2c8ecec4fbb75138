"""The DMA engine's channels (``memory.dma.channels``): with two (the built-in machine's), a PE's transfers into
local memory run in issue order on one, its transfers out of it on the other, at once; ``mtia.dma.wait.in`` waits
for the inbound ones only.  With one every transfer runs in one issue order."""
import numpy as np
import pytest

from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from mtiasim.sanitize import SanitizerError
from tests.sim.helpers import P, build

CFG = load_config()
ISSUE = CFG.timing["DMA"][0]
NO_LLC = {"memory.sram.llc_bytes": 0}             # (two channels: the built-in machine's)
ONE = {**NO_LLC, "memory.dma.channels": 1}
BYTES = 65536

# a 64 KB store out of local 0x10000, then (optionally) a 64 KB load into local 0x20000, then a wait
KERNEL = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    li t1, 65536
    li a1, 65536
    li a2, 131072
    {first}
    {second}
    {wait}
    ret
"""
OUT = "mtia.dma.out s1, a1, t1"
IN = "mtia.dma.in a2, s0, t1"


def stall(first, second, wait, overrides=NO_LLC, programs=1):
    asm = KERNEL.format(first=first, second=second, wait=wait)
    r = run(build(asm, params=[P("A", "*u8"), P("C", "*u8")]),
            {"A": np.zeros(BYTES, np.uint8), "C": np.zeros(BYTES, np.uint8)}, grid=(programs,),
            overrides=overrides)
    return r.stats.stalls()["dma_wait"], r


def test_the_built_in_machine_has_two_channels():
    assert CFG.dma_channels == 2


def test_a_load_issued_after_a_store_runs_beside_it_and_wait_in_leaves_the_store_in_flight():
    alone, _ = stall("", IN, "mtia.dma.wait")
    # one PE: each channel moves at the port's rate (DRAM has room for both), so the load, one instruction later,
    # takes as long as alone, and so does the wait after it
    beside, _ = stall(OUT, IN, "mtia.dma.wait.in")
    assert beside == alone
    # a wait for every transfer also waits for the store, issued first: it ends with the load (both the same size)
    both, _ = stall(OUT, IN, "mtia.dma.wait")
    assert both == alone
    # the store alone, waited for by wait.in: nothing inbound, no stall
    assert stall(OUT, "", "mtia.dma.wait.in")[0] == 0


def test_one_channel_runs_the_load_after_the_store():
    alone, _ = stall("", IN, "mtia.dma.wait", overrides=ONE)
    assert alone == stall("", IN, "mtia.dma.wait")[0]            # nothing to overlap: the same
    behind, _ = stall(OUT, IN, "mtia.dma.wait.in", overrides=ONE)
    # the load starts when the store has moved its bytes, not its setup after its own issue
    assert behind == pytest.approx(alone + BYTES / CFG.dma_pe_bytes_per_cycle - ISSUE)


def test_wait_in_counts_the_transfers_of_both_directions_issued_last():
    # `wait.in 1` after load, store: the store is the one issued last, so the load is waited for
    alone, _ = stall("", IN, "mtia.dma.wait")
    after, _ = stall(IN, OUT, "mtia.dma.wait.in 1")
    assert after == pytest.approx(alone - ISSUE)
    # `wait.in 2`: both left in flight
    assert stall(IN, OUT, "mtia.dma.wait.in 2")[0] == 0


def test_sixty_four_pes_share_dram_between_the_channels():
    # every PE stores 64 KB and loads 64 KB from DRAM: 8 MB at DRAM's rate, whichever channel moves them
    _, r = stall(OUT, IN, "mtia.dma.wait", programs=64)
    assert r.stats.dram_bytes == 2 * 64 * BYTES
    lat = CFG.ns_to_cycles(CFG.dram_latency_ns)
    waited = r.stats.pe_stalls["dma_wait"]
    assert waited.min() == waited.max()
    assert waited.max() == pytest.approx(CFG.dma_setup_cycles + 2 * 64 * BYTES / CFG.dram_bytes_per_cycle + lat
                                         - 2 * ISSUE, rel=1e-9)


STORED = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    li t1, 64
    li a1, 4096
    li a2, 8192
    mtia.dma.in a1, s0, t1
    mtia.dma.wait
    mtia.dma.out s1, a1, t1
    mtia.dma.in a2, s0, t1
    {wait}
    li t3, 7
    sw t3, 0(a1)
    ret
"""


def test_sanitizer_catches_a_write_of_a_stored_buffer_after_wait_in_only():
    inputs = {"A": np.zeros(64, np.uint8), "C": np.zeros(64, np.uint8)}
    params = [P("A", "*u8"), P("C", "*u8")]
    with pytest.raises(SanitizerError):     # the core writes the block the store still reads
        run(build(STORED.format(wait="mtia.dma.wait.in"), params=params), inputs, grid=(1,), sanitize=True,
            overrides=NO_LLC)
    run(build(STORED.format(wait="mtia.dma.wait"), params=params), inputs, grid=(1,), sanitize=True,
        overrides=NO_LLC)


# a 64 KB store out of local 0x10000, then a 64 KB load into local {dst}
OVER = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    li t1, 65536
    li a1, 65536
    li a2, {dst}
    mtia.dma.out s1, a1, t1
    mtia.dma.in a2, s0, t1
    mtia.dma.wait.in
    ret
"""


def over_stall(dst, overrides):
    inputs = {"A": np.zeros(BYTES, np.uint8), "C": np.zeros(BYTES, np.uint8)}
    r = run(build(OVER.format(dst=dst), params=[P("A", "*u8"), P("C", "*u8")]), inputs, grid=(1,),
            overrides=overrides)
    return r.stats.stalls()["dma_wait"]


def test_a_load_over_bytes_a_store_in_flight_reads_waits_until_the_store_has_read_them():
    apart = over_stall(131072, NO_LLC)
    assert apart == stall(OUT, IN, "mtia.dma.wait.in")[0]
    # the load's last byte lands in the store's first: the command processor holds it until the store has moved
    # its bytes, as one channel would (the same cycles)
    held = over_stall(65536 - 65535, NO_LLC)
    assert held == over_stall(65536 - 65535, ONE)
    assert held == pytest.approx(apart + BYTES / CFG.dma_pe_bytes_per_cycle - ISSUE)
