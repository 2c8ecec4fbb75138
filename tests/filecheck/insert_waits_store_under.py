# An output tile's store stays in flight under the next tile (control.py `store_under_next`): in a loop over tiles
# (tutorial 09's persistent kernel, as written) whose last op stores the f16 tile the matrix engine's accumulator
# store writes (`read_back`), the tile gets a buffer of its own for the whole loop, and the loop's trips do not end
# with a wait for the store.  The waits of the next trip, for its loads, are mtia.dma.wait.in: the inbound
# transfers complete, the store (an outbound transfer, on the DMA engine's other channel) stays in flight.  Only
# the accumulator store of the next tile waits for it, with a wait of its own (insert-waits keeps it: the store
# may be in flight there); the program's end waits for every transfer.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n tiles -D BLOCK=64 -D BLOCK_K=32 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32,i32' | filecheck %s
# With one DMA channel (a machine whose transfers all run in one issue order) the code is the same.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -n tiles -D BLOCK=64 -D BLOCK_K=32 --set memory.dma.channels=1 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def tiles(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
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
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))

# CHECK-LABEL: tiles:
# the loop over tiles
# CHECK: .Lfor{{[0-9]+}}:
# CHECK-NOT: mtia.dma.wait{{[[:space:]]}}
# CHECK: mtia.dma.wait.in{{.*}}(the output tile's store stays in flight)
# CHECK: mtia.dpe.mm
# the accumulators go to the tile's buffer once the store of the trip before has read it
# CHECK: mtia.dma.wait{{[[:space:]]+}}# the tile's store of the trip before completes before the accumulators are stored over it
# CHECK: mtia.dpe.cfg {{.*}}# out_type = 1
# CHECK: mtia.dpe.acc.st
# CHECK: mtia.dma.out
# no wait at the trip's end
# CHECK-NOT: mtia.dma.wait
# CHECK: blt {{.*}}, .Lfor{{[0-9]+}}
# CHECK-NOT: this iteration's stores complete before the next
# CHECK: mtia.dma.wait{{[[:space:]]+}}# stores complete before the program ends


@triton.jit
def strided(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
            NUM_PROGS, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # tutorial 09's loop over tiles, its layouts by strides (A or A^T, B or B^T), its masks
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
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(0, tl.cdiv(K, BLOCK_K)):
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)
