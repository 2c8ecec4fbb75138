"""1-D, 3-D and transposed convolutions through the rows templates, and depthwise convolutions with a channel
multiplier or two channels a group on the vector unit (mtiacc/torch_backend/ops/conv.py, conv_rows.py,
conv_transposed.py, conv_cost.py): against eager in fp32 and bf16 (stride, padding, dilation, groups, bias, output
padding), taken where they should be, the cost model's choices, and the kernels tests/filecheck/access_conv_nd.py
pins the access plans of."""
import re
from pathlib import Path

import pytest
import torch

from mtiacc.torch_backend import precision, report, reset
from mtiacc.torch_backend.ops import conv, conv_cost, conv_direct, conv_rows, conv_transposed

F = torch.nn.functional
FILECHECK = Path(__file__).resolve().parents[1] / "filecheck" / "access_conv_nd.py"
# a line of each template's kernel
ROWS, DEPTH, PHASES, VECTOR = "(BLOCK_N, BLOCK_H * BLOCK_W)", "x_depth", "PHASE_", "(BLOCK_C, BLOCK_H, BLOCK_W)"
FOLDED = "tap = rk // GROUP_IN_C"

# name: (function, x's shape, w's shape, keyword arguments, the lines its kernel has)
CASES = {
    "conv1d-strided-dilated-grouped": (F.conv1d, (2, 8, 19), (12, 4, 3), dict(stride=2, padding=2, dilation=2,
                                                                              groups=2), (ROWS,)),
    "conv1d-depthwise": (F.conv1d, (2, 8, 20), (8, 1, 5), dict(padding=2, groups=8), (VECTOR,)),
    "conv3d-padded": (F.conv3d, (1, 4, 4, 5, 6), (6, 4, 3, 3, 3), dict(padding=(1, 0, 1)), (ROWS, DEPTH)),
    "conv3d-strided-dilated-grouped": (F.conv3d, (2, 6, 6, 5, 7), (4, 3, 3, 2, 3),
                                       dict(stride=(2, 1, 2), padding=2, dilation=(2, 1, 1), groups=2),
                                       (ROWS, DEPTH)),
    "transposed1d-grouped-dilated": (F.conv_transpose1d, (2, 4, 6), (4, 3, 3),
                                     dict(stride=2, groups=2, dilation=2, output_padding=1), (PHASES,)),
    "transposed2d-output-padding": (F.conv_transpose2d, (2, 4, 5, 5), (4, 3, 3, 3),
                                    dict(stride=2, padding=1, output_padding=1), (PHASES,)),
    # stride 3 x 2 with dilation 1 x 2: in the columns the stride and the dilation share a factor of 2, so half
    # the phases have no taps at all
    "transposed2d-uneven": (F.conv_transpose2d, (1, 6, 4, 5), (6, 4, 2, 4),
                            dict(stride=(3, 2), padding=(0, 1), dilation=(1, 2)), (PHASES,)),
    "transposed2d-stride1": (F.conv_transpose2d, (1, 5, 6, 6), (5, 4, 3, 3), dict(padding=1), (PHASES,)),
    "transposed3d": (F.conv_transpose3d, (1, 4, 3, 4, 3), (4, 3, 3, 2, 3),
                     dict(stride=(2, 1, 2), padding=1, output_padding=(1, 0, 0)), (PHASES, DEPTH)),
    "transposed3d-dilated": (F.conv_transpose3d, (1, 4, 3, 4, 3), (4, 6, 3, 2, 3),
                             dict(stride=2, padding=1, dilation=2, groups=2), (PHASES, DEPTH)),
    "depthwise-multiplier": (F.conv2d, (2, 4, 6, 6), (8, 1, 3, 3), dict(groups=4, padding=(0, 1), stride=(1, 2)),
                             (VECTOR,)),
    "groups-of-two": (F.conv2d, (2, 6, 7, 8), (6, 2, 3, 3), dict(groups=3, padding=1, dilation=(1, 2)), (VECTOR,)),
    "depthwise-7x7": (F.conv2d, (2, 16, 8, 8), (16, 1, 7, 7), dict(groups=16, padding=3), (VECTOR,)),
}


def _kernel_sources(rep):
    return [Path(k["path"]).read_text() for k in rep["kernels"] if k.get("path")]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("name", CASES)
def test_matches_eager_on_its_template(name, dtype):
    op, x_shape, w_shape, kw, markers = CASES[name]
    g = torch.Generator().manual_seed(len(name))
    out_channels = w_shape[1] * kw.get("groups", 1) if op.__name__.startswith("conv_transpose") else w_shape[0]
    x, w, b = (torch.randn(s, generator=g) for s in (x_shape, w_shape, out_channels))

    def fn(x, w, b):   # the bias and the ReLU fuse as the template's epilogue
        return torch.relu(op(x, w, b, **kw))
    got = torch.compile(fn, backend="mtia")(x.to(dtype), w.to(dtype), b.to(dtype))
    if dtype == torch.float32:   # fp32 at "highest": fp32's rounding over at most a few hundred products
        torch.testing.assert_close(got, fn(x, w, b), rtol=1e-4, atol=1e-4)
    else:                        # bf16 inputs and output; fp32 sums
        want = fn(*(a.to(dtype).float() for a in (x, w, b)))
        torch.testing.assert_close(got.float(), want, rtol=2e-2, atol=2e-2)
    rep = report()
    assert rep["host_layers"] == [] and rep["aten_ops"] == [], (rep["host_layers"], rep["aten_ops"])
    assert all(k["on_chip"] for k in rep["kernels"]), rep["kernels"]
    sources = _kernel_sources(rep)
    for marker in markers:
        assert any(marker in s for s in sources), f"no kernel has {marker!r}"
    assert not any(FOLDED in s for s in sources), "the folded template computed it"


def test_which_convolutions_take_the_rows_templates():
    assert conv_rows.takes(2, False, 64) and conv_rows.takes(3, False, 1)
    assert conv_rows.takes(2, True, 1) and conv_rows.takes(3, True, 64)      # transposed: conv_transposed.py
    assert not conv_rows.takes(1, False, 64)       # a 1-D convolution is viewed as 2-D before it gets here
    assert conv_rows.takes_depthwise(2, 32, 32, 64)    # a channel multiplier of 2
    assert conv_rows.takes_depthwise(2, 16, 32, 16)    # two input channels a group
    assert not conv_rows.takes_depthwise(2, 8, 32, 8)  # four
    assert not conv_rows.takes_depthwise(3, 32, 32, 32)


def test_phase_taps():
    # stride 2, dilation 1: phase r's taps start at (r + padding) mod 2, every second one
    assert conv_transposed.phase_consts((2,), (1,)) == {"STEP_0": 2, "G_0": 1, "INV_0": 1}
    # stride 3, dilation 2: every third tap, the first t with 2 t = r + padding (mod 3): t = 2 (r + padding)
    assert conv_transposed.phase_consts((3,), (2,)) == {"STEP_0": 3, "G_0": 1, "INV_0": 2}
    # stride 2, dilation 2: a phase has every tap or none (r + padding odd)
    assert conv_transposed.phase_consts((2,), (2,)) == {"STEP_0": 1, "G_0": 2, "INV_0": 0}
    # the first tap f of each phase is a tap of it, and every tap of it is f + k STEP
    for s, dil, pad, taps in ((3, 2, 1, 7), (4, 6, 3, 9), (2, 1, 0, 4)):
        c = conv_transposed.phase_consts((s,), (dil,))
        for r in range(s):
            want = [t for t in range(taps) if (r + pad - t * dil) % s == 0]
            f = ((r + pad) // c["G_0"] * c["INV_0"]) % c["STEP_0"]
            got = list(range(f, taps, c["STEP_0"])) if (r + pad) % c["G_0"] == 0 else []
            assert got == want, (s, dil, pad, r)


def _costs(x, out, w, groups, stride, transposed, dtype):
    m, n, k = conv.gemm_shape(x, out, w, groups, transposed)
    tile, = conv.tiles(m, n, k, groups, dtype, autotune=False)
    p = precision.engine_passes(dtype)
    return conv_cost.engine_cycles(m, n, k, x, out, w, groups, stride, transposed, tile, dtype_bytes=dtype.itemsize,
                                   passes=p.passes, split_parts=p.split_parts), (m, n, k)


def test_the_cost_model_ranks_the_templates():
    # ResNet's 3 x 3 (fp32): the simulator times the folded template at 2.35M cycles and the rows one at 0.41M
    costs, _ = _costs((1, 64, 56, 56), (1, 64, 56, 56), (64, 64, 3, 3), 1, (1, 1), False, torch.float32)
    assert costs["rows"] < costs["folded"] / 5
    # a depthwise 3 x 3 with a multiplier of 2 (bench_conv.py dwm2): vector 17,373 cycles, rows 146,728, folded
    # 310,642 (fp32)
    costs, (m, n, k) = _costs((1, 32, 28, 28), (1, 64, 28, 28), (64, 1, 3, 3), 32, (1, 1), False, torch.float32)
    assert costs["rows"] < costs["folded"]
    assert conv_direct.prefer_direct(m, n, k, 32, 9, dtype=torch.float32, transposed=False, looped=True,
                                     engine=min(costs.values()))
    # the pointwise form (a 3-D depthwise convolution) unrolls its taps: at most 9; the looped template any
    assert not conv_direct.prefer_direct(m, n, 49, 32, 49, dtype=torch.float32, transposed=False)
    assert conv_direct.prefer_direct(m, n, 49, 32, 49, dtype=torch.float32, transposed=False, looped=True,
                                     engine=1e9)
    # a transposed convolution's rows template computes each phase over its own taps only
    costs, _ = _costs((1, 64, 14, 14), (1, 32, 28, 28), (64, 32, 4, 4), 1, (2, 2), True, torch.float32)
    assert costs["rows"] < costs["folded"] / 10


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


PINNED = {   # the kernel of tests/filecheck/access_conv_nd.py: (function, x's shape, w's shape)
    "conv1d_rows": (lambda x, w: F.conv1d(x, w, stride=2, padding=1), (1, 16, 20), (32, 16, 3)),
    "conv3d_rows": (lambda x, w: F.conv3d(x, w, padding=1), (1, 16, 4, 6, 6), (32, 16, 3, 3, 3)),
    "conv_transposed_rows": (lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
                             (1, 16, 5, 5), (16, 32, 3, 3)),
    "conv_vector_multiplier": (lambda x, w: F.conv2d(x, w, padding=1, groups=16), (1, 16, 14, 14), (32, 1, 3, 3)),
    "conv_vector_pairs": (lambda x, w: F.conv2d(x, w, padding=1, groups=8), (1, 16, 14, 14), (8, 2, 3, 3)),
}


@pytest.mark.parametrize("name", PINNED)
def test_the_filecheck_kernels_are_the_templates(name):
    """tests/filecheck/access_conv_nd.py pins the access plans of the kernels these convolutions render."""
    fn, x_shape, w_shape = PINNED[name]
    torch._dynamo.reset()
    reset()
    torch.compile(fn, backend="mtia")(torch.randn(x_shape), torch.randn(w_shape))
    src, = _kernel_sources(report())
    rendered = _body(src, re.search(r"^def (\w+)", src, re.M).group(1))
    assert rendered == _body(FILECHECK.read_text(), name), f"{name}: the template's kernel changed; update the file"
