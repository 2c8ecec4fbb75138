# insert-waits in a pipelined loop (pipeline-loads, unrolled twice): each half issues the next tile's transfer,
# then the add waits for the tile it reads with `mtia.dma.wait 1`: every transfer completes but the one issued
# last, the next tile, which stays in flight under the add (the count follows the loop's back-edge: the tile
# prefetched by the previous half is the one read now).  The prefetch's zero-byte skip goes, so that the count is
# exact; the masked-off rest of the tile is filled with `other` while the transfer runs.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D BLOCK=256 --signature '*fp32,*fp32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def row_sum(X, Y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, N, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        acc += tl.load(X + row * N + offs, mask=offs < N, other=0.0)
    tl.store(Y + row * BLOCK + tl.arange(0, BLOCK), acc)

# CHECK: mtia.dma.in
# CHECK: mtia.dma.wait{{[[:space:]]+}}# loads above complete before their data is read
# CHECK-LABEL: .Lfor{{[0-9]+}}:
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}1{{[[:space:]]+}}# loads above complete before their data is read (the transfer issued since stay in flight)
# CHECK: vfadd.vv
# CHECK-NOT: .Lnodma
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}1{{[[:space:]]+}}# the prefetched tiles complete before their data is read (the transfer issued since stay in flight)
# CHECK: vfadd.vv
# CHECK-NOT: mtia.dma
# CHECK: blt {{.*}}, .Lfor{{[0-9]+}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}# loads above complete before their data is read
