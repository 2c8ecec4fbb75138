"""2-D DMA: mtia.dma.in2d / out2d with the mtia.dma.cfg registers (rows, DRAM row stride, local row stride)."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from tests.sim.helpers import P, build

LINE = load_config().llc_line_bytes     # memory.sram.llc_line_bytes

CFG = load_config()

# program p: rows of `nbytes` from A (DRAM stride `ds`, starting `p * pstride` bytes in) to local 4096 (local
# stride `ls`), then the same rows back out to B at the same DRAM offsets
COPY = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    mtia.pid t0, 0
    li t1, {pstride}
    mul t1, t0, t1
    add s0, s0, t1
    add s1, s1, t1
    li t2, {rows}
    mtia.dma.cfg t2, 0
    li t2, {ds}
    mtia.dma.cfg t2, 1
    li t2, {ls}
    mtia.dma.cfg t2, 2
    li a1, 4096
    li t3, {nbytes}
    mtia.dma.in2d a1, s0, t3
    mtia.dma.wait
    {between}
    mtia.dma.out2d s1, a1, t3
    mtia.dma.wait
    ret
"""


def copy2d(rows, nbytes, ds, ls, programs=1, pstride=0, size=4096, between="", start=False, **kw):
    """(start: every program starts `pstride` bytes in)"""
    a = np.arange(size * programs, dtype=np.uint32).astype(np.uint8) * 7 + 3
    b = np.zeros_like(a)
    asm = COPY.format(rows=rows, nbytes=nbytes, ds=ds, ls=ls, pstride=pstride, between=between)
    if start:
        asm = asm.replace("mul t1, t0, t1", "")
    r = run(build(asm, params=[P("A", "*u8"), P("B", "*u8")]), {"A": a, "B": b}, grid=(programs,), **kw)
    return a, r


def expected(a, rows, nbytes, ds, programs=1, pstride=0):
    out = np.zeros_like(a)
    for p in range(programs):
        for r in range(rows):
            o = p * pstride + r * ds
            out[o:o + nbytes] = a[o:o + nbytes]
    return out


@pytest.mark.parametrize("rows,nbytes,ds,ls", [
    (8, 16, 64, 16),        # a tile of 8 rows of 16 bytes, packed in local memory
    (5, 12, 100, 32),       # padded local rows, odd DRAM stride
    (1, 40, 0, 0),          # one row: the strides do not matter
    (16, 4, 8, 4),          # one element per row (a strided gather)
    (4, 32, 32, 32),        # contiguous rows: one block
])
def test_in2d_out2d_move_rows_like_numpy(rows, nbytes, ds, ls):
    a, r = copy2d(rows, nbytes, ds, ls)
    np.testing.assert_array_equal(r.outputs["B"], expected(a, rows, nbytes, ds))
    assert r.stats.dma_bytes_in == r.stats.dma_bytes_out == rows * nbytes


def test_local_rows_land_at_the_local_stride():
    layout = """
    kernel:
        ld s0, 0(zero)
        ld s1, 8(zero)
        li t2, 3
        mtia.dma.cfg t2, 0
        li t2, 40
        mtia.dma.cfg t2, 1
        li t2, 24
        mtia.dma.cfg t2, 2
        li a1, 4096
        li t3, 8
        mtia.dma.in2d a1, s0, t3
        li t4, 72
        mtia.dma.out s1, a1, t4
        mtia.dma.wait
        ret
    """
    src = np.arange(256, dtype=np.uint8)
    r = run(build(layout, params=[P("A", "*u8"), P("B", "*u8")]), {"A": src, "B": np.zeros(72, np.uint8)},
            grid=(1,))
    want = np.zeros(72, np.uint8)
    for row in range(3):
        want[24 * row:24 * row + 8] = src[40 * row:40 * row + 8]
    np.testing.assert_array_equal(r.outputs["B"], want)


def test_negative_dram_stride_walks_backwards():
    a, r = copy2d(4, 8, -64, 8, pstride=1024, size=2048, start=True)   # starts at byte 1024, rows at 1024 - 64 r
    want = np.zeros_like(a)
    for row in range(4):
        o = 1024 - 64 * row
        want[o:o + 8] = a[o:o + 8]
    np.testing.assert_array_equal(r.outputs["B"], want)


def test_overlapping_destination_rows_land_in_order():
    # out2d with DRAM stride 4 < 8 bytes per row: row r + 1 overwrites the last 4 bytes of row r
    k = """
    kernel:
        ld s0, 0(zero)
        ld s1, 8(zero)
        li a1, 0
        li t1, 32
        mtia.dma.in a1, s0, t1
        li t2, 3
        mtia.dma.cfg t2, 0
        li t2, 4
        mtia.dma.cfg t2, 1
        li t2, 8
        mtia.dma.cfg t2, 2
        li t3, 8
        mtia.dma.out2d s1, a1, t3
        mtia.dma.wait
        ret
    """
    src = np.arange(32, dtype=np.uint8)
    r = run(build(k, params=[P("A", "*u8"), P("B", "*u8")]), {"A": src, "B": np.zeros(16, np.uint8)}, grid=(1,))
    want = np.zeros(16, np.uint8)
    for row in range(3):
        want[4 * row:4 * row + 8] = src[8 * row:8 * row + 8]
    np.testing.assert_array_equal(r.outputs["B"], want)


def test_many_programs_each_move_their_own_rows():
    a, r = copy2d(6, 20, 48, 20, programs=5, pstride=512, size=512)
    np.testing.assert_array_equal(r.outputs["B"], expected(a, 6, 20, 48, programs=5, pstride=512))


def test_zero_rows_or_zero_bytes_move_nothing():
    for rows, nbytes in ((0, 16), (4, 0)):
        a, r = copy2d(rows, nbytes, 64, 16)
        assert not r.outputs["B"].any()
        assert r.stats.dma_bytes_in == r.stats.dma_bytes_out == 0


def test_cfg_registers_keep_their_values():
    k = """
    kernel:
        ld s0, 0(zero)
        ld s1, 8(zero)
        li t2, 4
        mtia.dma.cfg t2, 0
        li t2, 16
        mtia.dma.cfg t2, 1
        li t2, 4
        mtia.dma.cfg t2, 2
        li t2, 0
        li a1, 0
        li t3, 4
        mtia.dma.in2d a1, s0, t3
        addi s0, s0, 4
        li a1, 16
        mtia.dma.in2d a1, s0, t3
        li t4, 32
        mtia.dma.out s1, zero, t4
        mtia.dma.wait
        ret
    """
    src = np.arange(64, dtype=np.uint8)
    r = run(build(k, params=[P("A", "*u8"), P("B", "*u8")]), {"A": src, "B": np.zeros(32, np.uint8)}, grid=(1,))
    want = np.concatenate([src.reshape(4, 16)[:, 0:4].ravel(), src.reshape(4, 16)[:, 4:8].ravel()])
    np.testing.assert_array_equal(r.outputs["B"], want)


def fault(asm, inputs, params):
    with pytest.raises(UserError) as e:
        run(build(asm, params=params), inputs, grid=(1,))
    return e.value


def test_out_of_bounds_dram_row_is_named():
    a = np.zeros(200, np.uint8)
    err = fault(COPY.format(rows=4, nbytes=16, ds=64, ls=16, pstride=0, between=""),
                {"A": a, "B": np.zeros(4096, np.uint8)}, [P("A", "*u8"), P("B", "*u8")])
    # rows 0..3 at 0, 64, 128, 192: row 3 runs past the 200 bytes of A
    assert err.message.startswith("out-of-bounds 2-D DMA read of 16 bytes at DRAM 0x100000c0")
    assert err.message.endswith("in row 3 of 4")
    assert "buffer 'A'" in err.message
    assert "mtia.dma.in2d" in err.render()


def test_out_of_bounds_dram_write_row_is_named():
    err = fault(COPY.format(rows=3, nbytes=8, ds=8, ls=8, pstride=0, between=""),
                {"A": np.zeros(64, np.uint8), "B": np.zeros(20, np.uint8)}, [P("A", "*u8"), P("B", "*u8")])
    assert err.message.startswith("out-of-bounds 2-D DMA write of 8 bytes at DRAM")
    assert err.message.endswith("in row 2 of 3")


def test_out_of_bounds_local_row_is_named():
    k = COPY.replace("li a1, 4096", "li a1, 393200")
    err = fault(k.format(rows=3, nbytes=8, ds=8, ls=8, pstride=0, between=""),
                {"A": np.zeros(64, np.uint8), "B": np.zeros(64, np.uint8)}, [P("A", "*u8"), P("B", "*u8")])
    assert err.message == ("out-of-bounds 2-D DMA write of 8 bytes at local address 0x60000 in row 2 of 3 "
                           "(local memory is 0x0..0x60000)")


@pytest.mark.parametrize("rows,nbytes,message", [
    (-1, 8, "2-D DMA of a negative number of rows (-1; DMA configuration register 0)"),
    (2, -8, "2-D DMA with rows of a negative length (-8 bytes)"),
])
def test_negative_rows_or_bytes_fault(rows, nbytes, message):
    err = fault(COPY.format(rows=rows, nbytes=nbytes, ds=8, ls=8, pstride=0, between=""),
                {"A": np.zeros(64, np.uint8), "B": np.zeros(64, np.uint8)}, [P("A", "*u8"), P("B", "*u8")])
    assert err.message == message


def test_cfg_register_that_does_not_exist_faults():
    err = fault("kernel:\n    li t0, 1\n    mtia.dma.cfg t0, 5\n    ret\n", {}, [])
    assert "DMA configuration register 5 does not exist" in err.message


# --------------------------------------------------------------------------- timing

ROWS = 32


def _rows_kernel(two_d: bool) -> str:
    head = "kernel:\n    ld s0, 0(zero)\n    li a1, 4096\n    li t3, 64\n"
    if two_d:
        return head + (f"    li t2, {ROWS}\n    mtia.dma.cfg t2, 0\n    li t2, 256\n    mtia.dma.cfg t2, 1\n"
                       "    li t2, 64\n    mtia.dma.cfg t2, 2\n    mtia.dma.in2d a1, s0, t3\n"
                       "    mtia.dma.wait\n    ret\n")
    body = "".join(f"    li t4, {256 * r}\n    add t4, s0, t4\n    li t5, {4096 + 64 * r}\n    mtia.dma.in t5, t4, t3\n"
                   for r in range(ROWS))
    return head + body + "    mtia.dma.wait\n    ret\n"


def test_one_2d_transfer_is_one_setup_and_faster_than_a_transfer_per_row():
    data = np.zeros(ROWS * 256, np.uint8)
    res = {}
    for two_d in (True, False):
        r = run(build(_rows_kernel(two_d), params=[P("A", "*u8")]), {"A": data}, grid=(1,))
        res[two_d] = r.stats
    s2, s1 = res[True], res[False]
    assert s2.dma_bytes_in == s1.dma_bytes_in == ROWS * 64
    assert s2.wave_cycles[0] < s1.wave_cycles[0]
    # one setup, the bytes at the PE's rate, the latency (plus the few instructions around it); the bytes are the
    # LLC's line fills: each 64-byte row misses and DRAM moves its whole 128-byte line (mtiasim/llc.py)
    assert s2.dram_bytes == ROWS * LINE
    rate = min(CFG.dma_pe_bytes_per_cycle, CFG.dram_bytes_per_cycle)
    transfer = CFG.dma_setup_cycles + ROWS * LINE / rate + CFG.ns_to_cycles(CFG.dram_latency_ns)
    assert s2.stalls()["dma_wait"] <= transfer
    assert s2.stalls()["dma_wait"] >= transfer - 30
