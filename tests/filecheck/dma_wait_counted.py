# Counted DMA waits (counted by machine/insert_waits.py): in vector add's pipelined loop (persistent programs, two
# tiles a trip) each trip issues the next tile's two transfers first, then waits for this tile's with
# `mtia.dma.wait 2`: the two
# issued since stay in flight, so the DMA queue does not drain between tiles.  The prefetches issue even when
# their byte count is 0 (a zero-length transfer counts, complete at once) rather than branching around their
# transfer; a guarded prefetch (past the loop's end) waits for every transfer on its skip path instead.  The
# first copy's store, issued right before the second copy's prefetches, stays in flight with them (`wait 3`): its
# zero-length skip goes too, so that the count is exact.  The trip ends with the second copy's store, without a
# wait: the next trip's first wait leaves it in flight with that trip's prefetches (`wait 3` at the top; a
# zero-byte store before the loop stands in for it on the first trip), and the second wait covers it before the
# block it reads is computed again.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D BLOCK_SIZE=1024 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def add_kernel(A_ptr, B_ptr, C_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    a = tl.load(A_ptr + offsets, mask=mask)
    b = tl.load(B_ptr + offsets, mask=mask)
    tl.store(C_ptr + offsets, a + b, mask=mask)

# CHECK: mtia.dma.out zero, zero, zero{{.*}}# no store yet: the first trip's stand-in
# CHECK-LABEL: .Lfor{{[0-9]+}}:
# CHECK-NOT: mtia.dma.wait
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}3{{[[:space:]]+}}# loads above complete before their data is read (the 2 transfers issued since and the store before the loop's top stay in flight)
# CHECK: vfadd.vv
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma.wait
# CHECK: beqz [[G:[a-z0-9]+]], [[SKIP:.Lnoprefetch[0-9]+]]
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NEXT: j [[DONE:.Lprefetched[0-9]+]]
# CHECK-NEXT: [[SKIP]]:
# CHECK-NEXT: mtia.dma.wait{{[[:space:]]+}}# no prefetch: every transfer completes
# CHECK-NEXT: [[DONE]]:
# CHECK: beqz [[G]], {{.Lnoprefetch[0-9]+}}
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}3{{[[:space:]]+}}# the prefetched tiles complete before their data is read (the 3 transfers issued since stay in flight)
# CHECK: vfadd.vv
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma.wait
# CHECK-NOT: .Lnodma
# CHECK: blt {{.*}}, .Lfor{{[0-9]+}}
