# reuse-loads with a run-time row length: the buffer takes the pass's budget (128 KiB: 128 slots of a
# 1 KiB tile) and a check before the first loop, `N - 0 <= 128 * 256`, chooses the path.  The
# `budget` option shrinks it; a tile larger than the budget is never kept.  (Every program reads the same X
# here, which keep-invariant keeps per slot: off, it has its own test.)
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=pipeline-loads --disable-pass=keep-invariant --disable-pass=prefetch-rows -D BLOCK=256 | filecheck %s
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=256 --passes='reuse-loads{budget=4096}' | filecheck %s --check-prefix=SMALL
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=256 --passes='reuse-loads{budget=512}' | filecheck %s --check-prefix=NONE
import triton
import triton.language as tl


@triton.jit
def twice(X, Out, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    big = tl.max(acc, axis=0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N)
        acc += x * big
    tl.store(Out + tl.arange(0, BLOCK), acc)

# CHECK: %kept0 = "mtia.local_alloc"() : () -> tensor<128x256xf32>
# CHECK: [[SPAN:%[0-9]+]] = "arith.subi"(%N,
# CHECK-NEXT: [[CAP:%[0-9]+]] = "arith.constant"() {value = 32768} : () -> i32
# CHECK-NEXT: [[FITS:%[0-9]+]] = "arith.cmpi"([[SPAN]], [[CAP]]) {predicate = "sle"}
# CHECK: "scf.if"([[FITS]]) ({
# CHECK-NEXT: "mtia.slot_store"(%kept0,
# CHECK: "scf.if"([[FITS]]) ({
# CHECK-NEXT: "mtia.slot_load"(%kept0,
# CHECK: }, {
# CHECK-NEXT: "tt.load"

# SMALL: "mtia.local_alloc"() : () -> tensor<4x256xf32>
# SMALL: value = 1024
# NONE-NOT: mtia.local_alloc
