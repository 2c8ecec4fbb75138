"""A training step's embedding bags on the chip (mtiacc/torch_backend/ops/embedding_grad.py): the forward's
other outputs and the backward, every mode, against eager on seeded inputs, with no embedding-bag operation
left to aten."""
import pytest
import torch

from mtiacc.torch_backend import report

F = torch.nn.functional


def _no_embedding_bag_on_the_host():
    rep = report()
    assert rep["aten_ops"] == [] and rep["host_layers"] == [], (rep["aten_ops"], rep["host_layers"])
    assert rep["kernels"] and all(k["on_chip"] for k in rep["kernels"]), rep["kernels"]
    return rep


class DLRM(torch.nn.Module):
    """Two embedding-bag tables and a dense feature, concatenated into a linear layer."""

    def __init__(self, mode, padding_idx=None):
        super().__init__()
        self.a = torch.nn.EmbeddingBag(20, 8, mode=mode, padding_idx=padding_idx)
        self.b = torch.nn.EmbeddingBag(13, 8, mode=mode, padding_idx=padding_idx)
        self.top = torch.nn.Linear(20, 1)

    def forward(self, dense, ia, oa, ib, ob, wa=None):
        x = torch.cat([dense, self.a(ia, oa, per_sample_weights=wa), self.b(ib, ob)], 1)
        return self.top(x).sigmoid().mean()


def _batch(g, bags=4):
    ia = torch.tensor([1, 2, 4, 5, 4, 3, 0, 7, 7, 19, 3, 4])     # bags of 3, 0 (empty), 5 and 4 indices
    oa = torch.tensor([0, 3, 3, 8])
    ib = torch.randint(0, 13, (10,), generator=g)
    ob = torch.tensor([0, 2, 5, 9])
    return torch.randn(bags, 4, generator=g), ia, oa, ib, ob


# sum with per_sample_weights is aten's fast path (no offset2bag from the forward: the backward finds the bags);
# mean and max without padding are checked output by output below.  Sum with a padding index runs with -m slow:
# its backward is mean's (offset2bag, the padding rows' zero gradient) without the division by the bag's size
@pytest.mark.parametrize("mode,padding_idx,weighted", [
    ("sum", None, True), pytest.param("sum", 4, False, marks=pytest.mark.slow), ("mean", 4, False),
    ("max", 7, False),
])
def test_a_dlrm_training_step_matches_eager_on_the_chip(mode, padding_idx, weighted):
    g = torch.Generator().manual_seed(7)
    torch.manual_seed(0)
    model = DLRM(mode, padding_idx)
    ref = DLRM(mode, padding_idx)
    ref.load_state_dict(model.state_dict())
    batch = _batch(g)
    wa = torch.randn(12, generator=g) if weighted else None
    wa_ref = wa.clone().requires_grad_() if weighted else None
    wa = wa.requires_grad_() if weighted else None
    loss = torch.compile(model, backend="mtia")(*batch, wa)
    loss.backward()
    want = ref(*batch, wa_ref)
    want.backward()
    torch.testing.assert_close(loss, want, rtol=1e-5, atol=1e-6)
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6, msg=lambda m: f"{name}: {m}")
    if weighted:
        torch.testing.assert_close(wa.grad, wa_ref.grad, rtol=1e-5, atol=1e-6)
    rep = _no_embedding_bag_on_the_host()
    assert any("embedding_bag" in k["name"] for k in rep["kernels"]), [k["name"] for k in rep["kernels"]]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_the_forwards_other_outputs_are_atens(mode):
    """offset2bag, bag_size and max_indices as aten's CPU kernel returns them (what its backward reads),
    with include_last_offset and padding indices, ties in a column's maximum and an empty bag."""
    g = torch.Generator().manual_seed(3)
    table = torch.randn(10, 5, generator=g)
    table[3, 1] = table[6, 1] = 9.0                    # a tie: the first index reaching the maximum wins
    idx = torch.tensor([6, 3, 2, 2, 9, 1, 0, 8, 2])
    off = torch.tensor([0, 2, 2, 5, 9])                # an empty bag; the last offset is the end
    for padding_idx in (-1, 2):
        def fn(t, i, o):
            return torch.ops.aten._embedding_bag(t, i, o, False, ["sum", "mean", "max"].index(mode), False, None,
                                                 True, padding_idx)
        want = fn(table, idx, off)
        got = torch.compile(fn, backend="mtia", fullgraph=True)(table, idx, off)
        assert len(got) == 4
        torch.testing.assert_close(got[0], want[0], rtol=1e-6, atol=1e-6)
        for k in (1, 2, 3):
            assert got[k].shape == want[k].shape and torch.equal(got[k], want[k]), (k, got[k], want[k])
        _no_embedding_bag_on_the_host()
        torch._dynamo.reset()


def test_the_bag_of_each_index_by_binary_search():
    """offset2bag's search needs ceil(log2(bags)) steps: checked against aten's at bag counts around powers of
    two, with empty bags at both ends."""
    for bags in (1, 2, 5, 8):
        g = torch.Generator().manual_seed(bags)
        sizes = torch.randint(0, 3, (bags,), generator=g)
        sizes[-1] = 2
        off = torch.cat([torch.zeros(1, dtype=torch.long), sizes.cumsum(0)[:-1]])
        idx = torch.randint(0, 6, (int(sizes.sum()),), generator=g)
        table = torch.randn(6, 3, generator=g)

        def fn(t, i, o):
            return torch.ops.aten._embedding_bag(t, i, o, False, 1, False, None, False, -1)
        want = fn(table, idx, off)
        got = torch.compile(fn, backend="mtia", fullgraph=True)(table, idx, off)
        assert torch.equal(got[1], want[1]) and torch.equal(got[2], want[2]), (bags, got[1], want[1])
        torch._dynamo.reset()
