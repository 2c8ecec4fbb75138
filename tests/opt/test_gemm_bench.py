"""The GEMM benchmark's engine bound (``benchmarks/bench_gemm.py``, ``engine_bound``): what the matrix engine alone
allows a row, from the machine's numbers; no simulated run beats it, and it is below issue 28's int8 goal at
4096 x 4096 x 512 (the accumulator port clears and writes back every output element)."""
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_gemm  # noqa: E402
from mtiacc.machine.simulator import load_config  # noqa: E402


def test_engine_bound_from_the_machine():
    cfg = load_config(None)
    launch, port = cfg.job_launch_cycles, 2 * 256 * 4 * 128 / cfg.dpe.acc_bytes_per_cycle   # a 256 x 128 tile
    # 4096 x 4096 x 512: 512 tiles of 256 x 128, 8 a PE; int8 streams two rows a cycle, bf16 one
    int8 = (4096, 4096, 512, "int8", "sram", (256, 128, 64), 8, "A B")
    assert bench_gemm.engine_bound(int8, cfg) == pytest.approx(65536 / (launch + 8 * (128 * 4 * 16 + port)))
    assert bench_gemm.engine_bound(int8, cfg) < bench_gemm.goal(int8)[1]
    bf16 = (4096, 4096, 512, "bf16", "sram", (256, 128, 64), 8, "A Bt")
    assert bench_gemm.engine_bound(bf16, cfg) == pytest.approx(131072 / (launch + 8 * (256 * 4 * 16 + port)))
    # 2048^3: 128 tiles, 2 a PE; a ragged count of tiles: the busiest PE has one more
    cube = (2048, 2048, 2048, "int8", "sram", (256, 128, 64), 8, "A B")
    assert bench_gemm.engine_bound(cube, cfg) == pytest.approx(65536 / (launch + 2 * (128 * 4 * 64 + port)))
    ragged = (2048 + 256, 2048, 2048, "int8", "sram", (256, 128, 64), 8, "A B")
    peak = 2304 * 2048 * 2048 / (2048 * 64)
    assert bench_gemm.engine_bound(ragged, cfg) == pytest.approx(peak / (launch + 3 * (128 * 4 * 64 + port)))
    # a doubled port halves its share
    fast = load_config(None, ["dpe.acc_bytes_per_cycle=256"])
    assert bench_gemm.engine_bound(int8, fast) == pytest.approx(65536 / (launch + 8 * (128 * 4 * 16 + port / 2)))


@pytest.mark.parametrize("dtype", ["int8", "bf16"])
def test_no_run_beats_its_engine_bound(dtype):
    cfg = load_config(None)
    case = next(c for c in bench_gemm.QUICK if c[3] == dtype and c[7] == "A B")
    r = bench_gemm.measure(case, cfg, np.random.default_rng(0))
    assert r["ok"]
    assert 0 < r["peak"] <= r["bound"] <= 1
