# reuse-loads leaves these loads alone: a different mask (`cols < N - 1`), a different step, and an atomic
# between the loops (it may write anything).  Each kernel has a second loop reading X that is not kept.
# (Every program reads the same X here, which keep-invariant keeps per slot: off, it has its own test.)
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=keep-invariant -D BLOCK=64 --kernel other_mask | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=keep-invariant -D BLOCK=64 --kernel other_step | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=keep-invariant -D BLOCK=64 --kernel atomic_between | filecheck %s
import triton
import triton.language as tl


@triton.jit
def other_mask(X, Out, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N - 1, other=0.)
    tl.store(Out + tl.arange(0, BLOCK), acc)


@triton.jit
def other_step(X, Out, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    for off in range(0, N, 2 * BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    tl.store(Out + tl.arange(0, BLOCK), acc)


@triton.jit
def atomic_between(X, Out, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    tl.atomic_add(Out + BLOCK, 1.0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    tl.store(Out + tl.arange(0, BLOCK), acc)

# CHECK: "tt.func"
# CHECK-NOT: mtia.
# CHECK: "tt.return"
