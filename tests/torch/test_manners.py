"""What a user meets around ``torch.compile(backend="mtia")``: no compile workers left to wait for at exit,
and each graph's kernels reported on stderr as they are compiled and simulated."""
import threading

import torch

from mtiacc.torch_backend.backend import config_patches


def test_inductor_compiles_in_this_process_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv("TORCHINDUCTOR_COMPILE_THREADS", raising=False)
    assert config_patches(None, None)["compile_threads"] == 1
    assert config_patches(None, {"compile_threads": 4})["compile_threads"] == 4
    monkeypatch.setenv("TORCHINDUCTOR_COMPILE_THREADS", "4")
    assert "compile_threads" not in config_patches(None, None)


def _model(x, y):
    return torch.relu(x * 2 + y).sum(0)


def test_no_pool_or_non_daemon_thread_is_left_to_wait_for_at_exit(monkeypatch):
    from torch._inductor import async_compile
    from mtiacc.sweep import launches
    monkeypatch.delenv("TORCHINDUCTOR_COMPILE_THREADS", raising=False)
    async_compile.shutdown_compile_workers()           # pools an earlier test's stock compile may have left
    launches.close_executors()                         # and the autotuning executor an earlier test's tuning kept
    x, y = torch.randn(64, 32), torch.randn(64, 32)
    torch.testing.assert_close(torch.compile(_model, backend="mtia")(x, y), _model(x, y))
    assert not async_compile._pool_set                  # Python's exit would wait for its worker processes
    assert not launches._executors                      # the default mode tunes nothing: no executor started
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    assert not others, others


def test_a_graphs_first_run_reports_its_kernels_on_stderr(monkeypatch, capfd):
    monkeypatch.delenv("MTIACC_QUIET", raising=False)
    x, y = torch.randn(64, 32), torch.randn(64, 32)
    f = torch.compile(_model, backend="mtia")
    f(x, y)
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("mtiacc: graph ")]
    assert lines, err
    n = int(lines[0].split(" of ")[1].split()[0])
    assert any(f"kernel {n} of {n} simulated" in line for line in lines), lines
    f(x, y)                                                # later runs are quiet
    assert "mtiacc: graph" not in capfd.readouterr().err
