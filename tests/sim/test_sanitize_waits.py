"""`mtiasim run --sanitize`: an access to local memory that a DMA transfer not yet waited for writes (or, for a
write, reads) is a "missing DMA wait" -- caught although the simulator moves the data at issue, so the outputs and
the cycles are those of the program with the wait."""
import re

import numpy as np
import pytest

from mtiacc.diagnostics import ExitCode
from mtiasim.runner import run
from mtiasim.sanitize import SanitizerError
from tests.cli.helpers import clean, mtiasim
from tests.sim.dpe_helpers import ldw
from tests.sim.helpers import P, build

PARAMS = [P("a", "*i32"), P("c", "*i32")]

# A[16] in to local 0x1000, doubled by the vector unit into 0x2000, out to C
DOUBLE = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    li t0, 4096
    li t1, 64
    mtia.dma.in t0, s0, t1
    {wait}
    li t2, 16
    vsetvli t3, t2, e32, m1, ta, ma
    vle32.v v8, (t0)
    vadd.vv v8, v8, v8
    li t4, 8192
    vse32.v v8, (t4)
    mtia.dma.out s1, t4, t1
    {wait_out}
    ret
"""
SOURCE = {3: "    x = tl.load(a + offs)", 5: "    tl.store(c + offs, x + x)"}
LINES = [(0x10, 3, 9), (0x14, 0, 0), (0x1c, 3, 9), (0x20, 5, 5)]


def _double(wait="mtia.dma.wait", wait_out="mtia.dma.wait", tail=""):
    asm = DOUBLE.format(wait=wait, wait_out=wait_out).replace("    ret\n", tail + "    ret\n")
    binary = build(asm, params=PARAMS, source=SOURCE, lines=LINES)
    a = np.arange(16, dtype=np.int32) - 5
    return binary, {"a": a, "c": np.zeros(16, np.int32)}


def test_the_program_with_its_waits_is_clean():
    binary, inputs = _double()
    r = run(binary, inputs, grid=(1,), sanitize=True)
    np.testing.assert_array_equal(r.outputs["c"], 2 * inputs["a"])


def test_a_read_of_a_transfer_in_flight_is_caught_though_outputs_and_cycles_are_unchanged():
    binary, inputs = _double(wait="")
    plain = run(binary, inputs, grid=(1,))
    with pytest.raises(SanitizerError) as e:
        run(binary, inputs, grid=(1,), sanitize=True)
    err = e.value
    assert err.exit_code == ExitCode.KERNEL_FAULT
    (f,) = err.findings
    assert f.kind == "missing DMA wait"
    text = err.render()
    assert text.startswith("kernel.py:3:9: error: missing DMA wait: vle32.v (tl.load) reads 64 bytes at local "
                           "0x1000..0x1040 that mtia.dma.in (tl.load) writes, with no mtia.dma.wait between the "
                           "two\n"
                           "    x = tl.load(a + offs)\n")
    assert "the transfer: local 0x1000..0x1040 (64 bytes), issued at cycle 4 by kernel.py:3:" in text
    assert "(pc 0x10: mtia.dma.in t0, s0, t1)" in text and "at pc 0x1c: vle32.v v8, (t0)" in text
    assert "the read meets bytes still in flight" in text
    # data moves at issue: what the sanitizer sees is all that tells the two programs apart
    np.testing.assert_array_equal(err.result.outputs["c"], plain.outputs["c"])
    np.testing.assert_array_equal(plain.outputs["c"], 2 * inputs["a"])
    assert err.result.stats.cycles == plain.stats.cycles


def test_a_write_over_an_outbound_transfer_not_waited_for_is_caught():
    # the output buffer is overwritten right after its DMA out: the transfer may still be reading it
    binary, inputs = _double(wait_out="", tail="    vse32.v v8, (t4)\n")
    with pytest.raises(SanitizerError) as e:
        run(binary, inputs, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert "vse32.v (tl.store) writes 64 bytes at local 0x2000..0x2040 that mtia.dma.out (tl.store) reads" in f.message
    assert "the write meets bytes still in flight" in e.value.render()


def test_reading_a_buffer_an_outbound_transfer_reads_is_no_finding():
    binary, inputs = _double(wait_out="", tail="    vle32.v v9, (t4)\n    mtia.dma.wait\n")
    r = run(binary, inputs, grid=(1,), sanitize=True)
    np.testing.assert_array_equal(r.outputs["c"], 2 * inputs["a"])


# two transfers in; `mtia.dma.wait 1` leaves the second in flight
TWO = """
kernel:
    ld s0, 0(zero)
    li t0, 4096
    li t1, 32
    mtia.dma.in t0, s0, t1
    li t2, 8192
    mtia.dma.in t2, s0, t1
    mtia.dma.wait 1
    lw t3, 28(t0)
    {second}
    mtia.dma.wait
    ret
"""


def test_a_counted_wait_leaves_the_last_transfers_unwaited():
    binary = build(TWO.format(second="lw t4, 24(t0)"), params=PARAMS[:1])      # the first transfer only: clean
    run(binary, {"a": np.arange(8, dtype=np.int32)}, grid=(1,), sanitize=True)
    binary = build(TWO.format(second="lw t4, 28(t2)"), params=PARAMS[:1])
    with pytest.raises(SanitizerError) as e:
        run(binary, {"a": np.arange(8, dtype=np.int32)}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert f.message.startswith("lw reads 4 bytes at local 0x201c..0x2020 that mtia.dma.in writes")
    text = e.value.render()
    assert "issued at cycle 8 by pc 0x14 (mtia.dma.in t2, s0, t1)" in text      # the second
    # scheduled at the first wait (so known when the read is seen), done by the read: the timing hid it
    done, read = re.search(r"completes at cycle ([0-9.]+), no later than the read at cycle ([0-9.]+), but only "
                           r"by chance", text).groups()
    assert float(done) <= float(read)


# a 2-D transfer in: 4 rows of 8 bytes, 16 apart; the core then writes a byte between rows, then one in a row
GAPS = """
kernel:
    ld s0, 0(zero)
    li t2, 4
    mtia.dma.cfg t2, 0
    li t2, 8
    mtia.dma.cfg t2, 1
    li t2, 16
    mtia.dma.cfg t2, 2
    li t0, 4096
    li t1, 8
    mtia.dma.in2d t0, s0, t1
    sb zero, 8(t0)
    sb zero, {at}(t0)
    mtia.dma.wait
    ret
"""


def test_a_two_d_transfer_owns_its_rows_and_not_the_gaps_between_them():
    binary = build(GAPS.format(at=24 + 16), params=PARAMS[:1])        # gaps only: clean
    run(binary, {"a": np.arange(8, dtype=np.int32)}, grid=(1,), sanitize=True)
    binary = build(GAPS.format(at=16 + 7), params=PARAMS[:1])         # the last byte of row 1
    with pytest.raises(SanitizerError) as e:
        run(binary, {"a": np.arange(8, dtype=np.int32)}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert f.message.startswith("sb writes 1 byte at local 0x1017..0x1018 that mtia.dma.in2d writes")
    assert "local 0x1000..0x1038 (4 rows of 8 bytes, 16 apart)" in e.value.render()


# the matrix engine loads a weight tile that a DMA is still bringing in
ENGINE = """
kernel:
    ld s0, 0(zero)
    li t0, 4096
    li t1, 2048
    mtia.dma.in t0, s0, t1
    {sync}
{ldw}
    mtia.dpe.wait
    mtia.dma.wait
    ret
"""


@pytest.mark.parametrize("sync", ["mtia.dma.wait", "fence", "amoadd.w.rl zero, zero, (t0)"])
def test_a_wait_a_fence_or_a_release_atomic_orders_the_transfer_before_the_engine(sync):
    binary = build(ENGINE.format(sync=sync, ldw=ldw(4096 + 64, 1)), params=[P("w", "*u8")])
    run(binary, {"w": np.zeros(2048, np.uint8)}, grid=(1,), sanitize=True)


def test_the_matrix_engine_reading_a_transfer_not_waited_for_is_caught():
    binary = build(ENGINE.format(sync="", ldw=ldw(4096 + 64, 1)), params=[P("w", "*u8")])
    with pytest.raises(SanitizerError) as e:
        run(binary, {"w": np.zeros(2048, np.uint8)}, grid=(1,), sanitize=True)
    (f,) = e.value.findings
    assert f.message.startswith("mtia.dpe.ldw reads 64 bytes at local 0x1040..0x1080 that mtia.dma.in writes")


# the read comes long after the transfer completed: only the missing wait is wrong
LATE = """
kernel:
    ld s0, 0(zero)
    li t0, 4096
    li t1, 8
    mtia.dma.in t0, s0, t1
    li t5, 2000
spin:
    addi t5, t5, -1
    bnez t5, spin
    ld t3, 0(t0)
    ret
"""


def test_a_missing_wait_that_the_timing_hides_is_still_a_finding():
    binary = build(LATE, params=PARAMS[:1])
    with pytest.raises(SanitizerError) as e:
        run(binary, {"a": np.arange(2, dtype=np.int32)}, grid=(1,), sanitize=True)
    text = e.value.render()
    assert "ld reads 8 bytes at local 0x1000..0x1008 that mtia.dma.in writes" in text
    assert "no later than the read at cycle" in text and "but only by chance: nothing orders the two" in text


def test_the_command_line_reports_a_missing_wait_and_exits_4(tmp_path, capsys):
    binary, inputs = _double(wait="")
    (tmp_path / "k.bin").write_bytes(binary)
    np.savez(tmp_path / "in.npz", **inputs)
    err = clean(mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "1",
                        "--sanitize"), "kernel.py:3:9: error: missing DMA wait", code=ExitCode.KERNEL_FAULT)
    assert err.rstrip().endswith("error: sanitizer: 1 finding: 1 missing DMA wait")
    code, _out, err = mtiasim(capsys, "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "1")
    assert code == 0 and "wait" not in err
