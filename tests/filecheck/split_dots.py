# split-dots: a 512x512x512 fp32 tl.dot (1 MiB for each of A, B and the result, 5 MiB with the engine's bf16 parts)
# cannot be in a PE's 384 KiB of local memory; it is computed in 256x128 bands of the result (each its own
# accumulator, in the engine, stored from the band loop), each summing 8 sub-tiles of 64 along K.  The remark names
# the dot and the cost (A read 4 times, B twice); --Werror=spill makes the step an error at the dot.
# RUN: mtiacc %s -s '*fp32,*fp32,*fp32' -D BM=512 -D BN=512 -D BK=512 --emit=ir -O2 --remarks 2>&1 | filecheck %s
# CHECK: split_dots.py:35:9: remark: split-dots: `tt.dot` of 512x512 @ 512x512 f32 needs 5242880 bytes of local memory, 389056 are free beside the blocks live there: split along M into 2 sub-tiles of 256, N into 4 sub-tiles of 128, K into 8 sub-tiles of 64 (estimated cost: 64 sub-dots of 256x64 @ 64x128, 4194304 more bytes read from memory)
# CHECK-NEXT: c = tl.dot(a, b)
# CHECK: "scf.for"({{.*}}) {split = "M 512 by 256"
# CHECK: "scf.for"({{.*}}) {split = "N 512 by 128"
# CHECK: = "scf.for"({{.*}}) {split = "K 512 by 64"
# CHECK: "tt.load"({{.*}}) -> tensor<256x64xf32>
# CHECK: "tt.load"({{.*}}) -> tensor<64x128xf32>
# CHECK: "tt.dot"({{.*}} : (tensor<256x64xf32>, tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
# CHECK: "tt.store"({{.*}} : (tensor<256x128x!tt.ptr<f32>>, tensor<256x128xf32>) -> ()
# CHECK-NOT: tensor<512x512xf32>
# Blocks that fit are left as they are, and nothing is said.
# RUN: mtiacc %s -s '*fp32,*fp32,*fp32' -D BM=64 -D BN=64 -D BK=64 --emit=ir -O2 --remarks 2>&1 | filecheck %s --check-prefix=FITS
# FITS-NOT: remark
# FITS-NOT: split =
# FITS: "tt.dot"({{.*}}) -> tensor<64x64xf32>
# RUN: not mtiacc %s -s '*fp32,*fp32,*fp32' -D BM=512 -D BN=512 -D BK=512 --emit=ir -O2 --Werror=spill 2>&1 | filecheck %s --check-prefix=ERR
# ERR: split_dots.py:35:9: error: split-dots: `tt.dot` of 512x512 @ 512x512 f32 needs {{.*}} [--Werror=spill]
# ERR-NOT: Traceback
import triton
import triton.language as tl


@triton.jit
def gemm(A, B, C, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * BK + rk[None, :])
    b = tl.load(B + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)
    tl.store(C + rm[:, None] * BN + rn[None, :], c)
