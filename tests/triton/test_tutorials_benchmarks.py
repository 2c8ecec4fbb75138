"""The tutorials' benchmarks on the simulated clock: ``triton.testing.do_bench`` of a call that autotunes (tutorial
03's ``matmul(a, b)``, 06's ``attention(...)``) measures the launch made with the config chosen, as Triton's
``do_bench``, whose warm-up call does the tuning, measures the calls after it."""
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.triton_backend import clock  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def tuned_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def test_do_bench_of_a_call_that_autotunes_measures_the_launch_with_the_config_chosen():
    n = 3000
    x = torch.randn(n, device=DEVICE)
    out = torch.empty_like(x)

    def call():
        tuned_scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)

    t0 = clock.now_s()
    first = triton.testing.do_bench(call, quantiles=[0.5, 0.2, 0.8])      # tunes, then launches the best
    tuning_and_launch_ms = (clock.now_s() - t0) * 1e3
    torch.testing.assert_close(out, x * 2.0)
    t0 = clock.now_s()
    second = triton.testing.do_bench(call)                                # tuned: one launch
    assert second == pytest.approx((clock.now_s() - t0) * 1e3) and second > 0
    assert first == [second] * 3
    assert tuning_and_launch_ms > 2 * second      # the configs' measurements ran, and do_bench left them out


def test_a_measurement_nested_in_another_counts_its_launches_in_itself_only():
    x = torch.randn(1000, device=DEVICE)
    out = torch.empty_like(x)

    def launch():
        tuned_scale_kernel[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, out, 1000)

    launch()                                                              # tuned for n=1000
    inner = []
    outer_ms, outer_n = clock.measure(lambda: (inner.append(clock.measure(launch)), launch()))
    (inner_ms, inner_n), = inner
    assert (inner_n, outer_n) == (1, 1) and outer_ms == inner_ms > 0


@pytest.mark.parametrize("rep, calls, timed", [(0, 1, 1), (10 ** 9, 5, 4)])
def test_a_call_timed_on_the_host_is_called_as_often_as_rep_allows(rep, calls, timed):
    """A baseline the host computes (no launch on the chip): a call taking ``rep`` milliseconds or more is its own
    measurement (tutorial 03's fp16 ``torch.matmul`` at 4096^3 takes minutes on the host), a quicker one is the
    warm-up of the calls ``rep`` allows, four at most."""
    made = []
    x = torch.randn(64, 64)
    ms = triton.testing.do_bench(lambda: made.append(torch.softmax(x, dim=-1)), rep=rep, return_mode="all")
    assert len(made) == calls and len(ms) == timed and all(t > 0 for t in ms)


@triton.jit
def copy_again_kernel(x_ptr, out_ptr, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(n_iter):
        tl.store(out_ptr + offs, tl.load(x_ptr + (i % 4) * BLOCK + offs))


def test_a_launch_longer_than_the_simulators_default_cap_runs_through_triton():
    """``mtiasim run`` takes a run past 10,000,000 cycles for a runaway; through Triton a launch runs until it is
    done, as tutorial 03's 4096^3 GEMM must (15,000,000 cycles and more)."""
    from mtiasim.sync.progress import DEFAULT_MAX_CYCLES
    block, n_iter = 32768, 3000           # 128 KiB in and out per iteration: about 4,300 cycles each
    x = torch.randn(4 * block, device=DEVICE)
    out = torch.empty(block, device=DEVICE)
    ms, n = clock.measure(lambda: copy_again_kernel[(1,)](x, out, n_iter, BLOCK=block))
    cycles = ms * 1e-3 * 1.35e9
    assert n == 1 and cycles > DEFAULT_MAX_CYCLES
    torch.testing.assert_close(out, x[(n_iter - 1) % 4 * block:][:block])


def test_the_environment_bounds_a_launch(monkeypatch):
    from mtiacc.diagnostics import KernelFault, UserError
    x = torch.randn(4 * 1024, device=DEVICE)
    out = torch.empty(1024, device=DEVICE)
    monkeypatch.setenv("MTIACC_MAX_CYCLES", "20_000")
    with pytest.raises(KernelFault, match=r"--max-cycles \(20000 cycles\)"):
        copy_again_kernel[(1,)](x, out, 3000, BLOCK=1024)
    monkeypatch.setenv("MTIACC_MAX_CYCLES", "lots")
    with pytest.raises(UserError, match="MTIACC_MAX_CYCLES='lots': expected a number"):
        copy_again_kernel[(1,)](x, out, 101, BLOCK=1024)


def test_a_launch_on_more_memory_than_replay_keeps_is_not_remembered(monkeypatch):
    """Replay keeps two copies of a launch's memory; past ``MAX_BYTES`` (tutorial 01's largest size launches on
    three 512 MB tensors) it keeps none, and a smaller launch is remembered and replayed."""
    from mtiacc.triton_backend import replay
    monkeypatch.setattr(replay, "MAX_BYTES", 4096)
    launch = object()
    for n, kept in ((1024, True), (1025, False)):        # fp32: 4096 bytes, then 4100
        r = replay.Replay()
        x = torch.zeros(n)
        assert r.lookup((1, 1, 1), [x, n]) is None
        r.record(launch)
        assert (r.lookup((1, 1, 1), [x, n]) is launch) == kept
