"""Kernels for tests/codegen/memory/indexing/test_split_index.py: TorchInductor-style pointwise indexing with
``%`` and ``//`` of the flat index (periodic, row-broadcast, row-strided and transposed accesses)."""
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers


@triton.jit
def plain_copy(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tl.store(out_ptr0 + (xindex), tmp0, xmask)


@triton.jit
def split_copy(in_ptr0, out_ptr0, xnumel, C: tl.constexpr, XBLOCK: tl.constexpr):
    """out[x] = in[x0 + C*x1] with x0 = x % C, x1 = x // C (the same element)."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % C
    x1 = (xindex // C)
    tmp0 = tl.load(in_ptr0 + (x0 + C*x1), xmask)
    tl.store(out_ptr0 + (xindex), tmp0, xmask)


@triton.jit
def bias_relu(in_ptr0, in_ptr1, out_ptr0, xnumel, C: tl.constexpr, XBLOCK: tl.constexpr):
    """out[x] = relu(in[x] + bias[x % C])."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = (xindex % C)
    tmp0 = tl.load(in_ptr0 + (x2), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(out_ptr0 + (x2), tmp4, xmask)


@triton.jit
def row_ops(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, C: tl.constexpr, ROW: tl.constexpr,
            XBLOCK: tl.constexpr):
    """The brief's four accesses: contiguous (x0 + C*x1), periodic bias (x0), per-row scalar (x1),
    row-strided destination (x0 + ROW*x1)."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % C
    x1 = (xindex // C)
    tmp0 = tl.load(in_ptr0 + (x0 + C*x1), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr2 + (x1), xmask)
    tl.store(out_ptr0 + (x0 + ROW*x1), tmp0 * tmp2 + tmp1, xmask)


@triton.jit
def channel_affine(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, HW: tl.constexpr, CH: tl.constexpr,
                   XBLOCK: tl.constexpr):
    """NCHW per-channel scale and shift: x1 = (x // HW) % CH (Inductor's batch-norm idiom)."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x3 = xindex
    x1 = ((xindex // HW) % CH)
    tmp0 = tl.load(in_ptr0 + (x3), xmask)
    tmp1 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr2 + (x1), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 * tmp1 + tmp3
    tmp4 = tl.full([1], 0, tl.int32)
    tmp5 = triton_helpers.maximum(tmp4, tmp2)
    tl.store(out_ptr0 + (x3), tmp5, xmask)


@triton.jit
def head_transpose(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    """Inductor's clone/transpose of attention heads: in (B, 32, 2, 64) read as (B, 2, 32, 64)."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 64)
    x1 = ((xindex // 64) % 2)
    x2 = ((xindex // 128) % 32)
    x3 = xindex // 4096
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 64*x2 + 2048*x1 + 4096*x3), None)
    tl.store(out_ptr0 + (x4), tmp0, None)


@triton.jit
def transpose_store(in_ptr0, out_ptr0, xnumel, C: tl.constexpr, R: tl.constexpr, XBLOCK: tl.constexpr):
    """out[x0 * R + x1] = in[x] for x = x1 * C + x0: a scattered (stride-R) run per row."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % C
    x1 = xindex // C
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tl.store(out_ptr0 + (x1 + R*x0), tmp0, xmask)


@triton.jit
def split_i64(in_ptr0, in_ptr1, out_ptr0, xnumel, C: tl.constexpr, XBLOCK: tl.constexpr):
    """int64 indices: out[x] = in[x] + bias[x % C] * row[x // C]."""
    xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:].to(tl.int64)
    xmask = xindex < xnumel
    x0 = xindex % C
    x1 = xindex // C
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tl.load(in_ptr1 + (x1), xmask)
    tl.store(out_ptr0 + (xindex), tmp0 + tmp1 * tmp2, xmask)


@triton.jit
def signed_offset(in_ptr0, out_ptr0, xnumel, base, C: tl.constexpr, XBLOCK: tl.constexpr):
    """x = base + pid * XBLOCK + i with a run-time base of unknown sign: % and // round toward
    zero for negative x: not a split form (runs), a wrapped one whose runs are found at run time."""
    xindex = base + tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex % C + 2 * C), xmask)
    tl.store(out_ptr0 + (tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)), tmp0, xmask)


@triton.jit
def _index(xindex, KIND: tl.constexpr, C: tl.constexpr, D: tl.constexpr):
    x0 = xindex % C
    x1 = xindex // C
    if KIND == 0:
        idx = x0                          # periodic
    elif KIND == 1:
        idx = x1                          # each row's scalar, repeated C times
    elif KIND == 2:
        idx = x0 + D * x1                 # rows of C at stride D
    elif KIND == 3:
        idx = (xindex // C) % D + 2       # a channel index, Inductor's batch-norm idiom
    elif KIND == 4:
        idx = x1 + D * x0                 # transposed: stride D inside a row
    elif KIND == 5:
        idx = (C - 1 - x0) + C * x1       # each row reversed
    elif KIND == 6:
        idx = x0 + C * x1                 # the same element: contiguous
    elif KIND == 7:
        idx = xindex % 3 + 3 * (xindex // 2)   # periods 3 and 2: runs of one element
    else:
        idx = x0 + C * ((xindex // C) % 2) + 2 * C * (xindex // (2 * C))   # nested, contiguous again
    return idx


@triton.jit
def load_split(in_ptr0, out_ptr0, xnumel, KIND: tl.constexpr, C: tl.constexpr, D: tl.constexpr,
               I64: tl.constexpr, MASK: tl.constexpr, XBLOCK: tl.constexpr):
    """out[x] = in[index(x)] for x < xnumel (MASK 1: prefix mask, other -1, the whole block stored;
    0: no mask; 2: an all-true tl.full mask)."""
    if I64:
        xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    else:
        xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    idx = _index(xindex, KIND, C, D)
    if MASK == 1:
        tmp0 = tl.load(in_ptr0 + idx, xmask, other=-1.0)
        tl.store(out_ptr0 + xindex, tmp0)
    elif MASK == 2:
        tmp0 = tl.load(in_ptr0 + idx, tl.full([XBLOCK], True, tl.int1))
        tl.store(out_ptr0 + xindex, tmp0)
    else:
        tmp0 = tl.load(in_ptr0 + idx)
        tl.store(out_ptr0 + xindex, tmp0)


@triton.jit
def store_split(out_ptr0, xnumel, KIND: tl.constexpr, C: tl.constexpr, D: tl.constexpr,
                I64: tl.constexpr, XBLOCK: tl.constexpr):
    """out[index(x)] = 2 index(x) + 1 for x < xnumel: any writer of a repeated index writes the
    same value, so the result does not depend on the order of the programs."""
    if I64:
        xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    else:
        xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    idx = _index(xindex, KIND, C, D)
    tl.store(out_ptr0 + idx, idx.to(tl.float32) * 2.0 + 1.0, xmask)


@triton.jit
def odd_mask(in_ptr0, out_ptr0, xnumel, C: tl.constexpr, XBLOCK: tl.constexpr):
    """A mask that is not a prefix (every other element): the element-by-element path."""
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = (xindex < xnumel) & (xindex % 2 == 0)
    tmp0 = tl.load(in_ptr0 + (xindex % C), xmask, other=5.0)
    tl.store(out_ptr0 + xindex, tmp0, xindex < xnumel)


@triton.jit
def last_writer(out_ptr0, xnumel, C: tl.constexpr, XBLOCK: tl.constexpr):
    """out[x // C] = x: within one program the last element of each row writes last."""
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    tl.store(out_ptr0 + xindex // C, xindex.to(tl.float32), xindex < xnumel)


@triton.jit
def conv_weight_layout(in_ptr0, out_ptr0, ynumel, xnumel, C: tl.constexpr, KK: tl.constexpr,
                       YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    """Inductor's convolution weight re-layout with XBLOCK = 1: (YBLOCK, 1) tiles, a stride-KK load
    down the column and a store in rows of C at stride C*KK (y0 = y % C, y1 = y // C)."""
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % C)
    y1 = yindex // C
    tmp0 = tl.load(in_ptr0 + (x2 + KK*y3), xmask & ymask, eviction_policy='evict_last')
    tl.store(out_ptr0 + (y0 + C*x2 + C*KK*y1), tmp0, xmask & ymask)


@triton.jit
def strided_1d(in_ptr0, out_ptr0, n, M, S: tl.constexpr, T: tl.constexpr, BLOCK: tl.constexpr):
    """out[i * T] = in[i * S] for i < n, in programs below M (a scalar condition splat over the
    block); S and T constant strides (0: one element)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = (offs < n) & (pid < M)
    x = tl.load(in_ptr0 + offs * S, mask=m, other=-2.0)
    tl.store(out_ptr0 + offs * T, x + 1.0, mask=m)


@triton.jit
def tile_split(in_ptr0, out_ptr0, ynumel, xnumel, KIND: tl.constexpr, C: tl.constexpr, YN: tl.constexpr,
               XN: tl.constexpr, YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    """(YBLOCK, XBLOCK) tiles of Inductor's y/x kernels, masked by ymask & xmask:
    KIND 0: contiguous rows in, a transposed store (out[x, y]);
    KIND 1: rows in, stored as (y // C, x, y % C) (a convolution weight layout);
    KIND 2: a transposed load (in[x, y], other -1), contiguous rows out;
    KIND 3: rows split along x (x % C + 2C * (x // C), half of every 2C), contiguous rows out.
    YN and XN are ynumel and xnumel as constants (Inductor writes them into the kernel)."""
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = yindex % C
    y1 = yindex // C
    if KIND == 0:
        tmp0 = tl.load(in_ptr0 + (x2 + XN*y3), xmask & ymask)
        tl.store(out_ptr0 + (y3 + YN*x2), tmp0 * 2.0 + tmp0, xmask & ymask)
    elif KIND == 1:
        tmp0 = tl.load(in_ptr0 + (x2 + XN*y3), xmask & ymask, eviction_policy='evict_last')
        tl.store(out_ptr0 + (y0 + C*x2 + C*XN*y1), tmp0, xmask & ymask)
    elif KIND == 2:
        tmp0 = tl.load(in_ptr0 + (y3 + YN*x2), xmask & ymask, other=-1.0)
        tl.store(out_ptr0 + (x2 + XBLOCK*tl.num_programs(0)*y3), tmp0)
    else:
        tmp0 = tl.load(in_ptr0 + ((x2 % C) + 2*C*(x2 // C) + 2*C*XN*y3), xmask & ymask, other=-1.0)
        tl.store(out_ptr0 + (x2 + XBLOCK*tl.num_programs(0)*y3), tmp0)


@triton.jit
def loop_rows(in_ptr0, out_ptr0, rnumel, C: tl.constexpr, RBLOCK: tl.constexpr):
    """Sums over r of in[r % C + 2C * (r // C)] (the first half of every 2C), with r from the loop
    variable: r0_offset counts up from 0, so r is not negative."""
    acc = tl.zeros([RBLOCK], tl.float32)
    for r0_offset in tl.range(0, rnumel, RBLOCK):
        r0_index = r0_offset + tl.arange(0, RBLOCK)
        r0_mask = r0_index < rnumel
        acc += tl.load(in_ptr0 + (r0_index % C + 2 * C * (r0_index // C)), r0_mask, other=0.0)
    tl.store(out_ptr0 + tl.program_id(0), tl.sum(acc, 0))
