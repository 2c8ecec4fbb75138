"""Dynamic shapes stay cheap: a model compiled with backend="mtia" and run over six sequence lengths compiles at
most twice (dynamo's automatic dynamic shapes: the first length is compiled static, the second change of size
recompiles once with the sequence length symbolic, and every later length reuses that graph)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.utils import counters


class Pool(nn.Module):
    """Layer norm, a projection, softmax over the sequence (a reduction over the varying length), a residual."""

    def __init__(self, d=8):
        super().__init__()
        self.ln, self.proj = nn.LayerNorm(d), nn.Linear(d, d)

    def forward(self, x):
        return x + F.gelu(torch.softmax(self.proj(self.ln(x)), dim=1))


def test_six_sequence_lengths_compile_at_most_twice():
    torch.manual_seed(0)
    model = Pool().eval()
    compiled = torch.compile(model, backend="mtia")
    before = counters["stats"]["unique_graphs"]
    # the first compiled static, the second symbolic, the rest reuse it: odd lengths, multiples of 8 and of 16
    lengths = [5, 7, 8, 13, 16, 29]
    with torch.no_grad():
        for n in lengths:
            x = torch.randn(2, n, 8)
            got, want = compiled(x), model(x)
            assert got.shape == want.shape == (2, n, 8)
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    compiles = counters["stats"]["unique_graphs"] - before
    assert 1 <= compiles <= 2, f"{compiles} compiles for {len(lengths)} sequence lengths"
