"""No false positives: correct kernels that keep transfers in flight on purpose report nothing under
`mtiasim run --sanitize` (every rule, the DMA pairs included), on two DMA channels and on one, and compute what
numpy computes: the hand double-buffered loop of examples/mtia_double_buffer.py, the same loop as the compiler
pipelines it (`pipeline-loads`), and the torch backend's GEMM template (its K loop pipelined, the next program's
tiles fetched ahead, a masked ragged edge, an epilogue load)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiacc.torch_backend.gemm_fit import template_source
from mtiacc.torch_backend.gemm_search import Tile
from mtiasim.runner import run

ROOT = Path(__file__).resolve().parents[2]
CHANNELS = [2, 1]


def _silu(x):
    return x / (1.0 + np.exp(-x))


@pytest.mark.parametrize("channels", CHANNELS)
@pytest.mark.parametrize("kernel", ["silu_double_buffer", "silu_plain"])
def test_the_double_buffered_loops_are_clean(kernel, channels):
    tiles, block, progs = 4, 256, 3
    n = progs * tiles * block - 100                     # the last program's last tile is ragged
    over = (f"memory.dma.channels={channels}",)
    c = compile_kernel(str(ROOT / "examples" / "mtia_double_buffer.py"),
                       Options(kernel=kernel, signature="*fp32,*fp32,i32", overrides=over,
                               defines={"TILES": str(tiles), "BLOCK": str(block)}))
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    r = run(c.binary, {"x_ptr": x, "y_ptr": np.zeros(n, np.float32), "n": np.int32(n)}, grid=(progs,),
            sanitize=True, overrides=over)
    np.testing.assert_allclose(r.outputs["y_ptr"], _silu(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("channels", CHANNELS)
def test_the_gemm_template_is_clean(tmp_path, channels):
    m, n, k = 72, 40, 96                                # 72 and 40: ragged against the 32 x 32 tiles
    tile = Tile(32, 32, 32, 2)
    path = tmp_path / "gemm.py"
    path.write_text(template_source(tile, m, n, k, dtype="float16", epilogue=1))
    over = (f"memory.dma.channels={channels}",)
    c = compile_kernel(str(path), Options(kernel="gemm_fit", signature="*fp16,*fp16,*fp16,*fp16", overrides=over,
                                          num_stages=tile.num_stages))
    rng = np.random.default_rng(4)
    a = (rng.random((m, k), dtype=np.float32) - 0.5).astype(np.float16)
    b = (rng.random((k, n), dtype=np.float32) - 0.5).astype(np.float16)
    e = (rng.random((m, n), dtype=np.float32) - 0.5).astype(np.float16)
    grid = (-(-m // 32) * -(-n // 32), 1)
    r = run(c.binary, {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(m * n, np.float16), "E0": e.ravel()},
            grid=grid, sanitize=True, overrides=over)
    want = a.astype(np.float32) @ b.astype(np.float32) + e.astype(np.float32)
    np.testing.assert_allclose(r.outputs["C"].reshape(m, n).astype(np.float32), want, rtol=1e-2, atol=1e-2)
