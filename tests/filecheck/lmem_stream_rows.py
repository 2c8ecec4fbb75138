# The local-memory ladder's later steps, at small local memories (tests/opt/test_lmem_sweep.py runs them):
# * stream-blocks in a loop over rows: a persistent softmax's 16384-element fp32 row (64 KiB, and its stored block in
#   two buffers: the previous row's store reads one) does not fit 96 KiB; the row loop's body is streamed in chunks
#   of 512, three passes over the row (max, sum, store), and the row loop's ladder attribute says so.
# RUN: mtiacc %s -n softmax_rows -s '*fp32,*fp32,i32,i32' -D BLOCK=16384 --set pe.local_memory_bytes=98304 \
# RUN:   --emit=ir --remarks 2>&1 | filecheck %s --check-prefix=ROWS
# ROWS: remark: stream-blocks: blocks of 16384 elements do not fit in local memory (94144 bytes for blocks): 2 reduction(s) and 1 store(s) computed in chunks of 512
# ROWS: lmem_capacity = 94144, lmem_stack = 4096, lmem_peak = 26624
# ROWS: "scf.for"({{.*}}) {ladder = "stream-blocks: blocks of 16384 elements in each trip do not fit 94144 bytes: streamed in chunks of 512"
# ROWS: "scf.for"({{.*}}) {split = "stream 16384 by 512"
# ROWS-NOT: tensor<16384xf32>
# At 384 KiB the row fits: the loop is pipelined as written, nothing streamed.
# RUN: mtiacc %s -n softmax_rows -s '*fp32,*fp32,i32,i32' -D BLOCK=16384 --emit=ir --remarks 2>&1 \
# RUN:   | filecheck %s --check-prefix=ROWS-BIG
# ROWS-BIG-NOT: remark
# ROWS-BIG: lmem_capacity = 389056, lmem_stack = 4096, lmem_peak = 327680
# ROWS-BIG-NOT: ladder
# * back-off: a layer norm with 4096-element blocks at 192 KiB.  keep-invariant keeps W's and B's tiles for the
#   slot's later programs in what the plan leaves, prefetch-rows and pipeline-loads fetch ahead in what is left,
#   and the blocks then took 4160 bytes more than local memory holds; codegen found no room either, so the passes
#   ran again planning for 8192 bytes less (lmem_backoff): keep-invariant keeps no tile, and the plan fits.
# RUN: mtiacc %s -n layer_norm -s '*fp32,*fp32,*fp32,*fp32,i32,fp32' -D BLOCK=4096 \
# RUN:   --set pe.local_memory_bytes=196608 --emit=ir --remarks 2>&1 | filecheck %s --check-prefix=BACK
# BACK: remark: keep-invariant: tile of 16384 bytes not kept
# BACK: remark: lmem-backoff: after the passes the blocks took 4160 bytes more than local memory holds: the passes ran again planning for 8192 bytes less
# BACK: lmem_backoff = 8192, lmem_capacity = 192448, lmem_stack = 4096, lmem_peak = 163840,
# RUN: mtiacc %s -n layer_norm -s '*fp32,*fp32,*fp32,*fp32,i32,fp32' -D BLOCK=4096 --emit=ir --remarks 2>&1 \
# RUN:   | filecheck %s --check-prefix=BACK-BIG
# BACK-BIG-NOT: lmem-backoff
# BACK-BIG-NOT: lmem_backoff
# * narrower column loops: the layer norm with 16384-element blocks (tutorial 05's BLOCK_SIZE for rows of 16384 and
#   more) carries a 64 KiB partial sum beside the 64 KiB block it loads, over 128 KiB's 126912 bytes for blocks: each
#   of its three loops runs in trips of 2048 columns (ladder attribute), its partial sums are of 2048 elements and
#   the reductions after the loops read those.
# RUN: mtiacc %s -n layer_norm -s '*fp32,*fp32,*fp32,*fp32,i32,fp32' -D BLOCK=16384 \
# RUN:   --set pe.local_memory_bytes=131072 --emit=ir --remarks 2>&1 | filecheck %s --check-prefix=COLS
# COLS-COUNT-3: remark: stream-blocks: blocks of 16384 elements in each trip of the loop do not fit in local memory (126912 bytes for blocks): trips of 2048 columns (estimated cost: 8 times as many trips, the same bytes read)
# COLS: lmem_capacity = 126912, lmem_stack = 4096, lmem_peak = 122880
# COLS: "scf.for"({{.*}}) {ladder = "stream-blocks: blocks of 16384 columns in each trip do not fit 126912 bytes: trips of 2048 columns"
# COLS: "tt.reduce"({{.*}}) {axis = 0, kind = "sum"} : (tensor<2048xf32>) -> f32
# COLS-NOT: tensor<16384x
# * the stored block's second buffer seen ahead: with 8192-element blocks at 128 KiB the third loop's x, W and B
#   blocks (32 KiB each) and its stored block fit 126912 bytes only while that block has one buffer.  When
#   stream-blocks runs, the stored value is still a math.fma of (x - mean) * rstd, W and B; fuse-elementwise makes
#   it a fused op afterwards, and codegen then gives it two buffers (the previous trip's store reads one): 163840
#   bytes.  The plan sees that fusion ahead, so the loops run in trips of 2048 columns (the back-off could not
#   help: its first reserve, 73728 bytes, is over half of local memory).
# RUN: mtiacc %s -n layer_norm -s '*fp32,*fp32,*fp32,*fp32,i32,fp32' -D BLOCK=8192 \
# RUN:   --set pe.local_memory_bytes=131072 --emit=ir --remarks 2>&1 | filecheck %s --check-prefix=FMA
# FMA-COUNT-3: remark: stream-blocks: blocks of 8192 elements in each trip of the loop do not fit in local memory (126912 bytes for blocks): trips of 2048 columns (estimated cost: 4 times as many trips, the same bytes read)
# FMA-NOT: lmem-backoff
# FMA: lmem_capacity = 126912, lmem_stack = 4096, lmem_peak = 122880
# FMA: "scf.for"({{.*}}) {ladder = "stream-blocks: blocks of 8192 columns in each trip do not fit 126912 bytes: trips of 2048 columns"
# FMA-NOT: tensor<8192x
import triton
import triton.language as tl


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    """Each program takes rows first, first + programs, ... (a persistent loop over rows, as tutorial 02's)."""
    cols = tl.arange(0, BLOCK)
    for r in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x = tl.load(in_ptr + r * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + r * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def layer_norm(X, Y, W, B, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    part = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        part += tl.load(X + cols, mask=cols < N, other=0.0)
    mean = tl.sum(part, axis=0) / N
    part = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        d = tl.where(cols < N, tl.load(X + cols, mask=cols < N, other=0.0) - mean, 0.0)
        part += d * d
    rstd = 1 / tl.sqrt(tl.sum(part, axis=0) / N + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(X + cols, mask=m, other=0.0)
        tl.store(Y + cols, (x - mean) * rstd * tl.load(W + cols, mask=m) + tl.load(B + cols, mask=m), mask=m)
