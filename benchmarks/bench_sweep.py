"""Sweep throughput (``make bench-sweep [JOBS=N] [POINTS=16] [RAY=1]``).

One spec, the vector add at N = 2^18 over ``POINTS`` DRAM bandwidths (one compile, ``POINTS`` simulations), run
four ways on an empty cache each time:

* back to back: every job one after another in this process (compile, then each simulation): the cost of
  the work itself;
* ``--executor local --jobs N``: its ideal is the back-to-back time over N (one core per job); the ratio
  printed is ideal / measured (the goal: at least 0.95);
* ``--executor ray`` on a Ray started on this machine with N CPUs (``RAY=1``): its throughput against the local
  executor's (the goal: at least 0.90);
* ``--resume`` of the finished sweep: its time against the first run's (the goal: under 0.20).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mtiacc.sweep import run_sweep  # noqa: E402
from mtiacc.sweep.jobs import CompileJob, SimJob, compile_job, simulate_job  # noqa: E402

N = 1 << 18


def write_case(folder: Path, points: int) -> Path:
    a = np.arange(N, dtype=np.float32)
    np.savez(folder / "data.npz", A_ptr=a, B_ptr=a[::-1].copy(), C_ptr=np.zeros(N, np.float32), N=np.int32(N))
    bws = [round(25.6e9 * (1 + i), 1) for i in range(points)]
    spec = folder / "spec.yaml"
    spec.write_text(f"kernel: {ROOT / 'examples' / 'vector_add.py'}\ngrid: \"cdiv(N, BLOCK_SIZE)\"\n"
                    f"inputs: data.npz\ndefines: {{BLOCK_SIZE: 1024}}\n"
                    f"set: {{memory.dram.bw_bytes_per_s: [{', '.join(f'{b:.1f}' for b in bws)}]}}\n")
    return spec


def back_to_back(spec: Path, points: int) -> float:
    t = time.perf_counter()
    binary = compile_job(CompileJob(str(ROOT / "examples" / "vector_add.py"), None, None, (("BLOCK_SIZE", "1024"),),
                                    (), "cdiv(N, BLOCK_SIZE)", ()))["binary"]
    for i in range(points):
        job = SimJob(machine=(("memory.dram.bw_bytes_per_s", 25.6e9 * (1 + i)),), args=(), place=(),
                     max_cycles=None)
        assert simulate_job(job, binary, str(spec.parent / "data.npz"))["status"] == "ok"
    return time.perf_counter() - t


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--points", type=int, default=16)
    ap.add_argument("--ray", action="store_true", help="also run on a Ray started on this machine")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        spec = write_case(folder, a.points)
        os.environ["MTIACC_CACHE_DIR"] = str(folder / "cache-serial")
        serial = back_to_back(spec, a.points)
        os.environ["MTIACC_CACHE_DIR"] = str(folder / "cache-local")
        out = str(folder / "local.jsonl")
        local = timed(lambda: run_sweep(str(spec), out, jobs=a.jobs))
        resume = timed(lambda: run_sweep(str(spec), out, jobs=a.jobs, resume=True))
        print(f"{a.points} simulations of a 2^18 vector add, {a.jobs} jobs")
        print(f"{'run':<34} {'seconds':>9} {'ratio':>8}  goal")
        print(f"{'back to back (one core)':<34} {serial:>9.2f}")
        ideal = serial / a.jobs
        print(f"{'local executor':<34} {local:>9.2f} {ideal / local:>8.2f}  >= 0.95 of back to back / jobs")
        if a.ray:
            os.environ["MTIACC_CACHE_DIR"] = str(folder / "cache-ray")
            import ray
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            ray.init(num_cpus=a.jobs, include_dashboard=False, configure_logging=False, log_to_driver=False)
            try:
                run_sweep(str(spec), str(folder / "warm.jsonl"), executor="ray", resume=False)  # workers started
                os.environ["MTIACC_CACHE_DIR"] = str(folder / "cache-ray2")
                on_ray = timed(lambda: run_sweep(str(spec), str(folder / "ray.jsonl"), executor="ray"))
            finally:
                ray.shutdown()
            print(f"{'ray executor (this machine)':<34} {on_ray:>9.2f} {local / on_ray:>8.2f}  >= 0.90 of local")
        print(f"{'--resume of the finished sweep':<34} {resume:>9.2f} {resume / local:>8.2f}  < 0.20 of the first run")


if __name__ == "__main__":
    main()
