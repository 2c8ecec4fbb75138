# carry-pointer-offsets: a pointer block advanced in a loop (`ptrs += BLOCK`, the matmul idiom) is carried
# as an integer offset from the loop's first pointer block, so codegen keeps the block as structure (a
# base plus an affine offset).  Every compile runs the pass, first, after inline (even at -O0).
# RUN: mtiacc-ir %s | filecheck %s --check-prefix=BEFORE
# RUN: mtiacc-ir %s --passes=carry-pointer-offsets | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 --print-ir-before=carry-pointer-offsets | filecheck %s --check-prefix=PIPELINE
import triton
import triton.language as tl


@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr = 16):
    ptrs = X + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, N):
        acc += tl.load(ptrs)
        ptrs += BLOCK
    tl.store(Y + tl.arange(0, BLOCK), acc)

# BEFORE: "scf.for"(%{{[0-9]+}}, %N, %{{[0-9]+}}, %acc, %ptrs)
# BEFORE-NEXT: ^bb0(%i: i32, %{{[0-9]+}}: tensor<16xf32>, %[[P:[0-9]+]]: tensor<16x!tt.ptr<f32>>):
# BEFORE: %[[NEXT:[0-9]+]] = "tt.addptr"(%[[P]], %{{[0-9]+}})
# BEFORE: "scf.yield"(%{{[0-9]+}}, %[[NEXT]]) {{.*}} : (tensor<16xf32>, tensor<16x!tt.ptr<f32>>) -> ()

# The loop carries the offset c (from 0); the body rebuilds its pointer block as %ptrs + c.
# CHECK: "arith.constant"() {value = 1} : () -> i32
# CHECK-NEXT: %[[ZERO:[0-9]+]] = "arith.constant"() {value = 0} : () -> i32
# CHECK-NEXT: "scf.for"(%{{[0-9]+}}, %N, %{{[0-9]+}}, %acc, %[[ZERO]])
# CHECK-NEXT: ^bb0(%i: i32, %{{[0-9]+}}: tensor<16xf32>, %[[C:[0-9]+]]: i32):
# CHECK-NEXT: %[[S:[0-9]+]] = "tt.splat"(%[[C]]) : (i32) -> tensor<16xi32>
# CHECK-NEXT: %[[P:[0-9]+]] = "tt.addptr"(%ptrs, %[[S]])
# CHECK-NEXT: "tt.load"(%[[P]])
# CHECK: %[[STEP:[0-9]+]] = "arith.constant"() {value = 16} : () -> i32
# CHECK: %[[NEXT:[0-9]+]] = "arith.addi"(%[[C]], %[[STEP]]) : (i32, i32) -> i32
# CHECK-NEXT: "scf.yield"(%{{[0-9]+}}, %[[NEXT]]) {{.*}} : (tensor<16xf32>, i32) -> ()
# CHECK-NEXT: }) : (i32, i32, i32, tensor<16xf32>, i32) -> (tensor<16xf32>, i32)

# PIPELINE: // -----// IR Dump Before carry-pointer-offsets //----- //
# PIPELINE: ^bb0(%i: i32, %{{[0-9]+}}: tensor<16xf32>, %{{[0-9]+}}: tensor<16x!tt.ptr<f32>>):
# PIPELINE: "builtin.module"
# PIPELINE: ^bb0(%i: i32, %{{[0-9]+}}: tensor<16xf32>, %{{[0-9]+}}: i32):
