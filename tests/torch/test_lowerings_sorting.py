"""Sorting under backend="mtia" (lowerings/sorting.py and decompose_sort_ops in backend.py): rank sorts,
nanmedian, and topk / kthvalue / median / mode as sorts, against eager on seeded inputs, on the chip with
nothing left to aten."""
import pytest
import torch

from mtiacc.torch_backend import report
from mtiacc.torch_backend.lowerings import sorting


def _check(fn, *args, skip=()):
    """``fn`` compiled against eager, output by output (but the ``skip`` positions), on the chip; its outputs."""
    got = torch.compile(fn, backend="mtia", fullgraph=True)(*args)
    for i, (g, w) in enumerate(zip(got, fn(*args))):
        if i not in skip:
            torch.testing.assert_close(g, w, equal_nan=True)
    rep = report()
    assert rep["aten_ops"] == [], rep["aten_ops"]
    assert rep["kernels_total"] > 0 and rep["kernels_on_chip"] == rep["kernels_total"], rep["fallbacks"]
    return got


@pytest.fixture
def short_bitonic(monkeypatch):
    # the rank sort takes dimensions longer than this (512 in use; small here to keep the test fast)
    monkeypatch.setattr(sorting, "BITONIC_MAX", 16)


def test_rank_sort(short_bitonic):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 40, generator=g)
    x[0, :10] = x[0, 10:20]                                   # ties keep index order
    x[1, 3] = x[1, 7] = float("nan")                          # NaN last (first when descending)
    x[2, 4], x[2, 5] = -0.0, 0.0                              # -0.0 equals 0.0
    xi = torch.randint(-5, 5, (40,), generator=g, dtype=torch.int32)
    _check(lambda a, b: (*torch.sort(a, dim=1, stable=True), *torch.sort(a, dim=0, stable=True),
                         *torch.sort(a, dim=1, descending=True, stable=True), torch.argsort(b, stable=True),
                         *torch.sort(b.half(), descending=True, stable=True)), x, xi)


def test_nanmedian(short_bitonic):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(4, 21, generator=g)
    x[1, ::3] = float("nan")                                  # some NaN: the median of the others
    x[2, :] = float("nan")                                    # all NaN: NaN (at the first index here; aten's
    # index there is its selection algorithm's, so the indices of that row are not compared)
    keep = torch.tensor([0, 1, 3])
    got = _check(lambda a: (*torch.nanmedian(a, dim=1), torch.nanmedian(a, dim=1)[1][keep],
                            torch.nanmedian(a, dim=0, keepdim=True)[0], torch.nanmedian(a[0])), x, skip={1})
    assert got[1][2] == 0 and torch.isnan(got[0][2])


def test_sort_based_ops():
    g = torch.Generator().manual_seed(2)
    # lengths 5 and 30 (the whole-tensor median), neither a power of two: the blocks are padded
    x = torch.randn(2, 5, 3, generator=g)
    _check(lambda a: (*torch.topk(a, 3, dim=1), *torch.kthvalue(a, 2, dim=-1), *torch.median(a, dim=0),
                      torch.median(a), *torch.mode(a.round(), dim=1)), x)


def test_long_sort_based_ops(short_bitonic):
    # topk / kthvalue / median sort with the backend's sort: past the network's length, a rank sort
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 40, generator=g)
    _check(lambda a: (*torch.topk(a, 5), *torch.kthvalue(a, 7), *torch.median(a, dim=1)), x)


def test_long_int64_sort_is_aten_s(short_bitonic):
    # no rank-sort key for int64: aten's sort, not a network of 64 elements in one program
    x = torch.randint(-100, 100, (64,), generator=torch.Generator().manual_seed(4))
    got = torch.compile(lambda a: torch.sort(a, stable=True), backend="mtia", fullgraph=True)(x)
    want = torch.sort(x, stable=True)
    torch.testing.assert_close(got[0], want[0])
    torch.testing.assert_close(got[1], want[1])
    assert [op["name"] for op in report()["aten_ops"]] == ["sort"]


def test_topk_kthvalue_of_ties_are_aten_s():
    # integers tie often, and aten's selection picks its own index among equal values: those stay aten's
    x = torch.randint(-3, 3, (5, 5), generator=torch.Generator().manual_seed(5), dtype=torch.int32)
    fn = lambda a: (*torch.topk(a, 2), *torch.kthvalue(a, 2))
    got = torch.compile(fn, backend="mtia", fullgraph=True)(x)
    for g, w in zip(got, fn(x)):
        torch.testing.assert_close(g, w)
    assert sorted(op["name"] for op in report()["aten_ops"]) == ["kthvalue", "topk"]


def test_long_unstable_sort_of_ties_is_aten_s(short_bitonic):
    # float16 ties often and aten's unstable order among them is its own: the sort stays aten's
    x = torch.randint(-4, 4, (40,), generator=torch.Generator().manual_seed(6)).half()
    got = torch.compile(lambda a: torch.argsort(a), backend="mtia", fullgraph=True)(x)
    torch.testing.assert_close(got, torch.argsort(x))
    assert [op["name"] for op in report()["aten_ops"]] == ["sort"]
