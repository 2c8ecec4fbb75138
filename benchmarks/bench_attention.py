"""Flash attention on the matrix engine: % of the DPE peak in simulated time.

Rows: the forward kernel ``torch.compile(backend="mtia")`` lowers scaled dot-product attention to
(``mtiacc/torch_backend/attention_kernels.py``, the cost model's blocks unless ``--blocks BMxBN``) and, with
``--tutorials DIR``, Triton's tutorial 06 kernels as its file has them (read from DIR): the forward ``_attn_fwd``
(128 x 64 blocks unless ``--blocks``) and the backward (``_attn_bwd_preprocess`` then ``_attn_bwd``, with the
tutorial's host code's blocks and its scaling of K).  fp16, batch 1, ``--heads`` heads (8: one program per PE at
1024 tokens).  FLOPs: ``4 * heads * N^2 * D`` forward, 2.5 times that backward (five products of N^2 D MACs
against two), half of it causal.  Each row is checked against torch (``scaled_dot_product_attention`` and its
gradients, in fp32).

``--memory``: where Q, K, V, O and the rest live: ``dram`` (the simulator's default for kernel buffers) or
``sram`` (the 256 MB on-chip SRAM, ``mtiasim run --place NAME=sram``), or both (the default).  In DRAM the forward
is bound by DRAM, not by the matrix engine: each program of ``BLOCK_M`` query rows reads all of its head's K and
V, ``4 * BLOCK_M`` FLOPs a byte at fp16 (against 864 FLOPs a byte at the ridge); the first read of each tensor
comes from DRAM, and the re-reads of K and V can hit the last-level cache (the roofline column charges them at the
SRAM level).  The kernels are compiled as the Triton backend compiles them (the same source, the
config's ``num_stages``) and launched through ``mtiacc.runtime``, which places buffers.

    python benchmarks/bench_attention.py [--heads 8] [--ctx 1024] [--dim 64] [--causal] [--blocks 64x64]
                                         [--memory dram|sram|both] [--tutorials ../shared/triton-tests/tutorials]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
STAGES = 3        # the Triton backend's num_stages when a launch gives none (MtiaOptions.num_stages)
SCALE = 0.5


def _peaks():
    from mtiacc.machine.simulator import load_config
    from mtiasim.roofline import peaks
    return peaks(load_config())


def _kernel(path, name):
    from mtiacc.runtime.launcher import Kernel
    return Kernel(str(path), name, num_stages=STAGES)


def _launch(kernel, grid, memory, args, **kw) -> float:
    """Simulated seconds of one launch, its buffers placed in ``memory``; outputs written back into ``args``.  An
    integer argument equal to 1 is compiled as a constant, as Triton specializes it."""
    from mtiasim.runner import run
    names = [prm.name for prm in kernel.params if not prm.constexpr]
    consts = [n for n, a in zip(names, args) if isinstance(a, int) and a == 1]
    p = kernel.prepare(*args, grid=grid, constants=consts, **kw)
    place = {name: "sram" for name in p.inputs} if memory == "sram" else {}
    res = run(p.binary, p.inputs, grid=p.grid, args=p.scalars, pointer_at=p.pointer_at, place=place)
    p._write_back(res)
    return res.stats.time_s


def _reference(q, k, v, causal, do=None):
    import torch
    q, k, v = (torch.tensor(x, dtype=torch.float32, requires_grad=do is not None) for x in (q, k, v))
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=SCALE)
    if do is None:
        return o.detach().numpy()
    o.backward(torch.tensor(do, dtype=torch.float32))
    return [x.grad.numpy() for x in (q, k, v)]


def _close(got, want, what, tol=2e-3):
    got = got.astype(np.float32)
    err = np.abs(got - want).max()
    if not err <= tol * max(1.0, np.abs(want).max()):
        raise SystemExit(f"{what}: max error {err:.3g} against torch")


def ours(q, k, v, causal, blocks, memory):
    from mtiacc.torch_backend import attention
    _, h, n, d = q.shape
    bm, bn = blocks or attention.choose_blocks(h, n, n, d, dtype_bytes=2, causal=causal)
    o, lse = np.zeros_like(q), np.zeros((1, h, n), np.float32)
    st = [s // q.itemsize for s in q.strides]
    kern = _kernel(ROOT / "mtiacc/torch_backend/attention_kernels.py", "sdpa_fwd_kernel")
    t = _launch(kern, ((n + bm - 1) // bm, h), memory,
                (q, k, v, q, o, lse, SCALE, *st, *st, *st, 0, 0, 0, 0, *st, h * n, n, 1, h, h, n, n, d),
                HAS_MASK=False, IS_CAUSAL=causal, BLOCK_M=bm, BLOCK_N=bn, BLOCK_D=d, DOT_BF16=False,
                INPUT_PRECISION="ieee")
    _close(o, _reference(q, k, v, causal), "attention_kernels forward")
    return f"attention_kernels fwd {bm}x{bn}", t, 1.0


def tutorial_fwd(folder, q, k, v, causal, blocks, memory, keep=None):
    _, h, n, d = q.shape
    bm, bn = blocks or (128, 64)
    o, m = np.zeros_like(q), np.zeros((1, h, n), np.float32)
    kern = _kernel(Path(folder) / "06-fused-attention.py", "_attn_fwd")
    t = _launch(kern, ((n + bm - 1) // bm, h, 1), memory, (SCALE, m, 1, h, q, k, v, o),
                N_CTX=n, HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, FP8_OUTPUT=False, STAGE=3 if causal else 1,
                warp_specialize=False, IS_HOPPER=False)
    _close(o, _reference(q, k, v, causal), "tutorial 06 forward")
    if keep is not None:
        keep.update(o=o, m=m)
    return f"tutorial 06 _attn_fwd {bm}x{bn}", t, 1.0


def tutorial_bwd(folder, q, k, v, causal, memory):
    """The tutorial's backward as its host code launches it (``_attention.backward``): the preprocess, then
    ``_attn_bwd`` with K scaled by ``sm_scale / ln 2``, from the forward's O and M."""
    _, h, n, d = q.shape
    fwd = {}
    tutorial_fwd(folder, q, k, v, causal, None, memory, keep=fwd)
    rng = np.random.default_rng(1)
    do = (rng.standard_normal(q.shape) * 0.5).astype(np.float16)
    path = Path(folder) / "06-fused-attention.py"
    delta = np.zeros((1, h, n), np.float32)
    t = _launch(_kernel(path, "_attn_bwd_preprocess"), (n // 128, h), memory, (fwd["o"], do, delta, 1, h, n),
                BLOCK_M=128, HEAD_DIM=d)
    arg_k = (k.astype(np.float32) * np.float32(SCALE * 1.4426950408889634)).astype(np.float16)
    dq, dk, dv = (np.zeros_like(q) for _ in range(3))
    st = [s // q.itemsize for s in q.strides]
    t += _launch(_kernel(path, "_attn_bwd"), (n // 128, 1, h), memory,
                 (q, arg_k, v, SCALE, do, dq, dk, dv, fwd["m"], delta, *st, h, n),
                 BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=d,
                 CAUSAL=causal)
    for got, want, what in zip((dq, dk, dv), _reference(q, k, v, causal, do), ("dq", "dk", "dv")):
        _close(got, want, f"tutorial 06 backward {what}", tol=1e-2)
    return "tutorial 06 _attn_bwd", t, 2.5


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--blocks", help="BLOCK_M x BLOCK_N, e.g. 64x64 (default: the cost model's; 128x64 for 06)")
    ap.add_argument("--memory", choices=("dram", "sram", "both"), default="both")
    ap.add_argument("--tutorials", help="Triton's tutorials folder: also tutorial 06's forward and backward")
    ap.add_argument("--no-backward", action="store_true", help="leave out tutorial 06's backward")
    args = ap.parse_args(argv)
    blocks = tuple(int(x) for x in args.blocks.split("x")) if args.blocks else None
    rng = np.random.default_rng(0)
    q, k, v = ((rng.standard_normal((1, args.heads, args.ctx, args.dim)) * 0.5).astype(np.float16)
               for _ in range(3))
    flops = 4 * args.heads * args.ctx ** 2 * args.dim * (0.5 if args.causal else 1)
    pk = _peaks()
    memories = ("dram", "sram") if args.memory == "both" else (args.memory,)
    print(f"fp16, {args.heads} heads, N_CTX {args.ctx}, head dim {args.dim}{', causal' if args.causal else ''}")
    print(f"{'kernel':<32} {'memory':>6} {'simulated us':>13} {'% DPE peak':>11} {'% roofline':>11}")
    for memory in memories:
        rows = [lambda: ours(q, k, v, args.causal, blocks, memory)]
        if args.tutorials:
            rows.append(lambda: tutorial_fwd(args.tutorials, q, k, v, args.causal, blocks, memory))
            if not args.no_backward:
                rows.append(lambda: tutorial_bwd(args.tutorials, q, k, v, args.causal, memory))
        for row in rows:
            name, t, times = row()
            f = flops * times
            bm = int(name.split()[-1].split("x")[0]) if "x" in name.split()[-1] else None
            # the forward's bytes: each program of bm query rows reads all of its head's K and V (and Q, O once).
            # In DRAM only the first read of K and V (and Q, O) must come from DRAM: the re-reads can hit the
            # last-level cache, which serves them at the SRAM level, so the bound charges them there (a lower
            # bound either way: bytes that miss only add time)
            if bm and times == 1.0:
                kv = 2 * (args.ctx // bm) * (0.5 if args.causal else 1)
                tensor = 2 * args.heads * args.ctx * args.dim
                if memory == "dram":
                    first, again = tensor * 4, tensor * max(kv - 2, 0)
                    bound = max(f / pk["dpe_flops"], first / pk["dram_bw"], again / pk["sram_bw"])
                else:
                    bound = max(f / pk["dpe_flops"], tensor * (kv + 2) / pk["sram_bw"])
                roof = f"{100 * bound / t:>10.1f}%"
            else:
                roof = f"{'-':>11}"
            print(f"{name:<32} {memory:>6} {t * 1e6:>13.1f} {100 * f / t / pk['dpe_flops']:>10.1f}% {roof}")


if __name__ == "__main__":
    main()
