# A 4-byte output tile's store stays in flight under the next tile too (control.py `store_under_next`): a loop over
# tiles whose last op stores a K loop's result as the matrix engine holds it (an int8 GEMM's int32 tile, an fp32
# tile: no conversion) gives the tile a buffer of its own; the engine's accumulator store (out_type 0, int32 /
# fp32) writes it after a wait for the store of the trip before, and the next trip's waits for its loads are
# mtia.dma.wait.in.  Before, such a trip waited at its next loads for the whole int32 store (128 KB for a 256 x 128
# tile: about 4,200 cycles of a PE's SRAM share).
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n tiles_i8 -D BLOCK=64 -D BLOCK_K=64 \
# RUN:   --signature '*i8,*i8,*i32,i32,i32,i32,i32' | filecheck %s --check-prefixes=CHECK,I8
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n tiles_f32 -D BLOCK=64 -D BLOCK_K=32 \
# RUN:   --signature '*fp16,*fp16,*fp32,i32,i32,i32,i32' | filecheck %s --check-prefixes=CHECK,F32
# An f16 accumulator (out_dtype=tl.float16) is the loop's result too: the loop's end stores the engine's fp32 rows
# into a scratch block and narrows them on the vector unit into the tile's buffer, after the wait for the store of
# the trip before.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n tiles_f16_acc -D BLOCK=64 -D BLOCK_K=32 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32,i32' | filecheck %s --check-prefix=ACC16
# A tile converted on the vector unit (here int32 -> fp32) still waits at the trip's end: the store reads the
# conversion's buffer, which the next trip's conversion writes.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n tiles_i8_to_f32 -D BLOCK=64 -D BLOCK_K=64 \
# RUN:   --signature '*i8,*i8,*fp32,i32,i32,i32,i32' | filecheck %s --check-prefix=CONV
import triton
import triton.language as tl


@triton.jit
def tiles_i8(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    start = tl.program_id(0)
    n_tiles = tl.cdiv(M, BLOCK) * tl.cdiv(N, BLOCK)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // tl.cdiv(N, BLOCK)
        pid_n = tile % tl.cdiv(N, BLOCK)
        offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
        offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.int32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)

# CHECK-LABEL: tiles_{{i8|f32}}:
# the loop over tiles
# CHECK: .Lfor{{[0-9]+}}:
# CHECK-NOT: mtia.dma.wait{{[[:space:]]}}
# I8: mtia.dpe.cfg {{.*}}# type = 2
# F32: mtia.dpe.cfg {{.*}}# type = 0
# CHECK-NOT: mtia.dma.wait{{[[:space:]]}}
# CHECK: mtia.dma.wait.in{{.*}}(the output tile's store stays in flight)
# CHECK: mtia.dpe.mm
# the accumulators go to the tile's buffer once the store of the trip before has read it: as they are (4 bytes)
# CHECK: mtia.dma.wait{{[[:space:]]+}}# the tile's store of the trip before completes before the accumulators are stored over it
# CHECK-NOT: out_type = {{[12]}}
# CHECK: mtia.dpe.acc.st
# CHECK: mtia.dma.out
# no wait at the trip's end
# CHECK-NOT: mtia.dma.wait
# CHECK: blt {{.*}}, .Lfor{{[0-9]+}}
# CHECK-NOT: this iteration's stores complete before the next
# CHECK: mtia.dma.wait{{[[:space:]]+}}# stores complete before the program ends


@triton.jit
def tiles_f32(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    start = tl.program_id(0)
    n_tiles = tl.cdiv(M, BLOCK) * tl.cdiv(N, BLOCK)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // tl.cdiv(N, BLOCK)
        pid_n = tile % tl.cdiv(N, BLOCK)
        offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
        offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


@triton.jit
def tiles_i8_to_f32(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    start = tl.program_id(0)
    n_tiles = tl.cdiv(M, BLOCK) * tl.cdiv(N, BLOCK)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // tl.cdiv(N, BLOCK)
        pid_n = tile % tl.cdiv(N, BLOCK)
        offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
        offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.int32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float32))

# CONV-LABEL: tiles_i8_to_f32:
# CONV: .Lfor{{[0-9]+}}:
# CONV-NOT: the output tile's store stays in flight
# CONV: mtia.dpe.acc.st
# CONV: mtia.dma.out
# CONV: mtia.dma.wait{{[[:space:]]+}}# this iteration's stores complete before the next
# CONV: blt {{.*}}, .Lfor{{[0-9]+}}


@triton.jit
def strided(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
            NUM_PROGS, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INTEGER: tl.constexpr):
    # tutorial 09's loop over tiles, its layouts by strides (A or A^T, B or B^T), its masks, storing the 4-byte
    # tile as it is (int8 operands: int32; fp16: fp32); tests/codegen/machine/test_store_under_next.py runs it
    acc_dtype: tl.constexpr = tl.int32 if INTEGER else tl.float32
    start = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    n_tiles = tl.cdiv(M, BLOCK_M) * num_pid_n
    offs_k_for_mask = tl.arange(0, BLOCK_K)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // num_pid_n
        pid_n = tile % num_pid_n
        offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_dtype)
        for ki in range(0, tl.cdiv(K, BLOCK_K)):
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_K, other=0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_K, other=0)
            acc = tl.dot(a, b, acc, out_dtype=acc_dtype)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, acc, mask=c_mask)


@triton.jit
def tiles_f16_acc(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    start = tl.program_id(0)
    n_tiles = tl.cdiv(M, BLOCK) * tl.cdiv(N, BLOCK)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // tl.cdiv(N, BLOCK)
        pid_n = tile % tl.cdiv(N, BLOCK)
        offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
        offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float16)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)

# ACC16-LABEL: tiles_f16_acc:
# ACC16: .Lfor{{[0-9]+}}:
# ACC16-NOT: mtia.dma.wait{{[[:space:]]}}
# ACC16: mtia.dma.wait.in{{.*}}(the output tile's store stays in flight)
# ACC16: mtia.dma.wait{{[[:space:]]+}}# the tile's store of the trip before completes before the accumulators are stored over it
# ACC16: mtia.dpe.acc.st
# ACC16: mtia.dpe.wait{{.*}}# the accumulators are stored before they narrow to f16
# ACC16: vfncvt.f.f.w
# ACC16: mtia.dma.out2d
# ACC16-NOT: mtia.dma.wait
# ACC16: blt {{.*}}, .Lfor{{[0-9]+}}
# ACC16: mtia.dma.wait{{[[:space:]]+}}# stores complete before the program ends
