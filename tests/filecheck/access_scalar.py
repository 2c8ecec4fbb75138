# access-plan `scalar`: a load or store through a scalar pointer (one element through a slot in local
# memory), masked or not.
# RUN: mtiacc %s --emit=ir -O2 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def scalars(X, Y, n):
    pid = tl.program_id(0)
    v = tl.load(X + pid, mask=pid < n, other=1.0)
    w = tl.load(X)
    tl.store(Y + pid, v * w)

# CHECK-LABEL: sym_name = "scalars"
# CHECK: %v = "tt.load"(%{{.+}}) {access = "scalar", operandSegmentSizes = [1, 1, 1]} : (!tt.ptr<f32>, i1, f32) -> f32
# CHECK: %w = "tt.load"(%X) {access = "scalar", operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<f32>) -> f32
# CHECK: "tt.store"(%{{.+}}) {access = "scalar", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<f32>, f32) -> ()
