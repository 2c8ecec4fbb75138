"""The default mode's GEMM tile fits a PE's local memory as the compiler lays the kernel out.

mtiacc/torch_backend/gemm_fit.py, gemm_cost.choose_tile, gemm_choices (the epilogue's blocks).
"""
import torch

from mtiacc.torch_backend import gemm_cost, report
from mtiacc.torch_backend.gemm_fit import fits
from mtiacc.torch_backend.gemm_search import Tile

BIG = Tile(128, 128, 64, 2)


def test_fit_rule_rejects_a_tile_the_hand_count_accepts():
    """256 x 512 x 2048 bf16 with two added tensors: the blocks of 256 x 128 x 64 counted by hand fit a PE's
    384 KB, but the compiler's plan (the K loop's stages, the next program's first tiles, the epilogue's blocks)
    does not; the default mode's tile is the fastest one the plan fits."""
    lmem = gemm_cost.chip().local_memory_bytes
    tile, args = Tile(256, 128, 64, 2), (256, 512, 2048)
    assert gemm_cost.footprint(tile, dtype_bytes=2, split_parts=0, epilogue=2) <= lmem
    assert not fits(tile, *args, dtype="bfloat16", epilogue=2)
    chosen = gemm_cost.choose_tile(*args, dtype_bytes=2, dtype="bfloat16", epilogue=2)
    assert chosen is not None and fits(chosen, *args, dtype="bfloat16", epilogue=2)
    ranked = [e.tile for e in gemm_cost.rank(*args, dtype_bytes=2, epilogue=2)]
    assert all(not fits(t, *args, dtype="bfloat16", epilogue=2) for t in ranked[:ranked.index(chosen)])


def test_a_k_loop_pipelined_by_the_plan_fits_the_128x128_tile():
    """256^3 fp16 with 128 x 128 x 64: the K loop (4 trips) is pipelined in as many stages as the plan holds, its
    accumulators in the engine; unrolled whole, every trip's tiles were fetched ahead and it did not fit."""
    assert fits(BIG, 256, 256, 256, dtype="float16", epilogue=0)
    assert fits(BIG, 256, 256, 256, dtype="float16", epilogue=1)


def test_fit_rule_counts_the_epilogue_blocks():
    """The bias and a fused added tensor are blocks of the tile's size: a tile that fits without them may not."""
    tile = Tile(256, 128, 64, 2)
    args = (256, 512, 2048)
    assert fits(tile, *args, dtype="bfloat16", epilogue=0)
    assert not fits(tile, *args, dtype="bfloat16", epilogue=2)


def _on_chip(rep, n_gemms):
    assert rep["host_layers"] == [] and rep["aten_ops"] == []
    gemms = [k for k in rep["kernels"] if k["gemm"]]
    assert len(gemms) == n_gemms and all(k["on_chip"] for k in gemms), gemms


def test_fp16_gemm_with_an_added_tensor_runs_on_the_chip(monkeypatch):
    """The 256^3 fp16 GEMM whose default tile once failed at launch (LocalMemoryFull), without a host fallback."""
    monkeypatch.setenv("MTIACC_FALLBACK", "0")
    g = torch.Generator().manual_seed(0)
    x = torch.randn(256, 256, generator=g, dtype=torch.float16)
    y = torch.randn(256, 256, generator=g, dtype=torch.float16)
    f = lambda x, y: x @ y + torch.zeros(256, 256, dtype=x.dtype)   # noqa: E731
    got = torch.compile(f, backend="mtia")(x, y)
    torch.testing.assert_close(got.float(), (x.float() @ y.float()), rtol=2e-3, atol=0.1)
    _on_chip(report(), 1)


class BertLinears(torch.nn.Module):
    """BERT-base's GEMMs at seq 128: the attention output's and the feed-forward's, each with its bias and the
    residual added."""

    def __init__(self):
        super().__init__()
        self.out = torch.nn.Linear(768, 768)
        self.up = torch.nn.Linear(768, 3072)
        self.down = torch.nn.Linear(3072, 768)

    def forward(self, x):
        h = self.out(x) + x
        return self.down(torch.nn.functional.gelu(self.up(h))) + h


def test_bert_base_bf16_gemms_run_on_the_chip(monkeypatch):
    monkeypatch.setenv("MTIACC_FALLBACK", "0")
    torch.manual_seed(0)
    m = BertLinears().to(torch.bfloat16).eval()
    x = torch.randn(128, 768, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
    with torch.no_grad():
        got = torch.compile(m, backend="mtia")(x)
        want = m.float()(x.float())
    torch.testing.assert_close(got.float(), want, rtol=5e-2, atol=5e-2)
    _on_chip(report(), 3)
