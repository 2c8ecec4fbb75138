"""An Inductor-style cumsum/cumprod kernel saved without its scan helper (as Inductor names them)."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_per_fused_cumsum_0(in_ptr0, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK: tl.constexpr):
    R0_BLOCK: tl.constexpr = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp2, = tl.associative_scan((tmp1,), 1, _triton_helper_fn_add0)
    tl.store(out_ptr0 + (r0_index + r0_numel * xindex), tmp2, r0_mask & xmask)
    tmp3 = tl.where(r0_mask, tmp1, 1.0)
    tmp4, = tl.associative_scan((tmp3,), 1, _triton_helper_fn_mul1)
    tl.store(out_ptr1 + (r0_index + r0_numel * xindex), tmp4, r0_mask & xmask)


@triton.jit
def unknown_helper(in_ptr0, XBLOCK: tl.constexpr):
    tmp0 = tl.load(in_ptr0 + tl.arange(0, XBLOCK))
    tmp1, = tl.associative_scan((tmp0,), 0, _triton_helper_fn_frobnicate0)
    tl.store(in_ptr0 + tl.arange(0, XBLOCK), tmp1)
