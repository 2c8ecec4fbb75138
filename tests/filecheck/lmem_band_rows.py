# band-accumulators at small local memories (the local-memory ladder), tests/opt/test_lmem_sweep.py runs them:
# * 96 KiB, fp16 256 x 128 x 64 tiles: the engine holds the 256 x 128 accumulator across the K loop, but the loop's
#   result has a home in local memory (128 KiB of fp32, from before the loop) beside the tiles: the loop runs once
#   per band of 64 rows (a band of rows re-reads B, 16 KiB a trip, cheaper than a band of columns re-reading A), and
#   the band loop's ladder attribute says why; the K loop keeps the carried pointer offsets as they were.
# RUN: mtiacc %s -n gemm -s '*fp16,*fp16,*fp16,i32,i32,i32' -D BM=256 -D BN=128 -D BK=64 -D GROUP=4 -D PREC="'ieee'" \
# RUN:   --set pe.local_memory_bytes=98304 --emit=ir --remarks 2>&1 | filecheck %s
# CHECK: lmem_band_rows.py:54:15: remark: band-accumulators: the loop's `tt.dot` accumulator 256x128 f32 in the engine (its result's home in local memory), its tiles and the blocks made of its result take 245760 bytes of local memory, 94144 bytes are free beside the loop: the loop runs once per band of 64 rows and 128 columns, each band's accumulator in the engine (estimated cost: the loop runs 4 times, 49152 bytes of tiles read again per trip of its K loop)
# CHECK: lmem_capacity = 94144, lmem_stack = 4096, lmem_peak = 65600
# CHECK: "scf.for"({{.*}}) {split = "M 256 by 64", ladder = "band-accumulators: the accumulator 256x128 f32 in the engine (its result's home in local memory), its tiles and results take 245760 bytes, 94144 are free beside the loop: bands of 64x128"
# CHECK: "tt.dot"({{.*}}) {accumulator = "engine"} : (tensor<64x64xf16>, tensor<64x128xf16>, tensor<64x128xf32>) -> tensor<64x128xf32>
# CHECK: "tt.store"({{.*}}) {{{.*}}} : (tensor<64x128x!tt.ptr<f16>>, tensor<64x128xf16>, tensor<64x128xi1>) -> ()
# CHECK-NOT: tensor<256x128xf32>
# * 192 KiB, fp32 128 x 128 x 64 tiles with exact products (input_precision="ieee": the vector unit computes the dot,
#   its accumulator and its result are two 64 KiB buffers beside 64 KiB of tiles): bands of 64 columns.
# RUN: mtiacc %s -n gemm -s '*fp32,*fp32,*fp32,i32,i32,i32' -D BM=128 -D BN=128 -D BK=64 -D GROUP=4 -D PREC="'ieee'" \
# RUN:   --set pe.local_memory_bytes=196608 --emit=ir --remarks 2>&1 | filecheck %s --check-prefix=F32
# F32: remark: band-accumulators: the loop's `tt.dot` accumulator 128x128 f32 in local memory (the vector unit's exact products), its tiles and the blocks made of its result take 196608 bytes of local memory, 192448 bytes are free beside the loop: the loop runs once per band of 128 rows and 64 columns, each band's accumulator in local memory
# F32: lmem_capacity = 192448, lmem_stack = 4096, lmem_peak = 163840
# F32: "scf.for"({{.*}}) {split = "N 128 by 64", ladder = "band-accumulators: {{.*}}: bands of 128x64"
# F32: "tt.dot"({{.*}}) {input_precision = "ieee"} : (tensor<128x64xf32>, tensor<64x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
# F32-NOT: tensor<128x128xf32>
# At the machine's 384 KiB the tile fits: no band.
# RUN: mtiacc %s -n gemm -s '*fp16,*fp16,*fp16,i32,i32,i32' -D BM=256 -D BN=128 -D BK=64 -D GROUP=4 -D PREC="'ieee'" \
# RUN:   --emit=ir --remarks 2>&1 | filecheck %s --check-prefix=BIG
# BIG-NOT: remark: band-accumulators
# BIG-NOT: ladder =
# BIG: "tt.dot"({{.*}}) {{{.*}}} : (tensor<256x64xf16>, tensor<64x128xf16>, tensor<256x128xf32>) -> tensor<256x128xf32>
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
         GROUP: tl.constexpr, PREC: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    in_group = GROUP * tiles_n
    first_m = (pid // in_group) * GROUP
    rows_here = min(tiles_m - first_m, GROUP)
    tile_m = first_m + (pid % in_group) % rows_here
    tile_n = (pid % in_group) // rows_here
    rm = (tile_m * BM + tl.arange(0, BM)) % M
    rn = (tile_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a_ptr + rm[:, None] * K + rk[None, :]
    pb = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a = tl.load(pa, mask=rk[None, :] < left, other=0.0)
        b = tl.load(pb, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PREC)
        pa += BK
        pb += BK * N
    om = tile_m * BM + tl.arange(0, BM)
    on = tile_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + om[:, None] * N + on[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(om[:, None] < M) & (on[None, :] < N))
