"""Unmodified Triton programs on the ``cpu`` backend: launches on CPU tensors (views included), the simulated
clock behind do_bench and the autotuner, mtiacc's errors, and when the backend is active."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

from mtiacc.diagnostics import CompileError  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402
from tests.triton import kernels as K  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


def test_triton_finds_the_backend_named_cpu():
    from triton.backends import backends
    assert "cpu" in backends
    assert backends["cpu"].driver is MtiaDriver
    drv = triton.runtime.driver.active
    assert isinstance(drv, MtiaDriver)
    target = drv.get_current_target()
    assert (target.backend, target.arch) == ("cpu", "mtia2i") and target.warp_size > 0
    assert drv.get_active_torch_device() == torch.device("cpu")


def test_vector_add_matches_torch():
    n = 3000
    x, y = torch.rand(n), torch.rand(n)
    out = torch.empty(n)
    K.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    torch.testing.assert_close(out, x + y)
    # a grid callable over the arguments, as Triton's tutorials launch it; the second launch hits the caches
    out2 = torch.zeros(n)
    K.add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out2, n, BLOCK_SIZE=256)
    torch.testing.assert_close(out2, x + y)


def test_a_view_with_a_storage_offset_and_strides():
    base = torch.arange(400, dtype=torch.float32).reshape(10, 40)
    x = base[2:8, 3:33:2]                          # storage offset 83, strides (40, 2)
    assert x.storage_offset() == 83 and not x.is_contiguous()
    out_base = torch.full((8, 20), -1.0)
    out = out_base[1:7, 2:17]                      # results land inside a larger tensor
    K.scale_rows_kernel[(6,)](x, out, x.stride(0), x.stride(1), out.stride(0), 15, 2.5, BLOCK_N=16)
    torch.testing.assert_close(out, x * 2.5)
    assert (out_base[0] == -1).all() and (out_base[7] == -1).all() and (out_base[:, :2] == -1).all()


def test_an_argument_equal_to_one_is_a_constant_as_in_triton():
    x = torch.rand(4, 16)
    out = torch.empty(4, 16)
    kernel = K.scale_rows_kernel[(4,)](x, out, x.stride(0), x.stride(1), out.stride(0), 16, 0.5, BLOCK_N=16)
    assert x.stride(1) == 1
    torch.testing.assert_close(out, x * 0.5)
    assert kernel is not None and "ttir" in kernel.asm        # Triton's own IR is kept for debugging


def test_the_autotuner_picks_the_config_fastest_on_the_simulated_chip(capsys, monkeypatch):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    n = 1 << 14
    x, y = torch.rand(n), torch.rand(n)
    out = torch.empty(n)
    K.tuned_add_kernel[lambda m: (triton.cdiv(n, m["BLOCK_SIZE"]),)](x, y, out, n)
    torch.testing.assert_close(out, x + y)
    timings = {c.kwargs["BLOCK_SIZE"]: t[0] for c, t in K.tuned_add_kernel.configs_timings.items()}
    best = K.tuned_add_kernel.best_config.kwargs["BLOCK_SIZE"]
    assert timings[best] == min(timings.values())
    assert len(set(timings.values())) == len(timings)        # the simulated times tell the configs apart
    printed = capsys.readouterr().out
    assert printed.count("simulated time on mtiasim") == len(timings)
    # each timing is the simulated time of that config's launch
    bench = triton.runtime.driver.active.get_benchmarker()
    for block, ms in timings.items():
        again = bench(lambda: K.add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block),
                      quantiles=(0.5, 0.2, 0.8))
        assert again == [pytest.approx(ms)] * 3


def test_do_bench_returns_simulated_milliseconds():
    n = 1 << 15
    x, y = torch.rand(n), torch.rand(n)
    out = torch.empty(n)
    fn = lambda: K.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)  # noqa: E731
    from mtiacc.triton_backend import clock
    t0 = clock.now_s()
    fn()
    one_launch_ms = (clock.now_s() - t0) * 1e3
    ms = triton.testing.do_bench(fn, warmup=1, rep=1)
    assert ms == pytest.approx(one_launch_ms)
    assert 0 < ms < 1                                        # microseconds on the chip, not the simulator's time
    torch.testing.assert_close(out, x + y)


def test_a_kernel_mtiacc_rejects_gives_mtiaccs_message():
    x = torch.rand(64)
    with pytest.raises(CompileError) as e:
        K.rejected_kernel[(1,)](x, 64, BLOCK_SIZE=64)
    text = str(e.value)
    kernels_py = str(Path(K.__file__).resolve())
    assert text.startswith(f"{kernels_py}:40:9: error: `tl.inline_asm_elementwise` is not supported yet"), text
    assert "^" in text                                       # the source line and a caret


def test_mtiacc_triton_turns_the_backend_off_and_on(monkeypatch):
    monkeypatch.setenv("MTIACC_TRITON", "0")
    assert not MtiaDriver.is_active()
    monkeypatch.setenv("MTIACC_TRITON", "1")
    assert MtiaDriver.is_active()
    monkeypatch.delenv("MTIACC_TRITON")
    assert MtiaDriver.is_active() == (not torch.cuda.is_available())


def test_with_mtiacc_triton_0_triton_has_no_active_driver_here():
    env = dict(os.environ, MTIACC_TRITON="0", PYTHONPATH=str(ROOT))
    code = ("import triton\n"
            "from triton.backends import backends\n"
            "print(sorted(n for n, b in backends.items() if b.driver.is_active()))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "cpu" not in r.stdout
