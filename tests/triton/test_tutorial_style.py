"""Host code and kernels in the style of Triton's tutorials (vector add, fused softmax, matrix multiplication,
layer norm forward and backward), run as written on the ``cpu`` backend: the active torch device, device
properties, ``kernel.warmup`` and the compiled kernel's resources, ``@triton.autotune`` over grouped program
ids, locks taken with ``atomic_cas`` / ``atomic_xchg``, autograd around the launches, ``do_bench`` and
``perf_report``.  Kernels are at module level: mtiacc compiles them from this file."""
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402
from tests.kernels.user_kernels import layer_norm_fwd  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")

DEVICE = triton.runtime.driver.active.get_active_torch_device()


# ---------------------------------------------------------------------------------------------------------- 01
@triton.jit
def vec_add_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a + b, mask=mask)


def vec_add(a: torch.Tensor, b: torch.Tensor):
    out = torch.empty_like(a)
    assert a.device == DEVICE and b.device == DEVICE and out.device == DEVICE
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
    vec_add_kernel[grid](a, b, out, n_elements, BLOCK_SIZE=512)
    return out


def test_vector_add_host_code_as_in_the_tutorial():
    torch.manual_seed(0)
    size = 4321
    a = torch.rand(size, device=DEVICE)
    b = torch.rand(size, device=DEVICE)
    torch.testing.assert_close(vec_add(a, b), a + b)
    quantiles = [0.5, 0.2, 0.8]
    ms, min_ms, max_ms = triton.testing.do_bench(lambda: vec_add(a, b), quantiles=quantiles)
    assert 0 < min_ms <= ms <= max_ms < 1            # microseconds of simulated chip time


def benchmark(size, provider):
    """A benchmark function as the tutorials decorate with ``triton.testing.perf_report`` (which needs pandas
    and matplotlib to tabulate and plot; the function itself is what runs)."""
    a = torch.rand(size, device=DEVICE, dtype=torch.float32)
    b = torch.rand(size, device=DEVICE, dtype=torch.float32)
    quantiles = [0.5, 0.2, 0.8]
    if provider == 'torch':
        ms, min_ms, max_ms = triton.testing.do_bench(lambda: a + b, quantiles=quantiles)
    if provider == 'triton':
        ms, min_ms, max_ms = triton.testing.do_bench(lambda: vec_add(a, b), quantiles=quantiles)
    gbps = lambda ms: 3 * a.numel() * a.element_size() * 1e-9 / (ms * 1e-3)  # noqa: E731
    return gbps(ms), gbps(max_ms), gbps(min_ms)


def test_a_benchmark_times_kernels_on_the_chip_and_torch_on_the_host():
    from mtiacc.triton_backend import clock
    t0 = clock.now_s()
    gbps, low, high = benchmark(1 << 16, 'triton')
    launched_ms = (clock.now_s() - t0) * 1e3                 # do_bench ran the kernel once: the chip's time
    assert gbps == low == high == pytest.approx(3 * 4 * (1 << 16) * 1e-9 / (launched_ms * 1e-3))
    t0 = clock.now_s()
    gbps, low, high = benchmark(1 << 16, 'torch')            # no launch: the host's clock, over a few calls
    assert clock.now_s() == t0 and low <= gbps <= high and gbps > 0


# ---------------------------------------------------------------------------------------------------------- 02
@triton.jit
def softmax_rows_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                        BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


properties = triton.runtime.driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    kernel = softmax_rows_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                        num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    n_regs = kernel.n_regs
    size_smem = kernel.metadata.shared
    occupancy = NUM_REGS // (n_regs * WARP_SIZE * num_warps)
    occupancy = min(occupancy, SIZE_SMEM // size_smem)
    num_programs = min(NUM_SM * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y, kernel, num_programs


def test_fused_softmax_with_warmup_and_occupancy_as_in_the_tutorial():
    assert not is_hip()
    assert NUM_SM == 64 and SIZE_SMEM > 0 and NUM_REGS > 0 and WARP_SIZE > 0
    torch.manual_seed(0)
    x = torch.randn(97, 181, device=DEVICE)
    y, kernel, num_programs = softmax(x)
    torch.testing.assert_close(y, torch.softmax(x, axis=1))
    assert kernel.n_spills == 0 and kernel.n_regs > 0
    # a program holds at least its row block (256 fp32) and its arguments in local memory
    assert 256 * 4 <= kernel.metadata.shared <= SIZE_SMEM
    assert 1 <= num_programs <= 97
    # more rows than programs: each program loops over rows num_programs apart
    x2 = torch.randn(600, 33, device=DEVICE)
    y2, _, programs2 = softmax(x2)
    assert programs2 < 600
    torch.testing.assert_close(y2, torch.softmax(x2, axis=1))


# ---------------------------------------------------------------------------------------------------------- 03
def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def matmul_configs():
    return [
        triton.Config({'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 2}, num_stages=2,
                      num_warps=4),
        # a config in the style of the tutorial's HIP list: backend options among the kwargs
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 4,
                       'waves_per_eu': 2}, num_stages=3, num_warps=8),
    ]


@triton.autotune(configs=matmul_configs(), key=['M', 'N', 'K'])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


def matmul(a, b, activation=""):
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    assert a.is_contiguous(), "Matrix A must be contiguous"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) * triton.cdiv(N, META['BLOCK_SIZE_N']), )  # noqa
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), ACTIVATION=activation)
    return c


def test_autotuned_grouped_matmul_as_in_the_tutorial():
    assert not is_cuda()
    torch.manual_seed(0)
    a = torch.randn((150, 72), device=DEVICE, dtype=torch.float16)
    b = torch.randn((72, 130), device=DEVICE, dtype=torch.float16)
    triton_output = matmul(a, b)
    torch_output = torch.matmul(a.float(), b.float()).half()
    torch.testing.assert_close(triton_output, torch_output, atol=1e-2, rtol=1e-2)
    assert len(matmul_kernel.configs_timings) == 2
    best = matmul_kernel.best_config
    assert matmul_kernel.configs_timings[best][0] == min(t[0] for t in matmul_kernel.configs_timings.values())
    # the activation (a second compile: ACTIVATION is a constexpr), on a transposed view of b
    bt = torch.randn((130, 72), device=DEVICE, dtype=torch.float16).t()
    out = matmul(a, bt, activation="leaky_relu")
    ref = torch.nn.functional.leaky_relu(torch.matmul(a.float(), bt.float()), 0.01).half()
    torch.testing.assert_close(out, ref, atol=1e-2, rtol=1e-2)


# ---------------------------------------------------------------------------------------------------------- 05
# the forward kernel is the one the kernel tests run (tests/kernels/user_kernels.py)
_ln_fwd_fused = layer_norm_fwd


@triton.jit
def _ln_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def _ln_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


class LayerNormFn(torch.autograd.Function):

    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        y = torch.empty_like(x)
        x_arg = x.reshape(-1, x.shape[-1])
        M, N = x_arg.shape
        mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
        MAX_FUSED_SIZE = 65536 // x.element_size()
        BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
        if N > BLOCK_SIZE:
            raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
        num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
        _ln_fwd_fused[(M, )](x_arg, y, weight, bias, mean, rstd, x_arg.stride(0), N, eps, BLOCK_SIZE=BLOCK_SIZE,
                             num_warps=num_warps, num_ctas=1)
        ctx.save_for_backward(x, weight, bias, mean, rstd)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.eps = eps
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, b, m, v = ctx.saved_tensors
        N = w.shape[0]
        GROUP_SIZE_M = 16
        if N <= 1024:
            GROUP_SIZE_M = 32
        locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32, device=w.device)
        _dw = torch.zeros((GROUP_SIZE_M, N), dtype=x.dtype, device=w.device)
        _db = torch.zeros((GROUP_SIZE_M, N), dtype=x.dtype, device=w.device)
        dw = torch.empty((N, ), dtype=w.dtype, device=w.device)
        db = torch.empty((N, ), dtype=w.dtype, device=w.device)
        dx = torch.empty_like(dy)
        x_arg = x.reshape(-1, x.shape[-1])
        M, N = x_arg.shape
        _ln_bwd_dx_fused[(M, )](dx, dy, _dw, _db, x, w, m, v, locks, x_arg.stride(0), N, BLOCK_SIZE_N=ctx.BLOCK_SIZE,
                                GROUP_SIZE_M=GROUP_SIZE_M, num_warps=ctx.num_warps)
        grid = lambda meta: (triton.cdiv(N, meta['BLOCK_SIZE_N']), )  # noqa: E731
        _ln_bwd_dwdb[grid](_dw, _db, dw, db, min(GROUP_SIZE_M, M), N, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128, num_ctas=1)
        return dx, None, dw, db, None


layer_norm = LayerNormFn.apply


def test_layer_norm_forward_and_backward_as_in_the_tutorial():
    M, N, dtype, eps = 70, 200, torch.float16, 1e-5
    torch.manual_seed(0)
    x_shape = (M, N)
    w_shape = (x_shape[-1], )
    weight = torch.rand(w_shape, dtype=dtype, device=DEVICE, requires_grad=True)
    bias = torch.rand(w_shape, dtype=dtype, device=DEVICE, requires_grad=True)
    x = -2.3 + 0.5 * torch.randn(x_shape, dtype=dtype, device=DEVICE)
    dy = .1 * torch.randn_like(x)
    x.requires_grad_(True)
    y_tri = layer_norm(x, w_shape, weight, bias, eps)
    y_tri.backward(dy, retain_graph=True)
    dx_tri, dw_tri, db_tri = [_.grad.clone() for _ in [x, weight, bias]]
    x.grad, weight.grad, bias.grad = None, None, None
    # the reference in float32 (half-precision layer norm has no CPU kernel in every torch build)
    xf, wf, bf = (t.detach().float().requires_grad_(True) for t in (x, weight, bias))
    y_ref = torch.nn.functional.layer_norm(xf, w_shape, wf, bf, eps)
    y_ref.backward(dy.float(), retain_graph=True)
    torch.testing.assert_close(y_tri, y_ref.to(dtype), atol=1e-2, rtol=0)
    torch.testing.assert_close(dx_tri, xf.grad.to(dtype), atol=1e-2, rtol=0)
    torch.testing.assert_close(db_tri, bf.grad.to(dtype), atol=1e-2, rtol=0)
    torch.testing.assert_close(dw_tri, wf.grad.to(dtype), atol=1e-2, rtol=0)
