"""Benchmark: the vector add, compiled and simulated at N = 2^20.

Prints compile time, simulator wall time, instructions retired, simulated cycles and time, and the
simulator's speed (PE-instructions per second, simulated cycles per wall second).
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mtiacc.driver import Options, compile_kernel  # noqa: E402
from mtiasim.runner import run  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=2 ** 20)
    ap.add_argument("--block", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    opts = Options(defines={"BLOCK_SIZE": str(args.block)}, grid="cdiv(N, BLOCK_SIZE)")
    t0 = time.perf_counter()
    for _ in range(args.repeat):
        binary = compile_kernel(str(ROOT / "examples" / "vector_add.py"), opts).binary
    compile_s = (time.perf_counter() - t0) / args.repeat
    rng = np.random.default_rng(0)
    n = args.n
    data = {"A_ptr": rng.standard_normal(n).astype(np.float32), "B_ptr": rng.standard_normal(n).astype(np.float32),
            "C_ptr": np.zeros(n, np.float32), "N": np.array(n, np.int32)}
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "add.bin"
        path.write_bytes(binary)
        walls = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = run(str(path), data, grid=None)
            walls.append(time.perf_counter() - t0)
    assert np.array_equal(result.outputs["C_ptr"], data["A_ptr"] + data["B_ptr"])
    s = result.stats
    wall = min(walls)
    rows = [
        ("kernel", f"vector_add N={n} BLOCK_SIZE={args.block}"),
        ("compile time (s)", f"{compile_s:.3f}"),
        ("programs", f"{s.programs}"),
        ("instructions retired", f"{s.instructions}"),
        ("simulated cycles", f"{s.cycles}"),
        ("simulated time (us)", f"{s.cycles / s.clock_hz * 1e6:.1f}"),
        ("mtiasim wall time (s)", f"{wall:.3f}"),
        ("PE-instructions / s", f"{s.instructions / wall:,.0f}"),
        ("simulated cycles / wall s", f"{s.cycles / wall:,.0f}"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


if __name__ == "__main__":
    main()
