"""The post-grad pass peeling a convolution's bias into an add (mtiacc/torch_backend/conv_bias.py)."""
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from mtiacc.torch_backend.conv_bias import PeelConvolutionBias

aten = torch.ops.aten


def _conv(x, w, b):
    return aten.convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)


def _conv_t(x, w, b):   # transposed, 1-D: the bias still runs along the output's dimension 1
    return aten.convolution.default(x, w, b, [2], [0], [1], True, [1], 1)


def _check(fn, *args):
    gm = make_fx(fn)(*args)
    PeelConvolutionBias()(gm.graph)
    gm.recompile()
    convs = [n for n in gm.graph.nodes if n.target is aten.convolution.default]
    assert len(convs) == 1 and convs[0].args[2] is None
    assert any(n.target is aten.add.Tensor for n in gm.graph.nodes)
    torch.testing.assert_close(gm(*args), fn(*args), rtol=1e-5, atol=1e-5)


def test_bias_becomes_an_add_after_the_convolution():
    g = torch.Generator().manual_seed(0)
    _check(_conv, torch.randn(2, 3, 8, 8, generator=g), torch.randn(4, 3, 3, 3, generator=g),
           torch.randn(4, generator=g))


def test_transposed_convolution_bias():
    g = torch.Generator().manual_seed(1)
    _check(_conv_t, torch.randn(2, 3, 5, generator=g), torch.randn(3, 4, 3, generator=g), torch.randn(4, generator=g))


def test_convolution_without_bias_is_left_alone():
    gm = make_fx(lambda x, w: _conv(x, w, None))(torch.randn(1, 3, 4, 4), torch.randn(2, 3, 3, 3))
    before = [str(n.target) for n in gm.graph.nodes]
    PeelConvolutionBias()(gm.graph)
    assert [str(n.target) for n in gm.graph.nodes] == before
