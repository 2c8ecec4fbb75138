"""Inductor's max-autotune with the GEMM template's candidates compiled and simulated in parallel (two local
worker processes): the same timings per candidate, the same choice and the same output as one candidate after
another (``MTIACC_JOBS=1``), every candidate's measurement taken from the parallel run."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent


def tuned_gemm(tmp_path, jobs):
    env = dict(os.environ, MTIACC_JOBS=str(jobs), MTIACC_EXECUTOR="local", MTIACC_QUIET="1",
               MTIACC_CACHE_DIR=str(tmp_path / f"cache-{jobs}"),
               TORCHINDUCTOR_CACHE_DIR=str(tmp_path / f"inductor-{jobs}"),
               PYTHONPATH=os.pathsep.join([str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(HERE / "parallel_gemm.py")], env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_parallel_candidates_give_the_serial_timings_choice_and_output(tmp_path):
    serial, parallel = tuned_gemm(tmp_path, 1), tuned_gemm(tmp_path, 2)
    assert len(serial["timings"]) == 1 and len(serial["timings"][0]) >= 2    # one GEMM, tuned over its tiles
    assert serial["counts"] == {"ran": 0, "taken": 0}
    n = len(serial["timings"][0])
    assert parallel["counts"] == {"ran": n, "taken": n}
    assert parallel["timings"] == serial["timings"]
    assert parallel["out"] == serial["out"]
