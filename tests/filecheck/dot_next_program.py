# persistent-programs on a GEMM (Triton's tutorial 03): each PE runs its slot's programs in one loop
# ({persistent = 64, pipeline = 2}), and the next program's first-stage tiles are fetched right after this
# program's pipelined K loop, during its last dot, before the accumulators are written back and stored: the loop
# carries them, the first program's are loaded before it.  The next program's addresses are the first tiles' own,
# computed for `program + 64` (this program's past the slot's last one, the guard then moving nothing).  The K loop
# of the next program starts from the carried tiles (its inits are the slot loop's arguments: codegen lands the
# prefetch in the buffer the K loop reads, no copy).  A kernel whose store writes the buffer its tiles come from
# keeps one program per launch slot.
# RUN: mtiacc %s --kernel matmul_kernel --emit=ir -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=64 \
# RUN:   --signature '*bf16,*bf16,*bf16,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --kernel matmul_kernel --emit=asm --asm-syntax=mtia -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 \
# RUN:   -D BLOCK_SIZE_K=64 --signature '*bf16,*bf16,*bf16,i32,i32,i32,i32,i32,i32,i32,i32,i32' \
# RUN:   | filecheck %s --check-prefix=ASM
# RUN: mtiacc %s --kernel in_place --emit=ir -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=64 \
# RUN:   --signature '*bf16,*bf16,i32,i32,i32' | filecheck %s --check-prefix=ALIAS
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
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


@triton.jit
def in_place(a_ptr, b_ptr, M, N, K,
             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    # the product is stored over A: the next program's tiles may not be read before this program's store
    pid = tl.program_id(axis=0)
    offs_m = pid * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
        accumulator = tl.dot(a, b, accumulator)
    tl.store(a_ptr + offs_m[:, None] * K + offs_n[None, :], accumulator.to(tl.bfloat16))

# IR-LABEL: sym_name = "matmul_kernel"
# IR: %[[A0:[0-9]+]] = "tt.load"({{.*}}) {access = "wrapped-tiles"
# IR: %[[B0:[0-9]+]] = "tt.load"({{.*}}) {access = "wrapped-tiles"
# IR: "scf.for"(%slot, %[[TOTAL:[0-9]+]], %[[SLOTS:[0-9]+]], %[[A0]], %[[B0]]) {persistent = 64, pipeline = 2
# IR-NEXT: ^bb0(%program: i32, %[[CA:[0-9]+]]: tensor<64x64xbf16>, %[[CB:[0-9]+]]: tensor<64x64xbf16>):
# IR-NOT: "tt.get_program_id"
# IR: "scf.for"({{.*}}, %[[CA]], %[[CB]]) {pipeline_stages = 4, pipeline = 2
# IR: "tt.dot"
# IR: "scf.yield"
# The next program's first tiles, the first ops after the pipelined K loop:
# IR-NEXT: })
# IR-NEXT: %next_program = "arith.addi"(%program, %[[SLOTS]])
# IR-NEXT: %more_programs = "arith.cmpi"(%next_program, %[[TOTAL]]) {predicate = "slt"}
# IR-NEXT: %[[AT:[0-9]+]] = "arith.select"(%more_programs, %next_program, %program)
# IR: "arith.remsi"(%[[AT]],
# IR: %[[GA:[0-9]+]] = "arith.andi"(%more_programs,
# IR-NEXT: %[[NA:[0-9]+]] = "tt.load"({{.*}}, %[[GA]]) {prefetch = true, access = "wrapped-tiles"
# IR-NEXT: %[[GB:[0-9]+]] = "arith.andi"(%more_programs,
# IR-NEXT: %[[NB:[0-9]+]] = "tt.load"({{.*}}, %[[GB]]) {prefetch = true, access = "wrapped-tiles"
# then the K loop's last iterations, the write-back and the store
# IR-NEXT: "scf.for"{{.*}}pipeline_stages = 1
# IR: "tt.store"
# IR-NEXT: "scf.yield"(%[[NA]], %[[NB]])

# ASM-LABEL: matmul_kernel:
# ASM: mtia.dpe.zero
# ASM: .Lfor{{[0-9]+}}:
# ASM: mtia.dpe.mm
# ASM: .Lendfor{{[0-9]+}}:
# The next program's tiles issue as soon as the last dot's commands are queued, before the write-back.
# ASM-NOT: mtia.dpe.acc.st
# ASM: mtia.dma.in2d
# ASM-NOT: mtia.dpe.acc.st
# ASM: mtia.dma.in2d
# ASM: mtia.dpe.acc.st
# ASM: mtia.dma.out2d

# ALIAS-LABEL: sym_name = "in_place"
# ALIAS-NOT: persistent =
# ALIAS: "tt.get_program_id"() {axis = 0}
# ALIAS: "tt.store"
