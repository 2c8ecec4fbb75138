# insert-waits around masked 2-D tile prefetches (filled with `other` first, then the transfer, which keeps
# running): in persistent-programs' loop (unrolled twice) each trip prefetches the next A and B tiles and computes on
# the tiles the trip before prefetched.  The DMA engine has one completion barrier, so a prefetch whose transfers are
# not counted waits for every transfer in flight before it issues: one wait before each pair of prefetches, which
# also covers the tiles the trip reads.  Between the prefetches, the compute and the store of C nothing waits: the
# prefetched tiles stay in flight over the trip's work.  After the loop, the first op that touches local memory
# waits for the last trip's transfers.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D BLOCK_M=8 -D BLOCK_N=8 -D BLOCK_K=16 \
# RUN:   --signature '*fp32,*fp32,*fp32,i32,i32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def matmul_nodot_kernel(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(A + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(B + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

# CHECK: # scf.for
# CHECK-NEXT: bge {{.*}}, [[DONE:.Lendfor[0-9]+]]
# CHECK-NEXT: [[TOP:.Lfor[0-9]+]]:
# CHECK: mtia.dma.wait{{[[:space:]]+}}# the tiles in flight complete before the next prefetch
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in2d
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in2d
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.out2d
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}# the tiles in flight complete before the next prefetch
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in2d
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in2d
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.out2d
# CHECK-NOT: mtia.dma
# CHECK: blt {{.*}}, [[TOP]]
# CHECK-NEXT: [[DONE]]:
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait{{[[:space:]]+}}# loads above complete before their data is read
