# The byte view of a load through pointers to i1 that a loop advances: carry-pointer-offsets carries an
# offset instead of the pointer block, then moves the frontend's tt.bitcast (of the block) to the scalar
# base, so the bytes move as one contiguous DMA per iteration, as an i1 block did, not as a gather.
# RUN: mtiacc %s --emit=ir -O0 -s '*i1,*i32,i32' -D BLOCK=256 | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 -s '*i1,*i32,i32' -D BLOCK=256 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def count_true(X, Y, n, BLOCK: tl.constexpr):
    ptrs = X + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.int32)
    for i in range(0, n, BLOCK):
        acc += tl.load(ptrs).to(tl.int32)
        ptrs += BLOCK
    tl.store(Y + tl.arange(0, BLOCK), acc)

# CHECK-LABEL: sym_name = "count_true"
# CHECK: %[[P8:[0-9]+]] = "tt.bitcast"(%X) : (!tt.ptr<i1>) -> !tt.ptr<i8>
# CHECK: "tt.splat"(%[[P8]]) : (!tt.ptr<i8>) -> tensor<256x!tt.ptr<i8>>
# CHECK-NOT: "tt.bitcast"({{.*}}tensor<256x!tt.ptr<i1>>
# CHECK: "tt.load"({{.*}}) {access = "contiguous", operandSegmentSizes = [1, 0, 0]} : (tensor<256x!tt.ptr<i8>>) -> tensor<256xi8>
# CHECK: "arith.cmpi"({{.*}}) {predicate = "ne"}
