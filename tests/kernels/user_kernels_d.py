"""User-style kernels, fourth set (tests/kernels/test_user_kernels.py): tl.range with pipelining
options, optional pointers passed as None, Inductor's mask=None and all-true masks, its scan helper,
2-D tiled pointwise with y/x indices, negative axes."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math

from . import user_kernels_utils as U


@triton.jit
def softmax_persistent_stages(X, Y, n_rows, n_cols, stride, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    """The fused-softmax shape: a persistent row loop written with tl.range(..., num_stages=...)."""
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        row = tl.load(X + row_idx * stride + cols, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=-1)
        num = tl.exp(row_minus_max)
        den = tl.sum(num, axis=-1)
        tl.store(Y + row_idx * stride + cols, num / den, mask=mask)


@triton.jit
def optional_bias(X, Bias, Y, n, BLOCK: tl.constexpr):
    """Bias may be None (a constexpr None, as Triton specializes a None argument)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if Bias is not None:
        x += tl.load(Bias + offs, mask=mask)
    tl.store(Y + offs, x * 2, mask=mask)


@triton.jit
def triton_poi_fused_mul_sigmoid_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    """xnumel a multiple of XBLOCK: Inductor drops the mask (mask None, all-true xmask)."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = tl.sigmoid(tmp0)
    tmp2 = tmp0 * tmp1
    tmp3 = tl_math.abs(tmp2)
    tmp4 = libdevice.isnan(tmp0).to(tl.int1)
    tmp5 = tl.where(tmp4 | ~xmask, 0.0, tmp3)
    tl.store(out_ptr0 + (x0), tmp5, None)


@triton.jit
def _triton_helper_fn_add0(arg0_0, arg1_0):
    tmp0 = arg0_0 + arg1_0
    return tmp0


@triton.jit
def triton_per_fused_cumsum_1(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr):
    RBLOCK: tl.constexpr = 32
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    rmask = rindex < rnumel
    r1 = rindex
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r1 + (rnumel*x0)), rmask & xmask, other=0.0)
    tmp1 = tmp0.to(tl.float32)
    tmp2 = tl.broadcast_to(tmp1, [XBLOCK, RBLOCK])
    tmp3, = tl.associative_scan((tmp2,), 1, _triton_helper_fn_add0)
    tl.store(out_ptr0 + (r1 + (rnumel*x0)), tmp3, rmask & xmask)


@triton.jit
def triton_poi_fused_clone_transpose_2(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK: tl.constexpr,
                                       XBLOCK: tl.constexpr):
    """out[y, x] = in[x, y] * 3 for a [xnumel, ynumel] input: Inductor's 2-D tiled pointwise."""
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[None, :]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (y0 + ynumel*x1), xmask & ymask, eviction_policy='evict_last')
    tmp1 = 3.0
    tmp2 = tmp0 * tmp1
    tl.store(out_ptr0 + (x1 + xnumel*y0), tmp2, xmask & ymask)


@triton.jit
def triton_red_fused_any_prod_3(in_ptr0, out_ptr0, out_ptr1, xnumel, rnumel, XBLOCK: tl.constexpr,
                                RBLOCK: tl.constexpr):
    """Per row: any(x > 2) as a bool and the product of (1 + x/8), both over an r loop."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    _tmp3 = tl.full([XBLOCK, RBLOCK], False, tl.int1)
    _tmp7 = tl.full([XBLOCK, RBLOCK], 1, tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (r1 + (rnumel*x0)), rmask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = 2.0
        tmp2 = tmp0 > tmp1
        _tmp3 = _tmp3 | tl.where(rmask & xmask, tmp2, False)
        tmp5 = 0.125
        tmp6 = 1.0 + tmp0 * tmp5
        _tmp7 = tl.where(rmask & xmask, _tmp7 * tmp6, _tmp7)
    tmp3 = triton_helpers.any(_tmp3, 1)[:, None]
    tmp7 = triton_helpers.prod(_tmp7, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp3, xmask)
    tl.store(out_ptr1 + (x0), tmp7, xmask)


@triton.jit
def int8_abs_minmax(X, Out, n, BLOCK: tl.constexpr):
    """int8 data: |x| (-128 wraps, as in C), per-program min/max kept as int8, and a sum in int32."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    tl.store(Out + offs, tl.abs(x), mask=mask)
    big = tl.where(mask, x, -128)
    small = tl.where(mask, x, 127)
    base = n + 4 * tl.program_id(0)
    tl.store(Out + base, tl.max(big, axis=0).to(tl.int8))
    tl.store(Out + base + 1, tl.min(small, axis=0).to(tl.int8))
    s = tl.sum(x, axis=0)
    tl.store(Out + base + 2, (s & 0x7F).to(tl.int8))
    tl.store(Out + base + 3, (s >> 8).to(tl.int8))


@triton.jit
def nested_loops_static_inner(X, Y, n_rows, K: tl.constexpr, BLOCK: tl.constexpr):
    """Two nested run-time loops, a static_range innermost, a scalar accumulator carried through all."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    total = 0.0
    for r in tl.range(0, n_rows, 2, loop_unroll_factor=2):
        for c0 in range(0, K, BLOCK):
            acc = tl.zeros([BLOCK], tl.float32)
            for j in tl.static_range(2):
                rr = r + j
                acc += tl.load(X + (pid * n_rows + rr) * K + c0 + cols, mask=(rr < n_rows) & (c0 + cols < K),
                               other=0.0) * (j + 1)
            total += tl.sum(acc, axis=0)
    tl.store(Y + pid, total)


@triton.autotune(configs=[
    triton.Config({"BLOCK": 32}, num_warps=2),
    triton.Config({"BLOCK": 64}, num_warps=4),
], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit(do_not_specialize=["n"])
def autotuned_leaky(X, Y, n, slope, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    """The decorator stack of a tuned kernel, a helper reached as `U.leaky` (`from . import module`)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(X + offs)
    else:
        x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, U.leaky(x, slope), mask=offs < n)


@triton.jit
def bool_arith(A, B, Out, n, BLOCK: tl.constexpr):
    """Arithmetic on booleans stays int1 and wraps at one bit (Triton): + and - are xor, * is and;
    bool + 1 is an int32 count; the same on scalars."""
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask, other=0) > 0
    b = tl.load(B + offs, mask=mask, other=0) > 0
    tl.store(Out + offs, (a + b).to(tl.int32), mask=mask)
    tl.store(Out + n + offs, (a * b).to(tl.int32), mask=mask)
    tl.store(Out + 2 * n + offs, (a - b).to(tl.int32), mask=mask)
    tl.store(Out + 3 * n + offs, a + 1 + b, mask=mask)
    sa = tl.load(A) > 0
    sb = tl.load(B) > 0
    tl.store(Out + 4 * n, (sa + sb).to(tl.int32))
    tl.store(Out + 4 * n + 1, (sa * sb).to(tl.int32))


@triton.jit
def half_div_mod(H, Out, n, BLOCK: tl.constexpr):
    """Triton 3.9 computes `/` and `%` with an fp16/bf16 operand in f32, and the result is f32."""
    offs = tl.arange(0, BLOCK)
    h = tl.load(H + offs, mask=offs < n, other=1.0)
    tl.store(Out + offs, h / 3, mask=offs < n)
    tl.store(Out + n + offs, h % 1.5, mask=offs < n)
