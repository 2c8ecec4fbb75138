# insert-waits around a guarded prefetch whose transfers are not counted (a masked K-tail tile: wrapped 2-D rows).
# The K loop, unrolled, prefetches each copy's next A and B tiles; the last copy's prefetches are guarded (the
# next tile may lie past the loop's end).  Such a prefetch waits for every transfer in flight before each of its
# transfers, its addresses computed, and those waits complete the tiles the dot after it reads, so the dot asks
# for no wait of its own.  The path that skips the prefetch skips those waits too: it waits instead
# (`no prefetch: every transfer completes`), else the dot's mtia.dpe.ldw would read a B tile still in flight.
# (The kernel runs in persistent-programs' slot loop, whose output tile's store stays in flight under the next
# program: those waits are for the inbound transfers, mtia.dma.wait.in.)
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n matmul_kernel -D BLOCK_M=32 -D BLOCK_N=32 -D BLOCK_K=32 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + ((offs_m % M)[:, None] * K + offs_k[None, :])
    b_ptrs = b_ptr + (offs_k[:, None] * N + (offs_n % N)[None, :])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

# CHECK-LABEL: .Lfor{{[0-9]+}}:
# CHECK: mtia.dpe.ldw
# CHECK: mtia.dpe.ldw
# CHECK: mtia.dpe.ldw
# CHECK: beqz [[G:[a-z0-9]+]], [[SKIP:.Lnoprefetch[0-9]+]]
# CHECK: mtia.dma.wait.in{{[[:space:]]+}}# the tiles in flight complete before the next prefetch, its addresses computed
# CHECK-NEXT: mtia.dma.in2d
# CHECK: j [[DONE:.Lprefetched[0-9]+]]
# CHECK-NEXT: [[SKIP]]:
# CHECK-NEXT: mtia.dma.wait.in{{[[:space:]]+}}# no prefetch: every transfer completes
# CHECK-NEXT: [[DONE]]:
# CHECK: beqz [[G]], [[SKIP2:.Lnoprefetch[0-9]+]]
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in2d
# CHECK-NOT: mtia.dma.wait
# CHECK: [[SKIP2]]:
# CHECK-NOT: mtia.dma
# CHECK: mtia.dpe.ldw
# CHECK: blt {{.*}}, .Lfor{{[0-9]+}}
