# A K loop of a constant 12 trips (BERT-base's 768-wide GEMM, 128 x 128 x 64 tiles, bf16): loop-unroll leaves it to
# pipeline-dots, which unrolls it by as many stages as the local-memory plan holds (4: 4 x 32 KiB of tiles, no
# more than half of local memory), never by every trip: a fully unrolled loop fetched all 12 trips' tiles ahead and
# sent each product's 64 KiB of accumulators to local memory and back, and did not fit.  The accumulators stay in
# the engine across the loop; the plan's peak (the stages' tiles, the next program's first tiles and the 128 x 128
# bf16 result tile, stored under the next program from a buffer of its own) fits the 389,056 bytes for blocks.
# RUN: mtiacc %s --emit=ir --signature '*bf16,*bf16,*bf16' | filecheck %s
# CHECK: lmem_capacity = 389056, lmem_stack = 4096, lmem_peak = 163840,
# CHECK: "scf.for"({{.*}}) {pipeline_stages = 4, pipeline = 2
# CHECK-COUNT-4: "tt.dot"({{.*}}) {accumulator = "engine"
# CHECK-NOT: "tt.dot"
# CHECK: "scf.yield"
# CHECK-NOT: "tt.dot"
# CHECK: "tt.store"
# With a third of the local memory two stages of the 128 x 128 tile's tiles (64 KiB) do not fit beside the loop's
# result's home (its 64 KiB of fp32, from the loop's start): band-accumulators runs the loop once per band of 64
# columns (B's band re-read: 16 KiB a trip), which pipeline-dots then pipelines in 2 stages, the accumulators in the
# engine (simulated on its 6 programs at that memory: 28,428 cycles in one stage unbanded, 21,641 banded).
# RUN: mtiacc %s --emit=ir --remarks --set pe.local_memory_bytes=131072 --signature '*bf16,*bf16,*bf16' 2>&1 \
# RUN:   | filecheck %s --check-prefix=SMALL
# SMALL: remark: band-accumulators: two stages of the loop's tiles (65536 bytes) are over what pipeline-dots may take (61376 bytes: half of local memory, no more than is free beside the loop's blocks, its result's home of 65536 bytes among them): bands of 128x64 take two stages: the loop runs once per band of 128 rows and 64 columns
# SMALL: lmem_capacity = 126912, lmem_stack = 4096, lmem_peak = 65536,
# SMALL: "scf.for"({{.*}}) {split = "N 128 by 64", ladder = "band-accumulators: two stages
# SMALL: "scf.for"({{.*}}) {pipeline_stages = 2
# SMALL-COUNT-2: "tt.dot"({{.*}}) {accumulator = "engine"
import triton
import triton.language as tl


@triton.jit
def gemm(A, B, C):
    M: tl.constexpr = 128
    N: tl.constexpr = 768
    K: tl.constexpr = 768
    BLOCK_M: tl.constexpr = 128
    BLOCK_N: tl.constexpr = 128
    BLOCK_K: tl.constexpr = 64
    pid = tl.program_id(0)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // grid_n
    pid_n = pid % grid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_idx in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(A + rm[:, None] * K + (k_idx * BLOCK_K + rk)[None, :])
        b = tl.load(B + (k_idx * BLOCK_K + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))
