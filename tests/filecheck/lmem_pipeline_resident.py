# pipeline-dots asks the local-memory plan what the loop of the last trip % S iterations costs: its carried blocks a
# second time, but not an accumulator the matrix engine keeps (the pipelined loop hands its rows on to that loop as
# they are: no buffer).  Tutorial 03 with 128 x 128 x 64 tiles on a machine of 160 KiB of local memory: 2 stages
# (two copies of the 32768 bytes of tiles fit beside the 65536-byte accumulators' buffer), the slot loop of
# persistent-programs fetching the next program's first tiles, the tile stored under the next program; it was one
# stage (the remainder loop's 65536-byte accumulator counted against the 61312 bytes free while the loop runs),
# with a remark, and no slot loop.
# RUN: mtiacc %s --kernel matmul_kernel --emit=ir -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 \
# RUN:   -D BLOCK_SIZE_K=64 --set pe.local_memory_bytes=163840 \
# RUN:   --signature '*bf16,*bf16,*bf16,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s
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

# CHECK: "tt.func"() {sym_name = "matmul_kernel"
# CHECK-SAME: lmem_capacity = 159616
# CHECK: "scf.for"({{.*}}) {persistent = 64, pipeline = 2, store_under_next = true,
# CHECK: "scf.for"({{.*}}) {pipeline_stages = 2, pipeline = 2,
# CHECK: "scf.for"({{.*}}) {pipeline_stages = 1,
