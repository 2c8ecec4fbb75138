"""GEMMs on the chip in the default mode: the chip's templates with the cost model's tile, and fp32 precision.

mtiacc/torch_backend/gemm_cost.py, precision.py, gemm_choices.py (chip_search_space(autotune=False)).
"""
import pytest
import torch

from mtiacc.torch_backend import gemm_cost, precision, report
from mtiacc.torch_backend.gemm_search import Tile


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(40, 24)

    def forward(self, x, y, bias, q):
        h = torch.relu(self.lin(x))                         # addmm, the weight transposed
        s = torch.addmm(bias, x, x.t())                     # addmm
        b = torch.bmm(y, y.transpose(1, 2))                 # bmm
        d = torch.baddbmm(q, y, y.transpose(1, 2), beta=0.5)  # baddbmm
        return h, s, b, d


def _inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(20, 40, generator=g), torch.randn(2, 12, 24, generator=g), torch.randn(20, generator=g),
            torch.randn(2, 12, 12, generator=g))


def test_linear_addmm_bmm_baddbmm_run_on_the_chip_and_match_eager():
    torch.manual_seed(0)
    m = Small()
    args = _inputs()
    with torch.no_grad():
        got, want = torch.compile(m, backend="mtia")(*args), m(*args)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    rep = report()
    assert rep["aten_ops"] == [] and rep["host_layers"] == []
    gemms = [k for k in rep["kernels"] if k["gemm"]]
    assert len(gemms) == 4 and all(k["on_chip"] and k["launches"] == 1 for k in gemms)
    assert rep["autotuning"]["kernels"] == 0          # one candidate each: nothing benchmarked


def test_a_layer_left_on_the_host_says_why():
    """A float64 embedding bag stays aten's (the chip's kernel takes fp32, fp16 and bf16 tables)."""
    m = torch.nn.EmbeddingBag(10, 4, mode="sum").double()
    idx, off = torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 3])
    torch.testing.assert_close(torch.compile(m, backend="mtia")(idx, off), m(idx, off))
    rep = report()
    assert rep["host_layers"], "the embedding bag runs on the host"
    reasons = {h["reason"] for h in rep["host_layers"]}
    assert any("embedding_bag" in r and "dtype" in r for r in reasons), reasons


@pytest.mark.parametrize("level", ["high", "medium", "highest"])
def test_fp32_gemm_precision_against_fp64(level):
    """|C - C_fp64| <= bound * (|A| @ |B|), the bound documented in precision.py for each level; and each level
    is measurably less accurate than the one above it (the passes really differ)."""
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(32, 96, generator=g), torch.randn(96, 48, generator=g)
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(level)
    try:
        got = torch.compile(lambda a, b: a @ b, backend="mtia")(a, b)
    finally:
        torch.set_float32_matmul_precision(before)
    assert report()["kernels_on_chip"] == 1
    ref = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    err = ((got.double() - ref).abs() / scale).max().item()
    assert err <= precision.ERROR_BOUNDS[level]
    # and coarser than the finer level's bound: the bf16 parts are really fewer (measured: highest 2^-24.2,
    # high 2^-18.7, medium 2^-9.6); a graph compiled at another level and reused would fail one of these
    finer = {"high": "highest", "medium": "high"}
    if level in finer:
        assert err > precision.ERROR_BOUNDS[finer[level]]


def test_precision_constants_for_the_template():
    before = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("medium")
        assert precision.template_kwargs(torch.float32) == {"INPUT_PRECISION": "'ieee'", "DOT_TYPE": "tl.bfloat16"}
        torch.set_float32_matmul_precision("high")
        assert precision.template_kwargs(torch.float32) == {"INPUT_PRECISION": "'bf16x3'", "DOT_TYPE": "tl.float32"}
        assert precision.template_kwargs(torch.bfloat16)["DOT_TYPE"] == "tl.bfloat16"
    finally:
        torch.set_float32_matmul_precision(before)
    assert precision.chip_template("mm") is not None and precision.chip_template("bmm") is not None


def test_cost_model_tiles():
    # a GEMM too small to fill the chip takes small tiles that spread it over the PEs
    small = gemm_cost.choose_tile(64, 64, 64, dtype_bytes=2)
    assert small.block_m * small.block_n <= 32 * 32
    # a large bf16 GEMM takes a large tile (the engine's weight loads amortized over many rows)
    big = gemm_cost.choose_tile(2048, 2048, 2048, dtype_bytes=2)
    assert big.block_m >= 128 and big.block_n >= 128
    # the tile always fits a PE's local memory, also with the fp32 operands' bf16 parts
    t = gemm_cost.choose_tile(4096, 4096, 4096, dtype_bytes=4, passes=6, split_parts=3)
    assert gemm_cost.footprint(t, dtype_bytes=4, split_parts=3) <= gemm_cost.chip().local_memory_bytes
    # clamped to the problem, as the autotuning candidates are
    assert gemm_cost.choose_tile(8, 8, 8, dtype_bytes=4) == Tile(16, 16, 16, 1)


def test_cost_model_ranks_tiles_as_the_simulator_times_them():
    # gemm_fit's template on mtiasim (the operands in DRAM, the LLC taking the programs' re-reads), bf16:
    # 256 x 256 x 1024: 32 x 32 tiles 8,081 cycles, 128 x 128 19,968 (4 programs on the engine against 64);
    # 128 x 3072 x 768 plus a bias-sized tensor (BERT-base's feed-forward): 32 x 64 65,189, 64 x 128 60,238,
    # 128 x 128 83,787
    est = {e.tile[:2]: e.cycles for e in gemm_cost.rank(256, 256, 1024, dtype_bytes=2)}
    assert est[(32, 32)] < est[(128, 128)]
    assert gemm_cost.choose_tile(256, 256, 1024, dtype_bytes=2)[:2] != (128, 128)
    assert gemm_cost.choose_tile(128, 3072, 768, dtype_bytes=2, epilogue=1)[:2] == (64, 128)


def test_backward_gemms_run_on_the_chip_and_mm_plus_mm_says_why_it_does_not():
    """The gradients' GEMMs are the chip's templates; x feeding two linears makes dx = dy1 @ w1 + dy2 @ w2,
    which Inductor matches as mm_plus_mm and leaves to aten (no chip variant yet): the report says so."""
    torch.manual_seed(0)
    a, b = torch.nn.Linear(32, 32, bias=False), torch.nn.Linear(32, 32, bias=False)
    fn = lambda x: (a(x) * b(x)).sum()          # noqa: E731
    x = torch.randn(16, 32, requires_grad=True)
    torch.compile(fn, backend="mtia")(x).backward()
    got = [t.grad for t in (x, a.weight, b.weight)]
    x.grad = a.weight.grad = b.weight.grad = None
    fn(x).backward()
    for g, t in zip(got, (x, a.weight, b.weight)):
        torch.testing.assert_close(g, t.grad)
    rep = report()
    gemms = [k for k in rep["kernels"] if k["gemm"]]
    assert len(gemms) >= 2 and all(k["on_chip"] for k in gemms)     # forward and weight-gradient GEMMs
    assert [op["name"] for op in rep["aten_ops"]] == ["_mm_plus_mm"]
    (host,) = rep["host_layers"]
    assert host["layer"] == "bw:mm_plus_mm" and "no chip variant" in host["reason"]
