"""Small PyTorch models compiled with ``torch.compile(model, backend="mtia")``: TorchInductor generates their
Triton kernels and mtiacc runs them on the simulated chip.

    python examples/torch_models.py [--mode max-autotune] [--json report.json] [MODEL ...]

compiles each model (all of them by default: ``--list`` names them), compares its output with eager PyTorch on
the CPU and prints the coverage table: the kernels that ran on the chip, the layers, and the share of non-GEMM
and total time on the chip.  Needs ``pip install -e '.[torch]'``.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Dict, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=64, d_hidden=128, d_out=16):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(d_in, d_hidden), nn.Linear(d_hidden, d_hidden), nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc3(F.gelu(self.fc2(F.relu(self.fc1(x)))))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class TransformerBlock(nn.Module):
    def __init__(self, d=64, heads=4, d_ff=128):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff1, self.ff2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5
        att = att.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


class DLRM(nn.Module):
    """Embedding bags for the sparse features, an MLP for the dense ones, their pairwise dot products, an MLP."""

    def __init__(self, n_tables=3, rows=50, d=16, n_dense=8):
        super().__init__()
        self.bags = nn.ModuleList(nn.EmbeddingBag(rows, d, mode="sum") for _ in range(n_tables))
        self.bottom = nn.Sequential(nn.Linear(n_dense, 32), nn.ReLU(), nn.Linear(32, d), nn.ReLU())
        n = n_tables + 1
        self.top = nn.Sequential(nn.Linear(d + n * (n - 1) // 2, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, dense, indices, offsets):
        feats = [self.bottom(dense)] + [bag(indices[i], offsets[i]) for i, bag in enumerate(self.bags)]
        z = torch.stack(feats, dim=1)
        inter = torch.bmm(z, z.transpose(1, 2))
        i, j = torch.tril_indices(z.shape[1], z.shape[1], offset=-1)
        return torch.sigmoid(self.top(torch.cat([feats[0], inter[:, i, j]], dim=1)))


def _gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=32, attn_implementation="eager")
    return GPT2LMHeadModel(cfg), (torch.randint(0, 128, (1, 16)),)


def _bert():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
                     vocab_size=128, max_position_embeddings=32, attn_implementation="eager")
    return BertModel(cfg), (torch.randint(0, 128, (1, 16)),)


def _dlrm():
    n, per = 4, 3
    indices = torch.randint(0, 50, (3, n * per))
    offsets = torch.arange(0, n * per, per).expand(3, n).contiguous()
    return DLRM(), (torch.randn(n, 8), indices, offsets)


def _mlp(dtype):
    return lambda: (MLP().to(dtype), (torch.randn(16, 64, dtype=dtype),))


# name -> (builder returning (model, inputs), tolerance)
MODELS: Dict[str, Tuple[Callable, float]] = {
    "mlp": (_mlp(torch.float32), 1e-4),
    "mlp-fp16": (_mlp(torch.float16), 2e-2),
    "mlp-bf16": (_mlp(torch.bfloat16), 5e-2),
    "cnn": (lambda: (SmallCNN(), (torch.randn(2, 3, 16, 16),)), 1e-4),
    "transformer": (lambda: (TransformerBlock(), (torch.randn(2, 16, 64),)), 1e-4),
    "gpt2": (_gpt2, 1e-3),
    "bert": (_bert, 1e-3),
    "dlrm": (_dlrm, 1e-4),
}


def _first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    return next(o for o in out if isinstance(o, torch.Tensor))


def run_model(name: str, mode=None) -> float:
    """Compile ``name`` for the chip, run it, and return the largest difference from eager PyTorch."""
    build, _ = MODELS[name]
    torch.manual_seed(0)
    model, inputs = build()
    model.eval()
    with torch.no_grad():
        want = _first_tensor(model(*inputs))
        got = _first_tensor(torch.compile(model, backend="mtia", mode=mode)(*inputs))
    return (got.float() - want.float()).abs().max().item()


def train_step(mode=None) -> float:
    """One training step of the MLP (forward, backward, SGD), compiled; the largest difference from eager in the
    updated weights."""
    torch.manual_seed(0)
    x, y = torch.randn(16, 64), torch.randn(16, 16)
    results = []
    for compiled in (False, True):
        torch.manual_seed(1)
        model = MLP()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        fwd = torch.compile(model, backend="mtia", mode=mode) if compiled else model
        step = torch.compile(opt.step, backend="mtia", mode=mode) if compiled else opt.step
        opt.zero_grad()
        F.mse_loss(fwd(x), y).backward()
        step()
        results.append(torch.cat([p.detach().flatten() for p in model.parameters()]))
    return (results[0] - results[1]).abs().max().item()


def main(argv=None) -> int:
    from rich.console import Console
    from mtiacc.torch_backend import print_report, report, reset
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="models to run (default: all, and the training step 'mlp-train')")
    ap.add_argument("--mode", default=None, help="torch.compile's mode, e.g. max-autotune")
    ap.add_argument("--json", help="write every model's report to this JSON file")
    ap.add_argument("--list", action="store_true", help="name the models and stop")
    args = ap.parse_args(argv)
    names = args.models or [*MODELS, "mlp-train"]
    if args.list:
        print("\n".join([*MODELS, "mlp-train"]))
        return 0
    console, reports, failed = Console(), {}, 0
    for name in names:
        reset()
        torch._dynamo.reset()
        err = train_step(args.mode) if name == "mlp-train" else run_model(name, args.mode)
        tol = MODELS["mlp"][1] if name == "mlp-train" else MODELS[name][1]
        ok = err <= tol
        failed += not ok
        rep = reports[name] = report()
        rep["max_abs_error"] = err
        print_report(rep, title=f"{name}: max |compiled - eager| = {err:.3g} ({'ok' if ok else 'MISMATCH'})",
                     console=console)
    _summary(console, reports)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(reports, f, indent=1)
    return 1 if failed else 0


def _summary(console, reports) -> None:
    from rich.table import Table
    t = Table(title="models on the chip (the paper: ~50% of layers, 47% of non-GEMM time)")
    for col in ("model", "kernels on chip", "layers on chip", "non-GEMM time", "total time", "fallbacks"):
        t.add_column(col)
    pct = lambda x: "-" if x is None else f"{100 * x:.0f}%"
    for name, r in reports.items():
        fb = "; ".join(f"{f['name']}: {f['reason']}" for f in r["fallbacks"]) or "none"
        t.add_row(name, f"{r['kernels_on_chip']}/{r['kernels_total']}",
                  f"{r['layers_on_chip']}/{r['layers_total']} ({pct(r['layer_coverage'])})",
                  pct(r["nongemm_time_share"]), pct(r["total_time_share"]), fb)
    console.print(t)


if __name__ == "__main__":
    sys.exit(main())
