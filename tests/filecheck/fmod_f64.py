# float64 `%` (C fmod) is exact: the significands' remainder is taken in u64, the power of two of the exponent
# difference applied 11 bits at a time in an scf.for whose trip count is the block's largest difference / 11.
# RUN: mtiacc %s --emit=ir -O0 --signature '*fp64,*fp64,*fp64' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def fmod64(X, Z, Y):
    offs = tl.arange(0, 16)
    tl.store(Y + offs, tl.load(X + offs) % tl.load(Z + offs))

# CHECK-LABEL: sym_name = "fmod64"
# CHECK: %[[R0:.+]] = "arith.remui"(%{{.+}}, %[[MY:.+]]) : (tensor<16xu64>, tensor<16xu64>) -> tensor<16xu64>
# CHECK: %[[DMAX:.+]] = "tt.reduce"(%[[D:.+]]) {axis = 0, kind = "max"} : (tensor<16xi32>) -> i32
# CHECK: "arith.divsi"
# CHECK: "scf.for"({{.*}}, %[[R0]], %[[D]])
# CHECK: %[[SH:.+]] = "arith.shli"(%r, %{{.+}}) : (tensor<16xu64>, tensor<16xu64>) -> tensor<16xu64>
# CHECK: "arith.remui"(%[[SH]], %[[MY]])
# CHECK: "scf.yield"
