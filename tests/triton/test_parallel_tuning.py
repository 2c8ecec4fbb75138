"""Triton's autotuner with its configs compiled and simulated in parallel (mtiacc/triton_backend/tuning.py, on
two local worker processes): the same timings, the same choice and the same tensors as one config after another
(``MTIACC_JOBS=1``), every config's measurement taken from the parallel run."""
import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

from mtiacc.triton_backend import tuning  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402
from tests.triton import tuned_kernels as K  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


def tune(kernel, monkeypatch, jobs, *args, grid, **kwargs):
    """Launch ``kernel`` (its tuning forgotten first) with ``MTIACC_JOBS=jobs``: its timings per config, its choice,
    and how many launches ran in parallel and were taken by a measurement."""
    monkeypatch.setenv("MTIACC_JOBS", str(jobs))
    monkeypatch.setenv("MTIACC_EXECUTOR", "local")
    kernel.cache.clear()
    before = dict(tuning.counts)
    kernel[grid](*args, **kwargs)
    timings = {c.kwargs["BLOCK"]: t for c, t in kernel.configs_timings.items()}
    counts = {k: tuning.counts[k] - before[k] for k in before}
    return timings, kernel.best_config.kwargs["BLOCK"], counts


def test_parallel_configs_give_the_serial_timings_choice_and_outputs(monkeypatch):
    n = 5000
    g = torch.Generator().manual_seed(3)
    x, y = torch.randn(n, generator=g), torch.randn(n, generator=g)
    grid = lambda m: (triton.cdiv(n, m["BLOCK"]),)  # noqa: E731
    out1, out2 = torch.full((n,), 7.0), torch.full((n,), 7.0)
    serial = tune(K.tuned_axpy, monkeypatch, 1, x, y, out1, n, 0.5, grid=grid)
    parallel = tune(K.tuned_axpy, monkeypatch, 2, x, y, out2, n, 0.5, grid=grid)
    assert serial[2] == {"ran": 0, "taken": 0}
    # three configs ran at once; the one whose blocks do not fit a PE's local memory is refused before it
    # launches (Triton's check of the shared memory the backend reports), as serially
    assert parallel[2] == {"ran": 3, "taken": 3}
    assert parallel[:2] == serial[:2]
    assert serial[0][1 << 20] == [float("inf")] * 3 and len(set(map(tuple, serial[0].values()))) == 4
    assert torch.equal(out1, out2)
    torch.testing.assert_close(out1, 0.5 * x + y)


def test_an_in_place_kernel_restored_between_configs_updates_once(monkeypatch):
    n = 3000
    g = torch.Generator().manual_seed(4)
    x0, y = torch.randn(n, generator=g), torch.randn(n, generator=g)
    grid = lambda m: (triton.cdiv(n, m["BLOCK"]),)  # noqa: E731
    x1, x2 = x0.clone(), x0.clone()
    serial = tune(K.tuned_add_in_place, monkeypatch, 1, x1, y, n, grid=grid)
    parallel = tune(K.tuned_add_in_place, monkeypatch, 2, x2, y, n, grid=grid)
    assert parallel[2] == {"ran": 3, "taken": 3}
    assert parallel[:2] == serial[:2]
    assert torch.equal(x1, x2)
    assert torch.equal(x1, x0 + y)
