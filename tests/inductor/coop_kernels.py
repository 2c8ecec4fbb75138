"""Kernels in TorchInductor's style for triton_helpers' searching, packing, random and cross-program
helpers (written for these tests; tests/inductor/test_helpers_more.py runs them against numpy)."""
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def _triton_helper_fn_add0(arg0_0, arg1_0):
    tmp0 = arg0_0 + arg1_0
    return tmp0


@triton.jit
def poi_bucketize(in_ptr0, in_ptr1, in_ptr2, out_ptr0, out_ptr1, out_ptr2, xnumel, NB: tl.constexpr,
                  XBLOCK: tl.constexpr):
    # values in_ptr0 (2 rows of xnumel), boundaries in_ptr1 (2 sets of NB, row r for values row r),
    # a sorter in_ptr2 for boundaries that are not sorted
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
    xmask = xindex < 2 * xnumel
    tmp0 = tl.load(in_ptr0 + xindex, xmask, other=0.0)
    row = (xindex // xnumel) * NB
    tmp1 = triton_helpers.bucketize_binary_search(tmp0, in_ptr1, NB, 2 * NB, 1, row, tl.int64, False,
                                                  None, None, None, )
    tmp2 = triton_helpers.bucketize_binary_search(tmp0, in_ptr1, NB, 2 * NB, 1, row, tl.int32, True,
                                                  None, None, None, )
    tmp3 = triton_helpers.bucketize_binary_search(tmp0, in_ptr1 + 2 * NB, NB, 2 * NB, 1, row, tl.int32,
                                                  False, in_ptr2, 1, row, )
    tl.store(out_ptr0 + xindex, tmp1, xmask)
    tl.store(out_ptr1 + xindex, tmp2, xmask)
    tl.store(out_ptr2 + xindex, tmp3, xmask)


@triton.jit
def per_packing(in_ptr0, out_ptr0, out_ptr1, out_ptr2, XBLOCK: tl.constexpr, PACK: tl.constexpr, RSPLIT: tl.constexpr):
    # inline_asm_pack / inline_asm_unpack, pack_value_flag / unpack_value / unpack_flag, if_mask,
    # constexpr_next_power_of_2
    RSPLIT_NEXT_POWER_OF_2: tl.constexpr = triton_helpers.constexpr_next_power_of_2(RSPLIT)
    xindex = tl.arange(0, XBLOCK)
    tmp0 = tl.load(in_ptr0 + xindex)
    tmp1 = triton_helpers.inline_asm_pack(tmp0, PACK)
    tl.static_assert(tmp1.numel == (PACK if PACK > XBLOCK else XBLOCK))
    tmp2 = triton_helpers.inline_asm_unpack(tmp1 * 2.0, tmp0, PACK)
    tmp3 = triton_helpers.pack_value_flag(tmp0, (xindex % 3).to(tl.uint32), tl.uint32, tl.uint64)
    tmp4 = triton_helpers.unpack_value(tmp3, tl.float32, tl.uint32)
    tmp5 = triton_helpers.unpack_flag(tmp3, tl.uint32)
    r = tl.arange(0, RSPLIT_NEXT_POWER_OF_2)
    tmp6 = tl.load(in_ptr0 + r, r < RSPLIT, other=triton_helpers.if_mask(r < RSPLIT, -1.0))
    tmp7 = tl.load(in_ptr0 + r, None, other=triton_helpers.if_mask(None, -1.0))
    tl.store(out_ptr0 + xindex, tmp2 + tmp4)
    tl.store(out_ptr1 + xindex, tmp5)
    tl.store(out_ptr2 + r, tmp6 + tmp7)


@triton.jit
def poi_random(in_ptr0, out_ptr0, out_ptr1, out_ptr2, out_ptr3, load_seed_offset, base, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    tmp0 = tl.load(in_ptr0 + load_seed_offset)
    tmp1 = triton_helpers.rand4x(tmp0, (xindex).to(tl.uint32), XBLOCK)
    tmp2 = triton_helpers.randn4x(tmp0, (xindex).to(tl.uint32), XBLOCK)
    tmp3 = triton_helpers.randint64(tmp0, (xindex).to(tl.uint32), -5, 1000003)
    tmp4 = triton_helpers.rand_eager_kernel(tmp0, base + ((xindex).to(tl.uint32) // 64) * 2,
                                            (xindex).to(tl.uint32) % 64, VEC=8)
    tl.store(out_ptr0 + xindex, tmp1)
    tl.store(out_ptr1 + xindex, tmp2)
    tl.store(out_ptr2 + xindex, tmp3)
    tl.store(out_ptr3 + xindex, tmp4)


@triton.jit
def red_split_scan(in_ptr0, out_ptr0, ws_ptr, RBLOCK: tl.constexpr):
    # cumulative sum of RBLOCK * num_programs int32: each program's block total crosses programs by
    # exclusive_scan_decoupled_lookback (values packed with their flags in uint64 words)
    pid = tl.program_id(0)
    rindex = pid * RBLOCK + tl.arange(0, RBLOCK)
    tmp0 = tl.load(in_ptr0 + rindex)
    tmp1 = tl.reduce(tmp0, 0, _triton_helper_fn_add0)
    for i in range((8 - pid) * 20):    # earlier programs publish later: the look-back waits for them
        tmp1 += tl.load(in_ptr0 + i % RBLOCK) * 0
    tmp2 = triton_helpers.exclusive_scan_decoupled_lookback(ws_ptr, tmp1, pid, _triton_helper_fn_add0,
                                                            DTYPE_VALUE_AS_UINT=tl.uint32, DTYPE_PACK=tl.uint64)
    tmp3 = tl.associative_scan(tmp0, 0, _triton_helper_fn_add0)
    tl.store(out_ptr0 + rindex, tmp3 + tmp2)


@triton.jit
def red_split_scan_64(in_ptr0, out_ptr0, ws_ptr, RBLOCK: tl.constexpr):
    # the same for float64 values: exclusive_scan_decoupled_lookback_64 (three uint64 per program)
    pid = tl.program_id(0)
    rindex = pid * RBLOCK + tl.arange(0, RBLOCK)
    tmp0 = tl.load(in_ptr0 + rindex)
    tmp1 = tl.reduce(tmp0, 0, _triton_helper_fn_add0)
    for i in range((8 - pid) * 20):    # earlier programs publish later: the look-back waits for them
        tmp1 += tl.load(in_ptr0 + i % RBLOCK) * 0
    tmp2 = triton_helpers.exclusive_scan_decoupled_lookback_64(ws_ptr, tmp1, pid, _triton_helper_fn_add0)
    tmp3 = tl.associative_scan(tmp0, 0, _triton_helper_fn_add0)
    tl.store(out_ptr0 + rindex, tmp3 + tmp2)


@triton.jit
def red_cooperative(in_ptr0, out_ptr0, ws_ptr, sem_ptr, RBLOCK: tl.constexpr):
    # every program of axis 0 writes its partial sum, waits at x_grid_barrier, then sums them all;
    # twice, to reuse the semaphore
    pid = tl.program_id(0)
    n = tl.num_programs(0)
    tmp0 = tl.load(in_ptr0 + pid * RBLOCK + tl.arange(0, RBLOCK))
    part = tl.sum(tmp0, 0)
    for i in range(pid * 30):          # later programs arrive later (a read each time: not folded away)
        part += tl.load(in_ptr0 + i % RBLOCK) * 0.0
    tl.store(ws_ptr + pid, part)
    triton_helpers.x_grid_barrier(sem_ptr)
    tmp1 = tl.load(ws_ptr + tl.arange(0, 8), tl.arange(0, 8) < n, other=0.0)
    total = tl.sum(tmp1, 0)
    triton_helpers.x_grid_barrier(sem_ptr)
    tl.store(ws_ptr + pid, total * (pid + 1))
    triton_helpers.x_grid_barrier(sem_ptr)
    tmp2 = tl.load(ws_ptr + tl.arange(0, 8), tl.arange(0, 8) < n, other=0.0)
    tl.store(out_ptr0 + pid, tl.sum(tmp2, 0))
