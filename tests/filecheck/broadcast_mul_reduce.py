# canonicalize: tl.sum(x[:, :, None] * y[None, :, :], axis=1) of fp32 blocks is a tt.dot with exact products
# (Triton's combine pass makes the same rewrite), so the M x K x N product block is never built; with K < 16 it
# stays a reduction.  A `+ acc` after it becomes the dot's accumulator.
# RUN: mtiacc %s --emit=ir -O2 --kernel mm -D K=32 | filecheck %s
# RUN: mtiacc %s --emit=ir -O2 --kernel mm -D K=8 | filecheck %s --check-prefix=SMALL
import triton
import triton.language as tl


@triton.jit
def mm(Z, X, Y, K: tl.constexpr):
    m = tl.arange(0, 32)
    n = tl.arange(0, 16)
    k = tl.arange(0, K)
    x = tl.load(X + m[:, None] * K + k[None, :])
    y = tl.load(Y + k[:, None] * 16 + n[None, :])
    acc = tl.load(Z + m[:, None] * 16 + n[None, :])
    acc += tl.sum(x[:, :, None] * y[None, :, :], axis=1)
    tl.store(Z + m[:, None] * 16 + n[None, :], acc)

# CHECK-LABEL: sym_name = "mm"
# CHECK: %x = "tt.load"
# CHECK: %y = "tt.load"
# CHECK: %acc = "tt.load"
# CHECK-NOT: arith.mulf
# CHECK-NOT: tt.reduce
# CHECK: "tt.dot"(%x, %y, %acc) {input_precision = "ieee"} : (tensor<32x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
# CHECK-NOT: tt.reduce

# SMALL-NOT: tt.dot
# SMALL: "arith.mulf"({{.*}}) : (tensor<32x8x16xf32>, tensor<32x8x16xf32>) -> tensor<32x8x16xf32>
# SMALL-NEXT: "tt.reduce"({{.*}}) {axis = 1, kind = "sum"}
