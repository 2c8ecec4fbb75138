"""The rows templates of 2-D convolutions (mtiacc/torch_backend/ops/conv_rows.py): against eager in fp32 and bf16
(stride, padding, dilation, groups, bias, a channels-last input, an epilogue), taken where they should be, their
blocks, and the kernels tests/filecheck/access_conv_rows.py pins the access plans of."""
import re
from pathlib import Path

import pytest
import torch

from mtiacc.torch_backend import report, reset
from mtiacc.torch_backend.ops import conv_rows

F = torch.nn.functional
FILECHECK = Path(__file__).resolve().parents[1] / "filecheck" / "access_conv_rows.py"
# a line of each template's kernel: its accumulator
ROWS_ACC, DEPTHWISE_ACC = "(BLOCK_N, BLOCK_H * BLOCK_W)", "(BLOCK_C, BLOCK_H, BLOCK_W)"

# name: (x's shape, w's shape, keyword arguments of F.conv2d)
ROWS = {
    "3x3-padded": ((2, 8, 9, 10), (16, 8, 3, 3), dict(padding=1)),
    "3x3-stride2": ((1, 16, 14, 14), (32, 16, 3, 3), dict(stride=2, padding=1)),
    "dilated-uneven": ((2, 8, 11, 9), (12, 8, 3, 2), dict(padding=(2, 1), stride=(2, 3), dilation=(2, 1))),
    "grouped": ((1, 16, 7, 7), (8, 4, 3, 3), dict(groups=4, padding=1)),
    "1x1-stride2": ((2, 24, 9, 9), (40, 24, 1, 1), dict(stride=2)),
    "wider-than-a-block": ((1, 32, 5, 70), (16, 32, 3, 3), dict(padding=(0, 1))),
    "2x2-output": ((1, 24, 2, 2), (40, 24, 1, 1), {}),     # fewer positions than tl.dot's 16
}
DEPTHWISE = {
    "3x3-padded": ((2, 16, 10, 10), (16, 1, 3, 3), dict(padding=1, groups=16)),
    "strided-dilated": ((1, 12, 11, 9), (12, 1, 3, 3), dict(padding=(2, 1), stride=(2, 3), dilation=(2, 1),
                                                            groups=12)),
}


def _kernel_sources(rep):
    return [Path(k["path"]).read_text() for k in rep["kernels"] if k.get("path")]


def _check(fn, args, dtype, marker):
    want = fn(*(a.float() for a in args))
    got = torch.compile(fn, backend="mtia")(*(a.to(dtype) for a in args))
    if dtype == torch.float32:   # fp32 at "highest": fp32's rounding over at most a few hundred products
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    else:                        # bf16 inputs and output; fp32 sums
        torch.testing.assert_close(got.float(), (fn(*(a.to(dtype).float() for a in args))), rtol=2e-2, atol=2e-2)
    rep = report()
    assert rep["host_layers"] == [] and rep["aten_ops"] == [], (rep["host_layers"], rep["aten_ops"])
    assert all(k["on_chip"] for k in rep["kernels"]), rep["kernels"]
    sources = _kernel_sources(rep)
    assert any(marker in s for s in sources), "the rows template did not compute it"
    assert not any("tap = rk // GROUP_IN_C" in s for s in sources), "the folded template computed it"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("name", ROWS)
def test_rows_template_matches_eager(name, dtype):
    x_shape, w_shape, kw = ROWS[name]
    g = torch.Generator().manual_seed(len(name))
    x, w, b = (torch.randn(s, generator=g) for s in (x_shape, w_shape, w_shape[0]))

    def fn(x, w, b):   # the bias and the ReLU fuse as the template's epilogue
        return torch.relu(F.conv2d(x, w, b, **kw))
    _check(fn, (x, w, b), dtype, ROWS_ACC)


def test_rows_template_reads_a_channels_last_input_where_it_lies():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 8, 6, 7, generator=g).to(memory_format=torch.channels_last)
    w = torch.randn(8, 8, 3, 3, generator=g)
    _check(lambda x, w: F.conv2d(x, w, padding=1, stride=(1, 2)), (x, w), torch.float32, ROWS_ACC)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("name", DEPTHWISE)
def test_depthwise_rows_template_matches_eager(name, dtype):
    x_shape, w_shape, kw = DEPTHWISE[name]
    g = torch.Generator().manual_seed(len(name))
    x, w, b = (torch.randn(s, generator=g) for s in (x_shape, w_shape, w_shape[0]))

    def fn(x, w, b):   # MobileNet's ReLU6 after it
        return torch.clamp(F.conv2d(x, w, b, **kw), 0, 6)
    _check(fn, (x, w, b), dtype, DEPTHWISE_ACC)


def test_which_convolutions_take_the_rows_templates():
    assert conv_rows.takes(2, False, 64) and conv_rows.takes(2, False, 3)   # an RGB image's first layer too
    # fewer channels, transposed and 3-D convolutions too (tests/torch/test_conv_nd.py): the cost model weighs
    # the rows template against the others (ops/conv_cost.py)
    assert conv_rows.takes(2, False, 2) and conv_rows.takes(2, True, 64) and conv_rows.takes(3, False, 64)
    assert not conv_rows.takes(1, False, 64)         # a 1-D convolution is a 2-D one of one row by then
    assert conv_rows.takes_depthwise(2, 32, 32, 32)
    assert conv_rows.takes_depthwise(2, 32, 32, 64)   # a channel multiplier
    assert not conv_rows.takes_depthwise(1, 32, 32, 32)


def test_blocks_are_whole_output_rows():
    # 56 wide: one row of 64 a block; 28 wide: two rows of 32; a 4 x 4 output: all of it; K no wider than the group
    assert conv_rows.blocks((56, 56), 64, 64, 64) == (1, 64, 64)
    assert conv_rows.blocks((28, 28), 64, 128, 32) == (2, 32, 32)
    assert conv_rows.blocks((4, 4), 64, 8, 64) == (4, 4, 16)
    assert conv_rows.blocks((2, 2), 64, 24, 32) == (8, 2, 32)      # tl.dot's 16 positions at least: rows masked
    # depthwise: at most 4096 outputs, halved (channels first) while the 64 PEs would idle
    assert conv_rows.depthwise_blocks(8, 256, (112, 112), 64) == (8, 8, 64)
    assert conv_rows.depthwise_blocks(1, 144, (28, 28), 64) == (4, 16, 32)    # 36 programs of 8 channels: 72 of 4
    assert conv_rows.depthwise_blocks(1, 8, (8, 8), 64) == (4, 8, 8)          # no smaller than 256 outputs


def _body(text: str, name: str) -> str:
    """The kernel ``name``'s lines after its ``def`` up to the next blank line or decorator, blank lines dropped."""
    lines = text.splitlines()
    start = next(i for i, s in enumerate(lines) if s.startswith("def ") and name in s)
    out = []
    for s in lines[start + 1:]:
        if s.startswith(("@", "#")) or (s and not s[0].isspace()):
            break
        if s.strip():
            out.append(s.rstrip())
    return "\n".join(out)


def test_the_filecheck_kernels_are_the_templates():
    """tests/filecheck/access_conv_rows.py pins the access plans of the kernels these convolutions render."""
    pinned = FILECHECK.read_text()
    x = torch.randn(1, 16, 14, 14)
    for fn, w, name in ((lambda x, w: F.conv2d(x, w, stride=2, padding=1), torch.randn(32, 16, 3, 3), "conv_rows"),
                        (lambda x, w: F.conv2d(x, w, padding=1, groups=16), torch.randn(16, 1, 3, 3),
                         "conv_depthwise_rows")):
        torch._dynamo.reset()
        reset()
        torch.compile(fn, backend="mtia")(x, w)
        src, = _kernel_sources(report())
        rendered = _body(src, re.search(r"^def (\w+)", src, re.M).group(1))
        assert rendered == _body(pinned, name), f"{name}: the template's kernel changed; update {FILECHECK.name}"
