"""Flash attention's forward on the matrix engine: % of the DPE peak in simulated time.

Rows: the kernel ``torch.compile(backend="mtia")`` lowers scaled dot-product attention to
(``mtiacc/torch_backend/attention_kernels.py``, the cost model's blocks unless ``--blocks BMxBN``) and, with
``--tutorials DIR``, Triton's tutorial 06 forward kernel (``_attn_fwd`` as its file has it, read from DIR),
each launched through the Triton backend on fp16 (batch 1, ``--heads`` heads, one program per PE at 64 x 64
blocks with 8 heads and 1024 tokens).  FLOPs: ``4 * heads * N^2 * D`` (half of it causal).  Each point compiles
the kernel and simulates the whole grid: about a minute or two of host time.

    python benchmarks/bench_attention.py [--heads 8] [--ctx 1024] [--dim 64] [--causal] [--blocks 64x64]
                                         [--tutorials ../shared/triton-tests/tutorials]
"""
import argparse
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _peak() -> float:
    from mtiacc.machine.simulator import load_config
    from mtiasim.roofline import peaks
    return peaks(load_config())["dpe_flops"]


def _check(o, q, k, v, causal, scale):
    import torch
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                           scale=scale)
    torch.testing.assert_close(o.float(), ref, rtol=2e-3, atol=2e-3)


def ours(q, k, v, causal, blocks):
    import torch
    import triton
    from mtiacc.torch_backend import attention, attention_kernels as K
    _, h, n, d = q.shape
    bm, bn = blocks or attention.choose_blocks(h, n, n, d, dtype_bytes=2, causal=causal)
    o, lse = torch.empty_like(q), torch.empty(1, h, n)

    def launch():
        K.sdpa_fwd_kernel[(triton.cdiv(n, bm), h)](
            q, k, v, q, o, lse, 0.5, *q.stride(), *k.stride(), *v.stride(), 0, 0, 0, 0, *o.stride(),
            *lse.stride(), h, h, n, n, d, HAS_MASK=False, IS_CAUSAL=causal, BLOCK_M=bm, BLOCK_N=bn, BLOCK_D=d,
            DOT_BF16=False, INPUT_PRECISION="ieee")
    return f"attention_kernels {bm}x{bn}", launch, o


def tutorial(folder, q, k, v, causal, blocks):
    import torch
    import triton
    spec = importlib.util.spec_from_file_location("tutorial06", Path(folder) / "06-fused-attention.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _, h, n, d = q.shape
    bm, bn = blocks or (128, 64)
    o, m = torch.empty_like(q), torch.empty(1, h, n)

    def launch():
        mod._attn_fwd.fn[(triton.cdiv(n, bm), h, 1)](
            0.5, m, 1, h, q, k, v, o, N_CTX=n, HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, FP8_OUTPUT=False,
            STAGE=3 if causal else 1, warp_specialize=False, IS_HOPPER=False)
    return f"tutorial 06 _attn_fwd {bm}x{bn}", launch, o


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--blocks", help="BLOCK_M x BLOCK_N, e.g. 64x64 (default: the cost model's; 128x64 for 06)")
    ap.add_argument("--tutorials", help="Triton's tutorials folder: also tutorial 06's forward kernel")
    args = ap.parse_args(argv)
    import torch
    from mtiacc.triton_backend import clock
    blocks = tuple(int(x) for x in args.blocks.split("x")) if args.blocks else None
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, args.heads, args.ctx, args.dim, generator=g, dtype=torch.float16) * 0.5
               for _ in range(3))
    flops = 4 * args.heads * args.ctx ** 2 * args.dim * (0.5 if args.causal else 1)
    peak = _peak()
    cases = [ours(q, k, v, args.causal, blocks)]
    if args.tutorials:
        cases.append(tutorial(args.tutorials, q, k, v, args.causal, blocks))
    print(f"fp16, {args.heads} heads, N_CTX {args.ctx}, head dim {args.dim}{', causal' if args.causal else ''}")
    print(f"{'kernel':<34} {'simulated us':>13} {'% DPE peak':>11}")
    for name, launch, out in cases:
        launch()                                   # compiled and checked once, then timed
        _check(out, q, k, v, args.causal, 0.5)
        ms, _ = clock.measure(launch)
        print(f"{name:<34} {ms * 1e3:>13.1f} {100 * flops / (ms * 1e-3) / peak:>10.1f}%")


if __name__ == "__main__":
    main()
