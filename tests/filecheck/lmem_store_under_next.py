# The local-memory plan decides which loop over tiles stores its output tile under the next trip (the loop's
# `store_under_next`), and counts the tile's buffer where codegen puts it: in a loop whose last op stores the f16
# tile the matrix engine's accumulator store writes (`read_back`), the tile takes a buffer of its own, the first
# block of the loop (offset 0 here), for the whole loop and the kernel's end, sized as the f16 tile the engine
# writes (64 x 64 x 2 = 8192 bytes) rather than the fp32 accumulators' 16384; codegen only reads the attribute.
# RUN: mtiacc %s --emit=ir -n tiles -D BLOCK=64 -D BLOCK_K=32 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32,i32' | filecheck %s
# With 32 KiB of local memory the tile still goes under the next trip: the plan with its buffer takes 16384 bytes
# (the tile, one stage of `a` and `b`), where the accumulators' fp32 buffer and the tile beside it (24576 + 8192
# bytes) would not fit.
# RUN: mtiacc %s --emit=ir -n tiles -D BLOCK=64 -D BLOCK_K=32 --set pe.local_memory_bytes=32768 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32,i32' | filecheck %s --check-prefix=SMALL
# A tile that is read again after the accumulators' store (here, added to the stored tile) is no tile stored
# under the next trip: no attribute.
# RUN: mtiacc %s --emit=ir -n twice -D BLOCK=64 -D BLOCK_K=32 \
# RUN:   --signature '*fp16,*fp16,*fp16,i32,i32,i32,i32' | filecheck %s --check-prefix=TWICE
import triton
import triton.language as tl


@triton.jit
def tiles(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    start = tl.program_id(0)
    n_tiles = tl.cdiv(M, BLOCK) * tl.cdiv(N, BLOCK)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // tl.cdiv(N, BLOCK)
        pid_n = tile % tl.cdiv(N, BLOCK)
        offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
        offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))

# CHECK-LABEL: "tt.func"() {sym_name = "tiles"
# CHECK-SAME: lmem_blocks = ["acc 0 8192",
# CHECK: "scf.for"(%start, %n_tiles, %NUM_PROGS) {store_under_next = true,
# CHECK: "arith.truncf"
# CHECK-NEXT: "tt.store"
# CHECK-NEXT: "scf.yield"

# SMALL-LABEL: "tt.func"() {sym_name = "tiles"
# SMALL-SAME: lmem_peak = 16384, lmem_blocks = ["acc 0 8192",
# SMALL: "scf.for"(%start, %n_tiles, %NUM_PROGS) {store_under_next = true,


@triton.jit
def twice(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    start = tl.program_id(0)
    n_tiles = tl.cdiv(M, BLOCK) * tl.cdiv(N, BLOCK)
    for tile in range(start, n_tiles, NUM_PROGS):
        pid_m = tile // tl.cdiv(N, BLOCK)
        pid_n = tile % tl.cdiv(N, BLOCK)
        offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
        offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc)
        c = acc.to(tl.float16)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c + c)

# TWICE-LABEL: "tt.func"() {sym_name = "twice"
# TWICE-NOT: store_under_next = true
# TWICE: "tt.return"
