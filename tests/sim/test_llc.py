"""The last-level cache (mtiasim/llc.py, ``memory.sram.llc_bytes``): DMA reads of DRAM that hit it move at the
SRAM level's bandwidth and latency, misses at DRAM's; writes go to DRAM.  Exact cycles on a machine whose rates
are whole numbers of bytes per cycle."""
import numpy as np
import pytest

from mtiacc.diagnostics import UserError
from mtiacc.machine.simulator import load_config
from mtiasim.llc import Llc
from mtiasim.runner import run
from tests.sim.helpers import P, build

LINE = load_config().llc_line_bytes     # memory.sram.llc_line_bytes

MB32 = 32 << 20
PES = 64
ROW = 4096
# 1 GHz: DRAM 128 B/cycle, latency 100 cycles; SRAM 1024 B/cycle, latency 20 cycles; 64 PEs' ports (64 B/cycle
# each) exceed both, so a level's bandwidth bounds every transfer below
EXACT = {"clock_hz": 1e9, "memory.dram.bw_bytes_per_s": 128e9, "memory.sram.bw_bytes_per_s": 1024e9,
         "memory.dram.latency_ns": 100, "memory.sram.latency_ns": 20}
DRAM_BPC, SRAM_BPC, DRAM_LAT, SRAM_LAT = 128, 1024, 100, 20

# program p reads ROW bytes at A + (p * {first}) * ROW, waits, then {n2} bytes at A + (p * {second}) * ROW, waits,
# then writes {nout} bytes of local memory to B + p * ROW
READS = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    mtia.pid t0, 0
    li t1, {first}
    mul t1, t0, t1
    slli t1, t1, 12
    add t1, s0, t1
    li a1, 0
    li t3, 4096
    mtia.dma.in a1, t1, t3
    mtia.dma.wait
    li t1, {second}
    mul t1, t0, t1
    slli t1, t1, 12
    add t1, s0, t1
    li t3, {n2}
    mtia.dma.in a1, t1, t3
    mtia.dma.wait
    slli t1, t0, 12
    add t1, s1, t1
    li t3, {nout}
    mtia.dma.out t1, a1, t3
    mtia.dma.wait
    ret
"""


def reads(first=1, second=1, n2=ROW, nout=0, llc=0, **kw):
    a = (np.arange(256 * ROW) % 251).astype(np.uint8)
    b = np.zeros(PES * ROW, np.uint8)
    asm = READS.format(first=first, second=second, n2=n2, nout=nout)
    r = run(build(asm, params=[P("A", "*u8"), P("B", "*u8")]), {"A": a, "B": b}, grid=(PES,),
            overrides={**EXACT, "memory.sram.llc_bytes": llc}, **kw)
    np.testing.assert_array_equal(r.outputs["B"][:nout], a[:nout])     # the data is DRAM's, cache or not
    return r


def test_a_read_that_hits_moves_at_the_sram_level():
    cold, warm = reads(llc=0), reads(llc=MB32)     # the second read of each program: its own first row again
    miss = PES * ROW / DRAM_BPC + DRAM_LAT          # 2048 + 100 cycles
    hit = PES * ROW / SRAM_BPC + SRAM_LAT           # 256 + 20 cycles
    assert cold.stats.cycles - warm.stats.cycles == miss - hit == 1872
    assert cold.stats.dram_bytes == 2 * PES * ROW and cold.stats.sram_bytes == 0
    assert warm.stats.dram_bytes == PES * ROW and warm.stats.sram_bytes == PES * ROW


def test_a_read_of_lines_not_read_before_misses():
    cold, warm = reads(second=1, n2=ROW, llc=0), reads(first=1, second=0, n2=ROW, llc=MB32)
    # every program's second read is row 0, which program 0 read first: all hit
    assert cold.stats.cycles - warm.stats.cycles == 1872
    fresh = reads(first=2, second=1, llc=MB32)       # rows p, after rows 2p: odd rows and rows >= 64 miss ...
    half = reads(first=1, second=2, llc=MB32)        # rows 2p after rows p: p < 32 hit, p >= 32 miss
    assert fresh.stats.dram_bytes == PES * ROW + 32 * ROW
    assert half.stats.dram_bytes == PES * ROW + 32 * ROW
    # ... 32 transfers at each level at once, max-min fair at each: the misses take 32 * 4096 / 128 cycles
    assert cold.stats.cycles - half.stats.cycles == PES * ROW / DRAM_BPC - 32 * ROW / DRAM_BPC == 1024
    busy = half.stats.pe_dma_busy
    first = PES * ROW / DRAM_BPC
    assert list(busy[:32]) == [first + 32 * ROW / SRAM_BPC] * 32       # 32 hits share the SRAM level
    assert list(busy[32:]) == [first + 32 * ROW / DRAM_BPC] * 32


def test_a_partial_hit_moves_its_hits_then_its_misses():
    cold, warm = reads(n2=2 * ROW, llc=0), reads(n2=2 * ROW, llc=MB32)
    # rows p and p + 1 after row p: row p hits; row p + 1 was read by program p + 1 at the first step: hits too,
    # but for program 63, whose row 64 nobody read
    assert warm.stats.dram_bytes == PES * ROW + ROW
    assert cold.stats.dram_bytes == 3 * PES * ROW
    # the second reads, together at the SRAM level: 64 PEs at 1024 / 64 B/cycle each until program 63's 4096
    # hit bytes are done (256 cycles), its 4096 missed bytes then at its port (64 B/cycle: 64 cycles + latency);
    # the 63 others' last 4096 bytes each at 1024 / 63 B/cycle: 252 cycles more
    first = PES * ROW / DRAM_BPC
    second = ROW / (SRAM_BPC / PES) + 63 * ROW / SRAM_BPC
    assert cold.stats.cycles - warm.stats.cycles == (2 * PES * ROW / DRAM_BPC + DRAM_LAT) - (second + SRAM_LAT)
    busy = warm.stats.pe_dma_busy
    assert list(busy[:63]) == [first + second] * 63
    assert busy[63] == first + ROW / (SRAM_BPC / PES) + ROW / 64


def test_writes_go_to_dram_and_do_not_fill_the_cache():
    plain = reads(nout=ROW, llc=0)
    cached = reads(nout=ROW, llc=MB32)
    assert plain.stats.cycles - cached.stats.cycles == 1872       # the write costs the same with the LLC
    assert cached.stats.dram_bytes == 2 * PES * ROW


def test_the_lls_is_what_the_llc_leaves():
    with pytest.raises(UserError, match=r"the buffers placed in SRAM need 1048576 bytes; the machine's SRAM has "
                                         r"0 outside its LLC \(268435456 bytes of 268435456\)"):
        reads(llc=256 << 20, place={"A": "sram"})
    r = reads(llc=MB32, place={"A": "sram"})       # a buffer in the LLS is not cached: SRAM both times
    assert r.stats.dram_bytes == 0 and r.stats.sram_bytes == 2 * PES * ROW


# -- the cache on its own -----------------------------------------------------------------------------------------
def test_lru_evicts_the_least_recently_used_lines():
    c = Llc(16 * LINE, 64 * LINE, LINE)
    for i in range(16):
        assert c.read(i * LINE, LINE) == (0, LINE)
    assert c.read(0, LINE) == (LINE, 0)             # line 0 is now the most recently used
    c.read(16 * LINE, LINE)                         # one too many: evict to 15 of 16 (1 / 16 slack)
    assert c.resident == 15
    assert c.read(0, LINE) == (LINE, 0)
    assert c.read(1 * LINE, LINE) == (0, LINE) and c.read(2 * LINE, LINE) == (0, LINE)    # the two oldest went
    assert c.read(15 * LINE, LINE) == (LINE, 0)


def test_strided_rows_hit_by_the_bytes_on_resident_lines():
    c = Llc(1 << 20, 1 << 20, LINE)
    assert c.read(10, 50) == (0, LINE)              # line 0 (bytes 10..59): DRAM fills the whole line
    assert c.read(0, LINE) == (LINE, 0)             # so all of it hits
    # 4 rows of 200 bytes at stride 1000 from 60: rows straddle lines; none of them is line 0
    assert c.read(60, 200, 4, 1000) == (68, 9 * LINE)   # row 0 covers 60..259: 68 bytes of line 0; 9 lines filled
    assert c.read(60, 200, 4, 1000) == (800, 0)
    assert c.hit_bytes == LINE + 68 + 800 and c.miss_bytes == 50 + 800 - 68
    assert c.fill_bytes == 10 * LINE
    assert c.resident == 10     # lines 0-2, 8-9, 16-17, 23-25 (rows at 60, 1060, 2060, 3060)


def test_without_line_fill_a_miss_costs_the_bytes_asked_for():
    c = Llc(1 << 20, 1 << 20, LINE, line_fill=False)      # memory.sram.llc_line_fill: 0, the model before line fills
    assert c.read(10, 50) == (0, 50)
    assert c.read(0, LINE) == (LINE, 0)             # the line is resident all the same
    assert c.read(60, 200, 4, 1000) == (68, 800 - 68)
    assert c.fill_bytes == 50 + 800 - 68


def test_rows_that_read_a_line_again_are_filled_once():
    c = Llc(1 << 20, 1 << 20, LINE)
    # 4 rows of one line at stride 0: the line is filled once, the three other rows read it again (hits)
    assert c.read(LINE, LINE, 4, 0) == (3 * LINE, LINE)
    # 4 rows of 32 bytes at stride 32 on one line: they cover it; the fill is the line, no row is read twice
    assert c.read(4 * LINE, 32, 4, 32) == (0, LINE)
    # 8 rows of 32 bytes at stride 16 over 144 bytes (lines 8 and 9): 256 bytes read, 2 lines filled
    assert c.read(8 * LINE, 32, 8, 16) == (0, 2 * LINE)
    assert c.hit_bytes == 3 * LINE and c.fill_bytes == 4 * LINE and c.resident == 4


# program p reads a tile of 32 rows of 128 bytes at DRAM stride 8192 from A + p * 128 (2-D DMA), twice
TILE = """
kernel:
    ld s0, 0(zero)
    mtia.pid t0, 0
    slli t1, t0, 7
    add s0, s0, t1
    li t2, 32
    mtia.dma.cfg t2, 0
    li t2, 8192
    mtia.dma.cfg t2, 1
    li t2, 128
    mtia.dma.cfg t2, 2
    li a1, 0
    li t3, 128
    mtia.dma.in2d a1, s0, t3
    mtia.dma.wait
    mtia.dma.in2d a1, s0, t3
    mtia.dma.wait
    ret
"""


def test_a_2d_tile_read_again_hits():
    a = np.zeros(32 * 2 * ROW, np.uint8)
    binary = build(TILE, params=[P("A", "*u8")])
    cold, warm = (run(binary, {"A": a}, grid=(PES,), overrides={**EXACT, "memory.sram.llc_bytes": llc})
                  for llc in (0, MB32))
    tile = 32 * 128
    assert warm.stats.dram_bytes == PES * tile and warm.stats.sram_bytes == PES * tile
    assert cold.stats.cycles - warm.stats.cycles == \
        (PES * tile / DRAM_BPC + DRAM_LAT) - (PES * tile / SRAM_BPC + SRAM_LAT) == 1872


def test_whole_line_rows_count_as_any_rows():
    """Rows of whole lines at a stride of whole lines (a tile's rows) are counted as rows that straddle lines."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        c = Llc(64 * LINE, 1 << 16, LINE)
        for _ in range(30):
            rows, k, gap = int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(0, 4))
            off = int(rng.integers(0, 200)) * LINE
            ref = Llc(64 * LINE, 1 << 16, LINE)
            ref.stamp[:], ref.clock, ref.resident = c.stamp, c.clock, c.resident
            got = c.read(off, k * LINE, rows, (k + gap) * LINE)
            want = ref._rows(off, k * LINE, rows, (k + gap) * LINE)
            assert got == want and c.resident == ref.resident
            assert (np.flatnonzero(c.stamp) == np.flatnonzero(ref.stamp)).all()


# program p runs {ops} on its own line of A (A + p * 128): r(o, n) reads n bytes at o to local address 1024 + o and
# waits, w(o, n) writes n bytes from local address 1024 + o (zeros until read) to o and waits
def steps(*ops):
    body = []
    for op, o, n in ops:
        move = "mtia.dma.in a1, t1, t3" if op == "r" else "mtia.dma.out t1, a1, t3"
        body += [f"li t2, {o}", "add t1, s0, t2", f"li a1, {1024 + o}", f"li t3, {n}", move, "mtia.dma.wait"]
    return "\n".join(["kernel:", "ld s0, 0(zero)", "mtia.pid t0, 0", "slli t1, t0, 7", "add s0, s0, t1"]
                     + body + ["ret"])


def lines(*ops, grid=PES, llc=MB32, fill=1, line=LINE):
    a = (np.arange(PES * LINE) % 251).astype(np.uint8)
    r = run(build(steps(*ops), params=[P("A", "*u8")]), {"A": a}, grid=(grid,),
            overrides={**EXACT, "memory.sram.llc_bytes": llc, "memory.sram.llc_line_fill": fill,
                       "memory.sram.llc_line_bytes": line})
    want = a.reshape(PES, LINE).copy()
    local = np.zeros((grid, LINE), np.uint8)
    for op, o, n in ops:
        if op == "r":
            local[:, o:o + n] = want[:grid, o:o + n]
        else:
            want[:grid, o:o + n] = local[:, o:o + n]
    np.testing.assert_array_equal(r.outputs["A"], want.ravel())     # the data is DRAM's, cache or not
    return r


HALF = LINE // 2


def test_a_miss_fills_its_whole_line_from_dram():
    """Program p reads the first half of line p, then the other half: the first read's miss fills the line (DRAM
    moves 128 bytes, not the 64 asked for), the second hits."""
    cold, warm = lines(("r", 0, HALF), ("r", HALF, HALF), llc=0), lines(("r", 0, HALF), ("r", HALF, HALF))
    assert cold.stats.dram_bytes == PES * LINE and cold.stats.sram_bytes == 0
    assert warm.stats.dram_bytes == PES * LINE and warm.stats.sram_bytes == PES * HALF
    # without the cache: 64 halves at DRAM, twice (32 cycles + latency each); with it: the 64 lines at DRAM
    # (64 cycles + latency), then the 64 halves at the SRAM level (4 cycles + latency)
    assert list(cold.stats.pe_dma_busy) == [2 * PES * HALF / DRAM_BPC] * PES
    assert list(warm.stats.pe_dma_busy) == [PES * LINE / DRAM_BPC + PES * HALF / SRAM_BPC] * PES
    assert cold.stats.cycles - warm.stats.cycles == \
        (2 * (PES * HALF / DRAM_BPC + DRAM_LAT)) - (PES * LINE / DRAM_BPC + DRAM_LAT + PES * HALF / SRAM_BPC
                                                    + SRAM_LAT) == 76
    old = lines(("r", 0, HALF), ("r", HALF, HALF), fill=0)      # the model before: the miss costs its 64 bytes
    assert old.stats.dram_bytes == PES * HALF and old.stats.sram_bytes == PES * HALF
    assert warm.stats.cycles - old.stats.cycles == PES * HALF / DRAM_BPC == 32


def test_the_line_size_is_the_machines():
    """``memory.sram.llc_line_bytes``: with lines of half the default, each half is a line of its own, so the
    first read fills only its half and the second misses too."""
    two = lines(("r", 0, HALF), ("r", HALF, HALF), line=HALF)
    assert two.stats.dram_bytes == PES * LINE and two.stats.sram_bytes == 0
    assert list(two.stats.pe_dma_busy) == [2 * PES * HALF / DRAM_BPC] * PES
    whole = lines(("r", 0, LINE), ("r", 0, LINE), line=HALF)     # a whole default line: two lines, then hits
    assert whole.stats.dram_bytes == PES * LINE and whole.stats.sram_bytes == PES * LINE


def test_the_two_halves_of_a_line_read_by_two_programs_cost_the_line_in_dram_bytes():
    """Programs 0 and 1 read the two halves of one line at once (a 32-wide bf16 GEMM tile's rows are half a
    line): program 0, first in slot order, misses and fills the line; program 1 hits the line being filled."""
    a = (np.arange(LINE) % 251).astype(np.uint8)
    binary = build(steps(("r", 0, HALF)).replace("slli t1, t0, 7", "slli t1, t0, 6"), params=[P("A", "*u8")])
    cold, warm = (run(binary, {"A": a}, grid=(2,), overrides={**EXACT, "memory.sram.llc_bytes": llc})
                  for llc in (0, MB32))
    assert cold.stats.dram_bytes == LINE and cold.stats.sram_bytes == 0
    assert warm.stats.dram_bytes == LINE and warm.stats.sram_bytes == HALF
    port = 64       # bytes per cycle: one PE's transfer at a level with room is capped by its port
    assert list(cold.stats.pe_dma_busy) == [HALF / port] * 2
    assert list(warm.stats.pe_dma_busy) == [LINE / port, HALF / port]
    # the last completion: program 0's fill (2 cycles + DRAM's latency), one cycle after the cold halves' 1 + 100
    assert warm.stats.cycles - cold.stats.cycles == 1


def test_a_write_does_not_fill_the_cache():
    """Write-through without write-allocate: a write moves exactly its bytes at DRAM and fills nothing, so a read
    of the line after it misses and fills the whole line; a write to a resident line leaves it resident."""
    cold = lines(("w", 0, HALF), ("r", 0, LINE), llc=0)
    warm = lines(("w", 0, HALF), ("r", 0, LINE))
    assert cold.stats.cycles == warm.stats.cycles
    assert warm.stats.dram_bytes == PES * HALF + PES * LINE and warm.stats.sram_bytes == 0
    cold = lines(("r", 0, LINE), ("w", HALF, HALF), ("r", 0, LINE), llc=0)
    warm = lines(("r", 0, LINE), ("w", HALF, HALF), ("r", 0, LINE))
    assert warm.stats.dram_bytes == PES * LINE + PES * HALF and warm.stats.sram_bytes == PES * LINE
    assert cold.stats.cycles - warm.stats.cycles == \
        (PES * LINE / DRAM_BPC + DRAM_LAT) - (PES * LINE / SRAM_BPC + SRAM_LAT) == 136


# program p reads a tile of 32 rows of 64 bytes (half a line) at DRAM stride 8192 from A + p * 64, twice
NARROW = TILE.replace("slli t1, t0, 7", "slli t1, t0, 6").replace("li t3, 128", "li t3, 64")


def test_strided_rows_narrower_than_a_line_fill_their_lines():
    """Programs 2k and 2k + 1 read the two halves of the same 32 lines (the column tiles of a row-major matrix,
    32 bf16 wide): program 2k, first in slot order, misses and fills the 32 whole lines (4096 DRAM bytes for its
    2048), program 2k + 1 hits them; the second reads all hit."""
    a = np.zeros(32 * 2 * ROW, np.uint8)
    binary = build(NARROW, params=[P("A", "*u8")])
    cold, warm, old = (run(binary, {"A": a}, grid=(PES,), overrides={**EXACT, "memory.sram.llc_bytes": llc,
                                                                       "memory.sram.llc_line_fill": fill})
                       for llc, fill in ((0, 1), (MB32, 1), (MB32, 0)))
    tile = 32 * HALF
    assert cold.stats.dram_bytes == 2 * PES * tile
    assert warm.stats.dram_bytes == PES * tile and warm.stats.sram_bytes == PES * tile + PES * tile // 2
    assert old.stats.dram_bytes == PES * tile // 2      # the model before: half the lines' bytes never charged
    # the first reads: the 32 fills at DRAM (32 * 4096 bytes at 128 B/cycle), the 32 hits at the SRAM level (32 *
    # 2048 bytes at 1024 B/cycle); the second reads, all hits, 32 at a time as the two halves of the wave are
    # apart by then (each 32 * 2048 bytes at 1024 B/cycle)
    busy = warm.stats.pe_dma_busy
    second = 32 * tile / SRAM_BPC
    assert list(busy[0::2]) == [32 * 2 * tile / DRAM_BPC + second] * 32 == [1088] * 32
    assert list(busy[1::2]) == [32 * tile / SRAM_BPC + second] * 32 == [128] * 32


def _bytewise(stamp, off, n, rows, stride, line):
    """A read counted byte by byte: (bytes on lines resident before it, lines it makes resident, the lines)."""
    touched = [(off + r * stride + i) // line for r in range(rows) for i in range(n)]
    hit = sum(1 for ln in touched if stamp[ln])
    lines = set(touched)
    return hit, sum(1 for ln in lines if not stamp[ln]), lines


@pytest.mark.parametrize("line_fill", [True, False])
def test_strided_rows_count_as_byte_by_byte(line_fill):
    """Every shape of rows (each on one line or across lines, overlapping or not, a stride of 0 or negative) is
    served as a byte-by-byte count of the lines it touches says, whichever of ``_rows``' paths takes it."""
    rng = np.random.default_rng(11)
    line = 64
    for _ in range(60):
        c = Llc(1 << 20, 1 << 14, line, line_fill)      # never evicts: residency is what the reads made it
        for _ in range(12):
            rows, n = int(rng.integers(2, 9)), int(rng.choice([1, 4, 24, 64, 100, 130]))
            stride = int(rng.choice([0, 4, n, 36, 64, 128, 200, -n, -72]))
            off = int(rng.integers(2000, 6000))
            before = c.stamp.copy()
            hit, new, lines = _bytewise(before, off, n, rows, stride, line)
            dram = new * line if line_fill else n * rows - hit
            if line_fill:
                hit = max(hit, n * rows - dram)
            assert c.read(off, n, rows, stride) == (hit, dram), (off, n, rows, stride)
            assert set(np.flatnonzero(c.stamp != before)) == lines
            assert c.resident == int(np.count_nonzero(c.stamp))


@pytest.mark.parametrize("line_fill", [True, False])
def test_the_reads_of_a_step_at_once_are_the_reads_one_after_the_other(line_fill):
    """``read_many`` (the programs of a step) serves each read, fills, stamps and counts as the same reads one
    after the other do, or declines (None, nothing changed) when the step could overflow the cache."""
    rng = np.random.default_rng(12)
    line = 64
    declined = 0
    for _ in range(80):
        cap = int(rng.choice([40, 400])) * line
        one, many = Llc(cap, 1 << 14, line, line_fill), Llc(cap, 1 << 14, line, line_fill)
        for _ in range(10):
            G, rows = int(rng.integers(1, 6)), int(rng.integers(1, 6))
            n = int(rng.choice([1, 4, 24, 64, 100, 130]))
            stride = int(rng.choice([0, 4, n, 36, 64, 200, -n]))
            offs = [int(x) for x in rng.integers(2000, 2000 + int(rng.choice([64, 600, 6000])), G)]
            before = (many.stamp.copy(), many.clock, many.resident, many.hit_bytes, many.fill_bytes)
            got = many.read_many(offs, n, rows, stride)
            if got is None:
                declined += 1
                assert (many.stamp == before[0]).all() and (many.clock, many.resident, many.hit_bytes,
                                                              many.fill_bytes) == before[1:]
                many.stamp[:], many.clock, many.resident = one.stamp, one.clock, one.resident
                for o in offs:
                    one.read(o, n, rows, stride)
                    many.read(o, n, rows, stride)
                continue
            assert got == [one.read(o, n, rows, stride) for o in offs], (offs, n, rows, stride)
            assert (many.stamp == one.stamp).all() and many.clock == one.clock and many.resident == one.resident
            assert (many.hit_bytes, many.miss_bytes, many.fill_bytes) == (one.hit_bytes, one.miss_bytes,
                                                                          one.fill_bytes)
    assert 0 < declined < 400
