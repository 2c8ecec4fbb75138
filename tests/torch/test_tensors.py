"""Arguments through the tensors' storage, dynamic shapes and graph breaks under backend="mtia"."""
import torch

from mtiacc.torch_backend import report


def _compiled(fn, **kw):
    return torch.compile(fn, backend="mtia", **kw)


def _all_on_chip():
    rep = report()
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


def test_channels_last_and_views():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 6, 6).to(memory_format=torch.channels_last)
    base = torch.randn(40, 12)
    view = base[3:13, 2:10]                       # a storage offset and a row stride
    fn = lambda a, b: (torch.sigmoid(a) * 2 + a.mean(dim=1, keepdim=True), b.exp() - b.t().sum(1))
    got = _compiled(fn)(x, view)
    want = fn(x, view)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    _all_on_chip()


def test_input_mutation_and_aliasing():
    torch.manual_seed(1)

    def fn(a, b):
        a.mul_(2)                                 # a mutated input: written back through its storage
        return a + b

    base = torch.randn(64)
    want_base = base.clone()
    want = fn(want_base[:32], want_base[16:48])   # two arguments overlapping in one storage
    got = _compiled(fn)(base[:32], base[16:48])
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(base, want_base)
    _all_on_chip()


def test_dynamic_shapes():
    fn = _compiled(lambda a: torch.softmax(a * 3, dim=-1), dynamic=True)
    for n in (5, 9, 17):
        a = torch.randn(n, 33)
        torch.testing.assert_close(fn(a), torch.softmax(a * 3, dim=-1))
    assert report()["graphs"] == 1               # one graph for every size
    _all_on_chip()


def test_graph_break():
    def fn(a):
        b = torch.relu(a) + 1
        torch._dynamo.graph_break()
        return torch.tanh(b) * 2

    a = torch.randn(100)
    torch.testing.assert_close(_compiled(fn)(a), fn(a))
    assert report()["graphs"] == 2
    _all_on_chip()


def test_half_precision():
    for dtype in (torch.float16, torch.bfloat16):
        a = torch.randn(8, 64).to(dtype)
        fn = lambda x: torch.nn.functional.layer_norm(x, (64,)) * torch.sigmoid(x)
        torch.testing.assert_close(_compiled(fn)(a).float(), fn(a.float()), atol=3e-2, rtol=3e-2)
    _all_on_chip()
