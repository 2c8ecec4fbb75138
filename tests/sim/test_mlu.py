"""The memory layout unit (``mtia.mlu.trans.e<W>``): transposes in local memory against numpy, its timing
behind the engine's queue, and its busy cycles in the statistics."""
import numpy as np
import pytest

from tests.sim.dpe_helpers import IN_BASE, OUT_BASE, li, run_engine

DT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def trans(w: int, src: int, dst: int, rows: int, cols: int) -> str:
    return li(a0=dst, a1=src, a2=(rows << 16) | cols) + f"    mtia.mlu.trans.e{w} a0, a1, a2\n"


@pytest.mark.parametrize("w,rows,cols", [(8, 3, 5), (16, 32, 64), (32, 17, 9), (64, 4, 33)])
def test_transpose_matches_numpy_per_program(w, rows, cols):
    rng = np.random.default_rng(w + rows)
    blocks = [rng.integers(0, 2 ** min(w, 63), (rows, cols), dtype=np.uint64).astype(DT[w]) for _ in range(3)]
    out, res = run_engine(trans(w, IN_BASE, OUT_BASE, rows, cols), [b.tobytes() for b in blocks],
                          rows * cols * w // 8)
    for i, b in enumerate(blocks):
        np.testing.assert_array_equal(out[i].view(DT[w]).reshape(cols, rows), b.T)
    assert res.stats.units()["mlu"]["busy_cycles"] == 3 * np.ceil(rows * cols * w / 8 / 64)


def test_programs_with_different_shapes():
    rng = np.random.default_rng(1)
    shapes = [(4, 6), (6, 4), (2, 12)]
    blocks = [rng.integers(0, 1000, s).astype(np.uint32) for s in shapes]
    body = ""
    for i, (r, c) in enumerate(shapes):   # one branch per program id
        body += (f"    li a5, {i}\n    bne t0, a5, skip{i}\n" + trans(32, IN_BASE, OUT_BASE, r, c) + f"skip{i}:\n")
    out, _ = run_engine(body, [b.tobytes() for b in blocks], 96)
    for i, b in enumerate(blocks):
        np.testing.assert_array_equal(out[i].view(np.uint32).reshape(b.shape[1], b.shape[0]), b.T)


def test_a_transpose_takes_unit_cycles_not_vector_cycles_and_the_wait_covers_it():
    rows, cols = 64, 64
    blob = np.arange(rows * cols, dtype=np.uint16).tobytes()
    _, small = run_engine(trans(16, IN_BASE, OUT_BASE, 4, 4), [blob], 32)
    _, big = run_engine(trans(16, IN_BASE, OUT_BASE, rows, cols), [blob], 32)
    assert big.stats.units()["vector"]["busy_cycles"] == small.stats.units()["vector"]["busy_cycles"]
    extra = np.ceil(rows * cols * 2 / 64) - 1    # 8 KiB at 64 bytes a cycle, against 32 bytes in one cycle
    assert big.stats.cycles - small.stats.cycles >= extra
