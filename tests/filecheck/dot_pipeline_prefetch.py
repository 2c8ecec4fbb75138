# Tutorial 03's GEMM on the engine, as `make bench-gemm` compiles it, but one program per launch slot
# (persistent-programs off: dot_next_program.py shows the slot loop around this).  pipeline-dots unrolls the K loop into
# 4 stages (no num_stages given: as many as local memory holds, up to 4) and moves each stage's operand loads
# up before the previous stage's dot, marked prefetch; the next trip's first-stage loads go before the last
# stage's dot, the loop carrying those tiles ({pipeline = 2}; the first trip's load before the loop).  Codegen waits for the tiles in flight right before a
# prefetch's transfer, its address arithmetic done, and not again before the previous stage's dot.  The accumulators go back to local memory in row
# bands (dot-accumulators marks the store {row_bands = 2}), each band's DMA issued as its own transfer.
# Signed / and % by 64 are shifts, and a spilled constant is rematerialized, not reloaded.
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=persistent-programs -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 \
# RUN:   --signature '*bf16,*bf16,*bf16,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 --disable-pass=persistent-programs -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=64 \
# RUN:   -D GROUP_SIZE_M=8 --signature '*bf16,*bf16,*bf16,i32,i32,i32,i32,i32,i32,i32,i32,i32' \
# RUN:   | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.bfloat16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)

# IR: [[A0:%[0-9]+]] = "tt.load"({{.*}}) {access = "wrapped-tiles"
# IR: [[B0:%[0-9]+]] = "tt.load"({{.*}}) {access = "wrapped-tiles"
# IR: "scf.for"({{.*}}, [[A0]], [[B0]]) {pipeline_stages = 4, pipeline = 2
# IR-NEXT: ^bb0({{.*}}, %a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>):
# IR: "tt.load"({{.*}}) {prefetch = true, access = "wrapped-tiles"
# IR: "tt.load"({{.*}}) {prefetch = true, access = "wrapped-tiles"
# IR-NEXT: "tt.dot"(%a, %b, {{.*}}) {accumulator = "engine"}
# IR: [[NA:%[0-9]+]] = "tt.load"({{.*}}) {prefetch = true, access = "wrapped-tiles", operandSegmentSizes = [1, 1, 1, 1]}
# IR: [[NB:%[0-9]+]] = "tt.load"({{.*}}) {prefetch = true, access = "wrapped-tiles", operandSegmentSizes = [1, 1, 1, 1]}
# IR-NEXT: "tt.dot"
# IR-NEXT: "scf.yield"({{.*}}, [[NA]], [[NB]])
# IR: "scf.for"{{.*}}pipeline_stages = 1
# IR: "tt.store"({{.*}}) {row_bands = 2, access = "tiles"

# ASM-LABEL: matmul_kernel:
# ASM: srai{{w?}} {{.*}} # signed / 64: shifts
# ASM: # rematerialize
# The first trip's first tiles move while the engine clears the accumulators: no wait before the loop.
# ASM: mtia.dma.in2d
# ASM-NOT: mtia.dma.wait
# ASM: mtia.dpe.zero
# ASM-NOT: mtia.dma.wait
# ASM: .Lfor{{[0-9]+}}:
# ASM-NOT: mtia.dpe.mm
# The second stage's A tile: the wait for the first stage's tiles (fetched a trip ahead, or before the loop)
# right before its transfer (on each path, and at the end of a path that moved nothing), then B's tile in the
# same group (no wait), then the first stage's dot with no wait of its own.
# ASM: mtia.dma.wait {{.*}}# the tiles in flight complete before the next prefetch, its addresses computed
# ASM-NEXT: mtia.dma.in2d
# ASM: bnez {{.*}}, .Lwwaited
# ASM-NEXT: mtia.dma.wait {{.*}}# the tiles in flight complete before the next prefetch (no transfer issued)
# ASM-NOT: mtia.dma.wait
# ASM: mtia.dpe.mm
# The write-back: two bands of 32 rows, each band's two column groups, then one DMA out per band.
# ASM: .Lendfor{{[0-9]+}}:
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.acc.st
# ASM: mtia.dma.cfg {{.*}}, 0 {{.*}}# row band 0 of 2
# ASM: mtia.dma.out2d
# ASM: mtia.dma.cfg {{.*}}, 0 {{.*}}# row band 1 of 2
# ASM: mtia.dma.out2d
