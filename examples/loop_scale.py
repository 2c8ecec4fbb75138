"""Loops with work for the loop passes: a constant-trip loop (loop-unroll), a runtime-trip loop with
a loop-invariant scalar (licm) and a carried value that stays 0 (sccp removes the branch on it).

    mkdir -p build
    mtiacc examples/loop_scale.py -D STEPS=4 -D BLOCK=256 --signature '*fp32,*fp32,i32,fp32,i32' \\
        --grid 'cdiv(N, BLOCK)' -o build/loop_scale.bin
    python examples/inputs.py loop_scale build/loop_scale.npz   # small seeded inputs
    mtiasim run build/loop_scale.bin --inputs build/loop_scale.npz -o build/loop_scale.out.npz
    python examples/inputs.py loop_scale --check build/loop_scale.npz build/loop_scale.out.npz   # against numpy
"""
import triton
import triton.language as tl


@triton.jit
def loop_scale(X, Y, N, scale, ITERS, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(STEPS):          # constant trip count
        acc = acc * 0.5 + x
    shift = 0
    for j in range(ITERS):          # trip count known only at run time
        w = scale * 2.0 + 1.0       # the same every iteration
        if shift > 0:               # never taken: shift stays 0
            acc = acc * 2.0
        acc = acc + x * w
        shift = shift * 2
    tl.store(Y + offs, acc, mask=m)
