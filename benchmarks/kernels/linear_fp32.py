"""nn.Linear's GEMM as Inductor's default-mode template computes it on the chip (``out = a @ w.T + bias``, the weight
``[N, K]`` row-major, read transposed), its dot's operand type and precision constexprs (``DOT_TYPE``,
``INPUT_PRECISION``), as ``mtiacc/torch_backend/precision.py`` sets them.  ``benchmarks/bench_fp32_gemm.py``
compiles it."""
import triton
import triton.language as tl


@triton.jit
def linear_kernel(bias_ptr, a_ptr, w_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  INPUT_PRECISION: tl.constexpr, DOT_TYPE: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptr + rm[:, None] * K + (offs_k[None, :] + k * BLOCK_K))
        b = tl.load(w_ptr + rn[None, :] * K + (offs_k[:, None] + k * BLOCK_K))
        acc += tl.dot(a.to(DOT_TYPE), b.to(DOT_TYPE), input_precision=INPUT_PRECISION, out_dtype=tl.float32)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    bias = tl.load(bias_ptr + rn[None, :] + 0 * rm[:, None], mask)
    tl.store(c_ptr + rn[None, :] + N * rm[:, None], acc + bias, mask)
