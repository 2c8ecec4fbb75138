"""One zoo model through ``torch.compile(model, backend="mtia")``: its outputs (and, for a training step, its
gradients) against eager PyTorch, and what of it ran on the chip.

The error of a tensor is ``max |compiled - eager| / max |eager|`` (relative to the tensor's largest magnitude),
the largest over the model's output tensors (inference) or over its parameters' gradients (a training step:
forward, the loss ``sum(out * r)`` of the first output ``out`` and a fixed seeded normal ``r``, backward).
That loss's gradient ``r`` is generic; ``mean(out ** 2)`` is not: through a final LayerNorm (unit weight, zero
bias, as initialized) it is zero, ``sum(y ** 2)`` of a normalized row being constant, and every gradient below
that LayerNorm is then rounding noise (eager fp32 differs from eager fp64 by a factor of 1e6 on DistilBERT).
A gradient that is zero for any loss (a key projection's bias: softmax ignores a per-query shift) is rounding
noise too, so a gradient's error is relative to its largest magnitude or to :data:`GRAD_FLOOR` times the
largest of all the model's gradients, whichever is larger.  Models run in eval mode (dropout off,
batch norm on its running statistics), so eager and compiled compute the same function.  A row matches when the
error is within the tolerance of its dtype (:data:`TOLERANCE`).
"""
from __future__ import annotations

import os
import signal
import time
import traceback

# fp32 kernels reassociate sums; bf16 rounds every stored intermediate to 8 bits of mantissa
TOLERANCE = {"float32": 1e-3, "bfloat16": 5e-2}
# a parameter's gradient smaller than this fraction of the model's largest is measured against that fraction
GRAD_FLOOR = 1e-6


def families():
    from benchmarks.zoo import hf, nets
    out = {n: e[0] for n, e in hf.MODELS.items()}
    out.update({n: e[0] for n, e in nets.MODELS.items()})
    return out


def build(name: str, size: str):
    """(model, positional inputs, keyword inputs), seeded; ``size="real"`` models in bfloat16."""
    import torch
    from benchmarks.zoo import hf, nets
    torch.manual_seed(0)
    if name in hf.MODELS:
        model, kwargs = hf.build(name, size)
        args = ()
    else:
        model, args = nets.MODELS[name][1](size)
        kwargs = {}
    model.eval()
    if size == "real":
        model = model.to(torch.bfloat16)
        cast = lambda t: t.to(torch.bfloat16) if t.is_floating_point() else t
        args = tuple(cast(a) for a in args)
        kwargs = {k: cast(v) for k, v in kwargs.items()}
    return model, args, kwargs


def _tensors(out):
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return []


def _rel_err(got, want, floor: float = 0.0) -> float:
    g, w = got.detach().float(), want.detach().float()
    scale = max(w.abs().max().item() if w.numel() else 0.0, floor)
    return (g - w).abs().max().item() / (scale if scale > 0 else 1.0)


def _compare(got, want, floor: float = 0.0) -> float:
    """The largest error over the tensors; ``floor`` (a fraction of the largest magnitude of all of ``want``)
    is the least scale a tensor's error is measured against."""
    if len(got) != len(want):
        return float("inf")
    top = max((w.detach().float().abs().max().item() for w in want if w.numel()), default=0.0)
    return max((_rel_err(g, w, floor * top) for g, w in zip(got, want)), default=0.0)


def _infer(model, args, kwargs, compiled):
    import torch
    with torch.no_grad():
        return _tensors(compiled(*args, **kwargs)), _tensors(model(*args, **kwargs))


def _train(model, args, kwargs, compiled):
    import torch
    grads = []
    for fn in (compiled, model):
        model.zero_grad(set_to_none=True)
        out = _tensors(fn(*args, **kwargs))[0].float()
        r = torch.randn(out.shape, generator=torch.Generator().manual_seed(0))
        (out * r).sum().backward()
        grads.append([p.grad.detach().clone() for p in model.parameters() if p.grad is not None])
    return grads


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_model(name: str, size: str = "tiny", train: bool = False, timeout: float = 0, mode=None) -> dict:
    """The zoo's row for one model (never raises: an error is the row's status and message)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    row = {"model": name, "family": families()[name], "size": size, "train": train,
           "dtype": "bfloat16" if size == "real" else "float32"}
    row["tolerance"] = TOLERANCE[row["dtype"]]
    start = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm) if timeout else None
    if timeout:
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        import torch
        from mtiacc.torch_backend import report, reset
        torch._dynamo.reset()
        reset()
        model, args, kwargs = build(name, size)
        compiled = torch.compile(model, backend="mtia", mode=mode)
        got, want = (_train if train else _infer)(model, args, kwargs, compiled)
        row["error"] = _compare(got, want, GRAD_FLOOR if train else 0.0)
        row["status"] = "ok" if row["error"] <= row["tolerance"] else "mismatch"
        row.update(summarize(report()))
    except _Timeout:
        row["status"], row["message"] = "timeout", f"not finished after {timeout:g} s"
    except Exception as e:   # noqa: BLE001 - a model that does not compile is a row saying why
        row["status"] = "error"
        row["message"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:500]
        row["traceback"] = traceback.format_exc()[-4000:]
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    row["wall_s"] = round(time.perf_counter() - start, 2)
    return row


def summarize(rep: dict) -> dict:
    """The zoo's columns from a coverage report (mtiacc.torch_backend.coverage)."""
    host_ops = {op["name"]: op["calls"] for op in rep["aten_ops"]}
    reasons = {}
    for f in rep["fallbacks"]:
        reasons[f["reason"] or "unknown"] = reasons.get(f["reason"] or "unknown", 0) + 1
    layers_why = {}
    for h in rep.get("host_layers", ()):
        layers_why[h["reason"]] = layers_why.get(h["reason"], 0) + 1
    keep = ("graphs", "kernels_total", "kernels_on_chip", "layers_total", "layers_on_chip", "layer_coverage",
            "nongemm_time_share", "total_time_share", "simulated_s", "roofline_s", "roofline_fraction",
            "host_estimated_s")
    return {**{k: rep[k] for k in keep}, "host_ops": host_ops,
            "fallback_reasons": reasons, "host_layer_reasons": layers_why}
