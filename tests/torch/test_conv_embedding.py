"""Convolutions and embedding bags on the chip in the default mode: every variant against eager, and the report
saying it ran on the chip.

mtiacc/torch_backend/ops/conv.py, conv_direct.py, embedding.py; mtiacc/torch_backend/overrides.py.
"""
import pytest
import torch

from mtiacc.torch_backend import report
from mtiacc.torch_backend.ops import conv, embedding

F = torch.nn.functional
aten = torch.ops.aten

# name: (function of (x, w, b), x's shape, w's shape, output channels)
CONVS = {
    "conv1d-strided-dilated": (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2), (2, 4, 16),
                               (6, 4, 3), 6),
    "conv2d-padded": (lambda x, w, b: F.conv2d(x, w, b, padding=1), (2, 3, 8, 8), (4, 3, 3, 3), 4),
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, padding=(1, 0, 1)), (1, 2, 4, 4, 4), (3, 2, 3, 3, 3), 3),
    "conv2d-grouped": (lambda x, w, b: F.conv2d(x, w, b, groups=2, stride=2), (2, 4, 7, 7), (6, 2, 3, 3), 6),
    "conv2d-depthwise": (lambda x, w, b: F.conv2d(x, w, b, groups=4, padding=1), (2, 4, 6, 6), (4, 1, 3, 3), 4),
    "conv2d-depthwise-multiplier": (lambda x, w, b: F.conv2d(x, w, b, groups=4, padding=(0, 1), stride=(1, 2)),
                                    (2, 4, 6, 6), (8, 1, 3, 3), 8),
    "conv-transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         (2, 4, 5, 5), (4, 3, 3, 3), 3),
    "conv-transpose1d-grouped-dilated": (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, groups=2,
                                                                             dilation=2), (2, 4, 6), (4, 3, 3), 6),
}


def _on_chip(rep, template, gemm=True):
    """Every layer ran on the chip, nothing was left to aten, and the chip's template (or, not ``gemm``, a
    pointwise kernel) computing ``template`` was one of the kernels."""
    assert rep["host_layers"] == [] and rep["aten_ops"] == [], (rep["host_layers"], rep["aten_ops"])
    kernels = [k for k in rep["kernels"] if k["gemm"] == gemm]
    assert kernels and all(k["on_chip"] and k["launches"] == 1 for k in kernels), rep["kernels"]
    assert any(template in k["name"] for k in kernels), [k["name"] for k in kernels]


@pytest.mark.parametrize("name", CONVS)
def test_convolution_runs_on_the_chip_and_matches_eager(name):
    fn, x_shape, w_shape, channels = CONVS[name]
    g = torch.Generator().manual_seed(len(name))
    x, w, b = (torch.randn(s, generator=g) for s in (x_shape, w_shape, channels))
    want = fn(x, w, b)
    got = torch.compile(fn, backend="mtia")(x, w, b)
    # fp32 at "highest" (precision.py): fp32's own rounding, summed over at most a few dozen products
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    rep = report()
    # a depthwise convolution, with a channel multiplier or not, is summed over its taps on the vector unit by
    # the depthwise rows template (ops/conv_rows.py); the others are the chip's GEMM templates
    _on_chip(rep, "convolution")
    assert rep["autotuning"]["kernels"] == 0          # the cost model's one tile: nothing benchmarked


def test_depthwise_on_the_vector_unit_or_the_engine_by_the_cost_model():
    """One channel per group and a multiplier of 1: 1/32 of each engine tile's columns would be used, the
    vector unit is cheaper; with 8 output channels per group over a large image, the engine is."""
    from mtiacc.torch_backend.ops import conv_direct
    assert conv_direct.prefer_direct(2 * 16 * 16, 1, 9, 64, 9, dtype=torch.float32, transposed=False)
    assert not conv_direct.prefer_direct(8 * 64 * 64, 8, 9, 4, 9, dtype=torch.bfloat16, transposed=False)
    assert not conv_direct.prefer_direct(2 * 16 * 16, 1, 18, 64, 9, dtype=torch.float32, transposed=False)
    # a 7 x 7 kernel stays on the template: the direct form's unrolled taps would take long to compile
    assert not conv_direct.prefer_direct(2 * 16 * 16, 1, 49, 64, 49, dtype=torch.float32, transposed=False)


def test_a_bf16_convolution_module_with_an_epilogue():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).to(torch.bfloat16)
    x = torch.randn(2, 3, 6, 6, dtype=torch.bfloat16)
    with torch.no_grad():
        got = torch.compile(m, backend="mtia")(x)
        want = m.float()(x.float())
    torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)
    _on_chip(report(), "convolution")


# name: keyword arguments of F.embedding_bag beside its input, table and offsets
BAGS = {
    "sum": dict(mode="sum"),
    "mean": dict(mode="mean"),
    "max": dict(mode="max"),
    "sum-per-sample-weights": dict(mode="sum", per_sample_weights=True),
    "mean-padding-idx": dict(mode="mean", padding_idx=4),
    "max-include-last-offset-padding-idx": dict(mode="max", include_last_offset=True, padding_idx=7),
}


@pytest.mark.parametrize("name", BAGS)
def test_embedding_bag_runs_on_the_chip_and_matches_eager(name):
    kwargs = dict(BAGS[name])
    g = torch.Generator().manual_seed(len(name))
    table = torch.randn(20, 12, generator=g)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 0, 7, 7, 19, 3, 4])
    # bags of 3, 0 (empty), 5 and 4 indices; the last bag all padding when padding_idx is 4 or 7 is not
    offsets = torch.tensor([0, 3, 3, 8] + ([12] if kwargs.get("include_last_offset") else []))
    if kwargs.pop("per_sample_weights", False):
        kwargs["per_sample_weights"] = torch.randn(12, generator=g)

    def fn(idx, table, offsets):
        return F.embedding_bag(idx, table, offsets, **kwargs)

    want = fn(idx, table, offsets)
    got = torch.compile(fn, backend="mtia")(idx, table, offsets)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
    _on_chip(report(), "embedding_bag")


def test_embedding_bag_of_2d_indices_in_a_module():
    torch.manual_seed(0)
    m = torch.nn.EmbeddingBag(30, 8, mode="mean")
    idx = torch.randint(0, 30, (5, 3), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(m, backend="mtia")(idx), m(idx), rtol=1e-6, atol=1e-6)
    _on_chip(report(), "embedding_bag")


def test_a_training_forward_runs_its_embedding_bag_on_the_chip():
    """A forward whose embedding bag feeds a backward reads its other outputs: the chip computes them too
    (ops/embedding_grad.py; the training step's checks are in test_embedding_training.py)."""
    torch.manual_seed(0)
    m = torch.nn.EmbeddingBag(10, 4, mode="sum")
    idx, off = torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 3])
    torch.testing.assert_close(torch.compile(m, backend="mtia")(idx, off), m(idx, off))
    _on_chip(report(), "embedding_bag")


def test_index_select_gather_and_scatter_run_on_the_chip():
    """Inductor's own lowerings make these indexing kernels: on the chip, nothing left to aten."""
    g = torch.Generator().manual_seed(0)
    x, src = torch.randn(6, 5, generator=g), torch.randn(6, 1, generator=g)
    i, gi = torch.tensor([4, 0, 2, 2]), torch.randint(0, 5, (6, 3), generator=g)

    def fn(x, i, gi, src):
        return torch.index_select(x, 0, i) * 2, torch.gather(x, 1, gi) + 1, torch.scatter(x, 1, gi[:, :1], src)

    for got, want in zip(torch.compile(fn, backend="mtia")(x, i, gi, src), fn(x, i, gi, src)):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    rep = report()
    assert rep["host_layers"] == [] and rep["aten_ops"] == [], (rep["host_layers"], rep["aten_ops"])
    assert rep["kernels"] and all(k["on_chip"] for k in rep["kernels"])


def test_inductors_lowerings_are_restored_after_a_chip_compile():
    """The chip's lowerings replace Inductor's only while a graph compiles for the chip (other backends never
    see them)."""
    from torch._inductor.lowering import lowerings
    before = {op: lowerings[op] for op in (aten.convolution.default, aten.convolution_backward.default,
                                                    aten._embedding_bag.default)}
    fn = CONVS["conv2d-depthwise"][0]
    torch.compile(fn, backend="mtia")(torch.randn(1, 4, 4, 4), torch.randn(4, 1, 3, 3), None)
    assert {op: lowerings[op] for op in before} == before


def test_convolution_as_a_gemm_and_its_tile():
    """A convolution is ``groups`` GEMMs of (batch x output positions) x (a group's output channels) x (a
    group's input channels x taps); its tile is the GEMM cost model's for them."""
    from mtiacc.torch_backend import gemm_cost
    assert conv.gemm_shape((2, 3, 8, 8), (2, 16, 8, 8), (16, 3, 3, 3), 1, False) == (128, 16, 27)
    assert conv.gemm_shape((2, 32, 8, 8), (2, 32, 8, 8), (32, 1, 3, 3), 32, False) == (128, 1, 9)
    assert conv.gemm_shape((2, 4, 5, 5), (2, 6, 10, 10), (4, 3, 3, 3), 2, True) == (200, 3, 18)
    tile, = conv.tiles(128, 64, 576, 1, torch.bfloat16, autotune=False)
    assert tile == gemm_cost.choose_tile(128, 64, 576, dtype_bytes=2)
    many = conv.tiles(4096, 64, 576, 1, torch.bfloat16, autotune=True)
    assert len(many) > 1 and tile.block_k == 64


def test_embedding_bag_blocks_from_the_cost_model():
    """Blocks clamped to the table's width and the average bag; longer bags take more indices a step; a narrow
    BLOCK_D reads each bag's indices once per column block, which the estimate charges for."""
    small = embedding.choose_blocks(4, 12, 12, dtype_bytes=4)
    assert small == embedding.Blocks(16, 4)
    wide = embedding.choose_blocks(64, 64, 64 * 40, dtype_bytes=4)
    assert wide.block_d == 64 and wide.block_j > small.block_j
    est = [embedding.estimate(64, 64, 64 * 40, embedding.Blocks(bd, 8), dtype_bytes=4, index_bytes=8,
                              weighted=False) for bd in (16, 64)]
    assert est[1] < est[0]
