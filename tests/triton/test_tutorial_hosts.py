"""What Triton's tutorials ask of the host, through the ``cpu`` backend and from ``mtiacc FILE.py``: autotune
configs chosen by target queries (``get_current_target().backend``, ``is_cuda()``, ``torch.cuda`` calls behind
them), chosen by Triton's own autotuner and never recomputed by mtiacc, and the stream functions of the device
the backend reports (tutorial 02's ``getattr(torch, DEVICE.type).set_stream(stream)``)."""
import textwrap

import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.frontend.entry import read_kernel_tuning  # noqa: E402
from mtiacc.frontend.visitor.static_eval import Target  # noqa: E402
from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def keep(conf):
    # as tutorial 06: torch.cuda is only asked on CUDA
    return not (is_cuda() and torch.cuda.get_device_capability()[0] == 9 and conf.num_warps == 8)


def get_autotune_config():
    if is_cuda():
        return [triton.Config({"BLOCK": 1024}, num_warps=8)]
    # the target's answers decide here, and a call mtiacc cannot evaluate from the source (getattr) shows that
    # the configs are Triton's, computed by Python, never recomputed by mtiacc
    blocks = getattr(triton, "next_power_of_2")(48), 128
    return [triton.Config({"BLOCK": b}, num_warps=w) for b in blocks for w in (4, 8)]


@triton.autotune(configs=list(filter(keep, get_autotune_config())), key=["n"])
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)


def test_tritons_autotuner_chooses_among_configs_made_by_target_queries():
    torch.manual_seed(0)
    x = torch.randn(1000, device=DEVICE)
    out = torch.empty_like(x)
    scale_kernel[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, out, 1000)
    torch.testing.assert_close(out, x * 3.0)
    assert len(scale_kernel.configs) == 4          # the HIP-less, CUDA-less branch: 2 blocks x 2 warp counts
    assert scale_kernel.best_config.kwargs["BLOCK"] in (64, 128)


def test_the_cli_answers_target_queries_as_the_backend_does(tmp_path):
    target = MtiaDriver().get_current_target()
    assert (Target().backend, Target().arch, Target().warp_size) == (target.backend, target.arch, target.warp_size)
    src = tmp_path / "tuned.py"
    src.write_text(textwrap.dedent('''
        import os
        import torch
        import triton
        import triton.language as tl


        def is_cuda():
            return triton.runtime.driver.active.get_current_target().backend == "cuda"


        def is_hip():
            return triton.runtime.driver.active.get_current_target().backend == "hip"


        def keep(conf):
            return not (is_cuda() and torch.cuda.get_device_capability()[0] == 9 and conf.num_warps == 8)


        if is_cuda():
            configs = [triton.Config({"BLOCK": 1024}, num_warps=8)]
        elif is_hip():
            configs = [triton.Config({"BLOCK": 512}, num_warps=8)]
        else:
            configs = [triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 128) for w in (4, 8)]
        if "MTIACC_TEST_NO_SUCH_VARIABLE" in os.environ:
            configs = configs[:1]


        @triton.autotune(configs=list(filter(keep, configs)), key=["n"])
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
    '''))
    tuning = read_kernel_tuning(str(src))
    assert [(c.kwargs["BLOCK"], c.num_warps) for c in tuning.configs] == [(64, 4), (64, 8), (128, 4), (128, 8)]


def test_the_reported_device_offers_the_stream_functions_tutorials_call():
    device_module = getattr(torch, DEVICE.type)
    stream = device_module.Stream()
    device_module.set_stream(stream)              # tutorial 02's benchmark, before do_bench
    device_module.synchronize()
    assert device_module.current_stream() is not None
    with pytest.raises(TypeError):
        device_module.set_stream("not a stream")


@triton.autotune(configs=[triton.Config({"BLOCK": 512}), triton.Config({"BLOCK": 32})], key=["n"])
@triton.jit
def tile_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    mask = (rows < n) & (cols < n)
    tile = tl.load(x_ptr + rows * n + cols, mask=mask, other=0.0)
    tl.store(out_ptr + rows * n + cols, tile * 2.0 + 1.0, mask=mask)


def test_the_autotuner_skips_a_config_whose_blocks_do_not_fit_local_memory():
    """A 512 x 512 fp32 tile (1 MiB) is larger than a PE's whole local memory (384 KiB; a block that fits is
    written in place or planned around): Triton's autotuner skips that config as it skips one that is out of a
    GPU's resources, and chooses the one that fits."""
    torch.manual_seed(0)
    x = torch.randn(32, 32, device=DEVICE)
    out = torch.empty_like(x)
    tile_copy_kernel[lambda meta: (triton.cdiv(32, meta["BLOCK"]),)](x, out, 32)
    torch.testing.assert_close(out, x * 2.0 + 1.0)
    assert tile_copy_kernel.best_config.kwargs["BLOCK"] == 32


@triton.autotune(configs=[triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def only_too_big_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # two 256 x 256 fp32 tiles live at once (512 KiB): more than a PE's local memory, while Triton's own estimate
    # of the shared memory a GPU needs for this kernel is small
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    mask = (rows < n) & (cols < n)
    tile = tl.load(x_ptr + rows * n + cols, mask=mask, other=0.0)
    flipped = tl.load(x_ptr + cols * n + rows, mask=mask, other=0.0)
    tl.store(out_ptr + rows * n + cols, tile + flipped, mask=mask)


def test_a_launch_whose_every_config_does_not_fit_reports_mtiaccs_diagnostic():
    from mtiacc.diagnostics import UserError
    x = torch.zeros(8, 8, device=DEVICE)
    with pytest.raises(UserError) as e:
        only_too_big_kernel[(1,)](x, torch.empty_like(x), 8)
    text = str(e.value)
    assert text.startswith(f"{__file__.rstrip('c')}:") and "local memory" in text.splitlines()[0], text
