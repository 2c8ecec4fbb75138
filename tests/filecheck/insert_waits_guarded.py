# insert-waits around a guarded prefetch (persistent programs: the next tile may lie past the loop's end).  The
# guard's skip path waits for every transfer, so the count after the join stays exact: `mtia.dma.wait 2` leaves in
# flight the prefetch and the store issued right before its code (a store from a buffer of its own joins the
# group; its zero-byte skip goes).  The trip's last store stays in flight across the back-edge: the trip's first
# wait counts it too (`wait 2`: one transfer and that store; a zero-byte store before the loop stands in for it
# on the first trip).
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D BLOCK=256 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def scale_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(X + offs, mask=mask)
    tl.store(Y + offs, x * 2.0, mask=mask)

# CHECK: mtia.dma.out zero, zero, zero{{.*}}# no store yet: the first trip's stand-in
# CHECK-LABEL: .Lfor{{[0-9]+}}:
# CHECK-NOT: mtia.dma.wait
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}2{{[[:space:]]+}}# loads above complete before their data is read (the transfer issued since and the store before the loop's top stay in flight)
# CHECK: vfmul.vf
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma
# CHECK: beqz [[G:[a-z0-9]+]], [[SKIP:.Lnoprefetch[0-9]+]]
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NEXT: j [[DONE:.Lprefetched[0-9]+]]
# CHECK-NEXT: [[SKIP]]:
# CHECK-NEXT: mtia.dma.wait{{[[:space:]]+}}# no prefetch: every transfer completes
# CHECK-NEXT: [[DONE]]:
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}2{{[[:space:]]+}}# the prefetched tiles complete before their data is read (the 2 transfers issued since stay in flight)
# CHECK: vfmul.vf
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma
# CHECK: blt {{.*}}, .Lfor{{[0-9]+}}
