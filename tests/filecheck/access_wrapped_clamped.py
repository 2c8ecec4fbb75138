# access-plan `wrapped-tiles`, clamped form: Triton's persistent matmul tutorial (09) indexes its operand
# tiles with clamped offsets, `where(offs_am < M, offs_am, 0)` on a's rows and `where(offs_bn < N,
# offs_bn, 0)` on b's columns (through the max_contiguous / multiple_of hints), rebuilds the pointers in
# the K loop and masks the K axis only: both loads move the rows below M (N) with one 2-D DMA and the
# rows past it (all row 0) with one 2-D DMA of DRAM row stride 0, not element by element (`gather`).
# The store's offsets are not clamped: `tiles`.  (tl.dot is replaced by sums.) At -O2 the K loop is pipelined (pipeline-loads):
# the loads checked are the next iteration's, `prefetch = true`.
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 \
# RUN:   -D NUM_SMS=4 --signature '*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 \
# RUN:   -D NUM_SMS=4 --signature '*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                             GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        start_m = pid_m * BLOCK_SIZE_M
        start_n = pid_n * BLOCK_SIZE_N
        offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
            accumulator += tl.sum(a.to(tl.float32), axis=1)[:, None] + tl.sum(b.to(tl.float32), axis=0)[None, :]
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator, mask=c_mask)

# CHECK-LABEL: sym_name = "matmul_kernel_persistent"
# CHECK: "scf.for"
# CHECK: "scf.for"
# CHECK: %a = "tt.load"(%{{[^,]+}}, %{{[^,]+}}, %{{[^,)]+}}) {{{(prefetch = true, )?}}access = "wrapped-tiles"
# CHECK-SAME: (tensor<128x64x!tt.ptr<bf16>>, tensor<128x64xi1>, tensor<128x64xbf16>)
# CHECK: %b = "tt.load"(%{{[^,]+}}, %{{[^,]+}}, %{{[^,)]+}}) {{{(prefetch = true, )?}}access = "wrapped-tiles"
# CHECK-SAME: (tensor<64x128x!tt.ptr<bf16>>, tensor<64x128xi1>, tensor<64x128xbf16>)
# CHECK: "tt.store"(%c_ptrs, %{{[^,]+}}, %c_mask) {access = "tiles"
