# access-plan `wrapped-tiles`: Triton's matmul tutorial (03) indexes its operand tiles with wrapped
# offsets, `(pid_m * BLOCK_SIZE_M + arange) % M` on a's rows and `% N` on b's columns (M, N run-time
# scalars), carries the pointers through the K loop (`a_ptrs += BLOCK_SIZE_K * stride_ak`, offsets after
# carry-pointer-offsets) and masks the K axis only: both loads move by runs of DRAM rows, not element by
# element (`gather`).  The store's offsets are not wrapped: `tiles`.  (tl.dot is replaced by sums.)
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 \
# RUN:   --signature '*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 \
# RUN:   --signature '*bf16,*bf16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32' | filecheck %s
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
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator += tl.sum(a.to(tl.float32), axis=1)[:, None] + tl.sum(b.to(tl.float32), axis=0)[None, :]
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)

# CHECK-LABEL: sym_name = "matmul_kernel"
# CHECK: "scf.for"
# CHECK: %a = "tt.load"(%{{[^,]+}}, %{{[^,]+}}, %{{[^,)]+}}) {{[{](prefetch = true, )?}}access = "wrapped-tiles"
# CHECK-SAME: (tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi1>, tensor<64x32xbf16>)
# CHECK: %b = "tt.load"(%{{[^,]+}}, %{{[^,]+}}, %{{[^,)]+}}) {{[{](prefetch = true, )?}}access = "wrapped-tiles"
# CHECK-SAME: (tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi1>, tensor<32x64xbf16>)
# CHECK: "tt.store"(%c_ptrs, %{{[^,]+}}, %c_mask) {access = "tiles"
