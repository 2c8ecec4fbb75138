# band-accumulators: a K loop accumulating 256x256 fp32 (2,048 of the engine's 1,024 rows, 256 KiB in local memory)
# beside 256x128 and 128x256 bf16 tiles does not fit a PE's local memory: the loop runs once per band of 128 columns,
# each band's accumulator in the engine, and the store of the result runs on each band.
# RUN: mtiacc %s -s '*bf16,*bf16,*fp32,i32' -D BM=256 -D BN=256 -D BK=128 --emit=ir -O2 --remarks 2>&1 | filecheck %s
# CHECK: band_accumulators.py:26:15: remark: band-accumulators: the loop's `tt.dot` accumulator 256x256 f32 in local memory (it needs 2048 of the engine's 1024 accumulator rows), its tiles and the blocks made of its result take 393216 bytes of local memory, 389056 bytes are free beside the loop: the loop runs once per band of 256 rows and 128 columns, each band's accumulator in the engine (estimated cost: the loop runs 2 times, 65536 bytes of tiles read again per trip of its K loop)
# CHECK: "scf.for"({{.*}}) {split = "N 256 by 128", ladder = "band-accumulators: the accumulator 256x256 f32 in local memory (it needs 2048 of the engine's 1024 accumulator rows), its tiles and results take 393216 bytes, 389056 are free beside the loop: bands of 256x128"
# CHECK: "scf.for"
# CHECK: "tt.dot"({{.*}}accumulator = "engine"{{.*}} : (tensor<256x128xbf16>, tensor<128x128xbf16>, tensor<256x128xf32>) -> tensor<256x128xf32>
# CHECK: "tt.store"({{.*}} : (tensor<256x128x!tt.ptr<f32>>, tensor<256x128xf32>) -> ()
# CHECK-NOT: tensor<256x256xf32>
# RUN: not mtiacc %s -s '*bf16,*bf16,*fp32,i32' -D BM=256 -D BN=256 -D BK=128 --emit=ir -O2 --Werror=spill 2>&1 | filecheck %s --check-prefix=ERR
# ERR: band_accumulators.py:26:15: error: band-accumulators: {{.*}} [--Werror=spill]
import triton
import triton.language as tl


@triton.jit
def mm(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)
