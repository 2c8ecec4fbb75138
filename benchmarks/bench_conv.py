"""Convolutions of the zoo's CNNs through ``torch.compile(backend="mtia")``: each launch's simulated cycles,
instructions, DMA transfers and host CPU seconds, and the largest difference from eager.

    python benchmarks/bench_conv.py [CASE,CASE...] [fp32|bf16]

The cases: ResNet's 3 x 3 convolution of 64 channels at 56 x 56, stride 1 and 2 (``r3x3s1``, ``r3x3s2``);
MobileNet-v2's depthwise 3 x 3 of 144 channels at 56 x 56, stride 2 (``dw144s2``); the zoo ResNet's 7 x 7 stem
(``stem``); a 1-D convolution of 64 channels over 512 samples (``c1d``); a 3-D 3 x 3 x 3 of 32 channels at 8 x 16 x
16 (``c3d``); transposed convolutions of stride 2, 1-D, 2-D (a decoder's 4 x 4 upsampling) and 3-D (``t1d``,
``t2d``, ``t3d``); ConvNeXt's depthwise 7 x 7 of 96 channels at 28 x 28 (``dw7``); a depthwise 3 x 3 with a channel
multiplier of 2 (``dwm2``) and a grouped 3 x 3 of two channels a group (``g2``).
"""
from __future__ import annotations

import sys
import time

import torch

F = torch.nn.functional

CASES = {
    "r3x3s1": (lambda x, w: F.conv2d(x, w, padding=1), (1, 64, 56, 56), (64, 64, 3, 3)),
    "r3x3s2": (lambda x, w: F.conv2d(x, w, stride=2, padding=1), (1, 64, 56, 56), (64, 64, 3, 3)),
    "dw144s2": (lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=144), (1, 144, 56, 56), (144, 1, 3, 3)),
    "stem": (lambda x, w: F.conv2d(x, w, stride=2, padding=3), (2, 3, 32, 32), (16, 3, 7, 7)),
    "c1d": (lambda x, w: F.conv1d(x, w, padding=1), (1, 64, 512), (64, 64, 3)),
    "c3d": (lambda x, w: F.conv3d(x, w, padding=1), (1, 32, 8, 16, 16), (32, 32, 3, 3, 3)),
    "t1d": (lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1), (1, 64, 128), (64, 32, 4)),
    "t2d": (lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1), (1, 64, 14, 14), (64, 32, 4, 4)),
    "t3d": (lambda x, w: F.conv_transpose3d(x, w, stride=2), (1, 16, 4, 8, 8), (16, 8, 2, 2, 2)),
    "dw7": (lambda x, w: F.conv2d(x, w, padding=3, groups=96), (1, 96, 28, 28), (96, 1, 7, 7)),
    "dwm2": (lambda x, w: F.conv2d(x, w, padding=1, groups=32), (1, 32, 28, 28), (64, 1, 3, 3)),
    "g2": (lambda x, w: F.conv2d(x, w, padding=1, groups=32), (1, 64, 28, 28), (64, 2, 3, 3)),
}


def main(argv) -> int:
    import mtiacc.torch_backend  # noqa: F401  (registers the backend)
    import mtiasim.runner as runner
    names = argv[0].split(",") if argv else list(CASES)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[argv[1] if len(argv) > 1 else "fp32"]
    real, log = runner.run, []

    def run(binary, inputs, *args, **kwargs):
        t = time.process_time()
        r = real(binary, inputs, *args, **kwargs)
        log.append((time.process_time() - t, r.stats))
        return r
    runner.run = run
    for name in names:
        fn, xs, ws = CASES[name]
        g = torch.Generator().manual_seed(0)
        x, w = torch.randn(xs, generator=g).to(dtype), torch.randn(ws, generator=g).to(dtype)
        log.clear()
        got = torch.compile(fn, backend="mtia")(x, w)
        err = (got.float() - fn(x.float(), w.float())).abs().max().item()
        for host, s in log:
            print(f"{name} {dtype}: {s.cycles:>10,} cycles  {s.instructions:>12,} instructions  "
                  f"{s.dma_transfers:>10,} DMAs  host {host:6.2f} s  grid {s.grid}  max |error| {err:.3g}")
        torch._dynamo.reset()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
