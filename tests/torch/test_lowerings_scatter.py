"""scatter_reduce and index_reduce with every reduction under backend="mtia" (lowerings/scatter.py): against
eager on seeded inputs, float and integer, with and without self, on the chip with nothing left to aten."""
import warnings

import pytest
import torch

from mtiacc.torch_backend import report


def _check(fn, *args):
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    for g, w in zip(got, fn(*args)):
        torch.testing.assert_close(g, w)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_scatter_reduce(dtype):
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(10, 5, generator=g) * 8).to(dtype)
    src = (torch.randn(5, 4, generator=g) * 8).to(dtype)
    # index narrower than self in dim 1: column 4 gets nothing; some rows get several terms, some none
    idx = torch.randint(0, 10, (5, 4), generator=g)
    fns = [lambda a, i, s, r=r, inc=inc: a.scatter_reduce(0, i, s, r, include_self=inc)
           for r in ("prod", "mean", "amax", "amin") for inc in (True, False)]
    _check(lambda a, i, s: tuple(f(a, i, s) for f in fns), x, idx, src)


def test_index_reduce():
    warnings.filterwarnings("ignore", "index_reduce")
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 5, generator=g)
    src = torch.randn(6, 4, generator=g)
    idx = torch.tensor([0, 4, 4, 1])           # column 4 twice, columns 2 and 3 never
    fns = [lambda a, i, s, r=r, inc=inc: a.index_reduce(1, i, s, r, include_self=inc)
           for r in ("prod", "mean", "amax", "amin") for inc in (True, False)]
    _check(lambda a, i, s: tuple(f(a, i, s) for f in fns), x, idx, src)


def test_index_reduce_zero_dim():
    warnings.filterwarnings("ignore", "index_reduce")
    x, src = torch.tensor(1.5), torch.tensor(-2.0)
    idx = torch.tensor([0])
    fns = [lambda a, i, s, r=r, inc=inc: a.index_reduce(0, i, s, r, include_self=inc)
           for r in ("prod", "mean", "amax", "amin") for inc in (True, False)]
    _check(lambda a, i, s: tuple(f(a, i, s) for f in fns), x, idx, src)
