# stream-blocks: Triton's fused softmax with a 131072-element fp32 row (512 KiB) in one program: each reduction is a
# loop over chunks carrying its partial result (arith.maxnumf, arith.addf), the store a loop over chunks, each chunk
# recomputed from the load.
# RUN: mtiacc %s -s '*fp32,*fp32,i32' -D BLOCK=131072 --emit=ir -O2 --remarks 2>&1 | filecheck %s
# CHECK: stream_blocks.py:29:15: remark: stream-blocks: blocks of 131072 elements do not fit in local memory (389056 bytes for blocks): 2 reduction(s) and 1 store(s) computed in chunks of 2048 (estimated cost: 3 pass(es) over the block's loads, each chunk recomputed from them: 1048576 more bytes read from memory)
# CHECK: "scf.for"({{.*}}) {split = "stream 131072 by 2048"
# CHECK: "tt.reduce"({{.*}}) {axis = 0, kind = "max"} : (tensor<2048xf32>) -> f32
# CHECK: "arith.maxnumf"
# CHECK: "scf.for"({{.*}}) {split = "stream 131072 by 2048"
# CHECK: "math.exp"
# CHECK: "tt.reduce"({{.*}}) {axis = 0, kind = "sum"} : (tensor<2048xf32>) -> f32
# CHECK: "arith.addf"
# CHECK: "scf.for"({{.*}}) {split = "stream 131072 by 2048"
# CHECK: "tt.store"({{.*}} : (tensor<2048x!tt.ptr<f32>>, tensor<2048xf32>, tensor<2048xi1>) -> ()
# CHECK-NOT: tensor<131072xf32>
# Rows that fit are left whole:
# RUN: mtiacc %s -s '*fp32,*fp32,i32' -D BLOCK=1024 --emit=ir -O2 --remarks 2>&1 | filecheck %s --check-prefix=FITS
# FITS-NOT: remark
# FITS-NOT: split =
# FITS: "tt.reduce"({{.*}} : (tensor<1024xf32>) -> f32
import triton
import triton.language as tl


@triton.jit
def softmax(Y, X, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.load(X + offs, mask=offs < n, other=-float('inf'))
    z = row - tl.max(row, axis=0)
    e = tl.exp(z)
    tl.store(Y + offs, e / tl.sum(e, axis=0), mask=offs < n)
