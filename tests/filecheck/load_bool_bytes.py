# A load through a pointer to i1 reads bytes, as Triton does: the pointer parameter is bitcast to a pointer to
# i8 (once, before its splat and offsets, so the access plan still sees a contiguous block), the bytes are
# loaded (`other` widened to a byte) and each is compared with zero: a byte other than 0 or 1 is true.
# RUN: mtiacc %s --emit=ir -O0 -s '*i1,*i1,*fp32,i32' -D BLOCK=64 | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 -s '*i1,*i1,*fp32,i32' -D BLOCK=64 | filecheck %s --check-prefix=O3
import triton
import triton.language as tl


@triton.jit
def load_bools(M, F, Y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = tl.load(M + offs, mask=offs < n, other=True)
    flag = tl.load(F)
    tl.store(Y + offs, tl.where(m & flag, 1.0, 2.0), mask=offs < n)

# CHECK-LABEL: sym_name = "load_bools"
# CHECK: %[[P8:[0-9]+]] = "tt.bitcast"(%M) : (!tt.ptr<i1>) -> !tt.ptr<i8>
# CHECK: %[[S:[0-9]+]] = "tt.splat"(%[[P8]]) : (!tt.ptr<i8>) -> tensor<64x!tt.ptr<i8>>
# CHECK: %[[A:[0-9]+]] = "tt.addptr"(%[[S]], %offs)
# CHECK: %[[O:[0-9]+]] = "arith.extui"(%{{[0-9]+}}) : (tensor<64xi1>) -> tensor<64xi8>
# CHECK: %[[B:[0-9]+]] = "tt.load"(%[[A]], %{{[0-9a-z]+}}, %[[O]]) {access = "contiguous", operandSegmentSizes = [1, 1, 1]} : {{.*}} -> tensor<64xi8>
# CHECK: %[[Z:[0-9]+]] = "tt.splat"(%{{[0-9]+}}) : (i8) -> tensor<64xi8>
# CHECK: %m = "arith.cmpi"(%[[B]], %[[Z]]) {predicate = "ne"} : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi1>
# CHECK: %[[F8:[0-9]+]] = "tt.bitcast"(%F) : (!tt.ptr<i1>) -> !tt.ptr<i8>
# CHECK: %[[FB:[0-9]+]] = "tt.load"(%[[F8]]) {access = "scalar", operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<i8>) -> i8
# CHECK: %flag = "arith.cmpi"(%[[FB]], %{{[0-9]+}}) {predicate = "ne"} : (i8, i8) -> i1

# O3-LABEL: sym_name = "load_bools"
# O3: "tt.bitcast"(%M) : (!tt.ptr<i1>) -> !tt.ptr<i8>
# O3: "tt.load"({{.*}}) {access = "contiguous", {{.*}} -> tensor<64xi8>
# O3: "arith.cmpi"({{.*}}) {predicate = "ne"} : (i8, i8) -> i1
