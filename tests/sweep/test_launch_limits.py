"""An autotuning candidate simulated on an executor runs under the limits its launch would have had."""
import numpy as np

import mtiacc
from mtiacc.sweep.launches import LaunchJob, launch_job


def _job(sweep_dir, limits=()):
    kernel = mtiacc.load(str(sweep_dir / "add.py"))
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(4096).astype(np.float32), rng.standard_normal(4096).astype(np.float32)
    p = kernel.prepare(a, b, np.zeros(4096, np.float32), 4096, BLOCK_SIZE=256, grid=(16,), compile=False)
    unit, options = kernel.compile_job(*p.compile_request)
    job = LaunchJob(unit=unit, options=options, binary=None, inputs=p.inputs, grid=p.grid, scalars=p.scalars,
                    pointer_at=p.pointer_at, limits=limits)
    return job, a + b


def test_a_launch_job_runs_under_its_step_budget(sweep_dir):
    job, want = _job(sweep_dir)
    out = launch_job(job)
    np.testing.assert_array_equal(out["result"].outputs["C_ptr"], want)
    capped = launch_job(_job(sweep_dir, limits=(("max_steps", 100),))[0])
    assert "result" not in capped and "100" in capped["error"], capped



def test_autotuning_jobs_take_the_launch_limits_from_the_environment(monkeypatch):
    from mtiacc.triton_backend.limits import DEFAULT_MAX_CYCLES, run_limits
    assert run_limits()["max_cycles"] == DEFAULT_MAX_CYCLES
    monkeypatch.setenv("MTIACC_MAX_CYCLES", "1e6")
    assert run_limits()["max_cycles"] == 1_000_000


def test_a_prepared_launch_keeps_its_arguments_memory_alive(sweep_dir):
    """A launch prepared now and run later (an autotuning candidate, a LaunchJob on a worker) reads the arrays
    it was given even when the caller has dropped them: the prepared inputs keep that memory alive."""
    import gc
    import sys
    kernel = mtiacc.load(str(sweep_dir / "add.py"))
    a = np.full(4096, 1.5, np.float32)
    before = sys.getrefcount(a)
    p = kernel.prepare(a, a, np.zeros(4096, np.float32), 4096, BLOCK_SIZE=256, grid=(16,), compile=False)
    assert sys.getrefcount(a) > before
    del a
    gc.collect()
    junk = [np.full(4096, -7.0, np.float32) for _ in range(64)]   # reuse freed memory if it was freed
    unit, options = kernel.compile_job(*p.compile_request)
    out = launch_job(LaunchJob(unit=unit, options=options, binary=None, inputs=p.inputs, grid=p.grid,
                               scalars=p.scalars, pointer_at=p.pointer_at))
    assert junk and "result" in out, out.get("error")
    np.testing.assert_array_equal(out["result"].outputs["C_ptr"], np.full(4096, 3.0, np.float32))
