"""Convolutions' gradients on the chip in the default mode (mtiacc/torch_backend/ops/conv_grad.py): the input's, the
weight's and the bias's against eager, every layer of the backward graph on the chip."""
import pytest
import torch

from mtiacc.torch_backend import report

F = torch.nn.functional

# name: (function of (x, w, b), x's shape, w's shape, output channels)
CASES = {
    "conv2d-strided-padded": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), (2, 3, 7, 7), (4, 3, 3, 3), 4),
    "conv1d-grouped-dilated": (lambda x, w, b: F.conv1d(x, w, b, groups=2, dilation=2), (2, 4, 10), (6, 2, 3), 6),
    "conv-transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         (2, 4, 4, 4), (4, 3, 3, 3), 3),
}


# the grouped, dilated 1-D case takes the same templates as the others: in the exhaustive part (pytest -m slow)
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "conv1d-grouped-dilated" else n
                                  for n in CASES])
def test_convolution_gradients_run_on_the_chip_and_match_eager(name):
    fn, x_shape, w_shape, channels = CASES[name]
    g = torch.Generator().manual_seed(len(name))
    ins = [torch.randn(s, generator=g, requires_grad=True) for s in (x_shape, w_shape, (channels,))]
    out = torch.compile(fn, backend="mtia")(*ins)
    grad_out = torch.randn(out.shape, generator=g)
    got = torch.autograd.grad(out, ins, grad_out)
    ref = [t.detach().requires_grad_() for t in ins]
    want = torch.autograd.grad(fn(*ref), ref, grad_out)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    rep = report()
    assert rep["host_layers"] == [] and rep["aten_ops"] == [], (rep["host_layers"], rep["aten_ops"])
    names = [k["name"] for k in rep["kernels"] if k["on_chip"]]
    # the forward's template, the input's and the weight's gradients' templates
    assert sum("convolution_backward" in n and n.startswith("triton_tem") for n in names) == 2, names
